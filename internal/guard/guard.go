// Package guard keeps commits off paths other agents have reserved: it
// installs git hooks (pre-commit, pre-merge-commit and, unless left out,
// pre-push) that run `agentmail guard check`, implements that check, and
// tells from git's configuration files whether git still runs those hooks
// (Diagnose).
//
// The check asks the real git for the paths a commit (or a push) touches,
// never reading the index file itself, and matches them against the active
// exclusive reservations of every other agent. Hooks are only ever added
// beside what was there: a hook found in place is kept, still runs first,
// and is put back byte for byte by Uninstall.
//
// guard sits above mailbox and reservations; neither imports it.
package guard

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
)

// Sentinel errors callers branch on.
var (
	// ErrBlocked: in block mode, the commit or push touches paths another
	// agent holds.
	ErrBlocked = errors.New("blocked by another agent's reservation")
	// ErrUnchecked: the check could not be made (store unreadable, git
	// failed); in block mode the commit is stopped.
	ErrUnchecked = errors.New("cannot check reservations")
	// ErrGlobalHooksPath: core.hooksPath comes from global or system
	// configuration, so hooks written there would guard every repository.
	ErrGlobalHooksPath = errors.New("core.hooksPath is set outside the repository")
	// ErrNoBinary: neither this program's path nor agentmail on PATH can be
	// recorded in the hooks.
	ErrNoBinary = errors.New("cannot find the agentmail binary")
	// ErrInvalidArgument: an unknown mode or hook name
	// (fault.ErrInvalidArgument).
	ErrInvalidArgument = fault.ErrInvalidArgument
	// ErrNotRepository: the directory is not inside a git repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrHookInTheWay: a foreign hook and a kept original both exist, so
	// installing would lose one of them.
	ErrHookInTheWay = errors.New("hook in the way")
	// ErrNoStore: the store the check consults does not exist, so it
	// cannot know what is reserved; the check cannot be made.
	ErrNoStore = errors.New("no agentmail store")
	// ErrNotRun: git no longer runs the guard's hooks in a repository
	// where they were installed (core.hooksPath set or changed since, or
	// the guard's hook replaced): commits are not checked.
	ErrNotRun = errors.New("git does not run the guard's hooks")
	// ErrUnknownProject: the store holds nothing of the repository's
	// project, so it is not the store the project's agents use (guard
	// install records the project in its store); the check cannot be made.
	ErrUnknownProject = errors.New("unknown project")
)

// Mode says what a conflict does to a commit.
type Mode string

// The modes.
const (
	// Block stops the commit (the check exits 1).
	Block Mode = "block"
	// Warn prints the conflicts and lets the commit through.
	Warn Mode = "warn"
)

// Environment variables the guard reads.
const (
	// EnvMode overrides the mode recorded in the hooks.
	EnvMode = "AGENTMAIL_GUARD_MODE"
	// EnvModeAlt is accepted in place of EnvMode.
	EnvModeAlt = "AGENT_MAIL_GUARD_MODE"
	// EnvBypass set to 1 (or true, yes) skips the check.
	EnvBypass = "AGENTMAIL_BYPASS"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Block, Warn:
		return m, nil
	}
	return "", fault.WithHint(fault.WithField(fmt.Errorf("%w: unknown guard mode %q", ErrInvalidArgument, s), "mode"), "the mode is block or warn; check "+EnvMode+" and "+EnvModeAlt)
}

// ResolveMode returns the mode given explicitly (a --mode flag), else the
// one in the environment (AGENTMAIL_GUARD_MODE, then AGENT_MAIL_GUARD_MODE),
// else Block.
func ResolveMode(explicit string) (Mode, error) { return ModeIn(os.Getenv, explicit) }

// ModeIn is ResolveMode in the environment getenv reads.
func ModeIn(getenv func(string) string, explicit string) (Mode, error) {
	for _, s := range []string{explicit, getenv(EnvMode), getenv(EnvModeAlt)} {
		if s != "" {
			return ParseMode(s)
		}
	}
	return Block, nil
}

// Bypassed reports whether AGENTMAIL_BYPASS asks to skip the check.
func Bypassed() bool { return BypassedIn(os.Getenv) }

// BypassedIn is Bypassed in the environment getenv reads.
func BypassedIn(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvBypass))) {
	case "1", "true", "yes":
		return true
	}
	return false
}
