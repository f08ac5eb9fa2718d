package web

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

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
// from Human to one agent (To, a name) or to all of them (To is ToAll).
type ComposeForm struct {
	To         string
	Subject    string
	Body       string
	Importance string
	Category   string // "" for none
	Ack        bool
}

// ReadCompose reads a posted compose form. A form that cannot be sent is
// an error wrapping ErrInvalidForm, with a hint, together with the form
// as read (to show it again).
func ReadCompose(form url.Values) (ComposeForm, error) {
	f := ComposeForm{
		To:         strings.TrimSpace(form.Get("to")),
		Subject:    strings.TrimSpace(form.Get("subject")),
		Body:       strings.ReplaceAll(form.Get("body"), "\r\n", "\n"),
		Importance: form.Get("importance"),
		Category:   form.Get("category"),
		Ack:        form.Get("ack") != "",
	}
	if f.Importance == "" {
		f.Importance = "normal"
	}
	switch {
	case f.To == "":
		return f, fault.WithHint(fmt.Errorf("%w: no recipient", ErrInvalidForm), "choose an agent, or all agents")
	case f.Subject == "":
		return f, fault.WithHint(fmt.Errorf("%w: the subject is empty", ErrInvalidForm), "write a subject")
	case !slices.Contains(Importances, f.Importance):
		return f, fault.WithHint(fmt.Errorf("%w: importance %q", ErrInvalidForm, f.Importance),
			"choose one of "+strings.Join(Importances, ", "))
	case f.Category != "" && !slices.Contains(Categories, f.Category):
		return f, fault.WithHint(fmt.Errorf("%w: category %q", ErrInvalidForm, f.Category),
			"choose one of "+strings.Join(Categories, ", ")+", or none")
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
