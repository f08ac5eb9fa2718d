package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type guardCheckOptions struct {
	output
	Scope service.Scope
	Open  service.Opener // opens the store the check's rules choose
	req   service.GuardCheckRequest
}

func newGuardCheckCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check the staged paths (what the hooks run)",
		ArgsUsage: "[PATH...]",
		Description: "Lists the paths the commit touches (git diff --cached: additions, modifications, deletions and both\n" +
			"sides of renames and copies; for --hook pre-push the paths of the commits being pushed, from the\n" +
			"ref lines on standard input) and matches them against other agents' active exclusive reservations.\n" +
			"With PATH arguments (or --paths), checks those paths instead (relative to the current directory).\n" +
			"Block mode exits 1 on a conflict, warn mode 0; nothing is printed when nothing is held.\n" +
			"A check that cannot be made (no store, a store that does not know the project) fails in block\n" +
			"mode and warns in warn mode. The hooks pass the store and project guard install recorded\n" +
			"(--default-store, --default-project): those are always checked, and a store or project the\n" +
			"environment names besides (AGENTMAIL_HOME, AGENTMAIL_PROJECT) is checked as well, said in one line.\n" +
			"pre-push passes --remote: only that remote's tracking refs count as already published.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Value: service.PreCommit, Usage: "pre-commit, pre-merge-commit or pre-push"},
			&cli.BoolFlag{Name: "paths", Usage: "the arguments are the paths to check"},
			&cli.StringFlag{Name: "mode", Usage: "block or warn (default: $AGENTMAIL_GUARD_MODE, else block)"},
			&cli.StringFlag{Name: "default-store", Usage: "the store guard install recorded, always checked (the hooks pass it); one --store or AGENTMAIL_HOME names is checked as well"},
			&cli.StringFlag{Name: "default-project", Usage: "the project key guard install recorded, always checked (the hooks pass it); one AGENTMAIL_PROJECT or the repository names is checked as well"},
			&cli.StringFlag{Name: "remote", Usage: "for --hook pre-push: the remote pushed to; only its remote-tracking refs count as published (default: every remote's)"},
		},
		Action: func(c *cli.Context) error {
			o := &guardCheckOptions{output: e.output(c), Open: e.service, req: service.GuardCheckRequest{
				Hook: c.String("hook"), Stdin: e.stdin, Mode: c.String("mode"), Remote: c.String("remote"),
				Store: global(c, "store"), StoreFrom: "the store --store names", Recorded: c.String("default-store"), RecordedProject: c.String("default-project"), Env: os.Getenv,
			}}
			if c.Bool("paths") || c.Args().Present() {
				if !c.Args().Present() {
					return usagef("usage: agentmail guard check --paths PATH...", "no paths given")
				}
				o.req.Paths = c.Args().Slice()
			}
			// A bad clock is the check's to judge: warn mode must not stop a commit over it.
			o.req.Now, o.req.EnvErr = clock()
			var err error
			if o.Scope, err = scopeOf(c); err != nil {
				return err
			}
			return runGuardCheck(c.Context, o)
		},
	}
}

func runGuardCheck(ctx context.Context, o *guardCheckOptions) error {
	resp, err := service.GuardCheck(ctx, o.Scope, o.req, o.Open)
	if resp.Hook == "" {
		return err // no check was made
	}
	if o.JSON {
		if perr := o.printJSON(resp); perr != nil {
			return perr
		}
		return err
	}
	o.guardReport(resp)
	if errors.Is(err, service.ErrBlocked) {
		return exitStatus(exitError) // the report said it all, ways forward included
	}
	return err
}

// guardReport writes what the check found on stderr, where a hook's
// output belongs; it says nothing when nothing is held.
func (o output) guardReport(rep service.GuardCheckResponse) {
	w := o.Stderr
	what, verb := "commit", "commit"
	switch rep.Hook {
	case service.PrePush:
		what, verb = "push", "push"
	case service.PreMergeCommit:
		what, verb = "merge", "merge"
	}
	if rep.Also != nil {
		fmt.Fprintf(w, "agentmail guard: %s\n", *rep.Also)
	}
	switch {
	case rep.Note != nil:
		fmt.Fprintf(w, "agentmail: %s\n", *rep.Note)
		return
	case rep.Bypassed:
		fmt.Fprintf(w, "agentmail guard: AGENTMAIL_BYPASS is set: reservation check skipped (%s)\n", rep.Hook)
		return
	case rep.Unchecked != nil && !rep.Blocked && rep.Mode == "warn":
		fmt.Fprintf(w, "agentmail guard: warning: cannot check reservations, letting the %s through (warn mode): %s", what, *rep.Unchecked)
		if h := uncheckedHint(rep.UncheckedErr); h != "" {
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
		rows[i] = []string{"  " + displayPath(k.Path), k.Holder, k.Pattern, ago(k.Expires.Time, rep.Now)}
	}
	table(w, "  PATH\tHOLDER\tPATTERN\tEXPIRES", rows)
	if n := len(rep.Conflicts) - len(shown); n > 0 {
		fmt.Fprintf(w, "  ... and %d more (agentmail guard check --json lists them all)\n", n)
	}
	fmt.Fprintln(w, "Ways forward:")
	for _, h := range rep.Holders() {
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

// uncheckedHint words what to do about a check that could not be made, ""
// when there is nothing more to say than the reason.
func uncheckedHint(err error) string {
	if err == nil {
		return ""
	}
	return cliHints.Word(service.Describe(err), "")
}
