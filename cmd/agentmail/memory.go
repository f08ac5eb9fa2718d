package main

import "runtime/debug"

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
// reads, set a limit (the runtime read it at start); GOGC, when set,
// keeps the collector's pace.
func (b memoryBudget) apply(getenv func(string) string) {
	if getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(b.limit)
	if b.gcPercent != 0 && getenv("GOGC") == "" {
		debug.SetGCPercent(b.gcPercent)
	}
}
