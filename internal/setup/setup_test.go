package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testOptions points setup at a new home and project directory.
func testOptions(t *testing.T, client string) Options {
	t.Helper()
	root := t.TempDir()
	o := Options{Client: client, Command: "/opt/bin/agentmail", Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"),
		StateDir: filepath.Join(root, "state")}
	o.ConfigHome, o.CodexHome = filepath.Join(o.Home, ".config"), filepath.Join(o.Home, ".codex")
	for _, d := range []string{o.Home, o.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An uninstall after the client (or anyone) changed the file takes out
// agentmail's entry alone and keeps their change.
func TestUninstallKeepsLaterChanges(t *testing.T) {
	o := testOptions(t, "cursor")
	path := filepath.Join(o.Project, ".cursor", "mcp.json")
	put(t, path, "{\n  \"mcpServers\": {\n    \"a\": {\"url\": \"https://a\"}\n  }\n}\n")
	run(t, o, false)
	changed := strings.Replace(readFile(t, path), `"a": {"url": "https://a"}`, `"a": {"url": "https://a"},
    "b": {"url": "https://b"}`, 1)
	put(t, path, changed)

	p := run(t, o, true)
	if p.Changes[0].Action != "updated" {
		t.Errorf("uninstall: %s", p.Changes[0].Action)
	}
	got := readFile(t, path)
	if strings.Contains(got, "agentmail") || !strings.Contains(got, `"b": {"url": "https://b"}`) {
		t.Errorf("after uninstall:\n%s", got)
	}
	if _, err := os.Stat(recordFile(o.StateDir, path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record outlived the uninstall: %v", err)
	}
}

// A record that went stale (the file changed since) does not bring back
// the entry of that earlier setup: after setup --force and uninstall, no
// agentmail entry is left, and the other change is kept.
func TestStaleRecordEntryNotRestored(t *testing.T) {
	o := testOptions(t, "gemini")
	o.User = true
	path := filepath.Join(o.Home, ".gemini", "settings.json")
	put(t, path, "{\n  \"ui\": {\"theme\": \"X\"}\n}\n")
	run(t, o, false)
	put(t, path, strings.Replace(readFile(t, path), `"X"`, `"Y"`, 1))
	o.Force, o.Env = true, map[string]string{"AGENTMAIL_AGENT": "BlueLake"}
	run(t, o, false)
	run(t, o, true)
	if got, want := readFile(t, path), "{\n  \"ui\": {\"theme\": \"Y\"}\n}\n"; got != want {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, want)
	}
}

// A hand-written agentmail entry that setup --force replaced comes back
// with uninstall: it was there before.
func TestForceThenUninstallRestoresTheirEntry(t *testing.T) {
	o := testOptions(t, "codex")
	path := filepath.Join(o.Project, ".codex", "config.toml")
	theirs := "[mcp_servers.agentmail]\ncommand = \"agentmail\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 30\n"
	put(t, path, theirs)
	if _, err := Install(o); !errors.Is(err, ErrEntryDiffers) {
		t.Fatalf("setup over a different entry: %v, want ErrEntryDiffers", err)
	}
	o.Force = true
	run(t, o, false)
	if got := readFile(t, path); strings.Contains(got, "startup_timeout_sec") {
		t.Errorf("--force kept their table:\n%s", got)
	}
	run(t, o, true)
	if got := readFile(t, path); got != theirs {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, theirs)
	}
}

// A configuration reached through a symbolic link (dotfiles) is edited
// where it is, the link stays a link, and the file keeps its mode.
func TestSymlinkAndMode(t *testing.T) {
	o := testOptions(t, "gemini")
	o.User = true
	target := filepath.Join(o.Home, "dotfiles", "gemini.json")
	put(t, target, "{}\n")
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(o.Home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../dotfiles/gemini.json", link); err != nil {
		t.Fatal(err)
	}
	run(t, o, false)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if got := readFile(t, target); !strings.Contains(got, `"command": "/opt/bin/agentmail"`) {
		t.Errorf("target:\n%s", got)
	}
	run(t, o, true)
	if got := readFile(t, target); got != "{}\n" {
		t.Errorf("after uninstall: %q", got)
	}

	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "symbolic link to nothing") {
		t.Errorf("setup through a dangling link: %v", err)
	}
}

