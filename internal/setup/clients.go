package setup

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// serverName is the name of agentmail's entry in every client's list of
// MCP servers.
const serverName = "agentmail"

// client is one coding agent: where its configuration lives and how
// agentmail's entry is written there.
type client struct {
	title string
	// file returns the configuration file of a scope.
	file func(o Options) string
	// server is the editor of agentmail's MCP server entry in it.
	server func(o Options) editor
	// hooksFile returns the settings file that holds hooks; nil when the
	// client has no hook that setup adds.
	hooksFile func(o Options) string
	// hooks are the hooks setup adds there (and takes out).
	hooks func(o Options) claudeHooks
	// notes are said after a change of the scope's file.
	notes func(o Options) []string
}

// stdioServer is the entry Claude Code, Cursor and Gemini CLI read: a
// command run with arguments and environment, speaking MCP on stdio.
type stdioServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// opencodeServer is opencode's "local" MCP server entry.
type opencodeServer struct {
	Type        string            `json:"type"`
	Command     []string          `json:"command"`
	Enabled     bool              `json:"enabled"`
	Environment map[string]string `json:"environment,omitempty"`
}

// codexServer is a [mcp_servers.NAME] table of Codex's config.toml.
type codexServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env,inline,omitempty"`
}

// inDotDir is the file name in the directory dir of the project, or of
// the user's home with --user (.cursor/mcp.json, ~/.cursor/mcp.json).
func inDotDir(dir, name string) func(Options) string {
	return func(o Options) string {
		if o.User {
			return filepath.Join(o.Home, dir, name)
		}
		return filepath.Join(o.Project, dir, name)
	}
}

// stdio is the editor of a "mcpServers" entry of a stdioServer.
func stdio(d dialect, typ string) func(Options) editor {
	return func(o Options) editor {
		return jsonServer{d, []string{"mcpServers", serverName}, stdioServer{Type: typ, Command: o.Command, Args: o.args(), Env: o.Env}}
	}
}

var clients = map[string]client{
	"claude-code": {
		title: "Claude Code",
		file: func(o Options) string {
			if o.User {
				return filepath.Join(o.Home, ".claude.json")
			}
			return filepath.Join(o.Project, ".mcp.json")
		},
		server:    stdio(plainJSON, "stdio"),
		hooksFile: inDotDir(".claude", "settings.json"),
		hooks:     claudeHooksFor,
		notes: func(o Options) []string {
			if o.User {
				return []string{"Claude Code rewrites ~/.claude.json while it runs: quit it before setup, or run setup again if the entry is gone"}
			}
			return []string{"Claude Code asks once before it starts a server from a project's .mcp.json"}
		},
	},
	"codex": {
		title: "Codex",
		file: func(o Options) string {
			if o.User {
				return filepath.Join(o.CodexHome, "config.toml")
			}
			return filepath.Join(o.Project, ".codex", "config.toml")
		},
		server: func(o Options) editor {
			return tomlServer{[]string{"mcp_servers", serverName}, codexServer{Command: o.Command, Args: o.args(), Env: o.Env}}
		},
		notes: func(o Options) []string {
			if o.User {
				return nil
			}
			return []string{"Codex reads a project's .codex/config.toml only once you trust the project"}
		},
	},
	"cursor": {
		title:  "Cursor",
		file:   inDotDir(".cursor", "mcp.json"),
		server: stdio(plainJSON, ""),
	},
	"gemini": {
		title:     "Gemini CLI",
		file:      inDotDir(".gemini", "settings.json"),
		server:    stdio(jsonComment, ""),
		hooksFile: inDotDir(".gemini", "settings.json"),
		hooks:     geminiHooksFor,
	},
	"opencode": {
		title: "opencode",
		file: func(o Options) string {
			dir := o.Project
			if o.User {
				dir = filepath.Join(o.ConfigHome, "opencode")
			}
			return opencodeFile(dir)
		},
		server: func(o Options) editor {
			return jsonServer{jsonc, []string{"mcp", serverName},
				opencodeServer{Type: "local", Command: append([]string{o.Command}, o.args()...), Enabled: true, Environment: o.Env}}
		},
	},
}

// opencodeFile is the opencode.jsonc in dir when there is one, else
// opencode.json (created if need be).
func opencodeFile(dir string) string {
	if p := filepath.Join(dir, "opencode.jsonc"); exists(p) {
		return p
	}
	return filepath.Join(dir, "opencode.json")
}

