package main

import (
	"context"

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
