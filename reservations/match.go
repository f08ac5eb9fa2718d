package reservations

import (
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Matcher finds which of a list of patterns match a path: it is how
// agentmail matches paths against reservations, for `reservations check`
// and for the commit guard alike. It indexes the patterns by the directory
// part of their literal prefix, so that a path is only tested against the
// patterns that could match it: matching thousands of paths against
// thousands of patterns stays a matter of milliseconds.
//
// Matching is doublestar's (the patterns must be valid, as stored ones
// are). Ignoring case, a path matches when it matches as written or when
// both are lower-cased: on a case-insensitive file system either spelling
// names the reserved file.
type Matcher struct {
	entries []entry
	byDir   map[string][]int // the directory of the literal prefix ("" or ending in '/') -> entries
	folded  sync.Once        // makes the lower-cased entries and index, on the first match ignoring case
	byFold  map[string][]int // byDir, lower-cased
}

type entry struct {
	pattern, lower      string // the pattern, and lower-cased
	prefix, lowerPrefix string // their literal prefixes
	suffix, lowerSuffix string // and suffixes
}

// NewMatcher indexes patterns, which must be valid patterns (Compile
// accepts them); Match names them by their index in the list. A Matcher
// is safe for concurrent use.
func NewMatcher(patterns []string) *Matcher {
	m := &Matcher{entries: make([]entry, len(patterns)), byDir: map[string][]int{}}
	for i, p := range patterns {
		e := entry{pattern: p, prefix: literalPrefix(p), suffix: literalSuffix(p)}
		m.byDir[dirOf(e.prefix)] = append(m.byDir[dirOf(e.prefix)], i)
		m.entries[i] = e
	}
	return m
}

// foldIndex fills in the lower-cased entries and their index.
func (m *Matcher) foldIndex() {
	m.byFold = map[string][]int{}
	for i := range m.entries {
		e := &m.entries[i]
		e.lower = strings.ToLower(e.pattern)
		e.lowerPrefix, e.lowerSuffix = literalPrefix(e.lower), literalSuffix(e.lower)
		m.byFold[dirOf(e.lowerPrefix)] = append(m.byFold[dirOf(e.lowerPrefix)], i)
	}
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

// Match returns the indexes of the patterns that match path, in order;
// fold ignores case (core.ignorecase). A leading "./" is ignored.
func (m *Matcher) Match(path string, fold bool) []int {
	hits := m.hits(path, fold)
	if len(hits) == 0 {
		return nil
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.i
	}
	return out
}

// Each calls fn with the index of every pattern matching path, in order,
// saying whether it matched as written; with fold it also calls fn for the
// patterns that match ignoring case only. A leading "./" is ignored.
func (m *Matcher) Each(path string, fold bool, fn func(i int, exact bool)) {
	for _, h := range m.hits(path, fold) {
		fn(h.i, h.exact)
	}
}

// hit is a pattern matching a path, and whether it matches as written.
type hit struct {
	i     int
	exact bool
}

// hits returns the patterns matching path, in order.
func (m *Matcher) hits(path string, fold bool) []hit {
	p := strings.TrimPrefix(path, "./")
	key, index := p, m.byDir
	lower := ""
	if fold {
		// A path that starts with a literal prefix also does lower-cased,
		// so the lower-cased index finds the patterns matching as written
		// too.
		m.folded.Do(m.foldIndex)
		lower = strings.ToLower(p)
		key, index = lower, m.byFold
	}
	// The candidates: patterns whose literal directory is "", a directory
	// above the path, or the path itself taken as a directory.
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
	if len(hits) > 1 {
		slices.SortFunc(hits, func(a, b hit) int { return a.i - b.i })
	}
	return hits
}
