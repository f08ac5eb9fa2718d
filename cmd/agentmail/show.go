package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type showOptions struct {
	scoped
	id string
}

func newShowCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print one message with its body (does not mark it read)",
		ArgsUsage: "ID",
		Action: scopedAction(e, func(c *cli.Context) (*showOptions, error) {
			id, err := oneArg(c, "ID")
			return &showOptions{id: id}, err
		}, runShow),
	}
}

func runShow(ctx context.Context, o *showOptions) error {
	resp, err := o.Service.Show(ctx, o.Scope, o.id)
	return o.render(resp, err, func() error {
		o.printMessage(resp.Message, o.now())
		return nil
	})
}

func newReceiptCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "receipt",
		Usage:     "when a message reached each recipient, and when each read and acknowledged it",
		ArgsUsage: "ID",
		Description: "For a message you sent or received (without --agent: any message of the project). A recipient\n" +
			"sees the other recipients but the bcc ones.",
		Action: scopedAction(e, func(c *cli.Context) (*showOptions, error) {
			id, err := oneArg(c, "ID")
			return &showOptions{id: id}, err
		}, func(ctx context.Context, o *showOptions) error {
			resp, err := o.Service.DeliveryReceipt(ctx, o.Scope, o.id)
			return o.render(resp, err, func() error {
				now := o.now()
				fmt.Fprintf(o.Stdout, "%s %s, delivered %s\n", resp.MessageID, o.esc.line(resp.Message.Subject), ago(resp.PersistedAt.Time, now))
				for _, r := range resp.Recipients {
					state := "unread"
					switch {
					case r.Acknowledged:
						state = "acknowledged " + ago(r.AckedAt.Time, now)
					case r.Read:
						state = "read " + ago(r.ReadAt.Time, now)
					}
					fmt.Fprintf(o.Stdout, "  %s (%s): %s\n", o.esc.line(r.Recipient), r.Kind, state)
				}
				return nil
			})
		}),
	}
}

func init() {
	examples["receipt"] = []string{"agentmail receipt 01JD3Y4Q", "agentmail receipt 01JD3Y4Q --json | jq '.recipients[] | {recipient, read_at, acknowledged_at}'"}
}
