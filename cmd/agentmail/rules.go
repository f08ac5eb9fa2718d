package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["rules"] = []string{
		"agentmail rules set RULES.md                      # the invariants every agent keeps",
		"agentmail rules set review.md --role reviewer     # the playbook of reviewers",
		"agentmail register --role reviewer                # returns the rules for reviewers",
		"agentmail rules show",
		"agentmail rules roles",
	}
	examples["rules show"] = []string{"agentmail rules show", "agentmail rules show --role reviewer", "agentmail rules show --json | jq -r .playbook.body"}
	examples["rules set"] = []string{"agentmail rules set RULES.md", "agentmail rules set review.md --role reviewer", "agentmail rules set empty.md --role reviewer   # an empty file clears the playbook"}
	examples["rules roles"] = []string{"agentmail rules roles", "agentmail rules roles --json"}
}

func newRulesCommand(e *env) *cli.Command {
	roleFlag := &cli.StringFlag{Name: "role", Usage: "the `ROLE` (a free word such as reviewer)"}
	return &cli.Command{
		Name:  "rules",
		Usage: "the project's rules for agents: invariants for all, a playbook per role",
		Description: "Markdown kept in the archive, each change a commit (git log shows every version); the current text is\n" +
			"the one in force. An agent keeps the invariants and the playbook of its role (register --role R).\n" +
			"register returns them, and check says when they changed since the agent last read them (rules show).",
		Subcommands: []*cli.Command{{
			Name: "show", Usage: "print the invariants and a role's playbook (yours by default: you have then read them)", ArgsUsage: " ",
			Flags:  []cli.Flag{roleFlag},
			Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *rulesOptions { return &rulesOptions{role: c.String("role")} }), runRulesShow),
		}, {
			Name: "set", Usage: "set the invariants, or a role's playbook, from a markdown file (- reads standard input)", ArgsUsage: "FILE",
			Flags: []cli.Flag{roleFlag},
			Action: scopedAction(e, func(c *cli.Context) (*rulesOptions, error) {
				file, err := oneArg(c, "FILE")
				if err != nil {
					return nil, err
				}
				var body []byte
				if file == "-" {
					body, err = io.ReadAll(c.App.Reader)
				} else {
					body, err = os.ReadFile(file)
				}
				if err != nil {
					return nil, fault.WithHint(err, "name a markdown file to read, or - for standard input")
				}
				text := string(body)
				if strings.TrimSpace(text) == "" {
					text = ""
				}
				return &rulesOptions{role: c.String("role"), body: text}, nil
			}, runRulesSet),
		}, {
			Name: "roles", Usage: "list the roles: those with a playbook and those agents play", ArgsUsage: " ",
			Action: scopedAction(e, noArgsOptions(func(*cli.Context) *rulesOptions { return &rulesOptions{} }), runRulesRoles),
		}},
	}
}

type rulesOptions struct {
	scoped
	role, body string
}

// printRules writes the invariants and the playbook of r.
func printRules(w io.Writer, r service.RulesResponse) {
	if r.Version == "" {
		if r.Role != "" {
			fmt.Fprintf(w, "no rules for role %s\n", r.Role)
		} else {
			fmt.Fprintln(w, "no rules")
		}
		return
	}
	for _, t := range []*service.RulesText{r.Invariants, r.Playbook} {
		if t == nil {
			continue
		}
		title := "Invariants (every agent)"
		if t.Role != "" {
			title = "Playbook: " + t.Role
		}
		fmt.Fprintf(w, "## %s — set by %s at %s\n\n%s", title, t.By, t.Updated.Time.Format("2006-01-02 15:04Z"), t.Body)
		if !strings.HasSuffix(t.Body, "\n") {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

func runRulesShow(ctx context.Context, o *rulesOptions) error {
	resp, err := o.Service.Rules(ctx, o.Scope, o.role)
	return o.render(resp, err, func() error {
		if resp.Version != "" {
			fmt.Fprintf(o.Stdout, "rules version %s, role %s\n\n", resp.Version, cmp.Or(resp.Role, "none"))
		}
		printRules(o.Stdout, resp)
		return nil
	})
}

func runRulesSet(ctx context.Context, o *rulesOptions) error {
	resp, err := o.Service.SetRules(ctx, o.Scope, o.role, o.body)
	return o.render(resp, err, func() error {
		what := "the invariants"
		if o.role != "" {
			what = "the playbook of " + resp.Role
		}
		if o.body == "" {
			fmt.Fprintf(o.Stdout, "cleared %s; rules version now %s\n", what, cmp.Or(resp.Version, "none"))
		} else {
			fmt.Fprintf(o.Stdout, "set %s; rules version now %s\n", what, resp.Version)
		}
		return nil
	})
}

func runRulesRoles(ctx context.Context, o *rulesOptions) error {
	resp, err := o.Service.RuleRoles(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Roles) == 0 {
			fmt.Fprintln(o.Stdout, "no roles")
			return nil
		}
		rows := make([][]string, 0, len(resp.Roles))
		for _, r := range resp.Roles {
			play := "no playbook"
			if r.Playbook {
				play = "playbook, set " + ago(r.Updated.Time, o.now())
			}
			rows = append(rows, []string{r.Role, strings.Join(r.Agents, ","), play})
		}
		table(o.Stdout, "ROLE\tAGENTS\tPLAYBOOK", rows)
		return nil
	})
}
