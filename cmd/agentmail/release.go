package main

import (
	"context"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type releaseOptions struct {
	scoped
	sel     service.Selection
	force   bool   // another agent's reservation, sel.IDs[0]
	reason  string // why, for force
	asHuman bool   // force as the human overseer
}

func newReleaseCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "release",
		Usage:     "end your reservations (or, with --force, a stale one of another agent)",
		ArgsUsage: "[PATTERN...]",
		Description: "Releases the named reservations, by pattern or --id, or --all of yours.\n" +
			"release --force ID --reason R takes another agent's reservation, only once it has expired or its\n" +
			"holder has been silent for 30 minutes; the holder gets a message saying who and why.\n" +
			"With --as-human the overseer (Human) does it, with no agent of its own.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "release another agent's expired or stale reservation (needs --id and --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "why, for --force"},
			&cli.BoolFlag{Name: "as-human", Usage: "with --force: as the human overseer (Human), no agent needed"},
		}, selectionFlags()...),
		Action: scopedAction(e, func(c *cli.Context) (*releaseOptions, error) {
			o := &releaseOptions{sel: selection(c), force: c.Bool("force"), reason: c.String("reason"), asHuman: c.Bool("as-human")}
			if o.asHuman && !o.force {
				return nil, usagef("agentmail release --force --as-human --id ID --reason R", "--as-human goes with --force: the overseer holds no reservations")
			}
			if o.force && (len(o.sel.IDs) != 1 || len(o.sel.Patterns) > 0) {
				return nil, usagef("agentmail release --force --id ID --reason R", "--force takes exactly one --id")
			}
			return o, nil
		}, runRelease),
	}
}

func runRelease(ctx context.Context, o *releaseOptions) error {
	var resp service.ReleaseResponse
	var err error
	if o.force {
		resp, err = o.Service.ForceRelease(ctx, o.Scope, service.ForceReleaseRequest{ID: o.sel.IDs[0], Reason: o.reason, AsHuman: o.asHuman})
	} else {
		resp, err = o.Service.Release(ctx, o.Scope, o.sel)
	}
	return o.render(resp, err, func() error { return o.reservationsDone("released", resp.Released) })
}
