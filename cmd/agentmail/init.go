package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type initOptions struct{ scoped }

func newInitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create the store (done automatically on first use) and show where things are",
		ArgsUsage: " ",
		Action:    scopedAction(e, noArgsOptions(func(*cli.Context) *initOptions { return &initOptions{} }), runInit),
	}
}

func runInit(ctx context.Context, o *initOptions) error {
	resp, err := o.Service.Init(ctx, o.Scope)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "store    %s\narchive  %s\n", resp.Store, resp.Archive)
		if p := resp.Project; p != nil {
			fmt.Fprintf(o.Stdout, "project  %s (%s)\n", p.Slug, p.Key)
		}
		return nil
	})
}
