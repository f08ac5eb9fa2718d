package server

import (
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// notFound is the error of a thing named in an address that does not
// exist.
func notFound(what, name string) error {
	return fault.WithHint(fmt.Errorf("%w: no %s %q", service.ErrNotFound, what, name),
		"follow the links from the project's pages, or list with the API (see README, agentmail serve)")
}

// pageHints say, in the pages' terms, what to do about an error of each
// code; they replace the hints that name commands and flags, which are the
// command line's (a page never tells its reader to run agentmail).
var pageHints = map[string]string{
	"NO_PROJECT":        "choose a project from the list of all projects",
	"NOT_REGISTERED":    "open an agent from the project's Agents page: every registered agent has a mailbox, and Your mail is the overseer's",
	"UNKNOWN_RECIPIENT": "choose the recipients among the project's agents",
	"NOT_FOUND":         "follow the links from the project's pages, or search the project's mail",
	"AMBIGUOUS_ID":      "follow the links from the project's pages: they carry whole ids",
	"INVALID_ARGUMENT":  "correct what the page says and try again",
	"USAGE":             "correct what the page says and try again",
	"STORE_BUSY":        "reload the page in a moment",
	"STORE_CORRUPT":     "the store needs a check: ask its owner to run its doctor",
	"ERROR":             "reload the page; if it happens again, ask the store's owner to check the store",
}

// pageHint is the hint of f as a page shows it: its own, unless that
// speaks the command line, then its code's in the pages' terms.
func pageHint(f service.Failure) string {
	if !speaksCLI(f.Hint) {
		return f.Hint
	}
	if h, ok := pageHints[f.Code]; ok {
		return h
	}
	return "go back to the project's pages"
}

// speaksCLI reports whether a hint names a command or a flag.
func speaksCLI(hint string) bool {
	return strings.Contains(hint, "agentmail ") || strings.Contains(hint, "--") || strings.Contains(hint, "AGENTMAIL_")
}