// Claude Code's hook: an agentmail check hook that someone put in a group
// with another hook, or with another binary, is not ours to change unless
// --force, which takes out that hook alone (the other stays) and adds ours.
func TestHookInAGroup(t *testing.T) {
	o := testOptions(t, "claude-code")
	o.Hooks = true
	path := filepath.Join(o.Project, ".claude", "settings.json")
	before := `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {"type": "command", "command": "date"},
          {"type": "command", "command": "'/old place/agentmail' check"}
        ]
      }
    ]
  }
}
`
	put(t, path, before)
	if _, err := Install(o); !errors.Is(err, ErrEntryDiffers) {
		t.Fatalf("setup: %v, want ErrEntryDiffers", err)
	}
	o.Force = true
	run(t, o, false)
	want := `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {"type": "command", "command": "date"}
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/agentmail check --hook"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Edit|Write|MultiEdit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/agentmail guard edit"
          }
        ]
      }
    ]
  }
}
`
	if got := readFile(t, path); got != want {
		t.Errorf("after setup --force:\n%s\nwant:\n%s", got, want)
	}
	run(t, o, true)
	if got := readFile(t, path); got != before {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, before)
	}
}

// Where setup's entry goes, a value of another kind is malformed, and the
// message says where.
func TestWrongKind(t *testing.T) {
	for _, tt := range []struct {
		client, file, content, want string
	}{
		{"cursor", ".cursor/mcp.json", "{\n  \"mcpServers\": []\n}\n", `line 2, column 17: "mcpServers" is not an object`},
		{"cursor", ".cursor/mcp.json", "[]\n", "line 1, column 1: the document is not a JSON object"},
		{"claude-code", ".claude/settings.json", "{\"hooks\": {\"UserPromptSubmit\": {}}}", `line 1, column 32: "hooks.UserPromptSubmit" is not a list`},
		{"cursor", ".cursor/mcp.json", "{\"mcpServers\": {}, \"mcpServers\": {}}", `line 1, column 20: "mcpServers" appears twice`},
	} {
		o := testOptions(t, tt.client)
		o.Hooks = HasHooks(tt.client)
		path := filepath.Join(o.Project, tt.file)
		put(t, path, tt.content)
		_, err := Install(o)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: %v, want ErrMalformed with %q", tt.client, tt.content, err, tt.want)
		}
	}
}

func TestUnknownClientAndHooks(t *testing.T) {
	o := testOptions(t, "vscode")
	if _, err := Install(o); err == nil {
		t.Error("setup of an unknown client succeeded")
	}
	o.Client, o.Hooks = "codex", true
	if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "no hook") {
		t.Errorf("codex --hooks: %v", err)
	}
}

// The hook runs the binary setup was given, whatever its name, and setup
// knows it for its own the second time.
func TestHookOfABinaryNamedOtherwise(t *testing.T) {
	o := testOptions(t, "claude-code")
	o.Hooks, o.Command = true, "/tmp/am"
	run(t, o, false)
	for _, ch := range run(t, o, false).Changes {
		if ch.Action != "unchanged" {
			t.Errorf("setup again: %s %s", ch.Action, ch.Path)
		}
	}
}

// A settings file an earlier setup --hooks gave the prompt hook alone gets
// the PreToolUse hook beside it; uninstall gives back the bytes from
// before the first setup. A PreToolUse hook running another agentmail's
// guard edit differs, and --force replaces it.
func TestHooksUpgrade(t *testing.T) {
	o := testOptions(t, "claude-code")
	o.Hooks = true
	path := filepath.Join(o.Project, ".claude", "settings.json")
	before := "{\n  \"model\": \"opus\"\n}\n"
	put(t, path, before)
	old := o
	old.Command = "/opt/bin/agentmail"
	// What an earlier version wrote: the prompt hook alone.
	p, err := Install(old)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Changes {
		if p.Changes[i].What == "hook" {
			only := claudeHooksFor(old)[:1]
			out, err := only.add([]byte(before), false)
			if err != nil {
				t.Fatal(err)
			}
			p.Changes[i].After = out
			p.Changes[i].record = newRecord(path, []byte(before), true, out, nil)
		}
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); strings.Contains(got, "PreToolUse") || !strings.Contains(got, "check --hook") {
		t.Fatalf("the earlier setup:\n%s", got)
	}
	run(t, o, false)
	got := readFile(t, path)
	if !strings.Contains(got, `"matcher": "Edit|Write|MultiEdit|NotebookEdit"`) || !strings.Contains(got, `"command": "/opt/bin/agentmail guard edit"`) || !strings.Contains(got, "check --hook") {
		t.Fatalf("after setup --hooks:\n%s", got)
	}
	o.Command = "/elsewhere/agentmail"
	if _, err := Install(o); !errors.Is(err, ErrEntryDiffers) {
		t.Fatalf("another agentmail: %v, want ErrEntryDiffers", err)
	}
	o.Force = true
	run(t, o, false)
	if got := readFile(t, path); strings.Contains(got, "/opt/bin/agentmail") || strings.Count(got, "/elsewhere/agentmail") != 2 {
		t.Fatalf("after --force:\n%s", got)
	}
	run(t, o, true)
	if got := readFile(t, path); got != before {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, before)
	}
}
