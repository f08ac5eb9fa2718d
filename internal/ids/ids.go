// Package ids turns what a user types for a record's id (a ULID, or a
// prefix of one, as git takes commit hashes) into the id, and abbreviates
// ids for display so that every displayed id pastes back.
//
// One rule holds for every kind of id: a whole id is taken as it is; a
// prefix shorter than the kind's minimum is refused, saying the minimum; a
// prefix of several ids is ambiguous, and the error lists them; a prefix of
// none is not found.
package ids

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
)

// Len is the length of a whole id (a ULID).
const Len = 26

// MinDisplay is the fewest characters a displayed id has, however unique a
// shorter prefix would be.
const MinDisplay = 8

// ShowMatches is how many matches an ambiguity error lists.
const ShowMatches = 5

// alphabet is the digits of a ULID (Crockford's base 32).
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Kind is one kind of id: what the errors about it say and wrap.
type Kind struct {
	Noun      string // "message", "reservation"
	Min       int    // the shortest prefix accepted
	Invalid   error  // wrapped by the errors about malformed and too short ids
	NotFound  error  // wrapped when nothing has the id
	Ambiguous error  // wrapped when several ids have the prefix
	Lister    string // where these ids are listed, in no face's terms, for hints
	// Field is the request's field that names such an id ("message_id"):
	// the errors about a malformed, short or unknown id name it, with the
	// noun, the minimum and the problem, so that each face words where it
	// lists these ids (Advice).
	Field string
	In    string // where the ids are looked up ("project shop-3fa1c2d9"), for errors
}

// Match is a record a prefix matched: its id and a few words about it
// (a subject, a pattern) to tell it from the others.
type Match struct {
	ID, What string
}

// Lookup finds the records whose id starts with a prefix.
type Lookup struct {
	// Find returns the first limit of them, in id order.
	Find func(prefix string, limit int) ([]Match, error)
	// Count returns how many there are; it is asked only when there are
	// more than an error lists, and can be a scan of an index alone.
	Count func(prefix string) (int, error)
}

// Resolve returns the one id that raw (a whole id or a prefix, any case)
// names.
func (k Kind) Resolve(raw string, l Lookup) (string, error) {
	p, err := k.Normalize(raw)
	if err != nil {
		return "", err
	}
	matches, err := l.Find(p, ShowMatches+1)
	if err != nil {
		return "", fmt.Errorf("look up %s %s: %w", k.Noun, p, err)
	}
	for _, m := range matches {
		if m.ID == p {
			return m.ID, nil // a whole id wins, whatever it is a prefix of
		}
	}
	total := len(matches)
	if total > ShowMatches {
		if total, err = l.Count(p); err != nil {
			return "", fmt.Errorf("count %ss %s: %w", k.Noun, p, err)
		}
	}
	switch total {
	case 0:
		return "", k.fault(fmt.Errorf("%w: no %s %s%s", k.NotFound, k.Noun, raw, k.in()), "not_found")
	case 1:
		return matches[0].ID, nil
	}
	return "", k.ambiguous(raw, matches, total)
}

// Normalize checks that raw can be a prefix of an id and returns it in the
// ids' case.
func (k Kind) Normalize(raw string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(raw))
	if p == "" || len(p) > Len || strings.Trim(p, alphabet) != "" {
		return "", k.fault(fmt.Errorf("%w: %q is not a %s id", k.Invalid, raw, k.Noun), "malformed")
	}
	if len(p) < k.Min {
		return "", k.fault(fmt.Errorf("%w: %s id %q is too short", k.Invalid, k.Noun, raw), "short")
	}
	return p, nil
}

// fault returns err with its detail (k's field, noun and minimum, and the
// problem) and the advice that names k's neutral lister.
func (k Kind) fault(err error, problem string) error {
	err = fault.WithField(err, k.Field, "noun", k.Noun, "min", k.Min, "problem", problem)
	return fault.WithHint(err, Advice(fault.DetailOf(err), k.Lister))
}

// Advice words what to do about a malformed, short or unknown id from the
// detail of its error, naming lister as what lists such ids: a face passes
// its own (a command, a tool, a route); "" when d is no such detail.
func Advice(d fault.Detail, lister string) string {
	noun := d.String("noun")
	minimum, _ := d.Values["min"].(int)
	switch d.String("problem") {
	case "not_found":
		return "check the id with " + lister
	case "malformed":
		return fmt.Sprintf("%s ids are %d characters like 01JD3Y4Q8ZP6TWS0W8V6EXAMPE; a prefix of %d or more is enough (%s lists them)", noun, Len, minimum, lister)
	case "short":
		return fmt.Sprintf("give at least %d characters of the %s id, as %s shows them", minimum, noun, lister)
	}
	return ""
}

