package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type inboxOptions struct {
	scoped
	req     service.InboxRequest
	product string
}

func newInboxCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "inbox",
		Usage:     "list messages you received, newest first",
		ArgsUsage: " ",
		Description: "Lists the acting agent's mail without changing its state; unread messages are marked with *.\n" +
			"Mark them with `agentmail read ID` or `agentmail ack ID`.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "unread", Aliases: []string{"u"}, Usage: "only unread messages"},
			&cli.BoolFlag{Name: "urgent", Usage: "only high and urgent messages"},
			&cli.StringFlag{Name: "category", Usage: "only messages of this category"},
			&cli.StringFlag{Name: "topic", Usage: "only messages of topic `NAME` (posts to it are no inbox's: agentmail topic show NAME lists them)"},
			&cli.StringFlag{Name: "since", Usage: "only messages since `WHEN`: a date (2026-11-01), RFC 3339 time, or duration ago (2h, 3d)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: service.DefaultListLimit, Usage: "at most `N` messages (0: all)"},
			&cli.BoolFlag{Name: "bodies", Usage: "include bodies"},
			&cli.StringFlag{Name: "product", Usage: "your mail in every project of product `NAME` where you are registered"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *inboxOptions {
			return &inboxOptions{req: service.InboxRequest{
				Unread: c.Bool("unread"), Urgent: c.Bool("urgent"), Category: c.String("category"),
				Since: c.String("since"), Limit: c.Int("limit"), Bodies: c.Bool("bodies"), Topic: c.String("topic"),
			}, product: c.String("product")}
		}), runInbox),
	}
}

func runInbox(ctx context.Context, o *inboxOptions) error {
	if o.product != "" {
		resp, err := o.Service.ProductInbox(ctx, o.Scope.Agent, o.product, o.req)
		return o.render(resp, err, func() error {
			if len(resp.Messages) == 0 {
				fmt.Fprintln(o.Stdout, "no messages")
				return nil
			}
			now := o.now()
			for _, m := range resp.Messages {
				unread := " "
				if m.ReadAt.IsZero() {
					unread = "*"
				}
				fmt.Fprintf(o.Stdout, "%s %s  %s  %-14s %s  (%s)\n", unread, o.esc.line(m.Project), m.ID, o.esc.line(m.From), o.esc.line(m.Subject), ago(m.Created.Time, now))
				if m.Body != nil {
					fmt.Fprintln(o.Stdout, o.esc.text(*m.Body))
				}
			}
			return nil
		})
	}
	o.req.Abbreviate = !o.JSON && !o.req.Bodies
	resp, err := o.Service.Inbox(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		defer o.printPosts(resp)
		if len(resp.Messages) == 0 {
			fmt.Fprintln(o.Stdout, "no messages")
			return nil
		}
		if o.req.Bodies {
			o.printMessages(mapSlice(resp.Messages, func(m service.InboxMessage) service.FullMessage {
				return service.FullMessage{Received: m.Received, Body: *m.Body}
			}), o.now(), false)
			return nil
		}
		received := mapSlice(resp.Messages, func(m service.InboxMessage) service.Received { return o.esc.received(m.Received) })
		messageTable(o.Stdout, received, resp.Short, o.now(), true)
		return nil
	})
}

// printPosts lists the unread posts of the agent's channels after its
// inbox.
func (o *inboxOptions) printPosts(resp service.InboxResponse) {
	if len(resp.Posts) == 0 {
		return
	}
	fmt.Fprintf(o.Stdout, "\n%s in your channels (agentmail read ID, or poll CHANNEL):\n", count(len(resp.Posts), "new post", "new posts"))
	now := o.now()
	for _, m := range resp.Posts {
		m = o.esc.message(m)
		fmt.Fprintf(o.Stdout, "  %s  #%s  %-14s %s  (%s)\n", resp.Short.Of(m.ID), m.Topic, m.From, truncate(m.Subject, 60), ago(m.Created.Time, now))
	}
}
