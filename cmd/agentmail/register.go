package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type registerOptions struct {
	scoped
	req service.RegisterRequest
}

func newRegisterCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "register",
		Usage:     "create an agent identity in this project, or update your own",
		ArgsUsage: " ",
		Description: "Without --name you get a free generated name such as GreenCastle; use it as --agent or AGENTMAIL_AGENT.\n" +
			"Registering your own name again (with --agent set to it) updates your profile.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "adjective+noun name such as GreenCastle (default: generated)"},
			&cli.StringFlag{Name: "program", Usage: "the program running the agent, e.g. claude-code"},
			&cli.StringFlag{Name: "model", Usage: "the model behind it"},
			&cli.StringFlag{Name: "task", Usage: "what the agent is working on"},
			&cli.StringFlag{Name: "policy", Usage: "who may send you mail: open (default), auto, contacts_only, block_all (see agentmail policy --help)"},
			&cli.StringFlag{Name: "role", Usage: "the `ROLE` you play in the team, one word such as reviewer: shown by agents, and it picks your playbook (agentmail rules show)"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *registerOptions {
			o := &registerOptions{req: service.RegisterRequest{
				Program: c.String("program"), Model: c.String("model"), Task: c.String("task"), Policy: c.String("policy"), Role: c.String("role"),
			}}
			if c.IsSet("name") {
				name := c.String("name")
				o.req.Name = &name
			}
			return o
		}), runRegister),
	}
}

func runRegister(ctx context.Context, o *registerOptions) error {
	resp, err := o.Service.Register(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "registered %s in project %s\nact as it with: export AGENTMAIL_AGENT=%s\n", resp.Agent.Name, resp.Project, resp.Agent.Name)
		if r := resp.Rules; r != nil && r.Version != "" {
			fmt.Fprintf(o.Stdout, "the project's rules for you (role %s, version %s) follow; agentmail rules show prints them again\n\n", cmp.Or(r.Role, "none"), r.Version)
			printRules(o.Stdout, *r)
		}
		return nil
	})
}
