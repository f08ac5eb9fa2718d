package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/reservations"
)

// Hooks the check knows. An empty hook name means pre-commit.
const (
	PreCommit      = "pre-commit"
	PreMergeCommit = "pre-merge-commit"
	PrePush        = "pre-push"
)

// Source returns the project's active reservations that may cover the
// paths the commit touches: every one that covers one of them (as written
// or ignoring case), and any others it likes. It calls paths, which waits
// for git's answer, only when it needs them: while git works it opens the
// store, and when nobody holds anything exclusively it need not wait at
// all. It must not create the store or the project: when either is
// missing it returns an error wrapping ErrNoStore or ErrUnknownProject,
// and the check is not made.
type Source func(ctx context.Context, paths func() ([]string, error)) ([]reservations.Reservation, error)

// StoreAbsent reports whether there is no store at dir: nothing there, or
// a directory without an archive. A check must not open such a store,
// since opening creates it. A store this user may not look into is not
// absent: opening it says it is unreadable.
func StoreAbsent(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	if !fi.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "archive.git", "HEAD"))
	return errors.Is(err, os.ErrNotExist)
}

// CheckOptions say what to check.
type CheckOptions struct {
	Dir          string    // where git runs; "" for the current directory
	Hook         string    // PreCommit (the default), PreMergeCommit or PrePush
	Paths        []string  // check these repository paths instead of asking git
	Stdin        io.Reader // pre-push's standard input (the refs being pushed)
	Remote       string    // pre-push: the remote pushed to, whose refs count as published; "" counts every remote's
	Agent        string    // the committer; "" is nobody, held to every exclusive reservation
	Mode         Mode      // Block (the default) or Warn
	Bypass       bool      // skip the check (AGENTMAIL_BYPASS)
	Reservations Source
	Now          func() time.Time // the clock leases expire by; nil means time.Now
}

// Report is the outcome of a check.
type Report struct {
	Hook      string
	Mode      Mode
	Bypassed  bool
	Paths     int        // how many paths were checked
	Conflicts []Conflict // the paths held by others
	Blocked   bool       // conflicts in block mode: the commit is stopped
	Unchecked error      // why the check could not be made, if it could not
	Now       time.Time
}

// Check lists the paths the commit (or, for pre-push, the push) touches and
// matches them against other agents' active exclusive reservations. In
// block mode it returns an error wrapping ErrBlocked when some path is
// held, and one wrapping ErrUnchecked when it could not check (the store
// is unreadable, git failed): the commit fails closed. In warn mode it
// returns no error for either, and the report says what it found. The
// report is filled in either way.
func Check(ctx context.Context, o CheckOptions) (Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	rep := Report{Hook: o.Hook, Mode: o.Mode, Conflicts: []Conflict{}, Now: o.Now()}
	if rep.Hook == "" {
		rep.Hook = PreCommit
	}
	if rep.Mode == "" {
		rep.Mode = Block
	}
	if _, err := ParseMode(string(rep.Mode)); err != nil {
		return rep, err
	}
	if !slices.Contains([]string{PreCommit, PreMergeCommit, PrePush}, rep.Hook) {
		return rep, fault.WithHint(fault.WithField(fmt.Errorf("%w: unknown hook %q", ErrInvalidArgument, rep.Hook), "hook"), "the hook is pre-commit, pre-merge-commit or pre-push")
	}
	if o.Bypass {
		rep.Bypassed = true
		return rep, nil
	}
	if err := check(ctx, o, &rep); err != nil {
		rep.Unchecked = err
		if rep.Mode == Block {
			hint := bypassHint(rep.Hook)
			if h := fault.Hint(err); h != "" {
				hint = h + "; " + hint
			}
			return rep, fault.WithHint(fmt.Errorf("%w: %w", ErrUnchecked, err), hint)
		}
		return rep, nil
	}
	if len(rep.Conflicts) > 0 && rep.Mode == Block {
		rep.Blocked = true
		return rep, fault.WithHint(fmt.Errorf("%s %w: %s", rep.Hook, ErrBlocked, summary(rep.Conflicts)), bypassHint(rep.Hook))
	}
	return rep, nil
}

func check(ctx context.Context, o CheckOptions, rep *Report) error {
	// Ask git while the store opens: each takes a few milliseconds. The
	// source waits for git's answer to look up only the reservations that
	// may cover its paths; when nobody holds anything exclusively it is
	// not needed, and git is stopped.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		paths []string
		err   error
	}
	touched := make(chan answer, 1)
	if o.Paths != nil { // given (guard edit, --paths): nothing to wait for
		paths, err := touchedPaths(ctx, o)
		touched <- answer{paths, err}
	} else {
		go func() {
			paths, err := touchedPaths(ctx, o)
			touched <- answer{paths, err}
		}()
	}
	var a *answer
	wait := func() ([]string, error) {
		if a == nil {
			got := <-touched
			a = &got
		}
		return a.paths, a.err
	}
	rs, err := o.Reservations(ctx, wait)
	if a != nil && a.err != nil {
		return a.err // git's failure, as the source may have wrapped it
	}
	if err != nil {
		return err
	}
	if a != nil {
		rep.Paths = len(a.paths) // asked for: someone else holds something
	}
	blocking := Blocking(rs, o.Agent, rep.Now)
	if len(blocking) == 0 {
		return nil
	}
	paths, err := wait()
	if err != nil {
		return err
	}
	rep.Paths = len(paths)
	// Matching ignoring case finds a superset, in the same pass; only when
	// it finds more does core.ignorecase matter, and only then is git
	// asked for it.
	exact, folded := conflicts(blocking, paths, true)
	rep.Conflicts = exact
	if len(folded) > len(exact) {
		fold, err := IgnoreCase(ctx, o.Dir)
		if err != nil {
			return err
		}
		if fold {
			rep.Conflicts = folded
		}
	}
	return nil
}

// touchedPaths returns the explicit paths, or asks git.
func touchedPaths(ctx context.Context, o CheckOptions) ([]string, error) {
	switch {
	case o.Paths != nil:
		out := make([]string, len(o.Paths))
		for i, p := range o.Paths {
			out[i] = strings.TrimPrefix(filepath.ToSlash(p), "./")
		}
		return out, nil
	case o.Hook == PrePush:
		stdin := o.Stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		refs, err := ParsePushLines(stdin)
		if err != nil {
			return nil, err
		}
		return PushedPaths(ctx, o.Dir, o.Remote, refs)
	}
	return StagedPaths(ctx, o.Dir)
}

// summary names the first conflicts in one line.
func summary(cs []Conflict) string {
	var parts []string
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		if len(parts) == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s (held by %s)", c.Path, c.Holder))
	}
	return strings.Join(parts, ", ")
}

// bypassHint says how to get past the hook once.
func bypassHint(hook string) string {
	verb := "commit"
	switch hook {
	case PrePush:
		verb = "push"
	case PreMergeCommit:
		verb = "merge"
	}
	return fmt.Sprintf("to go ahead anyway: AGENTMAIL_BYPASS=1 git %s ..., or git %s --no-verify", verb, verb)
}

// Holders returns the distinct holders among cs, in order.
func Holders(cs []Conflict) []string {
	var out []string
	for _, c := range cs {
		if !slices.Contains(out, c.Holder) {
			out = append(out, c.Holder)
		}
	}
	return out
}
