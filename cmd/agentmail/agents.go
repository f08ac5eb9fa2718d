package main

import (
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

func agentCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
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
			},
			Action: func(c *cli.Context) error {
				if c.IsSet("name") && strings.TrimSpace(c.String("name")) == "" {
					return fault.WithHint(fmt.Errorf("%w: --name is empty", mailbox.ErrInvalidName),
						"omit --name for a generated name, or pass one such as --name GreenCastle")
				}
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				a, err := s.mb.Register(c.Context, mailbox.RegisterInput{
					Name: c.String("name"), Program: c.String("program"), Model: c.String("model"), Task: c.String("task"),
					Policy: c.String("policy"),
				})
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					return e.printJSON(map[string]any{"agent": agentDoc(a)})
				}
				fmt.Fprintf(e.stdout, "registered %s in project %s\nact as it with: export AGENTMAIL_AGENT=%s\n", a.Name, s.mb.Project().Slug, a.Name)
				return nil
			},
		},
		{
			Name:      "whoami",
			Usage:     "show the acting agent's profile",
			ArgsUsage: " ",
			Action: func(c *cli.Context) error {
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				a, err := s.mb.Whoami(c.Context)
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					return e.printJSON(map[string]any{"agent": agentDoc(a)})
				}
				a = e.esc.agent(a)
				fmt.Fprintf(e.stdout, "%s in project %s\n", a.Name, s.mb.Project().Slug)
				printField(e, "program", a.Program)
				printField(e, "model", a.Model)
				printField(e, "task", a.Task)
				printField(e, "registered", ago(a.Registered, s.st.Now()))
				return nil
			},
		},
		{
			Name:      "agents",
			Usage:     "list the project's agents and when each was last seen",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "active", Usage: fmt.Sprintf("only agents seen in the last %s ($AGENTMAIL_IDLE_AFTER)", mailbox.ActiveWindow)},
			},
			Subcommands: []*cli.Command{retireCommand(e, "retire", true), retireCommand(e, "unretire", false)},
			Action: func(c *cli.Context) error {
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				list, err := s.mb.Agents(c.Context, c.Bool("active"))
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					docs := mapSlice(list, listedAgentDoc)
					return e.printJSON(map[string]any{"agents": docs})
				}
				if len(list) == 0 {
					fmt.Fprintln(e.stdout, "no agents registered in project "+s.mb.Project().Slug+" (agentmail register creates one)")
					return nil
				}
				rows := make([][]string, len(list))
				for i, a := range mapSlice(list, e.esc.agent) {
					state := a.State
					if a.Retired {
						state = "retired"
					}
					rows[i] = []string{a.Name, state, ago(a.LastSeen, s.st.Now()), fmt.Sprint(a.Reservations), a.Program, truncate(a.Task, 40)}
				}
				table(e.stdout, "NAME\tSTATE\tLAST SEEN\tRESERVED\tPROGRAM\tTASK", rows)
				return nil
			},
		},
	}
}

func printField(e *env, k, v string) {
	if v != "" {
		fmt.Fprintf(e.stdout, "  %-11s %s\n", k+":", v)
	}
}

func retireCommand(e *env, name string, retired bool) *cli.Command {
	usage := "retire an agent: it receives no mail and is left out of --to all"
	if !retired {
		usage = "bring a retired agent back"
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			who, err := oneArg(c, "NAME")
			if err != nil {
				return err
			}
			s, err := e.openMailbox(c)
			if err != nil {
				return err
			}
			a, err := s.mb.Retire(c.Context, who, retired)
			if err != nil {
				return err
			}
			if jsonOutput(c) {
				return e.printJSON(map[string]any{"agent": agentDoc(a)})
			}
			fmt.Fprintf(e.stdout, "%sd %s\n", name, a.Name)
			return nil
		},
	}
}
