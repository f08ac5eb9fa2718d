package web

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
)

// ErrInvalidForm is returned for a form that cannot be sent as it is.
var ErrInvalidForm = errors.New("invalid form")

// ToAll is the compose form's recipient that means every agent of the
// project (send --to all).
const ToAll = "all"

// Importances and Categories are the values a message may have.
var (
	Importances = []string{"low", "normal", "high", "urgent"}
	Categories  = []string{"HANDOFF", "BLOCKED", "DECISION", "INFO"}
)

// ComposeForm is the overseer's message, as the compose form sends it:
// from Human to the agents of To (names, or ToAll for every agent), or,
// with Reply set, an answer to that message in its thread.
type ComposeForm struct {
	To         []string
	Subject    string
	Body       string
	Importance string
	Category   string // "" for none
	Ack        bool
	// ConfirmAll says the overseer confirmed a message to every agent
	// (To holds ToAll): a broadcast is never sent by one click.
	ConfirmAll bool
	// Reply is the id of the message answered ("": a new message), All
	// that the answer goes to every recipient of it too.
	Reply string
	All   bool
}

// Broadcast reports whether the form is to every agent.
func (f ComposeForm) Broadcast() bool { return slices.Contains(f.To, ToAll) }

// ErrConfirmAll is returned for a form to every agent that was not
// confirmed: the page asks for the confirmation.
var ErrConfirmAll = fmt.Errorf("%w: a message to every agent needs your confirmation", ErrInvalidForm)

// ReadCompose reads a posted compose form; maxSubject is the longest
// subject the server takes, in characters. A form that cannot be sent is
// an error wrapping ErrInvalidForm, with a hint, together with the form
// as read (to show it again).
func ReadCompose(form url.Values, maxSubject int) (ComposeForm, error) {
	f := ComposeForm{
		Subject:    strings.TrimSpace(form.Get("subject")),
		Body:       strings.ReplaceAll(form.Get("body"), "\r\n", "\n"),
		Importance: form.Get("importance"),
		Category:   form.Get("category"),
		Ack:        form.Get("ack") != "",
		ConfirmAll: form.Get("confirm_all") != "",
		Reply:      strings.TrimSpace(form.Get("reply")),
		All:        form.Get("all") != "",
	}
	for _, to := range form["to"] {
		if to = strings.TrimSpace(to); to != "" && !slices.Contains(f.To, to) {
			f.To = append(f.To, to)
		}
	}
	if f.Importance == "" {
		f.Importance = "normal"
	}
	empty := strings.TrimSpace(f.Body) == ""
	if f.Reply != "" {
		if empty {
			return f, fault.WithHint(fmt.Errorf("%w: the reply is empty", ErrInvalidForm), "write the reply")
		}
		return f, nil
	}
	switch n := utf8.RuneCountInString(f.Subject); {
	case len(f.To) == 0:
		return f, fault.WithHint(fmt.Errorf("%w: no recipient", ErrInvalidForm), "tick one or more agents, or all agents")
	case f.Subject == "":
		return f, fault.WithHint(fmt.Errorf("%w: the subject is empty", ErrInvalidForm), "write a subject")
	case n > maxSubject:
		return f, fault.WithHint(fmt.Errorf("%w: the subject is %d characters long, the limit is %d", ErrInvalidForm, n, maxSubject),
			"shorten the subject and put the details in the message")
	case empty:
		return f, fault.WithHint(fmt.Errorf("%w: the message is empty", ErrInvalidForm), "write the message")
	case !slices.Contains(Importances, f.Importance):
		return f, fault.WithHint(fmt.Errorf("%w: importance %q", ErrInvalidForm, f.Importance),
			"choose one of "+strings.Join(Importances, ", "))
	case f.Category != "" && !slices.Contains(Categories, f.Category):
		return f, fault.WithHint(fmt.Errorf("%w: category %q", ErrInvalidForm, f.Category),
			"choose one of "+strings.Join(Categories, ", ")+", or none")
	case f.Broadcast() && !f.ConfirmAll:
		return f, fault.WithHint(ErrConfirmAll, "tick \"Yes, send it to every agent\" and send again, or choose the agents")
	}
	return f, nil
}

