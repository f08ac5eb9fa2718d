package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["state"] = []string{
		"agentmail state running --note 'porting the auth tests'",
		"agentmail state stuck --note 'need the staging DB password'",
		"agentmail state done",
	}
	examples["control"] = []string{
		"agentmail control pause BlueLake --reason 'hold edits to src/api until the schema lands'",
		"agentmail control resume BlueLake",
		"agentmail control pause BlueLake --as-human --reason 'review first'   # the overseer, no agent of its own",
		"agentmail control interrupt BlueLake --reason 'stop: main is red'",
	}
}

func newStateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "state",
		Usage:     "say what state your work is in: running, idle, stuck or done (shown by agents and the team's check)",
		ArgsUsage: "running|idle|stuck|done",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "note", Usage: "a line on what you are doing or what you need"}},
		Action: scopedAction(e, func(c *cli.Context) (*stateOptions, error) {
			state, err := oneArg(c, "running|idle|stuck|done")
			return &stateOptions{state: state, note: c.String("note")}, err
		}, runState),
	}
}

type stateOptions struct {
	scoped
	state, note string
}

func runState(ctx context.Context, o *stateOptions) error {
	resp, err := o.Service.SetState(ctx, o.Scope, o.state, o.note)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "%s is %s%s\n", resp.State.Agent, resp.State.State, noteSuffix(o.esc.line(resp.State.Note)))
		return nil
	})
}

func newControlCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "control",
		Usage:     "pause, resume or interrupt an agent (recorded in the archive; the agent sees it first in check)",
		ArgsUsage: "pause|resume|interrupt AGENT",
		Description: "pause: the agent's writes through agentmail answer PAUSED (exit 5) until resume, except state, read,\n" +
			"ack, releasing what it holds, and reads; with Claude Code's hooks (setup claude-code --hooks) its edits\n" +
			"are denied with the reason. check and the prompt hook print the pause first, and a wait returns on it.\n" +
			"interrupt: the agent's next check shows it before anything else, once.",
		Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why: shown to the agent"},
			&cli.BoolFlag{Name: "as-human", Usage: "steer as the human overseer (Human): no agent needed"}},
		Action: scopedAction(e, func(c *cli.Context) (*controlOptions, error) {
			if c.Args().Len() != 2 {
				return nil, usagef("usage: "+c.Command.HelpName+" pause|resume|interrupt AGENT", "expected an action and an agent, got %s", count(c.Args().Len(), "argument", "arguments"))
			}
			return &controlOptions{req: service.ControlRequest{Action: c.Args().Get(0), Agent: c.Args().Get(1), Reason: c.String("reason")},
				asHuman: c.Bool("as-human")}, nil
		}, runControl),
	}
}

type controlOptions struct {
	scoped
	req     service.ControlRequest
	asHuman bool
}

func runControl(ctx context.Context, o *controlOptions) error {
	if o.asHuman {
		o.Scope.Agent = service.HumanSender
	}
	resp, err := o.Service.Control(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		verb := map[string]string{"pause": "paused", "resume": "resumed", "interrupt": "interrupted"}[resp.Action]
		fmt.Fprintf(o.Stdout, "%s %s\n", verb, resp.Control.Agent)
		return nil
	})
}

// steeringLines are what check prints first: a new interrupt, the pause.
func (o output) steeringLines(s service.Steering) []string {
	var out []string
	if i := s.Interrupt; i != nil {
		out = append(out, fmt.Sprintf("INTERRUPTED by %s%s", o.esc.line(i.InterruptBy), noteSuffix(o.esc.line(i.InterruptReason))))
	}
	if p := s.Paused; p != nil {
		out = append(out, fmt.Sprintf("PAUSED by %s%s: your writes are refused until resumed (agentmail state, read and release still work)",
			o.esc.line(p.PauseBy), noteSuffix(o.esc.line(p.PauseReason))))
	}
	return out
}
