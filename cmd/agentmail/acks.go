package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func newAcksCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "acks",
		Usage:       "acknowledgements: what you owe, and what others owe you",
		Subcommands: []*cli.Command{newAcksPendingCommand(e), newAcksOverdueCommand(e)},
	}
}

type acksPendingOptions struct{ scoped }

func newAcksPendingCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "pending", Usage: "messages asking for your acknowledgement", ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *acksPendingOptions { return &acksPendingOptions{} }), runAcksPending),
	}
}

func runAcksPending(ctx context.Context, o *acksPendingOptions) error {
	resp, err := o.Service.PendingAcks(ctx, o.Scope, !o.JSON)
	return o.render(resp, err, func() error {
		if len(resp.Messages) == 0 {
			fmt.Fprintln(o.Stdout, "nothing awaits your acknowledgement")
			return nil
		}
		messageTable(o.Stdout, mapSlice(resp.Messages, o.esc.received), resp.Short, o.now(), true)
		return nil
	})
}

type acksOverdueOptions struct {
	scoped
	req service.OverdueRequest
}

func newAcksOverdueCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "overdue", Usage: "messages you sent that still wait for someone's acknowledgement", ArgsUsage: " ",
		Flags: []cli.Flag{&cli.DurationFlag{Name: "older", Value: time.Hour, Usage: "only messages sent longer ago than this"}},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *acksOverdueOptions {
			return &acksOverdueOptions{req: service.OverdueRequest{Older: c.Duration("older")}}
		}), runAcksOverdue),
	}
}

func runAcksOverdue(ctx context.Context, o *acksOverdueOptions) error {
	o.req.Abbreviate = !o.JSON
	resp, err := o.Service.OverdueAcks(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		if len(resp.Messages) == 0 {
			fmt.Fprintln(o.Stdout, "no overdue acknowledgements")
			return nil
		}
		now := o.now()
		rows := make([][]string, len(resp.Messages))
		for i, m := range resp.Messages {
			rows[i] = []string{resp.Short.Of(m.ID), truncate(o.esc.line(m.Subject), 40), ago(m.Created.Time, now), strings.Join(o.esc.lines(m.WaitingFor), ",")}
		}
		table(o.Stdout, "ID\tSUBJECT\tSENT\tWAITING FOR", rows)
		return nil
	})
}
