// Package crash kills the process at a named step of a write, so that tests
// can prove that a write interrupted at any of its steps loses nothing that
// was reported as done and that the next command heals the rest.
//
// It is compiled into the normal binary and inert unless the environment
// variable AGENTMAIL_CRASH_AT names a step (STEP, or STEP@N to die the Nth
// time the process reaches it); the variable is read once, so an unused
// crash point costs a string comparison.
package crash

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Env is the environment variable that names the step to die at.
const Env = "AGENTMAIL_CRASH_AT"

// A Step is a point of the write path where the process can be killed.
type Step string

// The steps, in the order a write reaches them.
const (
	// InitBuilt: a new archive is complete in its temporary directory,
	// not yet renamed into place.
	InitBuilt Step = "init-built"
	// MigrateBranches: an archive of an earlier version has a branch
	// per project; its main branch is not yet set aside.
	MigrateBranches Step = "migrate-branches"
	// AfterObjects: a commit's pack and index are durable; the branch
	// has not been touched.
	AfterObjects Step = "after-objects"
	// AfterRefLock: refs/heads/main.lock holds the new commit; the branch
	// has not moved.
	AfterRefLock Step = "after-ref-lock"
	// AfterRef: the branch names the new commit, durably; the index does
	// not have it yet.
	AfterRef Step = "after-ref"
	// BeforeIndexCommit: the index transaction holds the new records but
	// is not committed.
	BeforeIndexCommit Step = "before-index-commit"
	// AfterIndexCommit: archive and index agree; the command has not
	// reported success yet.
	AfterIndexCommit Step = "after-index-commit"
	// RollUpWritten: git pack-objects has written the rolled-up pack
	// under a temporary name.
	RollUpWritten Step = "roll-up-written"
	// MidRollUp: the rolled-up pack is in place and the first of the
	// packs it replaces has been removed, the others not yet.
	MidRollUp Step = "mid-roll-up"
)

// Steps lists every step.
var Steps = []Step{InitBuilt, MigrateBranches, AfterObjects, AfterRefLock, AfterRef, BeforeIndexCommit, AfterIndexCommit, RollUpWritten, MidRollUp}

// at is the step to die at and the time the process reaches it to die
// at: AGENTMAIL_CRASH_AT=STEP dies the first time, STEP@N the Nth (an
// import's Nth batch).
var at, atTime = parse(os.Getenv(Env))

// reached counts the times the process reached at.
var reached atomic.Int64

func parse(v string) (Step, int64) {
	step, n, ok := strings.Cut(v, "@")
	if !ok {
		return Step(v), 1
	}
	i, err := strconv.ParseInt(n, 10, 64)
	if err != nil || i < 1 {
		return "", 0 // not a step: never dies
	}
	return Step(step), i
}

// Point kills the process with SIGKILL if AGENTMAIL_CRASH_AT names step,
// the time it names.
func Point(step Step) {
	if at != "" && at == step && reached.Add(1) == atTime {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
