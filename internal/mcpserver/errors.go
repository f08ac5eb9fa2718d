package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// ErrorDoc is the error document of a failed call, the command line's
// --json error document with what a program needs beyond it: the
// mcp_agent_mail name of the code where its clients branch on one, and the
// conflicts of a reservation or the holder of a lock.
type ErrorDoc struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// Type is mcp_agent_mail's name for the code, where it has one.
	Type      string             `json:"type,omitempty"`
	Conflicts []service.Conflict `json:"conflicts,omitempty"`
	Lock      *service.Lock      `json:"lock,omitempty"`
}

// toolError is a failed call: its Error is the JSON document
// {"error": ErrorDoc}, which the SDK sends as the text of a tool error
// (isError, no structured content, which a client would check against the
// tool's output schema), for the model and for programs alike.
type toolError struct {
	doc ErrorDoc
	err error
}

func (e *toolError) Error() string {
	b, _ := json.Marshal(map[string]ErrorDoc{"error": e.doc})
	return string(b)
}

func (e *toolError) Unwrap() error { return e.err }

// details is an error that carries what the error document lists beside
// the code: the conflicts of a reservation, the holder of a lock.
type details struct {
	err       error
	conflicts []service.Conflict
	lock      *service.Lock
}

func (d *details) Error() string { return d.err.Error() }
func (d *details) Unwrap() error { return d.err }

// withConflicts attaches a reservation's conflicts to its error.
func withConflicts(err error, conflicts []service.Conflict) error {
	if err == nil || len(conflicts) == 0 {
		return err
	}
	return &details{err: err, conflicts: conflicts}
}

// withLock attaches the lock found held to its error.
func withLock(err error, resp service.LockResponse) error {
	if err == nil || !errors.Is(err, service.ErrLockHeld) {
		return err
	}
	return &details{err: err, lock: &resp.Lock}
}

// mcpAgentMailTypes are mcp_agent_mail's names of our codes, where its
// clients branch on them (docs/mcp-tools.md §1.5).
var mcpAgentMailTypes = map[string]string{
	"RESERVATION_CONFLICT":    "FILE_RESERVATION_CONFLICT",
	"UNKNOWN_RECIPIENT":       "RECIPIENT_NOT_FOUND",
	"CONTACT_REQUIRED":        "CONTACT_REQUIRED",
	"CONTACT_BLOCKED":         "CONTACT_BLOCKED",
	"NOT_FOUND":               "NOT_FOUND",
	"NOT_REGISTERED":          "NOT_FOUND",
	"NO_PROJECT":              "NOT_FOUND",
	"INVALID_ARGUMENT":        "INVALID_ARGUMENT",
	"USAGE":                   "INVALID_ARGUMENT",
	"INVALID_NAME":            "INVALID_AGENT_NAME",
	"AUTHENTICATION_REQUIRED": "AUTHENTICATION_REQUIRED",
	"TIMEOUT":                 "TIMEOUT",
	"STORE_BUSY":              "RESOURCE_BUSY",
}

