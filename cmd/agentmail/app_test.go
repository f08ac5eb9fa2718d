package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// fail renders an error as one line with its hint, or with --json as the
// error document, and exits with the status the service's table gives
// (the table itself is tested in internal/service).
func TestFail(t *testing.T) {
	tests := []struct {
		err               error
		code, line        string
		exit              int
		hint, description string
	}{
		{errors.New("something broke"), "ERROR", "agentmail: something broke (if it happens again, run agentmail doctor --check and report it with the command that failed)", 1, "", "no code: the general hint"},
		{usagef("", "bad flag"), "USAGE", "agentmail: bad flag (see: agentmail --help)", 2, "", "usage: the default hint"},
		{fault.WithHint(fmt.Errorf("%w: nobody", service.ErrInvalidArgument), "look again"), "INVALID_ARGUMENT", "agentmail: invalid argument: nobody (look again)", 1, "look again", "its own hint first"},
		{exitStatus(7), "", "", 7, "", "a status said it all"},
	}
	for _, tt := range tests {
		t.Run(tt.description, func(t *testing.T) {
			var stderr bytes.Buffer
			e := &env{stderr: &stderr}
			if got := e.fail([]string{"agentmail", "x"}, tt.err); got != tt.exit || stderr.String() != tt.line+"\n" && tt.line != "" {
				t.Errorf("exit %d, stderr %q; want %d, %q", got, stderr.String(), tt.exit, tt.line)
			}
			stderr.Reset()
			if got := e.fail([]string{"agentmail", "x", "--json"}, tt.err); got != tt.exit {
				t.Errorf("--json: exit %d, want %d", got, tt.exit)
			}
			if tt.code == "" {
				if stderr.Len() != 0 {
					t.Errorf("--json: stderr %q, want nothing", stderr.String())
				}
				return
			}
			var doc struct {
				Error struct{ Code, Message, Hint string }
			}
			if err := json.Unmarshal(stderr.Bytes(), &doc); err != nil || doc.Error.Code != tt.code || doc.Error.Message != tt.err.Error() || doc.Error.Hint != cliHint(service.Describe(tt.err)) {
				t.Errorf("--json: %s (%v): want code %s, message %q and hint", stderr.String(), err, tt.code, tt.err.Error())
			}
		})
	}
}
