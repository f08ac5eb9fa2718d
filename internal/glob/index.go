package glob

import "strings"

// LiteralDir returns the directory every path a pattern matches lies in (or
// is): the literal text before the first glob character, cut back to the
// last '/'. "src/api/*.go" gives "src/api", "docs/**" gives "docs", and
// "**/*.md" gives "". (Cutting at the '/' keeps it true for "a/**", which
// matches "a" itself.)
func LiteralDir(pattern string) string {
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

// DirsMeet is a cheap test that two patterns with literal directories a
// and b cannot overlap, never wrong when it says so: a common path would
// lie in both directories, so one must contain the other.
func DirsMeet(a, b string) bool { return within(a, b) || within(b, a) }

// Nearby returns dirs and every directory that contains one of them, the
// root ("") too: with those below one of dirs, the directories that meet
// one of dirs (DirsMeet).
func Nearby(dirs []string) []string {
	seen := map[string]bool{"": true}
	out := []string{""}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range dirs {
		for i := 0; i < len(d); i++ {
			if d[i] == '/' {
				add(d[:i])
			}
		}
		add(d)
	}
	return out
}
