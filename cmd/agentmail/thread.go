package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type threadOptions struct {
	scoped
	ref string
}

func newThreadCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "thread",
		Usage:     "print a whole thread, oldest first",
		ArgsUsage: "THREAD|ID",
		Action: scopedAction(e, func(c *cli.Context) (*threadOptions, error) {
			ref, err := oneArg(c, "THREAD|ID")
			return &threadOptions{ref: ref}, err
		}, runThread),
	}
}

func runThread(ctx context.Context, o *threadOptions) error {
	resp, err := o.Service.Thread(ctx, o.Scope, o.ref)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "thread %s: %s\n", o.esc.line(resp.Thread), count(len(resp.Messages), "message", "messages"))
		o.printMessages(resp.Messages, o.now(), true)
		return nil
	})
}
