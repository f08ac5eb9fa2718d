package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type whoamiOptions struct{ scoped }

func newWhoamiCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "whoami",
		Usage:     "show the acting agent's profile",
		ArgsUsage: " ",
		Action:    scopedAction(e, noArgsOptions(func(*cli.Context) *whoamiOptions { return &whoamiOptions{} }), runWhoami),
	}
}

func runWhoami(ctx context.Context, o *whoamiOptions) error {
	resp, err := o.Service.Whoami(ctx, o.Scope)
	return o.render(resp, err, func() error {
		a := o.esc.agent(resp.Agent)
		fmt.Fprintf(o.Stdout, "%s in project %s\n", a.Name, resp.Project)
		for _, f := range []struct{ k, v string }{
			{"program", a.Program}, {"model", a.Model}, {"task", a.Task}, {"registered", ago(a.Registered.Time, o.now())},
		} {
			if f.v != "" {
				fmt.Fprintf(o.Stdout, "  %-11s %s\n", f.k+":", f.v)
			}
		}
		return nil
	})
}
