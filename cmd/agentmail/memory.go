package main

import (
	"cmp"
	"runtime/debug"
)

// memoryBudget is how much Go memory a long-lived process (serve, mcp)
// keeps to, and how it collects garbage within it.
type memoryBudget struct {
	// limit is the soft limit on the process's Go memory
	// (debug.SetMemoryLimit): near it the collector runs sooner and
	// returns memory to the system.
	limit int64
	// gcPercent, when not 0, is GOGC under the limit: how far the heap
	// may grow past what it holds before a collection. Set high, the
	// collector runs seldom while the heap is small, and the limit
	// bounds it once it is not.
	gcPercent int
}

// apply sets the budget, unless GOMEMLIMIT, in the environment getenv
// reads, set a limit (the runtime read it at start): then GOGC is Go's
// default. GOGC, when set, keeps the collector's pace.
func (b memoryBudget) apply(getenv func(string) string) {
	percent := cmp.Or(b.gcPercent, 100)
	if getenv("GOMEMLIMIT") != "" {
		percent = 100
	} else {
		debug.SetMemoryLimit(b.limit)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

// commandMemory is the budget every process starts with, which serve and
// mcp replace with theirs. A command line process lives for one command:
// with Go's default GOGC the collector ran as a send's heap reached 4 MB,
// some 7 ms of cpu (GODEBUG=gctrace=1: 7.4 ms of assists and background
// marking on a store of 10,000 messages) for memory the process gives back
// as it exits a few milliseconds later. GOGC 400 starts collecting at
// 16 MB, past what send, inbox, show, check and search allocate, and the
// limit bounds the commands that hold more (import, doctor).
var commandMemory = memoryBudget{limit: 512 << 20, gcPercent: 400}
