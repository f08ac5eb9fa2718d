package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func newGuardCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "guard",
		Usage: "git hooks that stop commits touching paths other agents have reserved",
		Description: "guard install writes pre-commit, pre-merge-commit and pre-push hooks (--no-pre-push leaves pre-push out)\n" +
			"that run guard check: a commit that stages a path another agent holds exclusively is stopped (block mode)\n" +
			"or only warned about (warn mode). An existing hook is kept and still runs first. Skip the check once\n" +
			"with AGENTMAIL_BYPASS=1 or git commit --no-verify; AGENTMAIL_GUARD_MODE=block|warn overrides the mode.",
		Subcommands: []*cli.Command{
			newGuardInstallCommand(e), newGuardUninstallCommand(e), newGuardStatusCommand(e), newGuardCheckCommand(e), newGuardEditCommand(e),
			newGuardSessionEndCommand(e),
		},
	}
}

func repoFlag() cli.Flag {
	return &cli.StringFlag{Name: "repo", Usage: "a directory in the repository (default: the current one)"}
}

type guardInstallOptions struct {
	scoped
	req service.GuardInstallRequest
}

func newGuardInstallCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "install the hooks in this repository (keeping any hook already there)",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			repoFlag(),
			&cli.StringFlag{Name: "mode", Value: "block", Usage: "block or warn, when AGENTMAIL_GUARD_MODE does not say"},
			&cli.BoolFlag{Name: "no-pre-push", Usage: "leave out the pre-push hook (which checks what no commit hook sees: rebases, cherry-picks, amends, fast-forward merges)"},
			&cli.BoolFlag{Name: "pre-push", Hidden: true, Usage: "install pre-push too (the default)"},
			&cli.BoolFlag{Name: "allow-global", Usage: "install even into a core.hooksPath from global or system git configuration"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			o := &guardInstallOptions{req: service.GuardInstallRequest{
				Repo: c.String("repo"), Mode: c.String("mode"), NoPrePush: c.Bool("no-pre-push") && !c.Bool("pre-push"), AllowGlobal: c.Bool("allow-global"),
			}}
			var err error
			if o.scoped, err = e.scoped(c); err != nil {
				return err
			}
			// The project is the repository's that --repo names.
			if o.req.Repo != "" {
				if o.Scope.Project.Dir, err = filepath.Abs(o.req.Repo); err != nil {
					return err
				}
			}
			return runGuardInstall(c.Context, o)
		},
	}
}

func runGuardInstall(ctx context.Context, o *guardInstallOptions) error {
	resp, err := o.Service.GuardInstall(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		for _, h := range resp.Hooks {
			line := fmt.Sprintf("%s %s", h.Action, h.Path)
			if h.Kept != "" {
				line += " (runs the original first: " + h.Kept + ")"
			}
			fmt.Fprintln(o.Stdout, line)
		}
		fmt.Fprintf(o.Stdout, "mode %s; hooks run %s\n", resp.Mode, resp.Agentmail)
		fmt.Fprintf(o.Stdout, "store %s (always checked; a store the committer's AGENTMAIL_HOME names is checked as well)\n", resp.Store)
		if resp.Project != "" {
			fmt.Fprintf(o.Stdout, "project %s (always checked; a project the committer's AGENTMAIL_PROJECT names is checked as well)\n", resp.Project)
		}
		return nil
	})
}

// repoOptions are the options of a guard command that needs no store.
type repoOptions struct {
	output
	repo string // a directory in the repository
}

// repoAction is the action of a guard command that needs no store.
func repoAction(e *env, run func(context.Context, repoOptions) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		repo := c.String("repo")
		if repo == "" {
			var err error
			if repo, err = os.Getwd(); err != nil {
				return err
			}
		}
		return run(c.Context, repoOptions{output: e.output(c), repo: repo})
	}
}

func newGuardUninstallCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "uninstall",
		Usage:     "remove the hooks, putting back exactly what was there before",
		ArgsUsage: " ",
		Flags:     []cli.Flag{repoFlag()},
		Action:    repoAction(e, runGuardUninstall),
	}
}

func runGuardUninstall(ctx context.Context, o repoOptions) error {
	resp, err := service.GuardUninstall(ctx, o.repo)
	return o.render(resp, err, func() error {
		for _, h := range resp.Hooks {
			switch h.Action {
			case "restored":
				fmt.Fprintf(o.Stdout, "restored the original %s\n", h.Path)
			case "removed":
				fmt.Fprintf(o.Stdout, "removed %s\n", h.Path)
			case "foreign":
				fmt.Fprintf(o.Stdout, "left %s alone (not agentmail's)\n", h.Path)
			}
		}
		return nil
	})
}

func newGuardStatusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "say which hooks are installed where",
		ArgsUsage: " ",
		Flags:     []cli.Flag{repoFlag()},
		Action:    repoAction(e, runGuardStatus),
	}
}

func runGuardStatus(ctx context.Context, o repoOptions) error {
	resp, err := service.GuardStatus(ctx, o.repo)
	if resp.Dir == "" {
		return err // no status was made
	}
	// Hooks git does not run: the status, then the error (exit 1).
	rerr := o.render(resp, nil, func() error {
		fmt.Fprintf(o.Stdout, "hooks directory %s", resp.Dir)
		if resp.Global {
			fmt.Fprint(o.Stdout, " (core.hooksPath from global configuration)")
		}
		fmt.Fprintln(o.Stdout)
		if resp.Mode != nil {
			fmt.Fprintf(o.Stdout, "mode %s\n", *resp.Mode)
			if resp.Project != nil {
				fmt.Fprintf(o.Stdout, "project %s\n", *resp.Project)
			}
			if resp.Store != nil {
				fmt.Fprintf(o.Stdout, "store %s\n", *resp.Store)
			} else {
				fmt.Fprintln(o.Stdout, "store not recorded: the hooks use AGENTMAIL_HOME or the default store (run agentmail guard install again to record one)")
			}
		}
		rows := make([][]string, len(resp.Hooks))
		for i, h := range resp.Hooks {
			note := ""
			switch {
			case h.State == "chained":
				note = "runs " + h.Hook + ".agentmail-orig first"
			case h.State == "foreign":
				note = "not agentmail's"
			}
			if (h.State == "ours" || h.State == "chained") && !h.Found {
				agentmail := ""
				if h.Agentmail != nil {
					agentmail = *h.Agentmail
				}
				note = strings.TrimPrefix(note+"; ", "; ") + "agentmail binary missing: " + agentmail
			}
			rows[i] = []string{h.Hook, h.State, note}
		}
		table(o.Stdout, "HOOK\tSTATE\tNOTE", rows)
		return nil
	})
	if rerr != nil {
		return rerr
	}
	return err
}

// warnHooks says on standard error, when w is not nil, that git does not
// run the guard's hooks in the repository, and how to fix it.
func (o output) warnHooks(w *service.HooksWarning) {
	if w != nil {
		fmt.Fprintf(o.Stderr, "warning: %s (%s)\n", w.Problem(), hooksFix(w.Global))
	}
}
