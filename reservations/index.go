package reservations

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// literalDir returns the directory every path a pattern matches lies in (or
// is): the literal text before the first glob character, cut back to the
// last '/'. "src/api/*.go" gives "src/api", "docs/**" gives "docs", and
// "**/*.md" gives "". (Cutting at the '/' keeps it true for "a/**", which
// matches "a" itself.)
func literalDir(pattern string) string {
	lit := pattern
	if i := strings.IndexAny(pattern, `*?[{\`); i >= 0 {
		lit = pattern[:i]
	} else {
		return pattern // a literal path matches only itself
	}
	if i := strings.LastIndexByte(lit, '/'); i >= 0 {
		return lit[:i]
	}
	return ""
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	return dir == "" || path == dir || strings.HasPrefix(path, dir) && path[len(dir)] == '/'
}

// dirsMeet is a cheap test that two patterns with literal directories a
// and b cannot overlap, never wrong when it says so: a common path would
// lie in both directories, so one must contain the other.
func dirsMeet(a, b string) bool { return within(a, b) || within(b, a) }

// patternIndex finds the patterns that may match a path by their literal
// directories, so matching many paths against many patterns tests each
// path against a few candidates only.
type patternIndex struct {
	patterns []string
	byDir    map[string][]int
}

func newPatternIndex(patterns []string) *patternIndex {
	ix := &patternIndex{patterns: patterns, byDir: map[string][]int{}}
	for i, p := range patterns {
		d := literalDir(p)
		ix.byDir[d] = append(ix.byDir[d], i)
	}
	return ix
}

// match returns the indexes of the patterns that match path.
func (ix *patternIndex) match(path string) []int {
	var out []int
	try := func(dir string) {
		for _, i := range ix.byDir[dir] {
			if doublestar.MatchUnvalidated(ix.patterns[i], path) {
				out = append(out, i)
			}
		}
	}
	try("")
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			try(path[:i])
		}
	}
	try(path)
	return out
}