// toolHints replace the command line's default hints, which name commands
// and flags, for errors that carry no hint of their own.
var toolHints = map[string]string{
	"NO_PROJECT":              "pass project_key: the absolute path of your repository, or the key or slug of a known project (the message lists them); ensure_project with human_key creates a new one",
	"NOT_REGISTERED":          "call register_agent (or macro_start_session) first, or pass your agent name",
	"INVALID_NAME":            "agent names are an adjective and a noun, like GreenCastle; leave the name out for a generated one",
	"NAME_TAKEN":              "choose another name, or leave the name out for a generated one",
	"UNKNOWN_RECIPIENT":       "list_agents lists who is registered",
	"NOT_FOUND":               "check the id or name: fetch_inbox lists your messages, list_agents the agents, list_contacts the contact requests, check_file_reservations who holds a path, list_locks the locks",
	"INVALID_ARGUMENT":        "see the tool's input schema",
	"USAGE":                   "see the tool's input schema",
	"NO_REMOTE":               "the project has no remote to sync through: leave offline out",
	"AUTHENTICATION_REQUIRED": "act as the agent this session acts as (leave the agent name out); only an overseer's server acts for any agent",
	"TIMEOUT":                 "wait again, or look at fetch_inbox",
	"CONTACT_REQUIRED":        "ask first: request_contact with to_agent and a reason, then wait for the approval",
	"CONTACT_BLOCKED":         "the recipient takes no mail; ask a human to pass it on",
	"LOCK_HELD":               "wait for it (wait_seconds), or ask the holder with send_message",
	"PORT_HELD":               "use the holder's port (get_port), claim another name, or ask the holder with send_message",
	"NO_FREE_PORT":            "release the ports you no longer use (list_ports shows them)",
	"PAUSED":                  "wait to be resumed (wait_for_mail returns when you are); reads, check_mail, set_agent_state and releasing what you hold still work",
	// The command line's hint names --offline; only tools that grant
	// leases reach the remote.
	"REMOTE_UNREACHABLE": "the project syncs through this remote: check that it is up, or call again with offline: true to grant here only, unconfirmed until a sync decides it",
}

// flagHints are the codes whose hints always name command-line flags, so
// that a tool's hint replaces even an error's own.
var flagHints = map[string]bool{"REMOTE_UNREACHABLE": true}

// cliText finds the command line's vocabulary in a text: a flag, or a
// command to run. An MCP client has neither.
var cliText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w-])--[a-z]|\bagentmail [a-z]`) })

// toolWords says, in the tools' arguments, what the domain's errors say
// in the command line's flags (until errors are data a face words itself).
var toolWords = strings.NewReplacer(
	"omit --name", "leave name out", "--name", "name",
	"--limit", "limit", "--subject", "subject", "--body", "body_md",
	"--ttl", "ttl_seconds", "--reason", "reason", "--thread", "thread_id",
	"--importance", "importance", "--category", "category", "--topic NAME", "topic", "--topic", "topic", "--attach", "attachment_paths",
	"--shared", "exclusive: false", "--allow-conflicts", "allow_conflicts", "--wait", "wait_seconds",
)

// mcpText words an error's text for an MCP client: flags become the
// tools' arguments; a text that still names a command or flag is replaced
// by instead.
func mcpText(s, instead string) string {
	if !cliText().MatchString(s) {
		return s
	}
	if s = toolWords.Replace(s); cliText().MatchString(s) {
		return instead
	}
	return s
}

// errorDoc describes err as the error document, in the tools' terms.
func errorDoc(err error) ErrorDoc {
	f := service.Describe(err)
	if f.Code == "ERROR" && errors.Is(err, context.Canceled) {
		f.Code, f.Hint = "CANCELLED", "the call was cancelled: its client went away or closed its input; call again to try again"
	}
	doc := ErrorDoc{Code: f.Code, Message: f.Message, Hint: f.Hint, Type: mcpAgentMailTypes[f.Code]}
	if h, ok := toolHints[f.Code]; ok && (flagHints[f.Code] || !ownHint(err)) {
		doc.Hint = h
	}
	fallback, ok := toolHints[f.Code]
	if !ok {
		fallback = "see the tool's description and input schema (tools/list)"
	}
	doc.Hint = mcpText(doc.Hint, fallback)
	doc.Message = mcpText(doc.Message, f.Code+": see the hint")
	var d *details
	if errors.As(err, &d) {
		doc.Conflicts, doc.Lock = d.conflicts, d.lock
	}
	return doc
}

// ownHint reports whether err carries a hint of its own, rather than its
// code's default.
func ownHint(err error) bool {
	var ue *service.UsageError
	return fault.Hint(err) != "" || errors.As(err, &ue) && ue.Hint != ""
}

// failure turns an error of an operation into the tool error the client
// sees; nil stays nil.
func failure(err error) error {
	if err == nil {
		return nil
	}
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	return &toolError{doc: errorDoc(err), err: err}
}
