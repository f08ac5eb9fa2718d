package main

import (
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/service/errorcases"
)

// The command line words each failure's advice from its detail, in its
// flags and commands.
func TestCLIHints(t *testing.T) {
	for _, c := range errorcases.Cases() {
		f := service.Describe(c.Err)
		if got := cliHint(f); !strings.Contains(got, c.Want["cli"]) {
			t.Errorf("%s: hint %q, want it to name %q", c.Name, got, c.Want["cli"])
		}
	}
}
