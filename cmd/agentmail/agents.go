package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type agentsOptions struct {
	scoped
	req service.AgentsRequest
}

func newAgentsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "agents",
		Usage:     "list the project's agents and when each was last seen",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "active", Usage: fmt.Sprintf("only agents seen in the last %s ($AGENTMAIL_IDLE_AFTER)", service.ActiveWindow)},
			&cli.BoolFlag{Name: "all", Usage: "retired and deregistered agents too"},
		},
		Subcommands: []*cli.Command{newRetireCommand(e, "retire", true), newRetireCommand(e, "unretire", false), newDeregisterCommand(e), newHardDeleteCommand(e, true)},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *agentsOptions {
			return &agentsOptions{req: service.AgentsRequest{Active: c.Bool("active"), All: c.Bool("all")}}
		}), runAgents),
	}
}

func runAgents(ctx context.Context, o *agentsOptions) error {
	resp, err := o.Service.Agents(ctx, o.Scope, o.req)
	o.warnHooks(resp.HooksWarning)
	return o.render(resp, err, func() error {
		if len(resp.Agents) == 0 {
			if o.req.All {
				fmt.Fprintln(o.Stdout, "no agents registered in project "+resp.Project+" (agentmail register creates one)")
			} else {
				fmt.Fprintln(o.Stdout, "no active agents in project "+resp.Project+" (agentmail agents --all lists retired ones too; agentmail register creates one)")
			}
			return nil
		}
		now := o.now()
		rows := make([][]string, len(resp.Agents))
		for i, a := range mapSlice(resp.Agents, o.esc.agent) {
			state := a.State
			if a.Retired {
				state = "retired"
			}
			if a.Work != nil && a.Work.State != "running" {
				state += "/" + a.Work.State
			}
			if a.Paused != nil {
				state += "/paused"
			}
			claims := make([]string, len(*a.Claims))
			for j, c := range *a.Claims {
				claims[j] = c.ID[:min(len(c.ID), 8)]
			}
			rows[i] = []string{a.Name, state, ago(a.LastSeen.Time, now), fmt.Sprint(*a.Reservations), a.Program, truncate(a.Task, 40),
				a.Role, a.Branch, strings.Join(claims, ",")}
		}
		sparseTable(o.Stdout, []string{"NAME", "STATE", "LAST SEEN", "RESERVED", "PROGRAM", "TASK", "ROLE", "BRANCH", "CLAIMS"}, rows,
			"ROLE", "BRANCH", "CLAIMS")
		for _, a := range mapSlice(resp.Agents, o.esc.agent) {
			if a.Work != nil && a.Work.State == "stuck" {
				fmt.Fprintf(o.Stdout, "%s is stuck (%s)%s\n", a.Name, ago(a.Work.Updated.Time, now), noteSuffix(o.esc.line(a.Work.Note)))
			}
			if a.Paused != nil {
				fmt.Fprintf(o.Stdout, "%s is paused by %s (%s)%s\n", a.Name, o.esc.line(a.Paused.PauseBy), ago(a.Paused.PauseAt.Time, now), noteSuffix(o.esc.line(a.Paused.PauseReason)))
			}
		}
		return nil
	})
}

type retireOptions struct {
	scoped
	req service.RetireRequest
}

// newRetireCommand is agents retire, or unretire.
func newRetireCommand(e *env, name string, retired bool) *cli.Command {
	usage := "retire an agent: it receives no new mail, is left out of --to all and of agents (but --all), and its reservations and locks are released"
	if !retired {
		usage = "bring a retired agent back"
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "NAME",
		Action: scopedAction(e, func(c *cli.Context) (*retireOptions, error) {
			who, err := oneArg(c, "NAME")
			return &retireOptions{req: service.RetireRequest{Name: who, Retired: retired}}, err
		}, runRetire),
	}
}

func runRetire(ctx context.Context, o *retireOptions) error {
	resp, err := o.Service.Retire(ctx, o.Scope, o.req)
	return o.renderLeft(resp, err)
}

// renderLeft renders the document of retire, unretire or deregister.
func (o *retireOptions) renderLeft(resp service.RetireResponse, err error) error {
	return o.render(resp, err, func() error {
		verb := map[string]string{"retired": "retired", "active": "unretired", "deregistered": "deregistered"}[resp.Status]
		fmt.Fprintf(o.Stdout, "%s %s\n", verb, resp.Agent.Name)
		for _, r := range resp.ReleasedLeases {
			fmt.Fprintf(o.Stdout, "released reservation %s %s\n", r.ID, r.Pattern)
		}
		for _, l := range resp.ReleasedLocks {
			fmt.Fprintf(o.Stdout, "released lock %s\n", l.Key)
		}
		return nil
	})
}

// newDeregisterCommand is agents deregister.
func newDeregisterCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "deregister", ArgsUsage: "NAME",
		Usage: "take an agent off the roster: retired, contact policy block_all, its task marked; its mail stays (agents unretire brings it back)",
		Action: scopedAction(e, func(c *cli.Context) (*retireOptions, error) {
			who, err := oneArg(c, "NAME")
			return &retireOptions{req: service.RetireRequest{Name: who, Retired: true}}, err
		}, func(ctx context.Context, o *retireOptions) error {
			resp, err := o.Service.Deregister(ctx, o.Scope, o.req.Name)
			return o.renderLeft(resp, err)
		}),
	}
}

// noteSuffix is ": note", or nothing for no note.
func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return ": " + note
}
