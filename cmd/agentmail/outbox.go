package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type outboxOptions struct {
	scoped
	req service.OutboxRequest
}

func newOutboxCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "outbox",
		Usage:     "list messages you sent, newest first",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: service.DefaultListLimit, Usage: "at most `N` messages (0: all)"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *outboxOptions {
			return &outboxOptions{req: service.OutboxRequest{Limit: c.Int("limit")}}
		}), runOutbox),
	}
}

func runOutbox(ctx context.Context, o *outboxOptions) error {
	o.req.Abbreviate = !o.JSON
	resp, err := o.Service.Outbox(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		if len(resp.Messages) == 0 {
			fmt.Fprintln(o.Stdout, "no messages")
			return nil
		}
		messageTable(o.Stdout, mapSlice(resp.Received, o.esc.received), resp.Short, o.now(), false)
		return nil
	})
}
