package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/reservations"
	"github.com/urfave/cli/v2"
)

type guardConflictJSON struct {
	Path    string  `json:"path"`
	Holder  string  `json:"holder"`
	Pattern string  `json:"pattern"`
	Expires *string `json:"expires"`
}

type hookChangeJSON struct {
	Hook   string `json:"hook"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Kept   string `json:"kept"`
}

func hookChangeDocs(chs []guard.HookChange) []hookChangeJSON {
	out := make([]hookChangeJSON, len(chs))
	for i, ch := range chs {
		out[i] = hookChangeJSON{ch.Hook, ch.Path, ch.Action, ch.Kept}
	}
	return out
}

func guardCommand(e *env) *cli.Command {
	repoFlag := &cli.StringFlag{Name: "repo", Usage: "a directory in the repository (default: the current one)"}
	return &cli.Command{
		Name:  "guard",
		Usage: "git hooks that stop commits touching paths other agents have reserved",
		Description: "guard install writes pre-commit and pre-merge-commit hooks (and pre-push with --pre-push) that run\n" +
			"guard check: a commit that stages a path another agent holds exclusively is stopped (block mode)\n" +
			"or only warned about (warn mode). An existing hook is kept and still runs first. Skip the check once\n" +
			"with AGENTMAIL_BYPASS=1 or git commit --no-verify; AGENTMAIL_GUARD_MODE=block|warn overrides the mode.",
		Subcommands: []*cli.Command{
			{
				Name:      "install",
				Usage:     "install the hooks in this repository (keeping any hook already there)",
				ArgsUsage: " ",
				Flags: []cli.Flag{
					repoFlag,
					&cli.StringFlag{Name: "mode", Value: "block", Usage: "block or warn, when AGENTMAIL_GUARD_MODE does not say"},
					&cli.BoolFlag{Name: "pre-push", Usage: "also check the commits of every push"},
					&cli.BoolFlag{Name: "allow-global", Usage: "install even into a core.hooksPath from global or system git configuration"},
				},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					mode, err := guard.ParseMode(c.String("mode"))
					if err != nil {
						return err
					}
					storeDir, err := e.guardedStore(c, c.String("repo"))
					if err != nil {
						return err
					}
					res, err := guard.Install(c.Context, guard.InstallOptions{
						Repo: c.String("repo"), Mode: mode, PrePush: c.Bool("pre-push"), AllowGlobal: c.Bool("allow-global"), Store: storeDir,
					})
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						return e.printJSON(map[string]any{"dir": res.Dir, "mode": res.Mode, "agentmail": res.Binary, "store": res.Store, "hooks": hookChangeDocs(res.Hooks)})
					}
					for _, h := range res.Hooks {
						line := fmt.Sprintf("%s %s", h.Action, h.Path)
						if h.Kept != "" {
							line += " (runs the original first: " + h.Kept + ")"
						}
						fmt.Fprintln(e.stdout, line)
					}
					fmt.Fprintf(e.stdout, "mode %s; hooks run %s\n", res.Mode, res.Binary)
					fmt.Fprintf(e.stdout, "store %s (when the committer's AGENTMAIL_HOME is unset)\n", res.Store)
					return nil
				},
			},
			{
				Name:      "uninstall",
				Usage:     "remove the hooks, putting back exactly what was there before",
				ArgsUsage: " ",
				Flags:     []cli.Flag{repoFlag},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					res, err := guard.Uninstall(c.Context, c.String("repo"))
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						return e.printJSON(map[string]any{"dir": res.Dir, "hooks": hookChangeDocs(res.Hooks)})
					}
					for _, h := range res.Hooks {
						switch h.Action {
						case "restored":
							fmt.Fprintf(e.stdout, "restored the original %s\n", h.Path)
						case "removed":
							fmt.Fprintf(e.stdout, "removed %s\n", h.Path)
						case "foreign":
							fmt.Fprintf(e.stdout, "left %s alone (not agentmail's)\n", h.Path)
						}
					}
					return nil
				},
			},
			{
				Name:      "status",
				Usage:     "say which hooks are installed where",
				ArgsUsage: " ",
				Flags:     []cli.Flag{repoFlag},
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					res, err := guard.Status(c.Context, c.String("repo"))
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						type hookJSON struct {
							Hook      string  `json:"hook"`
							Path      string  `json:"path"`
							State     string  `json:"state"`
							Mode      *string `json:"mode"`
							Agentmail *string `json:"agentmail"`
							Found     bool    `json:"agentmail_found"`
							Store     *string `json:"store"`
						}
						docs := make([]hookJSON, len(res.Hooks))
						for i, h := range res.Hooks {
							docs[i] = hookJSON{h.Hook, h.Path, h.State, optString(string(h.Mode)), optString(h.Agentmail), h.Found, optString(h.Store)}
						}
						return e.printJSON(map[string]any{"dir": res.Dir, "global": res.GlobalPath, "mode": optString(string(res.Mode)),
							"store": optString(res.Store), "hooks": docs})
					}
					fmt.Fprintf(e.stdout, "hooks directory %s", res.Dir)
					if res.GlobalPath {
						fmt.Fprint(e.stdout, " (core.hooksPath from global configuration)")
					}
					fmt.Fprintln(e.stdout)
					if res.Mode != "" {
						fmt.Fprintf(e.stdout, "mode %s\n", res.Mode)
						if res.Store != "" {
							fmt.Fprintf(e.stdout, "store %s\n", res.Store)
						} else {
							fmt.Fprintln(e.stdout, "store not recorded: the hooks use AGENTMAIL_HOME or the default store (run agentmail guard install again to record one)")
						}
					}
					rows := make([][]string, len(res.Hooks))
					for i, h := range res.Hooks {
						note := ""
						switch {
						case h.State == "chained":
							note = "runs " + h.Hook + ".agentmail-orig first"
						case h.State == "foreign":
							note = "not agentmail's"
						}
						if (h.State == "ours" || h.State == "chained") && !h.Found {
							note = strings.TrimPrefix(note+"; ", "; ") + "agentmail binary missing: " + h.Agentmail
						}
						rows[i] = []string{h.Hook, h.State, note}
					}
					table(e.stdout, "HOOK\tSTATE\tNOTE", rows)
					return nil
				},
			},
			{
				Name:      "check",
				Usage:     "check the staged paths (what the hooks run)",
				ArgsUsage: "[PATH...]",
				Description: "Lists the paths the commit touches (git diff --cached: additions, modifications, deletions and both\n" +
					"sides of renames and copies; for --hook pre-push the paths of the commits being pushed, from the\n" +
					"ref lines on standard input) and matches them against other agents' active exclusive reservations.\n" +
					"With PATH arguments (or --paths), checks those paths instead (relative to the current directory).\n" +
					"Block mode exits 1 on a conflict, warn mode 0; nothing is printed when nothing is held.\n" +
					"A check that cannot be made (no store, a store that does not know the project) fails in block\n" +
					"mode and warns in warn mode.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "hook", Value: guard.PreCommit, Usage: "pre-commit, pre-merge-commit or pre-push"},
					&cli.BoolFlag{Name: "paths", Usage: "the arguments are the paths to check"},
					&cli.StringFlag{Name: "mode", Usage: "block or warn (default: $AGENTMAIL_GUARD_MODE, else block)"},
					&cli.StringFlag{Name: "default-store", Usage: "the store to consult when neither --store nor AGENTMAIL_HOME names one (the hooks pass the one guard install recorded)"},
				},
				Action: func(c *cli.Context) error { return e.guardCheck(c) },
			},
		},
	}
}

func (e *env) guardCheck(c *cli.Context) error {
	mode, err := guard.ResolveMode(c.String("mode"))
	if err != nil {
		return err
	}
	var paths []string
	if c.Bool("paths") || c.Args().Present() {
		if !c.Args().Present() {
			return usagef("usage: agentmail guard check --paths PATH...", "no paths given")
		}
		paths = c.Args().Slice()
	}
	bypass := guard.Bypassed()
	var proj project.Project
	var projErr error
	if !bypass { // a bypassed check looks at nothing
		proj, projErr = e.project(c)
	}
	if projErr == nil {
		if paths, err = proj.RepoPaths(paths); err != nil {
			return err
		}
	}
	rep, err := guard.Check(c.Context, guard.CheckOptions{
		Hook: c.String("hook"), Paths: paths, Stdin: e.stdin, Mode: mode, Bypass: bypass,
		Agent:        global(c, "agent", "AGENTMAIL_AGENT", "AGENT_NAME"),
		Reservations: e.guardSource(c, proj, projErr),
	})
	if jsonOutput(c) {
		conflicts := make([]guardConflictJSON, len(rep.Conflicts))
		for i, k := range rep.Conflicts {
			conflicts[i] = guardConflictJSON{k.Path, k.Holder, k.Pattern, jsonTime(k.Expires)}
		}
		var unchecked *string
		if rep.Unchecked != nil {
			unchecked = optString(rep.Unchecked.Error())
		}
		if perr := e.printJSON(map[string]any{"mode": rep.Mode, "blocked": rep.Blocked, "conflicts": conflicts,
			"hook": rep.Hook, "bypassed": rep.Bypassed, "paths": rep.Paths, "unchecked": unchecked}); perr != nil {
			return perr
		}
		return err
	}
	e.renderGuardReport(rep)
	if errors.Is(err, guard.ErrBlocked) {
		return exitStatus(exitError) // the report said it all, ways forward included
	}
	return err
}

// renderGuardReport writes what the check found on stderr, where a hook's
// output belongs; it says nothing when nothing is held.
func (e *env) renderGuardReport(rep guard.Report) {
	w := e.stderr
	what, verb := "commit", "commit"
	switch rep.Hook {
	case guard.PrePush:
		what, verb = "push", "push"
	case guard.PreMergeCommit:
		what, verb = "merge", "merge"
	}
	switch {
	case rep.Bypassed:
		fmt.Fprintf(w, "agentmail guard: AGENTMAIL_BYPASS is set: reservation check skipped (%s)\n", rep.Hook)
		return
	case rep.Unchecked != nil && !rep.Blocked && rep.Mode == guard.Warn:
		fmt.Fprintf(w, "agentmail guard: warning: cannot check reservations, letting the %s through (warn mode): %v", what, rep.Unchecked)
		if h := fault.Hint(rep.Unchecked); h != "" {
			fmt.Fprintf(w, " (%s)", h)
		}
		fmt.Fprintln(w)
		return
	case len(rep.Conflicts) == 0:
		return
	}
	held := "paths other agents have reserved"
	if len(rep.Conflicts) == 1 {
		held = "a path another agent has reserved"
	}
	if rep.Blocked {
		fmt.Fprintf(w, "agentmail guard: %s blocked: it touches %s\n", what, held)
	} else {
		fmt.Fprintf(w, "agentmail guard: warning: this %s touches %s (warn mode: letting it through)\n", what, held)
	}
	const maxRows = 50 // a commit of thousands of held paths needs no thousand lines
	shown := rep.Conflicts[:min(len(rep.Conflicts), maxRows)]
	rows := make([][]string, len(shown))
	for i, k := range shown {
		rows[i] = []string{"  " + displayPath(k.Path), k.Holder, k.Pattern, ago(k.Expires, rep.Now)}
	}
	table(w, "  PATH\tHOLDER\tPATTERN\tEXPIRES", rows)
	if n := len(rep.Conflicts) - len(shown); n > 0 {
		fmt.Fprintf(w, "  ... and %d more (agentmail guard check --json lists them all)\n", n)
	}
	fmt.Fprintln(w, "Ways forward:")
	for _, h := range guard.Holders(rep.Conflicts) {
		var held []string
		for _, k := range rep.Conflicts {
			if k.Holder == h && !slices.Contains(held, k.Pattern) {
				held = append(held, k.Pattern)
			}
		}
		fmt.Fprintf(w, "  - ask the holder: agentmail send --to %s --subject %s --body 'I need to %s ...'\n",
			h, shellWord("Need "+strings.Join(held, ", ")), verb)
	}
	fmt.Fprintf(w, "  - wait until the reservation expires or is released: agentmail reservations check %s\n", shellWord(rep.Conflicts[0].Path))
	if rep.Blocked {
		fmt.Fprintf(w, "  - or go ahead anyway, once: AGENTMAIL_BYPASS=1 git %s ..., or git %s --no-verify\n", verb, verb)
	}
}

// displayPath shows a path on one table row: quoted, Go style, when it
// holds a tab, a newline or another control character.
func displayPath(p string) string {
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// shellWord quotes s for a shell command line shown to the user.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// guardSource loads the project's active reservations for guard check,
// without creating a store or a project: a commit must not have that side
// effect. A check that cannot know what is reserved (no store, no project,
// a store that holds nothing of the project) is an error, which fails the
// commit in block mode and is warned about in warn mode: the guard never
// lets a held path through for want of looking in the right place.
func (e *env) guardSource(c *cli.Context, proj project.Project, projErr error) guard.Source {
	return func(ctx context.Context) ([]reservations.Reservation, error) {
		dir, from, err := guardStoreDir(c)
		if err != nil {
			return nil, err
		}
		if guard.StoreAbsent(dir) {
			return nil, fault.WithHint(fmt.Errorf("%w at %s, %s", guard.ErrNoStore, dir, from),
				"point AGENTMAIL_HOME at the store the agents use, or run agentmail guard install again from an environment that names it")
		}
		if projErr != nil {
			return nil, projErr
		}
		st, err := e.openStoreAt(dir)
		if err != nil {
			return nil, err
		}
		s, err := e.openProject(c, st, proj)
		if err != nil {
			return nil, err
		}
		if !s.mb.Known() {
			return nil, fault.WithHint(fmt.Errorf("%w: project %s (%s) has nothing in %s, %s", guard.ErrUnknownProject, proj.Slug, proj.Key, dir, from),
				"point AGENTMAIL_HOME at the store the agents use, or record the project in this store with agentmail guard install; agentmail project shows the key")
		}
		return reservations.New(s.st, s.mb.Project().Slug, "", nil).List(ctx, reservations.Filter{})
	}
}

// guardStoreDir returns the store guard check consults, and what named it:
// --store, else AGENTMAIL_HOME, else the store guard install recorded in
// the hooks (--default-store), else the default one.
func guardStoreDir(c *cli.Context) (dir, from string, err error) {
	switch {
	case global(c, "store") != "":
		return global(c, "store"), "the store --store names", nil
	case os.Getenv("AGENTMAIL_HOME") != "":
		return os.Getenv("AGENTMAIL_HOME"), "the store AGENTMAIL_HOME names", nil
	case c.String("default-store") != "":
		return c.String("default-store"), "the store guard install recorded", nil
	}
	dir, err = store.DefaultDir()
	return dir, "the default store", err
}

// guardedStore prepares the store guard install records in the hooks: the
// one --store or the environment names, as an absolute path, created if
// need be, with the repository's project recorded in it (and the
// repository's key pinned), so that a hook that finds no store or no
// project there knows something is wrong.
func (e *env) guardedStore(c *cli.Context, repo string) (string, error) {
	if repo == "" {
		repo = "."
	}
	proj, err := e.projectAt(c, repo)
	if err != nil {
		return "", err
	}
	dir, err := storeDir(c)
	if err != nil {
		return "", err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", err
	}
	st, err := e.openStoreAt(dir)
	if err != nil {
		return "", err
	}
	s, err := e.openProject(c, st, proj)
	if err != nil {
		return "", err
	}
	return dir, s.mb.EnsureProject(c.Context)
}
