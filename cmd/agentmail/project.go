package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type projectOptions struct{ scoped }

func newProjectCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "project",
		Usage:     "show the project (its key and slug) and how its key was chosen",
		ArgsUsage: " ",
		Description: "A repository's key is pinned in its git configuration (agentmail.project) the first time agentmail\n" +
			"runs in it: the normalized origin URL, else the main worktree's path. It does not move when origin is\n" +
			"added or changed; agentmail project says when origin would give another key, and project set moves it.",
		Action:      scopedAction(e, noArgsOptions(func(*cli.Context) *projectOptions { return &projectOptions{} }), runProject),
		Subcommands: []*cli.Command{newProjectSetCommand(e), newProjectArchiveCommand(e, "archive", true), newProjectArchiveCommand(e, "unarchive", false), newHardDeleteCommand(e, false)},
	}
}

func runProject(ctx context.Context, o *projectOptions) error {
	resp, err := o.Service.Project(ctx, o.Scope)
	return o.render(resp, err, func() error {
		cur := resp.Project
		fmt.Fprintf(o.Stdout, "project  %s\nkey      %s\nsource   %s\nholds    %s\n", cur.Slug, cur.Key, describeSource(resp), describeHoldings(resp.Holds))
		for _, k := range resp.Others {
			what := "key"
			if k.From == service.SourceOrigin {
				what = resp.Origin.URL + " is key"
			}
			fmt.Fprintf(o.Stdout, "%-8s %s %s (%s, holds %s), not this project's; to move there: agentmail project set %s\n",
				k.From, what, k.Key, k.Slug, describeHoldings(k.Holds), shellWord(k.Key))
		}
		return nil
	})
}

// describeSource says in words how the project's key was chosen.
func describeSource(p service.ProjectResponse) string {
	switch p.Project.Source {
	case service.SourceFlag:
		return "--project"
	case service.SourceEnv:
		return "AGENTMAIL_PROJECT"
	}
	how := map[string]string{service.SourceOrigin: "the origin remote", service.SourcePath: "the main worktree's path"}[p.Project.Source]
	switch {
	case p.Config == nil || p.Pinned == nil:
		return how + " (not pinned)"
	case p.Project.Source != service.SourcePinned:
		return how + ", pinned now in " + *p.Config + " (" + service.PinKey + ")"
	}
	return "pinned in " + *p.Config + " (" + service.PinKey + ")"
}

// describeHoldings says what a project holds: "2 agents, 1 message, no
// active reservations", or "nothing".
func describeHoldings(h service.Counts) string {
	if h.Empty() {
		return "nothing"
	}
	count := func(n int, one, many string) string {
		if n == 0 {
			return "no " + many
		}
		return fmt.Sprintf("%d %s", n, plural(n, one, many))
	}
	return strings.Join([]string{count(h.Agents, "agent", "agents"), count(h.Messages, "message", "messages"),
		count(h.Reservations, "active reservation", "active reservations")}, ", ")
}

type projectSetOptions struct {
	scoped
	key string
}

func newProjectSetCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "pin this repository to another project key (what the old key holds stays there)",
		ArgsUsage: "KEY",
		Description: "KEY is a remote URL (normalized like origin's), a host/path key or an absolute path. Mail,\n" +
			"agents and reservations of the old key stay under it, out of this repository's view: the command\n" +
			"says what stays behind, and agentmail project set OLDKEY moves back.",
		Action: scopedAction(e, func(c *cli.Context) (*projectSetOptions, error) {
			if c.NArg() != 1 {
				return nil, usagef("usage: agentmail project set KEY", "give exactly one project key")
			}
			return &projectSetOptions{key: c.Args().First()}, nil
		}, runProjectSet),
	}
}

func runProjectSet(ctx context.Context, o *projectSetOptions) error {
	resp, err := o.Service.SetProject(ctx, o.Scope, o.key)
	if err != nil {
		return err
	}
	var was string
	if old := resp.Previous; old != nil {
		was = fmt.Sprintf(", was %s (%s)", old.Key, old.Slug)
		if !old.Holds.Empty() {
			fmt.Fprintf(o.Stderr, "warning: %s stay under %s (%s), out of this repository's view (the guard no longer sees those reservations); agentmail --project %s reaches them, agentmail project set %s moves back\n",
				describeHoldings(old.Holds), old.Key, old.Slug, shellWord(old.Key), shellWord(old.Key))
		}
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	cur := resp.Project
	fmt.Fprintf(o.Stdout, "project %s (%s), pinned in %s%s\n", cur.Key, cur.Slug, resp.Config, was)
	return nil
}

type archiveOptions struct {
	scoped
	archived bool
}

// newProjectArchiveCommand is project archive, or unarchive.
func newProjectArchiveCommand(e *env, name string, archived bool) *cli.Command {
	usage := "archive the project: it refuses writes (exit 1, PROJECT_ARCHIVED) and leaves the project lists; everything in it stays and reads go on"
	if !archived {
		usage = "bring an archived project back: it takes writes again"
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *archiveOptions { return &archiveOptions{archived: archived} }),
			func(ctx context.Context, o *archiveOptions) error {
				resp, err := o.Service.ArchiveProject(ctx, o.Scope, o.archived)
				return o.render(resp, err, func() error {
					switch {
					case !resp.Changed:
						fmt.Fprintf(o.Stdout, "project %s (%s) was %s already\n", resp.Slug, resp.ProjectKey, resp.Status)
					case resp.Status == "archived":
						fmt.Fprintf(o.Stdout, "archived project %s (%s): it takes no writes until agentmail project unarchive\n", resp.Slug, resp.ProjectKey)
					default:
						fmt.Fprintf(o.Stdout, "unarchived project %s (%s)\n", resp.Slug, resp.ProjectKey)
					}
					return nil
				})
			}),
	}
}
