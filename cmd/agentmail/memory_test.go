package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// keepMemorySettings restores the process's memory limit and GOGC after
// the test.
func keepMemorySettings(t *testing.T) {
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	t.Cleanup(func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	})
}

// A budget sets the memory limit and GOGC, unless the environment does.
func TestMemoryBudget(t *testing.T) {
	keepMemorySettings(t)
	budget := memoryBudget{limit: 56 << 20, gcPercent: 400}
	for _, tc := range []struct {
		env         map[string]string
		wantLimit   int64
		wantPercent int
	}{
		{nil, 56 << 20, 400},
		{map[string]string{"GOGC": "150"}, 56 << 20, 100}, // the runtime read GOGC itself at start
		{map[string]string{"GOMEMLIMIT": "512MiB"}, 1 << 40, 100},
		{map[string]string{"GOMEMLIMIT": "off"}, 1 << 40, 100},
	} {
		debug.SetMemoryLimit(1 << 40)
		debug.SetGCPercent(100)
		budget.apply(func(k string) string { return tc.env[k] })
		if got := debug.SetMemoryLimit(-1); got != tc.wantLimit {
			t.Errorf("%v: limit %d, want %d", tc.env, got, tc.wantLimit)
		}
		if got := debug.SetGCPercent(100); got != tc.wantPercent {
			t.Errorf("%v: GOGC %d, want %d", tc.env, got, tc.wantPercent)
		}
	}
	// Every process starts with the command line's budget, which collects
	// seldom; serve's, which replaces it, collects at Go's default pace.
	commandMemory.apply(func(string) string { return "" })
	if got := debug.SetGCPercent(400); got != 400 {
		t.Errorf("command: GOGC %d, want 400", got)
	}
	serveMemory.apply(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != serveMemory.limit {
		t.Errorf("serve: limit %d, want %d", got, serveMemory.limit)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("serve: GOGC %d, want 100", got)
	}
}

// agentmail mcp runs within its memory budget.
func TestMCPMemoryBudget(t *testing.T) {
	keepMemorySettings(t)
	debug.SetMemoryLimit(1 << 40)
	debug.SetGCPercent(100)
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	t.Setenv("AGENTMAIL_HOME", t.TempDir())
	t.Setenv("AGENTMAIL_PROJECT", "example.com/budget")
	var out, errs strings.Builder
	if code := run([]string{"agentmail", "mcp"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("agentmail mcp: exit %d: %s", code, errs.String())
	}
	if got := debug.SetMemoryLimit(-1); got != mcpMemory.limit {
		t.Errorf("limit %d, want %d", got, mcpMemory.limit)
	}
	if got := debug.SetGCPercent(100); got != mcpMemory.gcPercent {
		t.Errorf("GOGC %d, want %d", got, mcpMemory.gcPercent)
	}
}
