package service

import (
	"cmp"
	"errors"
	"fmt"
	"log"
	"net/http"
	"runtime/debug"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/ports"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/setup"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
	"github.com/agentmail/agentmail/internal/webhooks"
)

// Exit statuses of the command line. They are part of the interface: see
// README.md.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitConflict = 3
	ExitTimeout  = 4
	ExitPaused   = 5
)

// Sentinels of the domain packages that callers of the service branch on.
var (
	// ErrInvalidArgument: an input the operation cannot use.
	ErrInvalidArgument = mailbox.ErrInvalidArgument
	// ErrInvalidTopic: a topic that is none (INVALID_TOPIC).
	ErrInvalidTopic = mailbox.ErrInvalidTopic
	// ErrTimeout: nothing arrived in time (Wait, SendAndWait).
	ErrTimeout = mailbox.ErrTimeout
	// ErrConflict: a pattern overlaps another agent's reservation.
	ErrConflict = reservations.ErrConflict
	// ErrNotRegistered: the operation needs an acting agent, and none is
	// named or the one named is not registered.
	ErrNotRegistered = mailbox.ErrNotRegistered
	// ErrNotFound: no message, agent or reservation by that id or name.
	ErrNotFound = mailbox.ErrNotFound
	// ErrLockHeld: another holds the lock (the response names it).
	ErrLockHeld = reservations.ErrLockHeld
	// ErrPortHeld: another agent holds the port name here (the response
	// names the claim).
	ErrPortHeld = ports.ErrHeld
	// ErrNameTaken: an agent of that name is registered already.
	ErrNameTaken = mailbox.ErrNameTaken
)

// ErrAuthenticationRequired: a caller bound to one agent asked to act as
// another (the MCP server acts only as its session's agent unless started
// as an overseer).
var ErrAuthenticationRequired = errors.New("authentication required")

// ErrShuttingDown: a long-lived server is stopping and takes no more
// requests of this kind.
var ErrShuttingDown = errors.New("the server is shutting down")

// Recovered returns the error of a request that panicked with v, which a
// long-lived server (mcp, serve) recovered from so that its other requests
// go on: ERROR, whose hint says to report it. It logs the panic and its
// stack first.
func Recovered(what string, v any) error {
	log.Printf("agentmail: recovered from a panic in %s: %v\n%s", what, v, debug.Stack())
	return fmt.Errorf("internal error in %s: %v", what, v)
}

// Failure is how an error reaches a user: its code in the error
// document, its message, the field that was wrong and the values that
// matter (its detail, from which each face words its advice), the hint
// the error carries or its code's face-neutral one, and the exit status
// (command line) and HTTP status (server) it maps to.
type Failure struct {
	Code    string
	Message string
	Hint    string
	Exit    int
	HTTP    int
	fault.Detail
	// OwnHint: Hint is the error's own, not its code's.
	OwnHint bool
}

// ErrorDoc is the one error document, {"error": ErrorDoc} on every face:
// the command line's --json on stderr, the HTTP API's body, an MCP tool's
// error (which adds what its clients need beside it). Field and Values
// are the failure's detail; the hint is in the words of the face that
// sends it.
type ErrorDoc struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint"`
	Field   string         `json:"field,omitempty"`
	Values  map[string]any `json:"values,omitempty"`
}

// Doc returns f's error document with hint, a face's words.
func (f Failure) Doc(hint string) ErrorDoc {
	return ErrorDoc{Code: f.Code, Message: f.Message, Hint: hint, Field: f.Field, Values: f.Values}
}

// Hints are a face's words for failures, by "CODE/field" (the field of
// the failure's detail) and by "CODE": each words what to do next from
// the failure's detail in the face's terms (a flag, a tool's argument, a
// JSON key, a page), or returns "" to leave it to the next.
type Hints map[string]func(Failure) string

// Word returns f's hint in a face's words: the face's for f's code and
// field, else the error's own hint, else the face's for the code, else the
// code's face-neutral hint, else fallback.
func (h Hints) Word(f Failure, fallback string) string {
	if w, ok := h[f.Code+"/"+f.Field]; ok && f.Field != "" {
		if s := w(f); s != "" {
			return s
		}
	}
	if f.OwnHint && f.Hint != "" {
		return f.Hint
	}
	if w, ok := h[f.Code]; ok {
		if s := w(f); s != "" {
			return s
		}
	}
	return cmp.Or(f.Hint, fallback)
}

// Say is a face's hint that is the same whatever the failure's detail.
func Say(hint string) func(Failure) string { return func(Failure) string { return hint } }

// UsageError is a request that does not make sense as given: an input
// missing, contradictory or out of range (USAGE, exit 2).
type UsageError struct {
	Msg    string
	Hint   string         // what to do instead, in no face's terms; "" for the face's own
	Field  string         // the request's field that is missing or wrong, if one is
	Values map[string]any // what matters beside it (an example, a limit)
}

func (e *UsageError) Error() string { return e.Msg }

