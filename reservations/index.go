package reservations

import "strings"

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

// dirSet answers dirsMeet against every directory of a set at once, with a
// lookup per level of the directory asked about instead of a test per
// directory of the set.
type dirSet struct {
	dirs  map[string]bool // the directories
	above map[string]bool // the directories and all that contain them, "" too
}

func newDirSet(dirs []string) dirSet {
	s := dirSet{dirs: map[string]bool{}, above: map[string]bool{}}
	for _, d := range dirs {
		s.dirs[d], s.above[d], s.above[""] = true, true, true
		for i := 0; i < len(d); i++ {
			if d[i] == '/' {
				s.above[d[:i]] = true
			}
		}
	}
	return s
}

// meets reports whether dirsMeet(d, dir) holds for some directory d of s.
func (s dirSet) meets(dir string) bool {
	if s.above[dir] || s.dirs[""] {
		return true // dir contains or is some d, or some d is the root
	}
	for i := 0; i < len(dir); i++ {
		if dir[i] == '/' && s.dirs[dir[:i]] {
			return true // some d contains dir
		}
	}
	return false
}
