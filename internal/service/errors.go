package service

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/agentmail/agentmail/internal/archive"
	"log"
	"net/http"
	"runtime/debug"

	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/setup"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/agentmail/agentmail/ports"
	"github.com/agentmail/agentmail/reservations"
	"github.com/agentmail/agentmail/webhooks"
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

// Failure is how an error reaches a user: its code in the JSON error
// document, its message, what to do next, and the exit status (command
// line) and HTTP status (server) it maps to.
type Failure struct {
	Code    string
	Message string
	Hint    string
	Exit    int
	HTTP    int
}

// UsageError is a request that does not make sense as given: an input
// missing, contradictory or out of range (USAGE, exit 2).
type UsageError struct {
	Msg  string
	Hint string // what to do instead; "" for the general one
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with the hint and a formatted message.
func Usagef(hint, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// PlainUsage returns err, unless it is a usage error: then a plain error
// with the same message and hint, which exits 1. For callers whose exit 2
// means something else: a git hook fails the commit like any other
// failure, and Claude Code blocks the prompt of a hook that exits 2.
func PlainUsage(err error) error {
	var ue *UsageError
	if !errors.As(err, &ue) {
		return err
	}
	return fault.WithHint(errors.New(err.Error()), cmp.Or(ue.Hint, usageHint))
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
// codes, exit and HTTP statuses, and the hint shown when the error carries
// none of its own: every error says what to do next. The first match wins.
var errorCodes = []struct {
	err  error
	code string
	exit int
	http int
	hint string
}{
	{project.ErrNoProject, "NO_PROJECT", ExitError, http.StatusBadRequest, "run agentmail inside your project's git checkout, or pass --project KEY"},
	{ErrAuthenticationRequired, "AUTHENTICATION_REQUIRED", ExitError, http.StatusForbidden, "act as your own agent (leave agent_name out), or start agentmail mcp --overseer to act for any agent"},
	{mailbox.ErrNotRegistered, "NOT_REGISTERED", ExitError, http.StatusForbidden, "pass --agent NAME or set AGENTMAIL_AGENT; register one with: agentmail register"},
	{mailbox.ErrInvalidName, "INVALID_NAME", ExitError, http.StatusBadRequest, "agent names are an adjective and a noun, like GreenCastle; omit --name for a generated one"},
	{mailbox.ErrNameTaken, "NAME_TAKEN", ExitError, http.StatusConflict, "choose another name, or omit --name for a generated one"},
	{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", ExitError, http.StatusBadRequest, "agentmail agents lists who is registered"},
	{mailbox.ErrNotFound, "NOT_FOUND", ExitError, http.StatusNotFound, "check the id or name: agentmail inbox and agentmail outbox list your messages"},
	{mailbox.ErrAmbiguousID, "AMBIGUOUS_ID", ExitError, http.StatusBadRequest, "give more characters of the id"},
	{reservations.ErrAmbiguousID, "AMBIGUOUS_ID", ExitError, http.StatusBadRequest, "give more characters of the id"},
	{ErrMessageTooLarge, "MESSAGE_TOO_LARGE", ExitError, http.StatusRequestEntityTooLarge, tooLargeHint},
	{mailbox.ErrInvalidArgument, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, "see: agentmail COMMAND --help"},
	{mailbox.ErrInvalidTopic, "INVALID_TOPIC", ExitError, http.StatusBadRequest, "a topic is 1 to 64 letters, digits, '_', '.' and '-', such as builds or team-api"},
	{mailbox.ErrTimeout, "TIMEOUT", ExitTimeout, http.StatusRequestTimeout, "wait again, or check agentmail inbox"},
	{mailbox.ErrPaused, "PAUSED", ExitPaused, http.StatusLocked, "wait to be resumed; reads, check, wait, state and releasing what you hold still work"},
	{mailbox.ErrContactRequired, "CONTACT_REQUIRED", ExitError, http.StatusForbidden, "ask first: agentmail contacts request NAME --reason \"...\""},
	{mailbox.ErrContactBlocked, "CONTACT_BLOCKED", ExitError, http.StatusForbidden, "the recipient takes no mail; ask a human to pass it on (agentmail send --as-human)"},
	{reservations.ErrConflict, "RESERVATION_CONFLICT", ExitConflict, http.StatusConflict, "wait for the holder's reservation to expire, ask the holder (agentmail send --to HOLDER), or pass --shared or --allow-conflicts"},
	{reservations.ErrLockHeld, "LOCK_HELD", ExitConflict, http.StatusConflict, "wait for it (--wait 5m), or ask the holder (agentmail send --to HOLDER)"},
	{ports.ErrHeld, "PORT_HELD", ExitConflict, http.StatusConflict, "use it (agentmail port get NAME), claim another name, or ask the holder (agentmail send --to HOLDER)"},
	{ports.ErrNoFreePort, "NO_FREE_PORT", ExitError, http.StatusServiceUnavailable, "release ports you no longer use: agentmail port list"},
	{reservations.ErrNotFound, "NOT_FOUND", ExitError, http.StatusNotFound, "agentmail reservations --mine and agentmail lock list show what you hold"},
	{reservations.ErrInvalidArgument, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, "see: agentmail COMMAND --help"},
	{reservations.ErrInvalidPattern, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, "patterns are globs relative to the repository root: src/api/**, docs/*.md, Makefile"},
	{guard.ErrBlocked, "GUARD_BLOCKED", ExitError, http.StatusConflict, "to go ahead anyway: AGENTMAIL_BYPASS=1 git commit ..., or git commit --no-verify"}, // design §7: a blocking hook exits 1
	{guard.ErrNotRun, "GUARD_NOT_RUN", ExitError, http.StatusConflict, "run agentmail guard install: it installs the hooks where git runs them, keeping the ones there"},
	{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", ExitError, http.StatusConflict, "pass --allow-global to install the hooks there anyway"},
	{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", ExitError, http.StatusConflict, "move the file out of the way, or see agentmail guard status"},
	{guard.ErrNoBinary, "NO_BINARY", ExitError, http.StatusInternalServerError, "put agentmail on $PATH, then install the hooks again"},
	{guard.ErrNotRepository, "NO_PROJECT", ExitError, http.StatusBadRequest, "run it inside a git checkout, or pass --repo DIR"},
	{guard.ErrInvalidArgument, "INVALID_ARGUMENT", ExitError, http.StatusBadRequest, "see: agentmail guard --help"},
	{guard.ErrNoStore, "NO_PROJECT", ExitError, http.StatusBadRequest, "point AGENTMAIL_HOME at the store the agents use"},
	{guard.ErrUnknownProject, "NO_PROJECT", ExitError, http.StatusBadRequest, "point AGENTMAIL_HOME at the store the agents use, or run agentmail guard install"},
	{ErrNoRemote, "NO_REMOTE", ExitError, http.StatusBadRequest, "pass the remote once: agentmail sync --remote URL"},
	{archive.ErrUnreachable, "REMOTE_UNREACHABLE", ExitError, http.StatusBadGateway, "check the remote with git ls-remote URL"},
	{ErrShuttingDown, "SHUTTING_DOWN", ExitError, http.StatusServiceUnavailable, "connect again once the server is back"},
	{store.ErrBusy, "STORE_BUSY", ExitError, http.StatusServiceUnavailable, "another agentmail holds the store lock; try again in a moment"},
	{store.ErrIndexDiffers, "STORE_CORRUPT", ExitError, http.StatusInternalServerError, "run agentmail doctor --reindex to rebuild the index from the archive"},
	{store.ErrCorrupt, "STORE_CORRUPT", ExitError, http.StatusInternalServerError, "run agentmail doctor --check"},
	{store.ErrNotWritable, "STORE_NOT_WRITABLE", ExitError, http.StatusServiceUnavailable, "point --store or AGENTMAIL_HOME at a directory you can write"},
	{store.ErrNotReadable, "STORE_NOT_READABLE", ExitError, http.StatusInternalServerError, "ask the store's owner for read access, or point --store or AGENTMAIL_HOME at another store"},
	{setup.ErrMalformed, "MALFORMED_CONFIG", ExitError, http.StatusBadRequest, "fix the file, then run agentmail setup again"},
	{setup.ErrEntryDiffers, "ENTRY_DIFFERS", ExitError, http.StatusConflict, "pass --force to replace it, or --uninstall to take it out"},
	{setup.ErrCannotEdit, "CANNOT_EDIT", ExitError, http.StatusConflict, "make the change by hand"},
	{webhooks.ErrPrivateAddress, "PRIVATE_ADDRESS", ExitError, http.StatusBadRequest, "register a receiver at a public address, or allow private addresses for this webhook"},
}

// Hints of errors with no code of their own.
const (
	usageHint   = "see: agentmail --help"
	generalHint = "if it happens again, run agentmail doctor --check and report it with the command that failed"
	runHint     = "check the command's name and $PATH"
	fullHint    = "free space on the disk of the store, then try again: nothing written before is lost, and what failed was not written"
)

// Describe says how err reaches a user: its code, message, hint (its own,
// else its code's), exit status and HTTP status. An error of no known
// kind is ERROR, exit 1, HTTP 500.
func Describe(err error) Failure {
	f := describeKind(err)
	f.Message = err.Error()
	if h := fault.Hint(err); h != "" {
		f.Hint = h
	}
	return f
}

// describeKind is Describe without the message and the error's own hint.
func describeKind(err error) Failure {
	var ue *UsageError
	var cr *CannotRunError
	switch {
	case errors.As(err, &ue):
		return Failure{Code: "USAGE", Exit: ExitUsage, HTTP: http.StatusBadRequest, Hint: cmp.Or(ue.Hint, usageHint)}
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
	return Failure{Code: "ERROR", Exit: ExitError, HTTP: http.StatusInternalServerError, Hint: generalHint}
}
