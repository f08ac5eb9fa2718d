package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// Every error reaches the user with a hint: each code's sentinel, bare,
// gets its code's default, and errors of no code get a general one.
func TestEveryErrorHasAHint(t *testing.T) {
	type errorDoc struct {
		Error struct{ Code, Message, Hint string }
	}
	errs := []error{errors.New("something broke"), &usageError{msg: "bad flag"}}
	for _, c := range errorCodes {
		errs = append(errs, c.err)
	}
	for _, err := range errs {
		var stderr bytes.Buffer
		e := &env{stderr: &stderr}
		e.fail([]string{"agentmail", "x", "--json"}, err)
		var doc errorDoc
		if jerr := json.Unmarshal(stderr.Bytes(), &doc); jerr != nil || doc.Error.Hint == "" || doc.Error.Code == "" {
			t.Errorf("%v: error document %s (%v): want a code and a hint", err, stderr.String(), jerr)
		}
	}
}
