package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
)

// ErrorDoc is the error document of a failed call: the one error
// document (service.ErrorDoc, the command line's --json and the HTTP API's)
// with what a program needs beyond it: the mcp_agent_mail name of the code
// where its clients branch on one, and the conflicts of a reservation or
// the holder of a lock.
type ErrorDoc struct {
	service.ErrorDoc
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
	"AGENT_RETIRED":           "AGENT_RETIRED",
	"PROJECT_ARCHIVED":        "PROJECT_ARCHIVED",
}

// toolHints word failures in the tools' terms (their names and
// arguments), from the failure's code, field and values.
var toolHints = service.Hints{
	"PROJECT_ARCHIVED":  service.Say("the project is archived: unarchive_project with its project_key brings it back (nothing in it was lost); reads go on meanwhile"),
	"AGENT_RETIRED":     service.Say("unretire_agent brings it back (as that agent, or with its registration_token); list_agents lists who is active"),
	"NOT_FOUND/product": service.Say("ensure_product makes a product (product_key or name), with the project of the call in it; products_link adds others"),
	"NO_PROJECT":        service.Say("pass project_key: the absolute path of your repository, or the key or slug of a known project (the message lists them); ensure_project with human_key creates a new one"),
	"NOT_REGISTERED":    service.Say("call register_agent (or macro_start_session) first, or pass your agent name"),
	"INVALID_NAME":      service.Say("agent names are an adjective and a noun, like GreenCastle; leave the name out for a generated one"),
	"NAME_TAKEN":        service.Say("choose another name, or leave the name out for a generated one"),
	"NAME_TAKEN/name": func(f service.Failure) string {
		return fmt.Sprintf("choose another name (such as %s), or leave the name out for a generated one", f.String("free"))
	},
	"INVALID_NAME/name": func(f service.Failure) string {
		if f.String("problem") == "empty" {
			return "leave the name out for a generated one, or pass one such as GreenCastle"
		}
		if free := f.String("free"); free != "" {
			return "try " + free + ", or leave the name out for a generated one"
		}
		return ""
	},
	"NOT_REGISTERED/agent": func(f service.Failure) string {
		if f.String("problem") == "human" {
			return "Human is the overseer's mailbox, not an agent: act as a registered agent (register_agent)"
		}
		return ""
	},
	"USAGE/limit":        service.Say("pass limit 0 for all"),
	"USAGE/timeout":      service.Say("pass timeout_seconds, 0 or more (0 checks once)"),
	"USAGE/hold":         service.Say("pass hold_seconds, 0 or more"),
	"UNKNOWN_RECIPIENT":  service.Say("list_agents lists who is registered"),
	"NOT_FOUND":          service.Say("check the id or name: fetch_inbox lists your messages, list_agents the agents, list_contacts the contact requests, check_file_reservations who holds a path, list_locks the locks"),
	"NOT_FOUND/name":     portNotFoundHint,
	"NOT_FOUND/key":      service.Say("take it with acquire_lock first"),
	"NOT_FOUND/patterns": service.Say("check_file_reservations shows who holds a path; list_agents shows each agent's active reservations"),
	"INVALID_ARGUMENT/selection": func(f service.Failure) string {
		return "reserve it again: file_reservation_paths with paths [" + f.String("pattern") + "]"
	},
	"INVALID_ARGUMENT/reason": service.Say("pass note, which the holder receives"),
	"INVALID_ARGUMENT":        service.Say("see the tool's input schema"),
	"INVALID_ARGUMENT/ttl":    secondsHint("ttl_seconds"),
	"INVALID_ARGUMENT/extend": secondsHint("extend_seconds"),
	"INVALID_ARGUMENT/wait":   service.Say("pass wait_seconds, 0 or more, or leave it out not to wait"),
	"INVALID_ARGUMENT/subject": func(f service.Failure) string {
		switch f.String("problem") {
		case "too_long":
			return "shorten subject and put the details in body_md"
		case "not_one_line":
			return "make subject one line"
		}
		return "pass subject, a short summary of the message"
	},
	"INVALID_ARGUMENT/thread": service.Say("pass a short thread_id, or the id of a message in the thread"),
	"INVALID_ARGUMENT/to":     service.Say("pass to: the recipients' agent names (list_agents lists who is registered)"),
	"USAGE":                   service.Say("see the tool's input schema"),
	"USAGE/patterns":          service.Say("pass paths: one or more glob patterns, such as src/api/**"),
	"USAGE/selection":         service.Say("pass paths or file_reservation_ids, or leave both out to release all of yours"),
	"USAGE/paths":             service.Say("pass paths: one or more file paths"),
	"NO_REMOTE":               service.Say("the project has no remote to sync through: leave offline out"),
	"AUTHENTICATION_REQUIRED": service.Say("act as the agent this session acts as (leave the agent name out); only an overseer's server acts for any agent"),
	"TIMEOUT": func(f service.Failure) string {
		if th := f.String("thread"); th != "" {
			return "follow the thread with get_thread (thread_id " + th + ")"
		}
		return "wait again, or look at fetch_inbox"
	},
	"CONTACT_REQUIRED": func(f service.Failure) string {
		return "ask first: request_contact with to_agent " + cmp.Or(f.String("recipient"), "NAME") + " and a reason, then wait for the approval"
	},
	"NOT_FOUND/from":           service.Say("list_contacts lists the contact requests"),
	"NOT_FOUND/id":             service.Say("agents see only their own mail: fetch_inbox lists yours"),
	"INVALID_ARGUMENT/project": service.Say("pass project_key: the absolute path of your repository, or the key or slug of a known project"),
	"CONTACT_BLOCKED":          service.Say("the recipient takes no mail; ask a human to pass it on"),
	"RESERVATION_CONFLICT": func(f service.Failure) string {
		if f.String("holder") == "" {
			return "file_reservation_paths lists who holds what; pass allow_conflicts: true to take it anyway"
		}
		return fmt.Sprintf("wait until %s's %s expires (%s), ask the holder (send_message to %s), or pass allow_conflicts: true to take it anyway",
			f.String("holder"), f.String("holder_pattern"), f.String("expires"), f.String("holder"))
	},
	"LOCK_HELD": func(f service.Failure) string {
		switch {
		case f.Bool("yours") && f.Bool("by_run"):
			return "a lock run of yours holds it until its command ends; wait for it (wait_seconds), or it lapses at expiry if that run died"
		case f.Bool("yours"):
			return "you hold it: release it first (release_lock), or call again once you have"
		}
		return fmt.Sprintf("wait for it (wait_seconds: %d), or ask the holder (send_message to %s)", secondsOf(service.DefaultLockTTL), f.String("holder"))
	},
	"PORT_HELD": func(f service.Failure) string {
		if f.String("holder") == "" {
			return "use the holder's port (get_port), claim another name, or ask the holder with send_message"
		}
		return fmt.Sprintf("use %s's port (get_port with name %s), claim another name, or ask %s with send_message", f.String("holder"), f.String("name"), f.String("holder"))
	},
	"NO_FREE_PORT":  service.Say("release the ports you no longer use (list_ports shows them)"),
	"STORE_CORRUPT": service.Say("the store needs its doctor: ask its owner to check it"),
	// Only tools that grant leases reach the remote.
	"REMOTE_UNREACHABLE": service.Say("the project syncs through this remote: check that it is up, or call again with offline: true to grant here only, unconfirmed until a sync decides it"),
	"CANCELLED":          service.Say("the call was cancelled: its client went away or closed its input; call again to try again"),
	"TASK_CLAIMED": func(f service.Failure) string {
		return "choose another task (list_ready_work), ask the holder (send_message to " + cmp.Or(f.String("holder"), "the holder") + "), or take it over with claim_task force: true and a reason once its holder is silent"
	},
	"DEPENDENCY_CYCLE": service.Say("remove the dependency that closes the cycle first (remove_task_dependency), or leave this one out"),
	// Ids, the store and the guard: the domain says what was wrong as data.
	"NOT_FOUND/message_id":            listedBy("fetch_inbox (or search_messages)"),
	"INVALID_ARGUMENT/message_id":     listedBy("fetch_inbox (or search_messages)"),
	"NOT_FOUND/reservation_id":        listedBy("check_file_reservations"),
	"INVALID_ARGUMENT/reservation_id": listedBy("check_file_reservations"),
	"NOT_FOUND/task_id":               listedBy("list_tasks"),
	"INVALID_ARGUMENT/task_id":        listedBy("list_tasks"),
	"INVALID_ARGUMENT/agent":          service.Say("pass agent_name: whose mail is searched"),
	"GUARD_NOT_RUN":                   service.Say("install_precommit_guard installs the hooks where git runs them, keeping the ones there"),
	"STORE_NOT_WRITABLE":              service.Say("the server's store cannot be written: ask its owner to give it a directory it can write, or write access"),
	"STORE_NOT_READABLE":              service.Say("the server's store cannot be read: ask its owner for read access"),
	"PAUSED": func(f service.Failure) string {
		return "wait to be resumed (wait_for_mail returns when you are); reads, check_mail, set_agent_state and releasing what you hold still work"
	},
}

