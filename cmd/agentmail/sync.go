package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type syncOptions struct {
	scoped
	req service.SyncRequest
}

func newSyncCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange the project's mail with its git remote",
		ArgsUsage: " ",
		Description: "Fetches the project's mailbox branch from the remote (the repository's origin by default,\n" +
			"under refs/agentmail/, which no branch list shows), merges it into the local one without\n" +
			"conflicts, and pushes the result. The system git does the transport, so your ssh keys,\n" +
			"credential helpers and insteadOf apply. --remote URL is remembered for the project.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "sync with this git `URL` (remembered) instead of origin"},
			&cli.BoolFlag{Name: "status", Usage: "show the remote, ahead/behind as last seen and the last sync, without the network"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *syncOptions {
			return &syncOptions{req: service.SyncRequest{Remote: c.String("remote"), Status: c.Bool("status")}}
		}), runSync),
	}
}

func runSync(ctx context.Context, o *syncOptions) error {
	resp, err := o.Service.Sync(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "remote  %s (%s)\n", resp.Remote, resp.Ref)
		if !o.req.Status {
			fmt.Fprintf(o.Stdout, "in      %d commits\nout     %d commits\n", resp.In, resp.Out)
			return nil
		}
		fmt.Fprintf(o.Stdout, "ahead   %d\nbehind  %d\n", resp.Ahead, resp.Behind)
		if resp.LastSync == nil {
			fmt.Fprintln(o.Stdout, "last    never")
		} else {
			fmt.Fprintf(o.Stdout, "last    %s\n", resp.LastSync.Format("2006-01-02 15:04:05Z07:00"))
		}
		return nil
	})
}