// Clients returns the names of the clients setup knows, sorted.
func Clients() []string {
	return slices.Sorted(maps.Keys(clients))
}

// HasHooks reports whether setup can add a hook for the named client.
func HasHooks(name string) bool {
	return clients[name].hooksFile != nil
}

// checkCommand is the shell command of the prompt hook: agentmail check
// --hook, with the environment the server entry passes (the hook has no
// environment of its own to set). --hook keeps it from exiting 2, which
// makes Claude Code block the prompt: mail must never stop one.
func checkCommand(o Options) string { return hookCommandLine(o, "check", "--hook") }

// editCommand is the shell command of the pre-tool hook: agentmail guard
// edit (--auto-reserve with AutoReserve), with the same environment.
func editCommand(o Options) string {
	if o.AutoReserve {
		return hookCommandLine(o, "guard", "edit", "--auto-reserve")
	}
	return hookCommandLine(o, "guard", "edit")
}

// sessionEndCommand is the shell command of the session-end hook:
// agentmail guard session-end, with the same environment (the agent whose
// leases taken on edit it releases).
func sessionEndCommand(o Options) string { return hookCommandLine(o, "guard", "session-end") }

func hookCommandLine(o Options, args ...string) string {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(o.Env)) {
		words = append(words, k+"="+shellQuote(o.Env[k]))
	}
	return strings.Join(append(append(words, shellQuote(o.Command)), args...), " ")
}

// EditToolsMatcher is the matcher of the pre-tool hook: Claude Code's
// tools that write files.
const EditToolsMatcher = "Edit|Write|MultiEdit|NotebookEdit"

// claudeHooksFor returns the hooks setup adds to Claude Code's settings
// (and, absent, those it takes out of them): with AutoReserve, a
// SessionEnd hook releasing the leases the PreToolUse hook takes; without,
// none (one an earlier setup added goes).
func claudeHooksFor(o Options) claudeHooks {
	return claudeHooks{
		{dialect: plainJSON, event: "UserPromptSubmit", sub: []string{"check"}, command: checkCommand(o), bin: o.Command},
		{dialect: plainJSON, event: "PreToolUse", matcher: EditToolsMatcher, sub: []string{"guard", "edit"}, command: editCommand(o), bin: o.Command},
		{dialect: plainJSON, event: "SessionEnd", sub: []string{"guard", "session-end"}, command: sessionEndCommand(o), bin: o.Command, absent: !o.AutoReserve},
	}
}

// GeminiEditToolsMatcher is the matcher of Gemini CLI's pre-tool hook: its
// tools that write files.
const GeminiEditToolsMatcher = "write_file|replace"

// geminiHooksFor returns the hooks setup adds to Gemini CLI's settings
// (the file of its MCP servers too): a BeforeTool hook running guard edit
// (its documented decision output is what guard edit answers a BeforeTool
// payload with), and with AutoReserve a SessionEnd hook. No prompt hook:
// Gemini CLI reads a hook's standard output as JSON, and check prints
// text.
func geminiHooksFor(o Options) claudeHooks {
	return claudeHooks{
		{dialect: jsonComment, event: "BeforeTool", matcher: GeminiEditToolsMatcher, sub: []string{"guard", "edit"}, command: editCommand(o), bin: o.Command},
		{dialect: jsonComment, event: "SessionEnd", sub: []string{"guard", "session-end"}, command: sessionEndCommand(o), bin: o.Command, absent: !o.AutoReserve},
	}
}

// shellQuote returns s as one shell word: as it is when that is safe,
// else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command line as sh would, for the quoting
// shellQuote and people write: single and double quotes, backslashes.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				w.WriteByte(s[i])
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// isCheckCommand reports whether a hook's command runs agentmail check:
// bin, or any binary named agentmail, after any VAR=value assignments.
func isCheckCommand(cmd, bin string) bool { return isAgentmailCommand(cmd, bin, "check") }

// isAgentmailCommand reports whether a hook's command runs the agentmail
// subcommand sub: bin, or any binary named agentmail, after any VAR=value
// assignments.
func isAgentmailCommand(cmd, bin string, sub ...string) bool {
	words := shellWords(cmd)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	return len(words) > len(sub) && (words[0] == bin || filepath.Base(words[0]) == "agentmail") && slices.Equal(words[1:1+len(sub)], sub)
}

// isAssignment reports whether a shell word is NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 && !(name[0] >= '0' && name[0] <= '9')
}
