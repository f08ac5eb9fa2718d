package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type policyOptions struct {
	scoped
	set    bool   // set the policy, not only show it
	policy string // the policy to set
}

func newPolicyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "policy",
		Usage:     "show or set who may send you mail",
		ArgsUsage: "[set open|auto|contacts_only|block_all]",
		Description: "open (the default for new agents): any agent of the project. auto: agents you wrote to in the\n" +
			"thread they write in, or in the last 24 h, agents holding reservations that overlap yours (broad\n" +
			"patterns such as ** do not count), approved contacts, and project broadcasts (send --to all);\n" +
			"agents registered before open became the default keep auto.\n" +
			"contacts_only: approved contacts only. block_all: nobody, and no contact requests either.\n" +
			"Mail from the human overseer (send --as-human) always passes. Others get CONTACT_REQUIRED\n" +
			"with the command to ask: agentmail contacts request NAME --reason \"...\".",
		Action: scopedAction(e, func(c *cli.Context) (*policyOptions, error) {
			switch {
			case c.Args().Len() == 0:
				return &policyOptions{}, nil
			case c.Args().Len() == 2 && c.Args().First() == "set":
				return &policyOptions{set: true, policy: c.Args().Get(1)}, nil
			}
			return nil, usagef("agentmail policy, or agentmail policy set open|auto|contacts_only|block_all", "unexpected arguments")
		}, runPolicy),
	}
}

func runPolicy(ctx context.Context, o *policyOptions) error {
	var resp service.AgentResponse
	var err error
	if o.set {
		resp, err = o.Service.SetPolicy(ctx, o.Scope, o.policy)
	} else {
		resp, err = o.Service.Whoami(ctx, o.Scope)
	}
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "%s: contact policy %s\n", resp.Agent.Name, resp.Agent.Policy)
		return nil
	})
}
