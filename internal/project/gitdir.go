package project

import (
	"os"
	"path/filepath"
	"strings"
)

// Finding the repository around a directory is done here rather than with
// go-git's PlainOpen, which reads the same .git file and commondir but also
// HEAD and the whole configuration, three times slower (40 against 130 µs:
// this runs on every command and in every commit hook), and which refuses
// repositories whose configuration names extensions it does not know
// (partial clones, per-worktree configuration): see
// TestResolveProjectWithExtensions.

// canonical returns dir absolute, with symbolic links resolved when it
// exists.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// findWorkTree returns the working tree containing dir and its git
// directory.
func findWorkTree(dir string) (root, gitDir string, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if gitDir, ok := findGitDir(d); ok {
			return d, gitDir, true
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

// findGitDir returns the git directory of a working tree rooted at d: the
// .git directory, or the directory a .git file points to (linked worktrees,
// submodules).
func findGitDir(d string) (string, bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return p, true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	return filepath.Clean(target), true
}

// commonDir follows a linked worktree's commondir file to the main
// repository's git directory.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}
