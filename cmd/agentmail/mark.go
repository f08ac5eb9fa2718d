package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type markOptions struct {
	scoped
	req service.MarkRequest
}

// newMarkCommand is read, or with ack, ack.
func newMarkCommand(e *env, ack bool) *cli.Command {
	name, usage, all := "read", "mark messages read", "every unread message in your inbox"
	if ack {
		name, usage, all = "ack", "acknowledge messages (marks them read too)", "every message in your inbox that asks for an acknowledgement, read or not"
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "ID... | --all",
		Description: "Records the time on the acting agent's receipt; running it again keeps the first time.\n" +
			"IDs may be prefixes of 6 or more characters.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: all}},
		Action: scopedAction(e, func(c *cli.Context) (*markOptions, error) {
			return &markOptions{req: service.MarkRequest{IDs: c.Args().Slice(), All: c.Bool("all"), Ack: ack}}, nil
		}, runMark),
	}
}

func runMark(ctx context.Context, o *markOptions) error {
	o.req.Abbreviate = !o.JSON
	resp, err := o.Service.Mark(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		verb := map[bool]string{false: "read", true: "acknowledged"}[o.req.Ack]
		if len(resp.Messages) == 0 {
			fmt.Fprintln(o.Stdout, "nothing to mark")
		}
		for _, m := range resp.Messages {
			fmt.Fprintf(o.Stdout, "%s %s  %s\n", verb, resp.Short.Of(m.ID), o.esc.line(m.Subject))
		}
		return nil
	})
}
