package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

type projectJSON struct {
	Key    string  `json:"key"`
	Slug   string  `json:"slug"`
	Source string  `json:"source"`
	Root   *string `json:"root"`
}

// otherKeyJSON is another key the repository could have, and what the
// store keeps under it.
type otherKeyJSON struct {
	From  string     `json:"from"` // origin or path
	Key   string     `json:"key"`
	Slug  string     `json:"slug"`
	Holds countsJSON `json:"holds"`
}

func holdingsDoc(h mailbox.Holdings) countsJSON { return countsJSON(h) }

func projectCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "project",
		Usage:     "show the project (its key and slug) and how its key was chosen",
		ArgsUsage: " ",
		Description: "A repository's key is pinned in its git configuration (agentmail.project) the first time agentmail\n" +
			"runs in it: the normalized origin URL, else the main worktree's path. It does not move when origin is\n" +
			"added or changed; agentmail project says when origin would give another key, and project set moves it.",
		Action: e.showProject,
		Subcommands: []*cli.Command{{
			Name:      "set",
			Usage:     "pin this repository to another project key (what the old key holds stays there)",
			ArgsUsage: "KEY",
			Description: "KEY is a remote URL (normalized like origin's), a host/path key or an absolute path. Mail,\n" +
				"agents and reservations of the old key stay under it, out of this repository's view: the command\n" +
				"says what stays behind, and agentmail project set OLDKEY moves back.",
			Action: e.setProject,
		}},
	}
}

func (e *env) showProject(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	proj, err := e.project(c)
	if err != nil {
		return err
	}
	st, err := e.openStore(c)
	if err != nil {
		return err
	}
	s, err := e.openProject(c, st, proj)
	if err != nil {
		return err
	}
	holds, err := s.mb.Holdings(c.Context)
	if err != nil {
		return err
	}
	cur := s.mb.Project()
	others, err := otherKeys(c.Context, st, cur)
	if err != nil {
		return err
	}
	if jsonOutput(c) {
		docs := []otherKeyJSON{}
		for _, o := range others {
			docs = append(docs, otherKeyJSON{o.from, o.proj.Key, o.proj.Slug, holdingsDoc(o.holds)})
		}
		doc := map[string]any{"project": projectJSON{cur.Key, cur.Slug, cur.Source, optString(cur.Root)},
			"holds": holdingsDoc(holds), "pinned": nil, "config": nil, "origin": nil, "others": docs}
		if r := cur.Repo; r != nil {
			doc["pinned"], doc["config"] = optString(r.Pinned), r.Config
			if r.OriginURL != "" {
				doc["origin"] = map[string]string{"url": r.OriginURL, "key": r.OriginKey}
			}
		}
		return e.printJSON(doc)
	}
	fmt.Fprintf(e.stdout, "project  %s\nkey      %s\nsource   %s\nholds    %s\n", cur.Slug, cur.Key, describeSource(cur), describeHoldings(holds))
	for _, o := range others {
		what := "key"
		if o.from == "origin" {
			what = cur.Repo.OriginURL + " is key"
		}
		fmt.Fprintf(e.stdout, "%-8s %s %s (%s, holds %s), not this project's; to move there: agentmail project set %s\n",
			o.from, what, o.proj.Key, o.proj.Slug, describeHoldings(o.holds), shellWord(o.proj.Key))
	}
	return nil
}

// otherKey is another key the repository could have.
type otherKey struct {
	from  string // origin or path
	proj  project.Project
	holds mailbox.Holdings // what the store keeps under it
}

// otherKeys lists the keys the repository around cur would have from its
// origin or its path, when they are not cur's, with what the store keeps
// under each.
func otherKeys(ctx context.Context, st *store.Store, cur project.Project) ([]otherKey, error) {
	var out []otherKey
	r := cur.Repo
	if r == nil {
		return out, nil
	}
	for _, k := range []struct{ from, key string }{{"origin", r.OriginKey}, {"path", r.PathKey}} {
		p, err := project.ProjectFromKey(k.key)
		if err != nil {
			continue // none, or a key nobody can use
		}
		mb, err := mailbox.Open(ctx, st, p, "")
		if err != nil {
			return nil, err
		}
		if mb.Project().Slug == cur.Slug {
			continue
		}
		h, err := mb.Holdings(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, otherKey{k.from, mb.Project(), h})
	}
	return out, nil
}

// describeSource says in words how p's key was chosen.
func describeSource(p project.Project) string {
	switch p.Source {
	case project.SourceFlag:
		return "--project"
	case project.SourceEnv:
		return "AGENTMAIL_PROJECT"
	}
	how := map[string]string{project.SourceOrigin: "the origin remote", project.SourcePath: "the main worktree's path"}[p.Source]
	switch {
	case p.Repo == nil || p.Repo.Pinned == "":
		return how + " (not pinned)"
	case p.Source != project.SourcePinned:
		return how + ", pinned now in " + p.Repo.Config + " (" + project.PinKey + ")"
	}
	return "pinned in " + p.Repo.Config + " (" + project.PinKey + ")"
}

// describeHoldings says what a project holds: "2 agents, 1 message, no
// active reservations", or "nothing".
func describeHoldings(h mailbox.Holdings) string {
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

func (e *env) setProject(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("usage: agentmail project set KEY", "give exactly one project key")
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	repo, err := project.FindRepository(wd)
	if err != nil {
		return err
	}
	next, err := project.ProjectFromKey(c.Args().First())
	if err != nil {
		return err
	}
	st, err := e.openStore(c)
	if err != nil {
		return err
	}
	// What the repository resolves to today, whatever --project says: that
	// is what stays behind.
	var prev *session
	if old, err := project.ResolveProject(wd); err == nil {
		if prev, err = e.openProject(c, st, old); err != nil {
			return err
		}
	}
	if err := repo.SetPin(c.Context, next.Key); err != nil {
		return err
	}
	next = next.In(wd)
	next.Source = project.SourcePinned
	s, err := e.openProject(c, st, next)
	if err != nil {
		return err
	}
	if err := s.mb.EnsureProject(c.Context); err != nil {
		return err
	}
	cur := s.mb.Project()
	doc := map[string]any{"project": projectJSON{cur.Key, cur.Slug, project.SourcePinned, optString(cur.Root)}, "previous": nil}
	var line string
	if prev != nil && prev.mb.Project().Slug != cur.Slug {
		old := prev.mb.Project()
		holds, err := prev.mb.Holdings(c.Context)
		if err != nil {
			return err
		}
		doc["previous"] = map[string]any{"key": old.Key, "slug": old.Slug, "holds": holdingsDoc(holds)}
		line = fmt.Sprintf(", was %s (%s)", old.Key, old.Slug)
		if !holds.Empty() {
			fmt.Fprintf(e.stderr, "warning: %s stay under %s (%s), out of this repository's view (the guard no longer sees those reservations); agentmail --project %s reaches them, agentmail project set %s moves back\n",
				describeHoldings(holds), old.Key, old.Slug, shellWord(old.Key), shellWord(old.Key))
		}
	}
	if jsonOutput(c) {
		return e.printJSON(doc)
	}
	fmt.Fprintf(e.stdout, "project %s (%s), pinned in %s%s\n", cur.Key, cur.Slug, repo.Config, line)
	return nil
}
