// Package hooks holds the POSIX shell templates of the git hooks that
// `agentmail guard install` writes, embedded in the binary.
//
// A hook runs the hook it replaced (kept beside it as NAME.agentmail-orig)
// first, honours AGENTMAIL_BYPASS, picks the mode from AGENTMAIL_GUARD_MODE
// (or AGENT_MAIL_GUARD_MODE) or the one recorded at install time, and then
// execs `agentmail guard check --hook NAME --mode MODE --default-store DIR
// --default-project KEY` (the store and project recorded at install time,
// which are always checked, whatever the committer's environment names;
// pre-push adds `--remote NAME`, the remote being pushed to). It says so in
// one line when AGENTMAIL_NOW is set, since that moves the clock leases are
// judged by. On the usual path it starts no process besides agentmail
// itself.
package hooks

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
)

//go:embed commit.sh pre-push.sh check.sh
var templates embed.FS

// Marker is the line that identifies a hook written by agentmail guard.
const Marker = "# agentmail-guard: this hook was written by `agentmail guard install`"

// OrigSuffix is appended to a hook's name to keep the hook it replaced.
const OrigSuffix = ".agentmail-orig"

// Names lists the hooks agentmail guard knows, in the order it reports them.
var Names = []string{"pre-commit", "pre-merge-commit", "pre-push"}

// Params fill a template.
type Params struct {
	Hook      string // pre-commit, pre-merge-commit or pre-push
	Agentmail string // the agentmail binary the hook runs (an absolute path, or a name looked up on PATH)
	Mode      string // block or warn: the mode when the environment names none
	Store     string // the store directory recorded at install; "" for none
	Project   string // the project key recorded at install; "" for none
}

// Render returns the hook script for p.
func Render(p Params) ([]byte, error) {
	file, gitCmd := "commit.sh", "commit"
	switch p.Hook {
	case "pre-commit", "pre-merge-commit":
	case "pre-push":
		file, gitCmd = "pre-push.sh", "push"
	default:
		return nil, fmt.Errorf("render hook: unknown hook %q", p.Hook)
	}
	if p.Mode != "block" && p.Mode != "warn" {
		return nil, fmt.Errorf("render hook: unknown mode %q", p.Mode)
	}
	if p.Agentmail == "" || strings.ContainsAny(p.Agentmail, "\x00\n") {
		return nil, fmt.Errorf("render hook: unusable agentmail path %q", p.Agentmail)
	}
	if strings.ContainsAny(p.Store, "\x00\n") {
		return nil, fmt.Errorf("render hook: unusable store path %q", p.Store)
	}
	if strings.ContainsAny(p.Project, "\x00\n") {
		return nil, fmt.Errorf("render hook: unusable project key %q", p.Project)
	}
	head, err := templates.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("render hook: %w", err)
	}
	// Hooks stay one self-contained file each (no sourcing on the hot
	// path); the part they share is one template appended here.
	tail, err := templates.ReadFile("check.sh")
	if err != nil {
		return nil, fmt.Errorf("render hook: %w", err)
	}
	tail = tail[bytes.IndexByte(tail, '\n')+1:] // drop the template's own comment
	r := strings.NewReplacer("@HOOK@", p.Hook, "@AGENTMAIL@", shellQuote(p.Agentmail), "@STORE@", shellQuote(p.Store), "@PROJECT@", shellQuote(p.Project), "@MODE@", p.Mode, "@GITCMD@", gitCmd)
	return []byte(r.Replace(string(head) + string(tail))), nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Settings are what a rendered hook records.
type Settings struct {
	Agentmail string
	Mode      string
	Store     string // "" in a hook written before stores were recorded
	Project   string // "" in a hook written before projects were recorded
}

// Parse reads the settings back from a hook agentmail wrote; ok is false
// for any other script.
func Parse(script []byte) (s Settings, ok bool) {
	text := string(script)
	if !strings.Contains(text, Marker) {
		return Settings{}, false
	}
	for _, line := range strings.Split(text, "\n") {
		if v, found := strings.CutPrefix(line, "agentmail="); found {
			s.Agentmail = unquote(v)
		}
		if v, found := strings.CutPrefix(line, "store="); found {
			s.Store = unquote(v)
		}
		if v, found := strings.CutPrefix(line, "project="); found {
			s.Project = unquote(v)
		}
		if v, found := strings.CutPrefix(line, "mode=${AGENTMAIL_GUARD_MODE:-${AGENT_MAIL_GUARD_MODE:-"); found {
			s.Mode = strings.TrimSuffix(v, "}}")
		}
	}
	return s, true
}

// unquote undoes shellQuote.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	return s
}