func (k Kind) in() string {
	if k.In == "" {
		return ""
	}
	return " in " + k.In
}

// ambiguous is the error for a prefix of several ids: it lists the first
// matches, each by the prefix that tells it from its neighbours.
func (k Kind) ambiguous(raw string, matches []Match, total int) error {
	shown := matches[:min(len(matches), ShowMatches)]
	short := ShortenSorted(mapIDs(matches))
	parts := make([]string, len(shown))
	for i, m := range shown {
		parts[i] = short[m.ID]
		if m.What != "" {
			parts[i] += " (" + m.What + ")"
		}
	}
	list := strings.Join(parts, ", ")
	if total > len(shown) {
		list += fmt.Sprintf(" and %d more", total-len(shown))
	}
	return fault.WithHint(fmt.Errorf("%w: %s matches %d %ss%s: %s", k.Ambiguous, raw, total, k.Noun, k.in(), list),
		"give more characters of the id: one of those listed, or the whole id")
}

// Abbrev returns the shortest prefix of id that no other id has, given the
// ids next to it in sorted order (prev before it, next after it, "" where
// there is none): one character more than it shares with either. It is at
// least MinDisplay characters long.
func Abbrev(id, prev, next string) string {
	n := max(MinDisplay, 1+commonPrefix(id, prev), 1+commonPrefix(id, next))
	return id[:min(n, len(id))]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Querier runs queries: a *sql.DB, *sql.Tx or *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Shorten abbreviates ids (see Abbrev) for display, returning each id's
// abbreviation. neighbours is a query whose rows are (id, the id before it,
// the id after it), NULL where there is none, for each id of the JSON array
// that is its last argument; args are the arguments before that. An index
// on the ids makes that two lookups an id.
func Shorten(ctx context.Context, q Querier, neighbours string, args []any, ids []string) (Short, error) {
	out := make(Short, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, neighbours, append(args, string(list))...)
	if err != nil {
		return nil, fmt.Errorf("abbreviate ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var prev, next sql.NullString
		if err := rows.Scan(&id, &prev, &next); err != nil {
			return nil, fmt.Errorf("abbreviate ids: %w", err)
		}
		out[id] = Abbrev(id, prev.String, next.String)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("abbreviate ids: %w", err)
	}
	return out, nil
}

// Matches runs query, whose rows are (id, a few words about the record),
// for a Lookup's Find.
func Matches(ctx context.Context, q Querier, query string, args ...any) ([]Match, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Match
	for rows.Next() {
		var m Match
		if err := rows.Scan(&m.ID, &m.What); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// InProject is the Lookup of the ids of one project's rows. find lists
// the rows of project ?1 whose ids are from ?2 up to ?3, with a few words
// each (see Matches), taking extra as its next arguments and the limit as
// its last; count counts those rows from ?1 to ?3 alone.
func InProject(ctx context.Context, q interface {
	Querier
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, find, count string, project any, extra ...any) Lookup {
	return Lookup{
		Find: func(p string, limit int) ([]Match, error) {
			return Matches(ctx, q, find, append(append([]any{project, p, p + "~"}, extra...), limit)...)
		},
		Count: func(p string) (n int, err error) {
			err = q.QueryRowContext(ctx, count, project, p, p+"~").Scan(&n)
			return n, err
		},
	}
}

// ShortenSorted abbreviates each of sorted, a whole list of ids in order,
// to the prefix that tells it from its neighbours in the list (Abbrev).
func ShortenSorted(sorted []string) Short {
	out := make(Short, len(sorted))
	for i, id := range sorted {
		var prev, next string
		if i > 0 {
			prev = sorted[i-1]
		}
		if i+1 < len(sorted) {
			next = sorted[i+1]
		}
		out[id] = Abbrev(id, prev, next)
	}
	return out
}

func mapIDs(matches []Match) []string {
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = m.ID
	}
	return out
}

// Short maps ids to their abbreviations.
type Short map[string]string

// Of returns id's abbreviation, or id itself when it has none.
func (s Short) Of(id string) string {
	if a, ok := s[id]; ok {
		return a
	}
	return id
}
