package glob

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
// Matching is doublestar's, of each pattern's Meaning (the patterns must be
// valid, as stored ones are): a pattern without glob characters covers the
// path and everything below it. Ignoring case, a path matches when it matches as written or when
// both are lower-cased: on a case-insensitive file system either spelling
// names the reserved file.
type Matcher struct {
	entries []entry
	byDir   map[string][]int // the directory of the literal prefix ("" or ending in '/') -> entries
	folded  sync.Once        // makes lower and byFold, on the first match ignoring case
	lower   []entry          // the entries lower-cased
	byFold  map[string][]int // byDir, of lower
}

// entry is a pattern's Meaning with its literal prefix and suffix, which
// every path it matches starts and ends with.
type entry struct{ pattern, prefix, suffix string }

func newEntry(pattern string) entry {
	m := Meaning(pattern)
	return entry{m, literalPrefix(m), literalSuffix(m)}
}

// NewMatcher indexes patterns, which must be valid patterns (Compile
// accepts them); Match names them by their index in the list. A Matcher
// is safe for concurrent use.
func NewMatcher(patterns []string) *Matcher {
	m := &Matcher{entries: make([]entry, len(patterns)), byDir: make(map[string][]int, len(patterns))}
	for i, p := range patterns {
		m.entries[i] = newEntry(p)
		dir := dirOf(m.entries[i].prefix)
		m.byDir[dir] = append(m.byDir[dir], i)
	}
	return m
}

// foldIndex fills in the lower-cased entries and their index.
func (m *Matcher) foldIndex() {
	m.lower, m.byFold = make([]entry, len(m.entries)), make(map[string][]int, len(m.entries))
	for i, e := range m.entries {
		m.lower[i] = newEntry(strings.ToLower(e.pattern))
		dir := dirOf(m.lower[i].prefix)
		m.byFold[dir] = append(m.byFold[dir], i)
	}
}

// literalPrefix returns the part of pattern before its first
// metacharacter (or escape): every path the pattern matches starts with
// it, or is it without its final '/' (doublestar matches `a/**` against
// `a`).
func literalPrefix(pattern string) string {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*', '?', '[', '{', '\\':
			return pattern[:i]
		}
	}
	return pattern
}

// literalSuffix returns the part of pattern after its last
// metacharacter: every path the pattern matches ends with it, except that
// the '/' after a leading `**` may vanish (`**/a` matches `a`), so it is
// left out. (A pattern without metacharacters is its own prefix; the
// suffix adds nothing.)
func literalSuffix(pattern string) string {
	i := len(pattern) - 1
	for ; i >= 0; i-- {
		if c := pattern[i]; c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}' || c == '\\' {
			break
		}
	}
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

// matches reports whether path matches e.
func (e *entry) matches(path string) bool {
	return under(path, e.prefix) && strings.HasSuffix(path, e.suffix) && doublestar.MatchUnvalidated(e.pattern, path)
}

// candidates calls fn with the entries of index that may match the path
// key: those whose literal directory is "", a directory above key, or key
// itself taken as a directory.
func candidates(index map[string][]int, key string, fn func(i int)) {
	try := func(dir string) {
		for _, i := range index[dir] {
			fn(i)
		}
	}
	try("")
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			try(key[:i+1])
		}
	}
	try(key + "/")
}

// Match returns the indexes of the patterns that match path, in order;
// fold ignores case (core.ignorecase). A leading "./" is ignored.
func (m *Matcher) Match(path string, fold bool) []int {
	if fold {
		var out []int
		m.Each(path, true, func(i int, _ bool) { out = append(out, i) })
		return out
	}
	p := strings.TrimPrefix(path, "./")
	var out []int
	candidates(m.byDir, p, func(i int) {
		if m.entries[i].matches(p) {
			out = append(out, i)
		}
	})
	slices.Sort(out)
	return out
}

// Each calls fn with the index of every pattern matching path, in order,
// saying whether it matched as written; with fold it also calls fn for the
// patterns that match ignoring case only. A leading "./" is ignored.
func (m *Matcher) Each(path string, fold bool, fn func(i int, exact bool)) {
	if !fold {
		for _, i := range m.Match(path, false) {
			fn(i, true)
		}
		return
	}
	// A path that starts with a literal prefix also does lower-cased, so
	// the lower-cased index finds the patterns matching as written too.
	m.folded.Do(m.foldIndex)
	p := strings.TrimPrefix(path, "./")
	lower := strings.ToLower(p)
	type hit struct {
		i     int
		exact bool
	}
	var hits []hit
	candidates(m.byFold, lower, func(i int) {
		if m.entries[i].matches(p) {
			hits = append(hits, hit{i, true})
		} else if m.lower[i].matches(lower) {
			hits = append(hits, hit{i, false})
		}
	})
	slices.SortFunc(hits, func(a, b hit) int { return a.i - b.i })
	for _, h := range hits {
		fn(h.i, h.exact)
	}
}
