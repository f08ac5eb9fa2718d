package main

import (
	"context"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type replyOptions struct {
	scoped
	req service.ReplyRequest
}

func newReplyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "reply",
		Usage:     "reply to a message in its thread",
		ArgsUsage: "ID",
		Description: "Replies to the sender of message ID (a prefix of 6+ characters is enough), in the same thread,\n" +
			"with \"Re: \" added once and the original's importance (not its ack request). --all also copies every other\n" +
			"recipient; a message from Human goes back to Human. --as-human replies as the human overseer (no agent\n" +
			"needed; any message of the project). The body is --body TEXT, --body-file FILE, or --body-file - (standard input).",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "reply to the sender and all recipients"},
			&cli.BoolFlag{Name: "as-human", Usage: "reply as the human overseer (sender Human): no agent needed"},
			&cli.DurationFlag{Name: "hold", Usage: "ask a sender waiting with send --wait to wait this much longer (\"checking logs\")"},
			idempotencyFlag(),
		}, bodyFlags()...),
		Action: scopedAction(e, func(c *cli.Context) (*replyOptions, error) {
			id, err := oneArg(c, "ID")
			if err != nil {
				return nil, err
			}
			body, err := e.readBody(c)
			if err != nil {
				return nil, err
			}
			return &replyOptions{req: service.ReplyRequest{ID: id, All: c.Bool("all"), Body: body, Hold: c.Duration("hold"),
				AsHuman: c.Bool("as-human"), IdempotencyKey: c.String("idempotency-key")}}, nil
		}, runReply),
	}
}

func runReply(ctx context.Context, o *replyOptions) error {
	resp, err := o.Service.Reply(ctx, o.Scope, o.req)
	if err != nil {
		return err
	}
	return o.sent(resp.Message)
}