// Control actions, as the steering form sends them (control
// pause|resume|interrupt).
var ControlActions = []string{"pause", "resume", "interrupt"}

// ControlForm is the overseer steering an agent from its inbox page.
type ControlForm struct {
	Action string
	Reason string
}

// ReadControl reads a posted steering form. An action it does not know
// is an error wrapping ErrInvalidForm, with a hint.
func ReadControl(form url.Values) (ControlForm, error) {
	f := ControlForm{Action: form.Get("action"), Reason: strings.TrimSpace(form.Get("reason"))}
	if !slices.Contains(ControlActions, f.Action) {
		return f, fault.WithHint(fmt.Errorf("%w: no action %q", ErrInvalidForm, f.Action), "press Pause, Resume or Interrupt")
	}
	return f, nil
}

// PostForm is the overseer's post to a channel: a subject (empty: the
// body's first line) and a markdown body.
type PostForm struct {
	Subject string
	Body    string
}

// ReadPost reads a posted channel form; maxSubject is the longest subject
// the server takes, in characters.
func ReadPost(form url.Values, maxSubject int) (PostForm, error) {
	f := PostForm{Subject: strings.TrimSpace(form.Get("subject")), Body: strings.ReplaceAll(form.Get("body"), "\r\n", "\n")}
	switch n := utf8.RuneCountInString(f.Subject); {
	case strings.TrimSpace(f.Body) == "":
		return f, fault.WithHint(fmt.Errorf("%w: the post is empty", ErrInvalidForm), "write the post")
	case n > maxSubject:
		return f, fault.WithHint(fmt.Errorf("%w: the subject is %d characters long, the limit is %d", ErrInvalidForm, n, maxSubject),
			"shorten the subject and put the details in the post")
	}
	return f, nil
}

// SearchFilters are the search page's field filters, each a value of the
// query language's field of that name; Since and Before are dates
// (YYYY-MM-DD, as a date input sends them).
type SearchFilters struct {
	From       string
	To         string
	Thread     string
	Category   string
	Importance string
	Since      string
	Before     string
}

// ReadSearch reads the search page's query string: the query as typed
// (q) and the filters.
func ReadSearch(form url.Values) (string, SearchFilters) {
	get := func(k string) string { return strings.TrimSpace(form.Get(k)) }
	return get("q"), SearchFilters{From: get("from"), To: get("to"), Thread: get("thread"),
		Category: get("category"), Importance: get("importance"), Since: get("since"), Before: get("before")}
}

// Query returns q with the filters added in the query language, for the
// search operation. A value is quoted when it needs to be; the language
// has no way to write a double quote inside a value, so those are left
// out.
func (f SearchFilters) Query(q string) string {
	parts := []string{}
	if q != "" {
		parts = append(parts, q)
	}
	for _, kv := range [][2]string{{"from", f.From}, {"to", f.To}, {"thread", f.Thread},
		{"category", f.Category}, {"importance", f.Importance}, {"since", f.Since}, {"before", f.Before}} {
		if v := strings.ReplaceAll(kv[1], `"`, ""); strings.TrimSpace(v) != "" {
			parts = append(parts, kv[0]+":"+quoteValue(v))
		}
	}
	return strings.Join(parts, " ")
}

// quoteValue quotes a filter value that holds white space or characters
// the query language reads as syntax.
func quoteValue(v string) string {
	if strings.ContainsFunc(v, unicode.IsSpace) || strings.ContainsAny(v, "()*") || strings.HasPrefix(v, "-") {
		return `"` + v + `"`
	}
	return v
}

// Empty reports whether no filter is set.
func (f SearchFilters) Empty() bool { return f == SearchFilters{} }
