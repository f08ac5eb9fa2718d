package service

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"syscall"
	"testing"

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
)

// The codes and exit statuses are part of the interface (README.md, "Exit
// codes"): this table is what the command line has always said, written
// out by hand so that a change to errorCodes cannot pass unnoticed.
func TestDescribe(t *testing.T) {
	tests := []struct {
		err  error
		code string
		exit int
		http int
	}{
		{project.ErrNoProject, "NO_PROJECT", 1, http.StatusBadRequest},
		{ErrAuthenticationRequired, "AUTHENTICATION_REQUIRED", 1, http.StatusForbidden},
		{mailbox.ErrNotRegistered, "NOT_REGISTERED", 1, http.StatusForbidden},
		{mailbox.ErrInvalidName, "INVALID_NAME", 1, http.StatusBadRequest},
		{mailbox.ErrNameTaken, "NAME_TAKEN", 1, http.StatusConflict},
		{mailbox.ErrAgentRetired, "AGENT_RETIRED", 1, http.StatusConflict},
		{store.ErrArchived, "PROJECT_ARCHIVED", 1, http.StatusConflict},
		{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", 1, http.StatusBadRequest},
		{mailbox.ErrNotFound, "NOT_FOUND", 1, http.StatusNotFound},
		{mailbox.ErrAmbiguousID, "AMBIGUOUS_ID", 1, http.StatusBadRequest},
		{mailbox.ErrInvalidArgument, "INVALID_ARGUMENT", 1, http.StatusBadRequest},
		{mailbox.ErrInvalidTopic, "INVALID_TOPIC", 1, http.StatusBadRequest},
		{mailbox.ErrTimeout, "TIMEOUT", 4, http.StatusRequestTimeout},
		{mailbox.ErrPaused, "PAUSED", 5, http.StatusLocked},
		{mailbox.ErrContactRequired, "CONTACT_REQUIRED", 1, http.StatusForbidden},
		{mailbox.ErrContactBlocked, "CONTACT_BLOCKED", 1, http.StatusForbidden},
		{reservations.ErrConflict, "RESERVATION_CONFLICT", 3, http.StatusConflict},
		{reservations.ErrLockHeld, "LOCK_HELD", 3, http.StatusConflict},
		{ports.ErrHeld, "PORT_HELD", 3, http.StatusConflict},
		{ports.ErrNoFreePort, "NO_FREE_PORT", 1, http.StatusServiceUnavailable},
		{tasks.ErrClaimed, "TASK_CLAIMED", 3, http.StatusConflict},
		{tasks.ErrCycle, "DEPENDENCY_CYCLE", 1, http.StatusConflict},
		{glob.ErrInvalidPattern, "INVALID_ARGUMENT", 1, http.StatusBadRequest},
		{guard.ErrBlocked, "GUARD_BLOCKED", 1, http.StatusConflict},
		{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", 1, http.StatusConflict},
		{guard.ErrNotRun, "GUARD_NOT_RUN", 1, http.StatusConflict},
		{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", 1, http.StatusConflict},
		{guard.ErrNoBinary, "NO_BINARY", 1, http.StatusInternalServerError},
		{guard.ErrNotRepository, "NO_PROJECT", 1, http.StatusBadRequest},
		{guard.ErrNoStore, "NO_PROJECT", 1, http.StatusBadRequest},
		{guard.ErrUnknownProject, "NO_PROJECT", 1, http.StatusBadRequest},
		{ErrNoRemote, "NO_REMOTE", 1, http.StatusBadRequest},
		{archive.ErrUnreachable, "REMOTE_UNREACHABLE", 1, http.StatusBadGateway},
		{ErrShuttingDown, "SHUTTING_DOWN", 1, http.StatusServiceUnavailable},
		{store.ErrBusy, "STORE_BUSY", 1, http.StatusServiceUnavailable},
		{store.ErrIndexDiffers, "STORE_CORRUPT", 1, http.StatusInternalServerError},
		{store.ErrCorrupt, "STORE_CORRUPT", 1, http.StatusInternalServerError},
		{store.ErrNotWritable, "STORE_NOT_WRITABLE", 1, http.StatusServiceUnavailable},
		{store.ErrNotReadable, "STORE_NOT_READABLE", 1, http.StatusInternalServerError},
		{setup.ErrMalformed, "MALFORMED_CONFIG", 1, http.StatusBadRequest},
		{setup.ErrEntryDiffers, "ENTRY_DIFFERS", 1, http.StatusConflict},
		{setup.ErrCannotEdit, "CANNOT_EDIT", 1, http.StatusConflict},
		{ErrPrivateAddress, "PRIVATE_ADDRESS", 1, http.StatusBadRequest},
		{ErrExportModified, "EXPORT_MODIFIED", 1, http.StatusConflict},
		{ErrNoKeygen, "NO_KEYGEN", 1, http.StatusInternalServerError},
		{Usagef("", "no query given"), "USAGE", 2, http.StatusBadRequest},
		{&CannotRunError{Err: exec.ErrNotFound, Exit: 127}, "CANNOT_RUN", 127, http.StatusInternalServerError},
		{&CannotRunError{Err: errors.New("permission denied"), Exit: 126}, "CANNOT_RUN", 126, http.StatusInternalServerError},
		{ErrMessageTooLarge, "MESSAGE_TOO_LARGE", 1, http.StatusRequestEntityTooLarge},
		{store.ErrFull, "STORE_FULL", 1, http.StatusInsufficientStorage},
		{syscall.ENOSPC, "STORE_FULL", 1, http.StatusInsufficientStorage},
		{fmt.Errorf("%w: mkdir: %v", store.ErrNotWritable, syscall.ENOSPC), "STORE_FULL", 1, http.StatusInsufficientStorage},
		{errors.New("index commit: database or disk is full"), "STORE_FULL", 1, http.StatusInsufficientStorage},
		{errors.New("disk on fire"), "ERROR", 1, http.StatusInternalServerError},
	}
	for _, tt := range tests {
		wrapped := fmt.Errorf("send: %w", tt.err) // as operations return them
		f := Describe(wrapped)
		if f.Code != tt.code || f.Exit != tt.exit || f.HTTP != tt.http {
			t.Errorf("%v: %s exit %d HTTP %d, want %s exit %d HTTP %d", tt.err, f.Code, f.Exit, f.HTTP, tt.code, tt.exit, tt.http)
		}
		if f.Message != wrapped.Error() || f.OwnHint {
			t.Errorf("%v: message %q hint %q (own %v): want the error's text and its code's hint", tt.err, f.Message, f.Hint, f.OwnHint)
		}
	}
	// Every sentinel of the table is in the test above, and no row is
	// shadowed by an earlier one: one row per meaning.
	for i, c := range errorCodes {
		for _, earlier := range errorCodes[:i] {
			if errors.Is(c.err, earlier.err) {
				t.Errorf("%v (%s) can never match: %v (%s) comes first", c.err, c.code, earlier.err, earlier.code)
			}
		}
		found := false
		for _, tt := range tests {
			found = found || tt.err == c.err
		}
		if !found {
			t.Errorf("%v (%s) is not tested", c.err, c.code)
		}
	}
}

// An error's own hint wins over its code's face-neutral one; an error's
// detail (its field and values) reaches the Failure.
func TestDescribeHints(t *testing.T) {
	tests := []struct {
		err  error
		hint string
		own  bool
	}{
		{mailbox.ErrAmbiguousID, "give more characters of the id", false},
		{mailbox.ErrNotFound, "", false},
		{fault.WithHint(fmt.Errorf("%w: no message 01ZZ", mailbox.ErrNotFound), "try 01ZY"), "try 01ZY", true},
		{Usagef("", "bad"), "", false},
		{Usagef("give one", "bad"), "give one", true},
		{errors.New("x"), "", false},
	}
	for _, tt := range tests {
		if f := Describe(tt.err); f.Hint != tt.hint || f.OwnHint != tt.own {
			t.Errorf("%v: hint %q (own %v), want %q (own %v)", tt.err, f.Hint, f.OwnHint, tt.hint, tt.own)
		}
	}
	held := fmt.Errorf("acquire: %w", &reservations.HeldError{Lock: reservations.Lock{Key: "deploy", Holder: "BlueLake"}, Agent: "GreenCastle"})
	if f := Describe(held); f.Code != "LOCK_HELD" || f.String("holder") != "BlueLake" || f.String("key") != "deploy" || f.Bool("yours") {
		t.Errorf("held lock: %+v, want its holder and key as values", f)
	}
	if f := Describe(UsageField("patterns", "no patterns given")); f.Code != "USAGE" || f.Field != "patterns" {
		t.Errorf("usage of a field: %+v", f)
	}
}

// A face's Hints word a failure from its code and field first, then the
// error's own hint, then its code, then the code's face-neutral hint.
func TestHintsWord(t *testing.T) {
	h := Hints{
		"INVALID_ARGUMENT/ttl": func(f Failure) string { return "pass --ttl " + f.String("example") },
		"INVALID_ARGUMENT":     Say("see --help"),
		"LOCK_HELD":            func(f Failure) string { return "" }, // passes
	}
	tests := []struct {
		err  error
		want string
	}{
		{fault.WithHint(fault.WithField(fmt.Errorf("%w: ttl", ErrInvalidArgument), "ttl", "example", "1h"), "own"), "pass --ttl 1h"},
		{fault.WithHint(fmt.Errorf("%w: x", ErrInvalidArgument), "own"), "own"},
		{fault.WithField(fmt.Errorf("%w: x", ErrInvalidArgument), "limit"), "see --help"},
		{mailbox.ErrAmbiguousID, "give more characters of the id"},
		{reservations.ErrLockHeld, "fallback"},
	}
	for _, tt := range tests {
		if got := h.Word(Describe(tt.err), "fallback"); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.err, got, tt.want)
		}
	}
}
