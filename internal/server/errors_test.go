package server

import (
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/service/errorcases"
)

// The HTTP API words each failure's advice from its detail, in its routes
// and JSON fields, and a page in its own terms: neither the hints nor the
// messages name a flag or a command.
func TestAPIAndPageHints(t *testing.T) {
	for _, c := range errorcases.Cases() {
		f := service.Describe(c.Err)
		if got := apiHint(f); got == "" || !strings.Contains(got, c.Want["api"]) || speaksCLI(got) {
			t.Errorf("%s: API hint %q, want it to name %q and no flag or command", c.Name, got, c.Want["api"])
		}
		if speaksCLI(f.Message) {
			t.Errorf("%s: message %q names a flag or command", c.Name, f.Message)
		}
		if got := pageHint(f); got == "" || speaksCLI(got) {
			t.Errorf("%s: page hint %q names a flag or command", c.Name, got)
		}
	}
}
