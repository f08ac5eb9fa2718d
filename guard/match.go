package guard

import (
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/reservations"
	"github.com/bmatcuk/doublestar/v4"
)

// Conflict is a path the commit touches that another agent holds.
type Conflict struct {
	Path    string // as git names it
	Holder  string
	Pattern string // the holder's reservation pattern
	Expires time.Time
	ID      string // the reservation
}

// Matcher finds which reservations cover a path. It indexes the patterns
// by the directory part of their literal prefix, so that a path is only
// tested against the patterns that could match it: matching thousands of
// paths against thousands of reservations stays a matter of milliseconds.
//
// Matching is doublestar's, as reservations.Glob.Match does it (stored
// patterns were validated when they were reserved). Ignoring case, a path
// matches when it matches as written or when both are lower-cased: on a
// case-insensitive file system either spelling names the reserved file.
type Matcher struct {
	entries []entry
	byDir   map[string][]int // the directory of the literal prefix ("" or ending in '/') -> entries
	byFold  map[string][]int // the same, lower-cased
}

type entry struct {
	res                 *reservations.Reservation
	pattern, lower      string // the pattern, and lower-cased
	prefix, lowerPrefix string // their literal prefixes
	suffix, lowerSuffix string // and suffixes
}

// NewMatcher indexes rs, which it keeps and must not change.
func NewMatcher(rs []reservations.Reservation) *Matcher {
	m := &Matcher{entries: make([]entry, 0, len(rs)), byDir: map[string][]int{}, byFold: map[string][]int{}}
	for i := range rs {
		r := &rs[i]
		e := entry{res: r, pattern: r.Pattern, lower: strings.ToLower(r.Pattern)}
		e.prefix, e.lowerPrefix = literalPrefix(e.pattern), literalPrefix(e.lower)
		e.suffix, e.lowerSuffix = literalSuffix(e.pattern), literalSuffix(e.lower)
		i := len(m.entries)
		m.byDir[dirOf(e.prefix)] = append(m.byDir[dirOf(e.prefix)], i)
		m.byFold[dirOf(e.lowerPrefix)] = append(m.byFold[dirOf(e.lowerPrefix)], i)
		m.entries = append(m.entries, e)
	}
	return m
}

// literalPrefix returns the part of pattern before its first
// metacharacter (or escape): every path the pattern matches starts with
// it, or is it without its final '/' (doublestar matches `a/**` against
// `a`).
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, `*?[{\`); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// literalSuffix returns the part of pattern after its last
// metacharacter: every path the pattern matches ends with it, except that
// the '/' after a leading `**` may vanish (`**/a` matches `a`), so it is
// left out. (A pattern without metacharacters is its own prefix; the
// suffix adds nothing.)
func literalSuffix(pattern string) string {
	i := strings.LastIndexAny(pattern, `*?[]{}\`)
	if i < 0 {
		return ""
	}
	suffix := pattern[i+1:]
	if pattern[i] == '*' {
		suffix = strings.TrimPrefix(suffix, "/")
	}
	return suffix
}

// dirOf cuts a literal prefix back to its last '/'.
func dirOf(prefix string) string { return prefix[:strings.LastIndexByte(prefix, '/')+1] }

// under reports whether path can match a pattern with this literal prefix.
func under(path, prefix string) bool {
	return strings.HasPrefix(path, prefix) || len(path)+1 == len(prefix) && prefix[len(path)] == '/' && strings.HasPrefix(prefix, path)
}

// matches reports whether path matches e as written (exact), and whether
// it matches at all, ignoring case when fold is set.
func (e *entry) matches(path, lower string, fold bool) (exact, any bool) {
	if under(path, e.prefix) && strings.HasSuffix(path, e.suffix) && doublestar.MatchUnvalidated(e.pattern, path) {
		return true, true
	}
	return false, fold && under(lower, e.lowerPrefix) && strings.HasSuffix(lower, e.lowerSuffix) && doublestar.MatchUnvalidated(e.lower, lower)
}

// Match returns the reservations that cover path, in the order they were
// given; fold ignores case (core.ignorecase).
func (m *Matcher) Match(path string, fold bool) []reservations.Reservation {
	var out []reservations.Reservation
	m.each(path, fold, func(e *entry, _ bool) { out = append(out, *e.res) })
	return out
}

// each calls fn for every entry matching path, in index order, saying
// whether it matched as written.
func (m *Matcher) each(path string, fold bool, fn func(e *entry, exact bool)) {
	p := strings.TrimPrefix(path, "./")
	key, index := p, m.byDir
	lower := ""
	if fold {
		// A path that starts with a literal prefix also does lower-cased,
		// so the lower-cased index finds the patterns matching as written
		// too.
		lower = strings.ToLower(p)
		key, index = lower, m.byFold
	}
	// The candidates: patterns whose literal directory is "", a directory
	// above the path, or the path itself taken as a directory.
	type hit struct {
		i     int
		exact bool
	}
	var hits []hit
	try := func(dir string) {
		for _, i := range index[dir] {
			if exact, ok := m.entries[i].matches(p, lower, fold); ok {
				hits = append(hits, hit{i, exact})
			}
		}
	}
	try("")
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			try(key[:i+1])
		}
	}
	try(key + "/")
	slices.SortFunc(hits, func(a, b hit) int { return a.i - b.i })
	for _, h := range hits {
		fn(&m.entries[h.i], h.exact)
	}
}

// Conflicts returns, for each path in order, one conflict per reservation
// that covers it; fold ignores case.
func (m *Matcher) Conflicts(paths []string, fold bool) []Conflict {
	exact, folded := m.conflicts(paths, fold)
	if fold {
		return folded
	}
	return exact
}

// conflicts returns, in one pass, the conflicts of paths as written, and,
// when fold is set, those ignoring case (a superset).
func (m *Matcher) conflicts(paths []string, fold bool) (exact, folded []Conflict) {
	exact, folded = []Conflict{}, []Conflict{}
	for _, p := range paths {
		m.each(p, fold, func(e *entry, isExact bool) {
			c := Conflict{Path: p, Holder: e.res.Agent, Pattern: e.res.Pattern, Expires: e.res.Expires, ID: e.res.ID}
			if isExact {
				exact = append(exact, c)
			}
			if fold {
				folded = append(folded, c)
			}
		})
	}
	return exact, folded
}

// Blocking keeps the reservations that can stop agent's commit: active at
// now, exclusive, and held by someone else (names compare ignoring case).
// An empty agent is nobody, so every exclusive reservation applies.
func Blocking(rs []reservations.Reservation, agent string, now time.Time) []reservations.Reservation {
	var out []reservations.Reservation
	for _, r := range rs {
		if r.Exclusive && r.Active(now) && (agent == "" || !strings.EqualFold(r.Agent, agent)) {
			out = append(out, r)
		}
	}
	return out
}
