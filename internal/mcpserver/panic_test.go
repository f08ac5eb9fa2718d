package mcpserver

import (
	"strings"
	"testing"
)

// TestPanicLeavesServerServing: a tool call that panics is answered with
// a tool error (ERROR), and the server goes on serving the next calls.
func TestPanicLeavesServerServing(t *testing.T) {
	h := newHarness(t)
	h.ok("register_agent", args{"name": "GreenCastle", "program": "test", "model": "test"})
	beforeCall = func(tool string) {
		if tool == "fetch_inbox" {
			panic("injected by the test")
		}
	}
	t.Cleanup(func() { beforeCall = nil })
	e := h.fail("fetch_inbox", args{}, "ERROR")
	if !strings.Contains(e.Message, "injected by the test") || !strings.Contains(e.Message, "fetch_inbox") {
		t.Errorf("the error does not say what panicked: %+v", e)
	}
	// The same session, and the same tool once it no longer panics.
	h.ok("whois", args{"agent_name": "GreenCastle"})
	beforeCall = nil
	h.ok("fetch_inbox", args{})
}
