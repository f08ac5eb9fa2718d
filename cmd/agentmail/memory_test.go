package main

import (
	"runtime/debug"
	"testing"
)

// serve limits its Go memory, unless GOMEMLIMIT says otherwise.
func TestLimitMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	for _, tc := range []struct {
		env  string
		want int64
	}{
		{"", serveMemoryLimit},
		{"512MiB", 1 << 40}, // the runtime read GOMEMLIMIT itself at start: left as it is
	} {
		debug.SetMemoryLimit(1 << 40)
		limitMemory(func(k string) string {
			if k == "GOMEMLIMIT" {
				return tc.env
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("GOMEMLIMIT=%q: limit %d, want %d", tc.env, got, tc.want)
		}
	}
}
