package service

import (
	"errors"
	"fmt"
	"github.com/agentmail/agentmail/internal/archive"
	"net/http"
	"os/exec"
	"syscall"
	"testing"

	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/setup"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/agentmail/agentmail/ports"
	"github.com/agentmail/agentmail/reservations"
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
		{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", 1, http.StatusBadRequest},
		{mailbox.ErrNotFound, "NOT_FOUND", 1, http.StatusNotFound},
		{mailbox.ErrAmbiguousID, "AMBIGUOUS_ID", 1, http.StatusBadRequest},
		{reservations.ErrAmbiguousID, "AMBIGUOUS_ID", 1, http.StatusBadRequest},
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
		{reservations.ErrNotFound, "NOT_FOUND", 1, http.StatusNotFound},
		{reservations.ErrInvalidArgument, "INVALID_ARGUMENT", 1, http.StatusBadRequest},
		{reservations.ErrInvalidPattern, "INVALID_ARGUMENT", 1, http.StatusBadRequest},
		{guard.ErrBlocked, "GUARD_BLOCKED", 1, http.StatusConflict},
		{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", 1, http.StatusConflict},
		{guard.ErrNotRun, "GUARD_NOT_RUN", 1, http.StatusConflict},
		{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", 1, http.StatusConflict},
		{guard.ErrNoBinary, "NO_BINARY", 1, http.StatusInternalServerError},
		{guard.ErrNotRepository, "NO_PROJECT", 1, http.StatusBadRequest},
		{guard.ErrInvalidArgument, "INVALID_ARGUMENT", 1, http.StatusBadRequest},
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
		if f.Message != wrapped.Error() || f.Hint == "" {
			t.Errorf("%v: message %q hint %q: want the error's text and a hint", tt.err, f.Message, f.Hint)
		}
	}
	// Every sentinel of the table is in the test above.
	for _, c := range errorCodes {
		found := false
		for _, tt := range tests {
			found = found || tt.err == c.err
		}
		if !found {
			t.Errorf("%v (%s) is not tested", c.err, c.code)
		}
	}
}

// An error's own hint wins over its code's default; a usage error's hint
// is its own, else the general usage hint.
func TestDescribeHints(t *testing.T) {
	tests := []struct {
		err  error
		hint string
	}{
		{mailbox.ErrNotFound, "check the id or name: agentmail inbox and agentmail outbox list your messages"},
		{fault.WithHint(fmt.Errorf("%w: no message 01ZZ", mailbox.ErrNotFound), "try 01ZY"), "try 01ZY"},
		{&reservations.HeldError{Lock: reservations.Lock{Key: "deploy", Holder: "BlueLake"}, Agent: "GreenCastle"}, (&reservations.HeldError{Lock: reservations.Lock{Key: "deploy", Holder: "BlueLake"}, Agent: "GreenCastle"}).Hint()},
		{Usagef("", "bad"), usageHint},
		{Usagef("pass --limit 0", "bad"), "pass --limit 0"},
		{errors.New("x"), generalHint},
	}
	for _, tt := range tests {
		if got := Describe(tt.err).Hint; got != tt.hint {
			t.Errorf("%v: hint %q, want %q", tt.err, got, tt.hint)
		}
	}
}
