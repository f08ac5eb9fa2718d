package project

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
)

// RepoPaths turns paths given on the command line into paths relative to
// the repository root, as git does: a relative path is taken from the
// directory the command runs in (p.Dir), `..` and absolute paths are
// resolved, and a path outside the repository is refused. Outside any
// working tree (a project given by key) paths are taken as relative to the
// root already.
func (p Project) RepoPaths(args []string) ([]string, error) { return p.repoRelative(args, false) }

// RepoPatterns is RepoPaths for glob patterns: `*.py` given in src/api is
// src/api/*.py. The directories taken from the current directory are
// escaped, so that a directory named [id] is no character class.
func (p Project) RepoPatterns(args []string) ([]string, error) { return p.repoRelative(args, true) }

func (p Project) repoRelative(args []string, glob bool) ([]string, error) {
	if p.Root == "" || p.Dir == "" || len(args) == 0 {
		return args, nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		var err error
		if out[i], err = RepoPath(p.Root, p.Dir, a, glob); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RepoPath resolves arg, a path (or, with glob, a pattern) given in the
// directory dir, to a path relative to root, the working tree around dir;
// both are canonical absolute paths. A trailing slash is kept (a pattern
// ending in / covers a directory), and the root itself is ".". Only the
// `.` and `..` segments that follow plain names are resolved: `..` after a
// glob is left for the pattern's own validation to refuse.
func RepoPath(root, dir, arg string, glob bool) (string, error) {
	if arg == "" {
		return arg, nil
	}
	rootSegs := segments(root)
	var segs []string
	if filepath.IsAbs(arg) {
		segs, _ = resolveSegments(nil, filepath.ToSlash(arg), glob)
		rel, ok := cutPrefix(segs, rootSegs)
		if !ok {
			rel, ok = cutPrefix(realSegments(segs, glob), rootSegs)
		}
		if !ok {
			return "", outside(arg, root)
		}
		segs = rel
	} else {
		base, err := filepath.Rel(root, dir)
		if err != nil || base == ".." || strings.HasPrefix(base, "../") {
			return "", fmt.Errorf("%s is not inside the working tree %s", dir, root)
		}
		prefix := segments(base)
		if glob {
			for i, s := range prefix {
				prefix[i] = EscapeGlob(s)
			}
		}
		var ok bool
		if segs, ok = resolveSegments(prefix, filepath.ToSlash(arg), glob); !ok {
			return "", outside(arg, root)
		}
	}
	if len(segs) == 0 {
		return ".", nil
	}
	out := strings.Join(segs, "/")
	if isDirSpelling(arg) {
		out += "/"
	}
	return out, nil
}

func outside(arg, root string) error {
	return fault.WithHint(fmt.Errorf("%w: %s is outside the repository %s", ErrInvalidArgument, arg, root),
		"give a path inside the repository, relative to the current directory or absolute")
}

// segments returns the segments of a slash-separated path, without empty ones.
func segments(p string) []string {
	var out []string
	for _, s := range strings.Split(filepath.ToSlash(p), "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// resolveSegments appends the segments of rel to base, dropping `.` and
// resolving each `..` against the plain name before it. ok is false when
// `..` climbs above base's root.
func resolveSegments(base []string, rel string, glob bool) (segs []string, ok bool) {
	segs = base
	for _, s := range strings.Split(rel, "/") {
		switch {
		case s == "" || s == ".":
		case s != "..":
			segs = append(segs, s)
		case len(segs) == 0:
			if !strings.HasPrefix(rel, "/") {
				return nil, false
			}
			// /.. is /
		case glob && hasGlob(segs[len(segs)-1]), segs[len(segs)-1] == "..":
			segs = append(segs, s)
		default:
			segs = segs[:len(segs)-1]
		}
	}
	return segs, true
}

// realSegments resolves the symbolic links along the longest plain leading
// part of an absolute path that exists, for an absolute path spelled
// through a link to the repository.
func realSegments(segs []string, glob bool) []string {
	n := 0
	for n < len(segs) && !(glob && hasGlob(segs[n])) && segs[n] != ".." {
		n++
	}
	for i := n; i > 0; i-- {
		real, err := filepath.EvalSymlinks("/" + strings.Join(segs[:i], "/"))
		if err == nil {
			return append(segments(real), segs[i:]...)
		}
	}
	return segs
}

// cutPrefix returns segs without the leading segments prefix.
func cutPrefix(segs, prefix []string) ([]string, bool) {
	if len(segs) < len(prefix) {
		return nil, false
	}
	for i, s := range prefix {
		if segs[i] != s {
			return nil, false
		}
	}
	return segs[len(prefix):], true
}

// isDirSpelling reports whether arg is spelled as a directory: ending in
// a slash, or in a `.` or `..` segment.
func isDirSpelling(arg string) bool {
	last := arg[strings.LastIndexByte(arg, '/')+1:]
	return last == "" || last == "." || last == ".."
}

const globChars = `*?[]{}\`

// hasGlob reports whether s holds a glob metacharacter not escaped by a
// backslash.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case strings.IndexByte(globChars, s[i]) >= 0:
			return true
		}
	}
	return false
}

// EscapeGlob makes a file name (or a repository path) a glob pattern
// matching only itself.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, globChars) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(globChars, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
