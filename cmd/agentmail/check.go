package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type checkOptions struct {
	scoped
	exitCode bool // exit 1 when something waits
}

func newCheckCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "anything for me? silent when no mail, contact request or ready work waits (for an agent's per-step hook)",
		ArgsUsage: " ",
		Description: "Prints nothing and exits 0 when there is no unread mail, no contact request waiting for\n" +
			"your answer and no ready task while you hold none; otherwise one summary line, the newest unread\n" +
			"subjects, a line about contact requests and one about ready work, then the new posts of the\n" +
			"channels you subscribe to. With --json, always a document.\n" +
			"--exit-code also exits 1 when something waits, for hooks that branch on it. --hook is for an\n" +
			"editor's prompt hook, where exit 2 blocks the prompt (Claude Code): an error that would exit 2 (a bad AGENTMAIL_IDLE_AFTER, say) exits 1, shown but not blocking.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "exit-code", Usage: "exit 1 when unread mail, a contact request or ready work waits, 0 when nothing does"},
			&cli.BoolFlag{Name: "hook", Usage: "never exit 2 (which blocks the prompt of a Claude Code hook): usage errors exit 1"},
		},
		Action: func(c *cli.Context) error {
			err := scopedAction(e, noArgsOptions(func(c *cli.Context) *checkOptions {
				return &checkOptions{exitCode: c.Bool("exit-code")}
			}), runCheck)(c)
			if c.Bool("hook") {
				return service.PlainUsage(err)
			}
			return err
		},
	}
}

func runCheck(ctx context.Context, o *checkOptions) error {
	resp, err := o.Service.Check(ctx, o.Scope, service.CheckRequest{Newest: service.DefaultCheckNewest, Abbreviate: !o.JSON})
	if err != nil {
		return err
	}
	o.warnHooks(resp.HooksWarning)
	var waiting error // --exit-code: exit 1, with nothing more to say
	if o.exitCode && resp.Waiting() {
		waiting = exitStatus(exitError)
	}
	if o.JSON {
		if err := o.printJSON(resp); err != nil {
			return err
		}
		return waiting
	}
	err = o.buffered(func(w io.Writer) {
		for _, l := range o.steeringLines(resp.Steering) {
			fmt.Fprintln(w, l)
		}
		if resp.Unread > 0 {
			fmt.Fprintf(w, "%d unread (%d urgent, %d awaiting your ack): agentmail inbox --unread\n", resp.Unread, resp.Urgent, resp.AwaitingAck)
		}
		for _, m := range resp.Messages {
			m = o.esc.message(m)
			fmt.Fprintf(w, "  %s  %s: %s\n", resp.Short.Of(m.ID), m.From, truncate(m.Subject, 60))
		}
		if resp.Posts > 0 {
			fmt.Fprintf(w, "%s in your channels: agentmail poll CHANNEL, or agentmail read ID\n", count(resp.Posts, "new post", "new posts"))
		}
		for _, m := range resp.NewPosts {
			m = o.esc.message(m)
			fmt.Fprintf(w, "  %s  #%s %s: %s\n", resp.Short.Of(m.ID), m.Topic, m.From, truncate(m.Subject, 60))
		}
		for _, a := range resp.Stuck {
			fmt.Fprintf(w, "%s is stuck%s\n", o.esc.line(a.Agent), noteSuffix(o.esc.line(a.Note)))
		}
		if r := resp.RulesChanged; r != nil {
			fmt.Fprintf(w, "the project's rules for you changed (version %s): agentmail rules show\n", r.Version)
		}
		if resp.ContactRequests > 0 {
			fmt.Fprintf(w, "%d contact %s waiting for your answer: agentmail contacts list\n", resp.ContactRequests, plural(resp.ContactRequests, "request", "requests"))
		}
		if resp.ReadyTasks > 0 {
			fmt.Fprintf(w, "%s ready and you hold none: agentmail work\n", readyCount(resp.ReadyTasks))
		}
	})
	if err != nil {
		return err
	}
	return waiting
}

// readyCount words check's count of ready tasks, which stops at 100.
func readyCount(n int) string {
	switch {
	case n >= 100:
		return "100+ tasks"
	case n == 1:
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}
