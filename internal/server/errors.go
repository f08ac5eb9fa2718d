package server

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
)

// notFound is the error of a thing named in an address that does not
// exist.
func notFound(what, name string) error {
	return fault.WithHint(fmt.Errorf("%w: no %s %q", service.ErrNotFound, what, name),
		"follow the links from the project's pages, or list with the API (see README, agentmail serve)")
}

// pageHints word failures in the pages' terms (a page never tells its
// reader to run agentmail).
var pageHints = service.Hints{
	"NO_PROJECT":        service.Say("choose a project from the list of all projects"),
	"NOT_REGISTERED":    service.Say("open an agent from the project's Agents page: every registered agent has a mailbox, and Your mail is the overseer's"),
	"UNKNOWN_RECIPIENT": service.Say("choose the recipients among the project's agents"),
	"NOT_FOUND":         service.Say("follow the links from the project's pages, or search the project's mail"),
	"NOT_FOUND/agent":   service.Say("choose one of the project's agents in the filter"),
	"AMBIGUOUS_ID":      service.Say("follow the links from the project's pages: they carry whole ids"),
	"INVALID_ARGUMENT":  service.Say("correct what the page says and try again"),
	"USAGE":             service.Say("correct what the page says and try again"),
	"STORE_BUSY":        service.Say("reload the page in a moment"),
	"STORE_CORRUPT":     service.Say("the store needs a check: ask its owner to run its doctor"),
	"ERROR":             service.Say("reload the page; if it happens again, ask the store's owner to check the store"),
}

// pageHint is the hint of f as a page shows it.
func pageHint(f service.Failure) string {
	return pageHints.Word(withoutCLIHint(f), "go back to the project's pages")
}

