package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service/errorcases"
)

// The tools word each failure's advice from its detail, in their names
// and arguments, never in the command line's flags.
func TestToolHints(t *testing.T) {
	for _, c := range errorcases.Cases() {
		doc := errorDoc(c.Err)
		if !strings.Contains(doc.Hint, c.Want["mcp"]) || cliText().MatchString(doc.Hint) || cliText().MatchString(doc.Message) {
			t.Errorf("%s: hint %q (message %q), want it to name %q and no flag or command", c.Name, doc.Hint, doc.Message, c.Want["mcp"])
		}
	}
}