// Detail names the field and the values.
func (e *UsageError) Detail() fault.Detail { return fault.Detail{Field: e.Field, Values: e.Values} }

// UsageField returns a UsageError about the request's field, with a
// formatted message: each face words the hint (the command line names its
// usage, MCP the tool's argument).
func UsageField(field, format string, args ...any) *UsageError {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Field: field}
}

// With returns e with the values of key, value pairs.
func (e *UsageError) With(kv ...any) *UsageError {
	e.Values = fault.Values(kv...)
	return e
}

// Usagef returns a UsageError with the hint and a formatted message.
func Usagef(hint, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// PlainUsage returns err, unless it is a usage error: then a plain error
// with the same message and hint, or with its field and values and
// "usage": true for the face to word, which exits 1. For callers whose exit 2
// means something else: a git hook fails the commit like any other
// failure, and Claude Code blocks the prompt of a hook that exits 2.
func PlainUsage(err error) error {
	var ue *UsageError
	if !errors.As(err, &ue) {
		return err
	}
	plain := errors.New(err.Error())
	if ue.Hint != "" {
		return fault.WithHint(plain, ue.Hint)
	}
	kv := []any{"usage", true}
	for k, v := range ue.Values {
		kv = append(kv, k, v)
	}
	return fault.WithField(plain, ue.Field, kv...)
}

// CannotRunError is a command that lock run could not start: exit 127 when
// it was not found, 126 when it could not be executed, as a shell does.
type CannotRunError struct {
	Err  error
	Exit int
}

func (e *CannotRunError) Error() string { return e.Err.Error() }
func (e *CannotRunError) Unwrap() error { return e.Err }

// errorCodes maps the sentinel errors of the domain packages to their
// codes, exit and HTTP statuses, and, where one is true on every face, the
// hint shown when the error carries none of its own; each face words the
// rest (cmd/agentmail's, internal/mcpserver's and internal/server's
// Hints). One row per meaning: the domain packages' names of one kind
// (mailbox.ErrNotFound, reservations.ErrNotFound) are one error value
// (internal/fault), so a second row of it could never match. The first
// match wins.
var errorCodes = []struct {
	err  error
	code string
	exit int
	http int
	hint string
}{
	{store.ErrArchived, "PROJECT_ARCHIVED", ExitError, http.StatusConflict, "reads go on meanwhile"},
	{project.ErrNoProject, "NO_PROJECT", ExitError, http.StatusBadRequest, ""},
	{ErrAuthenticationRequired, "AUTHENTICATION_REQUIRED", ExitError, http.StatusForbidden, ""},
	{mailbox.ErrNotRegistered, "NOT_REGISTERED", ExitError, http.StatusForbidden, ""},
	{mailbox.ErrInvalidName, "INVALID_NAME", ExitError, http.StatusBadRequest, "agent names are an adjective and a noun, like GreenCastle"},
	{mailbox.ErrNameTaken, "NAME_TAKEN", ExitError, http.StatusConflict, ""},
	{mailbox.ErrAgentRetired, "AGENT_RETIRED", ExitError, http.StatusConflict, ""},
	{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", ExitError, http.StatusBadRequest, ""},
	{fault.ErrNotFound, "NOT_FOUND", ExitError, http.StatusNotFound, ""},
	{fault.ErrAmbiguousID, "AMBIGUOUS_ID", ExitError, http.StatusBadRequest, "give more characters of the id"},
	{ErrMessageTooLarge, "MESSAGE_TOO_LARGE", ExitError, http.StatusRequestEntityTooLarge, tooLargeHint},
	{fault.ErrInvalidArgument, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, ""},
	{mailbox.ErrInvalidTopic, "INVALID_TOPIC", ExitError, http.StatusBadRequest, "a topic is 1 to 64 letters, digits, '_', '.' and '-', such as builds or team-api"},
	{mailbox.ErrTimeout, "TIMEOUT", ExitTimeout, http.StatusRequestTimeout, ""},
	{mailbox.ErrPaused, "PAUSED", ExitPaused, http.StatusLocked, ""},
	{mailbox.ErrContactRequired, "CONTACT_REQUIRED", ExitError, http.StatusForbidden, ""},
	{mailbox.ErrContactBlocked, "CONTACT_BLOCKED", ExitError, http.StatusForbidden, ""},
	{reservations.ErrConflict, "RESERVATION_CONFLICT", ExitConflict, http.StatusConflict, ""},
	{reservations.ErrLockHeld, "LOCK_HELD", ExitConflict, http.StatusConflict, ""},
	{ports.ErrHeld, "PORT_HELD", ExitConflict, http.StatusConflict, ""},
	{ports.ErrNoFreePort, "NO_FREE_PORT", ExitError, http.StatusServiceUnavailable, ""},
	{tasks.ErrClaimed, "TASK_CLAIMED", ExitConflict, http.StatusConflict, ""},
	{tasks.ErrCycle, "DEPENDENCY_CYCLE", ExitError, http.StatusConflict, ""},
	{glob.ErrInvalidPattern, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, "patterns are globs relative to the repository root: src/api/**, docs/*.md, Makefile"},
	{guard.ErrBlocked, "GUARD_BLOCKED", ExitError, http.StatusConflict, "to go ahead anyway: AGENTMAIL_BYPASS=1 git commit ..., or git commit --no-verify"}, // design §7: a blocking hook exits 1
	{guard.ErrNotRun, "GUARD_NOT_RUN", ExitError, http.StatusConflict, ""},
	{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", ExitError, http.StatusConflict, ""},
	{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", ExitError, http.StatusConflict, ""},
	{guard.ErrNoBinary, "NO_BINARY", ExitError, http.StatusInternalServerError, "put agentmail on $PATH, then install the hooks again"},
	{guard.ErrNotRepository, "NO_PROJECT", ExitError, http.StatusBadRequest, ""},
	{guard.ErrNoStore, "NO_PROJECT", ExitError, http.StatusBadRequest, "point AGENTMAIL_HOME at the store the agents use"},
	{guard.ErrUnknownProject, "NO_PROJECT", ExitError, http.StatusBadRequest, "point AGENTMAIL_HOME at the store the agents use"},
	{ErrNoRemote, "NO_REMOTE", ExitError, http.StatusBadRequest, ""},
	{archive.ErrUnreachable, "REMOTE_UNREACHABLE", ExitError, http.StatusBadGateway, "check the remote with git ls-remote URL"},
	{ErrShuttingDown, "SHUTTING_DOWN", ExitError, http.StatusServiceUnavailable, "connect again once the server is back"},
	{store.ErrBusy, "STORE_BUSY", ExitError, http.StatusServiceUnavailable, "another agentmail holds the store lock; try again in a moment"},
	{store.ErrIndexDiffers, "STORE_CORRUPT", ExitError, http.StatusInternalServerError, ""},
	{store.ErrCorrupt, "STORE_CORRUPT", ExitError, http.StatusInternalServerError, ""},
	{store.ErrNotWritable, "STORE_NOT_WRITABLE", ExitError, http.StatusServiceUnavailable, ""},
	{store.ErrNotReadable, "STORE_NOT_READABLE", ExitError, http.StatusInternalServerError, ""},
	{setup.ErrMalformed, "MALFORMED_CONFIG", ExitError, http.StatusBadRequest, ""},
	{setup.ErrEntryDiffers, "ENTRY_DIFFERS", ExitError, http.StatusConflict, ""},
	{setup.ErrCannotEdit, "CANNOT_EDIT", ExitError, http.StatusConflict, "make the change by hand"},
	{webhooks.ErrPrivateAddress, "PRIVATE_ADDRESS", ExitError, http.StatusBadRequest, "register a receiver at a public address, or allow private addresses for this webhook"},
	{ErrExportModified, "EXPORT_MODIFIED", ExitError, http.StatusConflict, "the file named was changed, added or removed after the export was made: export again from the store"},
	{ErrNoKeygen, "NO_KEYGEN", ExitError, http.StatusInternalServerError, "install OpenSSH's ssh-keygen (Debian: openssh-client)"},
}

// Hints of errors with no code of their own, true on every face.
const (
	runHint  = "check the command's name and $PATH"
	fullHint = "free space on the disk of the store, then try again: nothing written before is lost, and what failed was not written"
)

// Describe says how err reaches a user: its code, message, detail, hint
// (its own, else its code's face-neutral one), exit status and HTTP
// status. An error of no known kind is ERROR, exit 1, HTTP 500.
func Describe(err error) Failure {
	f := describeKind(err)
	f.Message = err.Error()
	f.Detail = fault.DetailOf(err)
	if h := fault.Hint(err); h != "" {
		f.Hint, f.OwnHint = h, true
	}
	return f
}

// describeKind is Describe without the message and the error's own hint.
func describeKind(err error) Failure {
	var ue *UsageError
	var cr *CannotRunError
	switch {
	case errors.As(err, &ue):
		return Failure{Code: "USAGE", Exit: ExitUsage, HTTP: http.StatusBadRequest, Hint: ue.Hint, OwnHint: ue.Hint != ""}
	case errors.As(err, &cr):
		return Failure{Code: "CANNOT_RUN", Exit: cr.Exit, HTTP: http.StatusInternalServerError, Hint: runHint}
	case store.IsFull(err):
		// Before the table: a full disk also fails the lock file's
		// creation (STORE_NOT_WRITABLE) and git's reads (STORE_CORRUPT).
		return Failure{Code: "STORE_FULL", Exit: ExitError, HTTP: http.StatusInsufficientStorage, Hint: fullHint}
	}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return Failure{Code: c.code, Exit: c.exit, HTTP: c.http, Hint: c.hint}
		}
	}
	return Failure{Code: "ERROR", Exit: ExitError, HTTP: http.StatusInternalServerError}
}