// apiHints word failures in the HTTP API's terms: its routes and the
// JSON fields of its requests (which are the service's field names).
var apiHints = service.Hints{
	"NO_PROJECT":               service.Say("name a project by its slug in the address: GET /api/projects lists them"),
	"NOT_REGISTERED":           service.Say(`name the acting agent in the body's "agent" field: GET /api/projects/SLUG/agents lists the registered ones`),
	"UNKNOWN_RECIPIENT":        service.Say("GET /api/projects/SLUG/agents lists who is registered"),
	"NOT_FOUND/agent":          service.Say("name one of the project's agents: GET /api/projects/SLUG/agents lists them"),
	"NOT_FOUND":                service.Say("check the id or name: the project's listings (agents, inbox, outbox, reservations, locks, ports) give them"),
	"INVALID_ARGUMENT":         service.Say("correct the request's field the message names"),
	"USAGE":                    service.Say("correct the request's field the message names"),
	"INVALID_ARGUMENT/ttl":     apiDurationHint("ttl"),
	"INVALID_ARGUMENT/extend":  apiDurationHint("extend"),
	"INVALID_ARGUMENT/subject": service.Say(`pass "subject": one line that sums the message up; the details go in "body"`),
	"INVALID_ARGUMENT/thread":  service.Say(`pass a short "thread" name, or the id of a message in the thread`),
	"INVALID_ARGUMENT/to":      service.Say(`pass "to": the recipients' agent names (GET /api/projects/SLUG/agents lists them)`),
	"USAGE/patterns":           service.Say(`pass "patterns": one or more globs relative to the repository root, such as ["src/api/**"]`),
	"USAGE/selection":          service.Say(`pass "patterns", "ids" or "all": true`),
	"INVALID_ARGUMENT/project": service.Say("name a project by its slug in the address: GET /api/projects lists them"),
	"NOT_FOUND/key":            service.Say("acquire it first: POST /api/projects/SLUG/locks/acquire"),
	"INVALID_ARGUMENT/selection": func(f service.Failure) string {
		return fmt.Sprintf(`reserve it again: POST /api/projects/SLUG/reservations with "patterns": [%q]`, f.String("pattern"))
	},
	"TIMEOUT":          service.Say("ask again"),
	"CONTACT_REQUIRED": service.Say(`ask first: POST /api/projects/SLUG/contacts/request with "to" and "reason", then wait for the approval`),
	"CONTACT_BLOCKED":  service.Say("the recipient takes no mail; ask a human to pass it on"),
	"RESERVATION_CONFLICT": func(f service.Failure) string {
		if f.String("holder") == "" {
			return `GET /api/projects/SLUG/reservations lists who holds what; pass "allow_conflicts": true to take it anyway`
		}
		return fmt.Sprintf(`wait until %s's %s expires (%s), ask the holder (a message to %s), or pass "allow_conflicts": true to take it anyway`,
			f.String("holder"), f.String("holder_pattern"), f.String("expires"), f.String("holder"))
	},
	"LOCK_HELD": func(f service.Failure) string {
		if f.Bool("yours") {
			return "you hold it: release it first (POST /api/projects/SLUG/locks/release)"
		}
		return "try again after it expires, or ask the holder with a message"
	},
	"PORT_HELD":        service.Say("use the holder's port (GET /api/projects/SLUG/ports/NAME), claim another name, or ask the holder with a message"),
	"NO_FREE_PORT":     service.Say("release the ports you no longer use (GET /api/projects/SLUG/ports lists them)"),
	"TASK_CLAIMED":     service.Say(`choose another task (GET /api/projects/SLUG/work), ask the holder with a message, or take it over once its holder is silent: "force": true with a "reason"`),
	"DEPENDENCY_CYCLE": service.Say("remove the dependency that closes the cycle first, or leave this one out"),
	"PAUSED":           service.Say("wait to be resumed; reads and releasing what you hold still work"),
	"STORE_BUSY":       service.Say("try again in a moment"),
	"STORE_CORRUPT":    service.Say("the store needs a check: ask its owner to run its doctor"),
	// Ids, the store and the guard: the domain says what was wrong as data.
	"NOT_FOUND/message_id":            listedBy("GET /api/projects/SLUG/agents/NAME/inbox (or outbox)"),
	"INVALID_ARGUMENT/message_id":     listedBy("GET /api/projects/SLUG/agents/NAME/inbox (or outbox)"),
	"NOT_FOUND/reservation_id":        listedBy("GET /api/projects/SLUG/reservations"),
	"INVALID_ARGUMENT/reservation_id": listedBy("GET /api/projects/SLUG/reservations"),
	"NOT_FOUND/task_id":               listedBy("GET /api/projects/SLUG/tasks"),
	"INVALID_ARGUMENT/task_id":        listedBy("GET /api/projects/SLUG/tasks"),
	"INVALID_ARGUMENT/agent":          service.Say(`pass "agent" in the query: whose mail is searched`),
	"GUARD_NOT_RUN":                   service.Say("git does not run the guard's hooks in this repository: install them again from the repository"),
	"STORE_NOT_WRITABLE":              service.Say("the server's store cannot be written: ask its owner to give it a directory it can write, or write access"),
	"STORE_NOT_READABLE":              service.Say("the server's store cannot be read: ask its owner for read access"),
}

// listedBy words a malformed, short or unknown id's advice naming the
// route that lists such ids.
func listedBy(route string) func(service.Failure) string {
	return func(f service.Failure) string { return ids.Advice(f.Detail, route) }
}

// apiDurationHint words an invalid duration of the request's field.
func apiDurationHint(field string) func(service.Failure) string {
	return func(f service.Failure) string {
		return fmt.Sprintf("pass %q as a positive duration such as %q", field, cmp.Or(f.String("example"), "1h"))
	}
}

// apiHint is the hint of f in the HTTP API's answer.
func apiHint(f service.Failure) string {
	return apiHints.Word(withoutCLIHint(f), "see the API's routes in README.md")
}

// withoutCLIHint is f without its own hint when that speaks the command
// line: the net under the errors below the faces that still carry
// command-line text (the list in internal/layering, which only shrinks).
func withoutCLIHint(f service.Failure) service.Failure {
	if speaksCLI(f.Hint) {
		f.Hint, f.OwnHint = "", false
	}
	return f
}

// speaksCLI reports whether a hint names a command or a flag.
func speaksCLI(hint string) bool {
	return strings.Contains(hint, "agentmail ") || strings.Contains(hint, "--") || strings.Contains(hint, "AGENTMAIL_")
}
