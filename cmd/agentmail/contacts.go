package main

import (
	"fmt"

	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

type contactJSON struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	State     string  `json:"state"`
	Reason    string  `json:"reason"`
	Requested *string `json:"requested"`
	Decided   *string `json:"decided"`
	Expires   *string `json:"expires"`
}

func contactDoc(c mailbox.Contact) contactJSON {
	return contactJSON{c.From, c.To, c.State, c.Reason, jsonTime(c.Requested), jsonTime(c.Decided), jsonTime(c.Expires)}
}

func contactCommands(e *env) []*cli.Command {
	decide := func(name string, approve bool) *cli.Command {
		return &cli.Command{
			Name: name, Usage: name + " a contact request", ArgsUsage: "NAME",
			Action: func(c *cli.Context) error {
				who, err := oneArg(c, "NAME")
				if err != nil {
					return err
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				ct, err := s.mb.DecideContact(c.Context, who, approve)
				if err != nil {
					return err
				}
				return e.contactOut(c, ct)
			},
		}
	}
	return []*cli.Command{
		{
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
			Action: func(c *cli.Context) error {
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				var a mailbox.Agent
				switch {
				case c.Args().Len() == 0:
					a, err = s.mb.Whoami(c.Context)
				case c.Args().Len() == 2 && c.Args().First() == "set":
					a, err = s.mb.SetPolicy(c.Context, c.Args().Get(1))
				default:
					return usagef("agentmail policy, or agentmail policy set open|auto|contacts_only|block_all", "unexpected arguments")
				}
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					return e.printJSON(map[string]any{"agent": agentDoc(a)})
				}
				fmt.Fprintf(e.stdout, "%s: contact policy %s\n", a.Name, a.Policy)
				return nil
			},
		},
		{
			Name:  "contacts",
			Usage: "ask for, grant and list permission to write to agents whose policy requires it",
			Subcommands: []*cli.Command{
				{
					Name: "request", Usage: "ask an agent for permission to write to it", ArgsUsage: "NAME",
					Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why you want to write"}},
					Action: func(c *cli.Context) error {
						who, err := oneArg(c, "NAME")
						if err != nil {
							return err
						}
						s, err := e.openMailbox(c)
						if err != nil {
							return err
						}
						ct, err := s.mb.RequestContact(c.Context, who, c.String("reason"))
						if err != nil {
							return err
						}
						return e.contactOut(c, ct)
					},
				},
				decide("approve", true),
				decide("deny", false),
				{
					Name: "list", Usage: "requests to and from you", ArgsUsage: " ",
					Action: func(c *cli.Context) error {
						s, err := e.openMailboxNoArgs(c)
						if err != nil {
							return err
						}
						cs, err := s.mb.Contacts(c.Context)
						if err != nil {
							return err
						}
						if jsonOutput(c) {
							docs := mapSlice(cs, contactDoc)
							return e.printJSON(map[string]any{"contacts": docs})
						}
						if len(cs) == 0 {
							fmt.Fprintln(e.stdout, "no contacts")
							return nil
						}
						rows := make([][]string, len(cs))
						for i, ct := range mapSlice(cs, e.esc.contact) {
							rows[i] = []string{ct.From, ct.To, ct.State, truncate(ct.Reason, 40)}
						}
						table(e.stdout, "FROM\tTO\tSTATE\tREASON", rows)
						return nil
					},
				},
			},
		},
	}
}

func (e *env) contactOut(c *cli.Context, ct mailbox.Contact) error {
	if jsonOutput(c) {
		return e.printJSON(map[string]any{"contact": contactDoc(ct)})
	}
	ct = e.esc.contact(ct)
	fmt.Fprintf(e.stdout, "%s -> %s: %s\n", ct.From, ct.To, ct.State)
	return nil
}
