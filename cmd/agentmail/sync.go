package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type syncOptions struct {
	scoped
	req      service.SyncRequest
	watch    bool
	interval time.Duration
}

func newSyncCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange the project's mail with its git remote",
		ArgsUsage: " ",
		Description: "Fetches the project's mailbox branch from the remote (the repository's origin by default,\n" +
			"under refs/agentmail/, which no branch list shows), merges it into the local one without\n" +
			"conflicts, and pushes the result. The system git does the transport, so your ssh keys,\n" +
			"credential helpers and insteadOf apply. --remote URL is remembered for the project.\n" +
			"With --watch it syncs every --interval until interrupted, a line per round (with --json, one\n" +
			"document per line); a round that fails is reported and the next waits longer, up to 16 intervals.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Usage: "sync with this git `URL` (remembered) instead of origin"},
			&cli.BoolFlag{Name: "status", Usage: "show the remote, ahead/behind as last seen and the last sync, without the network"},
			&cli.BoolFlag{Name: "watch", Usage: "sync every --interval until interrupted (SIGINT, SIGTERM)"},
			&cli.DurationFlag{Name: "interval", Value: 5 * time.Second, Usage: "how often --watch syncs"},
		},
		Action: scopedAction(e, func(c *cli.Context) (*syncOptions, error) {
			o := &syncOptions{req: service.SyncRequest{Remote: c.String("remote"), Status: c.Bool("status")},
				watch: c.Bool("watch"), interval: c.Duration("interval")}
			if o.watch && o.req.Status {
				return nil, service.Usagef("agentmail sync --watch, or agentmail sync --status", "--watch and --status do not go together")
			}
			if c.IsSet("interval") && !o.watch {
				return nil, service.Usagef("agentmail sync --watch --interval 5s", "--interval is for --watch")
			}
			return o, noArgs(c)
		}, runSync),
	}
}

func runSync(ctx context.Context, o *syncOptions) error {
	if o.watch {
		return o.runWatch(ctx)
	}
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

// runWatch syncs every interval until SIGINT or SIGTERM, a line per round
// on stdout (a compact JSON document with --json), a failed round's error
// on stderr. An interrupted watch exits 0.
func (o *syncOptions) runWatch(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := o.Service.SyncEvery(ctx, o.Scope, o.req, o.interval, func(resp service.SyncResponse, err error) {
		if err != nil {
			fmt.Fprintln(o.Stderr, errorLine(service.Describe(err), o.JSON))
			return
		}
		if o.JSON {
			enc := json.NewEncoder(o.Stdout) // one line per document
			enc.SetEscapeHTML(false)
			enc.Encode(resp)
			return
		}
		fmt.Fprintf(o.Stdout, "%s  in %d  out %d\n", o.now().Local().Format(time.TimeOnly), resp.In, resp.Out)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}
