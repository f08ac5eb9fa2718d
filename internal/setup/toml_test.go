package setup

import (
	"errors"
	"strings"
	"testing"
)

// However a config defines [mcp_servers.agentmail] (a table and its
// sub-tables, dotted keys, an inline table under [mcp_servers]), --force
// replaces it and uninstall takes it out, and nothing else moves.
func TestTOMLEntryForms(t *testing.T) {
	ed := tomlServer{[]string{"mcp_servers", "agentmail"}, codexServer{Command: "/opt/am", Args: []string{"mcp"}}}
	for _, tt := range []struct{ name, src, removed string }{
		{"table and sub-table",
			"x = 1\n\n[mcp_servers.agentmail]\ncommand = \"am\"\n\n[mcp_servers.agentmail.env]\nA = \"b\"\n\n[other]\ny = 2\n",
			"x = 1\n\n[other]\ny = 2\n"},
		{"dotted keys at the top",
			"mcp_servers.agentmail.command = \"am\" # ours\nmcp_servers.agentmail.args = [\"mcp\"]\nx = 1\n",
			"x = 1\n"},
		{"inline table under [mcp_servers]",
			"[mcp_servers]\ngh = { command = \"gh\" }\nagentmail = { command = \"am\", args = [\n  \"mcp\",\n] }\n# after\n",
			"[mcp_servers]\ngh = { command = \"gh\" }\n# after\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ed.add([]byte(tt.src), false); !errors.Is(err, ErrEntryDiffers) {
				t.Fatalf("add: %v, want ErrEntryDiffers", err)
			}
			out, err := ed.add([]byte(tt.src), true)
			if err != nil {
				t.Fatal(err)
			}
			if again, err := ed.add(out, false); err != nil || string(again) != string(out) {
				t.Errorf("add again: %v\n%s", err, again)
			}
			got, err := ed.remove([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.removed {
				t.Errorf("remove:\n%s\nwant:\n%s", got, tt.removed)
			}
		})
	}
}

// An entry inside an inline table of the whole [mcp_servers] cannot be
// taken out line by line: setup says so instead of breaking the file.
func TestTOMLInlineParent(t *testing.T) {
	ed := tomlServer{[]string{"mcp_servers", "agentmail"}, codexServer{Command: "/opt/am", Args: []string{"mcp"}}}
	src := []byte("mcp_servers = { agentmail = { command = \"am\" } }\n")
	if _, err := ed.remove(src); !errors.Is(err, ErrCannotEdit) || !strings.Contains(err.Error(), "inline table") {
		t.Errorf("remove: %v, want ErrCannotEdit", err)
	}
}