// secondsHint words an invalid duration of the argument arg, in seconds,
// with the example the domain gives.
func secondsHint(arg string) func(service.Failure) string {
	return func(f service.Failure) string {
		d, err := time.ParseDuration(f.String("example"))
		if err != nil {
			return "pass " + arg + ", a positive number of seconds"
		}
		return fmt.Sprintf("pass %s, a positive number of seconds such as %d", arg, int(d.Seconds()))
	}
}

// listedBy words a malformed, short or unknown id's advice naming the tool
// that lists such ids.
func listedBy(tool string) func(service.Failure) string {
	return func(f service.Failure) string { return ids.Advice(f.Detail, tool) }
}

// portNotFoundHint words a port name with no claim.
func portNotFoundHint(f service.Failure) string {
	switch {
	case f.String("port") == "":
		return ""
	case f.String("holder") != "": // a release of a claim one does not hold
		return "list_ports shows the claims"
	}
	return "claim it: claim_port with name " + f.String("port")
}

// cliText finds the command line's vocabulary in a text: a flag, or a
// command to run. An MCP client has neither. It is the net under the
// errors below the faces that still carry command-line text (the list in
// internal/layering, which only shrinks); the others carry data that
// toolHints words.
var cliText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w-])--[a-z]|\bagentmail [a-z]`) })

// toolWords says, in the tools' arguments, what those errors say in the
// command line's flags.
var toolWords = strings.NewReplacer(
	"omit --name", "leave name out", "--name", "name",
	"--limit", "limit", "--body", "body_md", "--reason", "reason", "--importance", "importance", "--category", "category",
	"--topic NAME", "topic", "--topic", "topic", "--attach", "attachment_paths",
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

// generalToolHint is the hint of a failure the tools have no words for.
const generalToolHint = "see the tool's description and input schema (tools/list)"

// errorDoc describes err as the error document, in the tools' terms.
func errorDoc(err error) ErrorDoc {
	f := service.Describe(err)
	if f.Code == "ERROR" && errors.Is(err, context.Canceled) {
		f.Code, f.Hint = "CANCELLED", ""
	}
	fallback := generalToolHint
	if w, ok := toolHints[f.Code]; ok {
		fallback = w(f)
	}
	f.Message = mcpText(f.Message, f.Code+": see the hint")
	doc := ErrorDoc{ErrorDoc: f.Doc(mcpText(toolHints.Word(f, generalToolHint), fallback)), Type: mcpAgentMailTypes[f.Code]}
	var d *details
	if errors.As(err, &d) {
		doc.Conflicts, doc.Lock = d.conflicts, d.lock
	}
	return doc
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
