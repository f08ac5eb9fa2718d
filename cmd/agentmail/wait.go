package main

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type waitOptions struct {
	scoped
	req  service.WaitRequest
	work bool
}

func newWaitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "block until new mail arrives, with --topic a post to a channel, with --work a ready task (exit 4 on timeout)",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "give up after this long (exit 4)"},
			&cli.StringFlag{Name: "thread", Usage: "only mail in this thread"},
			&cli.StringFlag{Name: "from", Usage: "only mail from this agent"},
			&cli.BoolFlag{Name: "urgent", Usage: "only high and urgent mail"},
			&cli.StringFlag{Name: "topic", Usage: "instead, the next unread post to channel `NAME` (as agentmail poll, which marks it read)"},
			&cli.BoolFlag{Name: "work", Usage: "wait for ready work instead of mail: print it as work does (returns at once when some is ready)"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *waitOptions {
			return &waitOptions{req: service.WaitRequest{Timeout: c.Duration("timeout"), Thread: c.String("thread"), From: c.String("from"), Urgent: c.Bool("urgent"), Topic: c.String("topic")},
				work: c.Bool("work")}
		}), runWait),
	}
}

func runWait(ctx context.Context, o *waitOptions) error {
	if o.work {
		return runWaitWork(ctx, o)
	}
	resp, err := o.Service.Wait(ctx, o.Scope, o.req)
	if done, err := o.waited(resp, resp.Timeout, err); done {
		return err
	}
	if c := resp.Control; c != nil {
		var st service.Steering
		switch {
		case !c.InterruptAt.IsZero() && !c.InterruptAt.Before(c.PauseAt.Time):
			st.Interrupt = c
		case c.Paused:
			st.Paused = c
		default:
			fmt.Fprintf(o.Stdout, "RESUMED by %s\n", o.esc.line(c.PauseBy))
		}
		for _, l := range o.steeringLines(st) {
			fmt.Fprintln(o.Stdout, l)
		}
		return nil
	}
	o.printMessages(resp.Messages, o.now(), false)
	return nil
}

// runWaitWork is wait --work: block until a task is ready, print work's
// answer.
func runWaitWork(ctx context.Context, o *waitOptions) error {
	if o.req.Thread != "" || o.req.From != "" || o.req.Urgent || o.req.Topic != "" {
		return usagef("wait for mail and for work in two commands", "--work waits for tasks; --thread, --from, --urgent and --topic choose mail")
	}
	resp, err := o.Service.WaitWork(ctx, o.Scope, o.req.Timeout, 0)
	if done, err := o.waited(resp, resp.Timeout, err); done {
		return err
	}
	return taskOptions{scoped: o.scoped}.printWork(ctx, resp.WorkResponse)
}
