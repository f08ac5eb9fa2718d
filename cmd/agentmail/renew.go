package main

import (
	"context"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type renewOptions struct {
	scoped
	req service.RenewRequest
}

func newRenewCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "renew",
		Usage:     "extend your active reservations",
		ArgsUsage: "[PATTERN...]",
		Description: "Extends the named reservations (all of yours when none are named). An expired reservation\n" +
			"cannot be renewed: reserve it again.",
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "extend", Value: service.DefaultRenewExtend, Usage: "how much longer"},
			&cli.BoolFlag{Name: "offline", Usage: "renew here without the remote, unconfirmed until the next sync"},
		}, selectionFlags()...),
		Action: scopedAction(e, func(c *cli.Context) (*renewOptions, error) {
			return &renewOptions{req: service.RenewRequest{Selection: selection(c), Extend: c.Duration("extend"), Offline: c.Bool("offline")}}, nil
		}, runRenew),
	}
}

func runRenew(ctx context.Context, o *renewOptions) error {
	resp, err := o.Service.Renew(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		return o.reservationsDone("renewed", resp.Renewed)
	})
}
