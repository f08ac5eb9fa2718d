// Package project finds the project a command works on: the git
// repository around a directory, keyed by the key pinned in its
// configuration, else by its origin remote's normalized URL, else by its
// main worktree's path; or a key given by hand. It also turns paths given
// on the command line into paths relative to the repository root.
package project

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
)

// How a project's key was chosen (Project.Source).
const (
	SourcePinned = "pinned" // agentmail.project in the repository's git configuration
	SourceOrigin = "origin" // the origin remote's URL, at the repository's first use
	SourcePath   = "path"   // the main worktree's path, at the repository's first use
	SourceFlag   = "flag"   // --project
	SourceEnv    = "env"    // AGENTMAIL_PROJECT
)

// Project identifies the codebase a command works on.
type Project struct {
	Key    string      // normalized origin URL, the main worktree's canonical path, or a key given or pinned
	Slug   string      // readable base name plus 8 hex digits of the key's SHA-1
	Root   string      // the working tree around Dir; "" outside any repository
	Dir    string      // the canonical directory the command runs in: command-line paths are relative to it; "" outside any repository
	Source string      // how Key was chosen: SourcePinned, SourceOrigin, SourcePath, SourceFlag, SourceEnv
	Repo   *Repository // the repository around Dir; nil outside one
}

// ProjectFromKey returns the project with the given key, as given by
// --project or AGENTMAIL_PROJECT. URLs are normalized like origin URLs.
// The project has no working tree: see Project.In.
func ProjectFromKey(key string) (Project, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return Project{}, fault.WithField(fmt.Errorf("%w: empty project key", ErrInvalidArgument), "project", "problem", "empty")
	}
	if err := CheckKey(key); err != nil {
		return Project{}, fault.WithField(err, "project", "problem", "invalid")
	}
	key = normalizeKey(key)
	return Project{Key: key, Slug: Slug(key)}, nil
}

// normalizeKey normalizes a key given by hand: URLs like origin URLs,
// absolute paths cleaned, host/path keys folded where the host ignores
// case. A normalized key is returned unchanged.
func normalizeKey(key string) string {
	switch {
	case looksLikeURL(key):
		return NormalizeURL(key)
	case filepath.IsAbs(key):
		return filepath.Clean(key)
	}
	return foldHostPath(key)
}

// CheckGivenKey refuses a key given by hand (--project, AGENTMAIL_PROJECT,
// project set) that is a relative path (../x, ./x, a/../b): a key is a
// remote URL, a host/path key or an absolute path. (A store may know a
// relative key an earlier version derived from a relative origin URL;
// that is adopted, not given.)
func CheckGivenKey(key string) error {
	key = strings.TrimSpace(key)
	if looksLikeURL(key) || filepath.IsAbs(key) {
		return nil
	}
	if slices.ContainsFunc(strings.Split(filepath.ToSlash(key), "/"), func(seg string) bool { return seg == "." || seg == ".." }) {
		return fault.WithField(fmt.Errorf("%w: project key %q is a relative path", ErrInvalidArgument, key), "project", "problem", "relative")
	}
	return nil
}

// CheckKey refuses a project key that holds a control character or is
// not valid UTF-8: a key is printed, written to git configuration and
// hashed into the slug, and such a key would be one nobody can type.
func CheckKey(key string) error {
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: project key %q is not valid UTF-8", ErrInvalidArgument, key)
	}
	if i := strings.IndexFunc(key, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(key[i:])
		return fmt.Errorf("%w: project key %q holds the control character %U", ErrInvalidArgument, key, r)
	}
	return nil
}

// In returns p with the working tree around dir, if any: the project's
// paths on the command line are then relative to dir, as git's are.
func (p Project) In(dir string) Project {
	abs, err := canonical(dir)
	if err != nil {
		return p
	}
	if root, gitDir, ok := findWorkTree(abs); ok {
		p.Root, p.Dir = root, abs
		if repo, err := readRepository(gitDir); err == nil {
			p.Repo = repo
		}
	}
	return p
}

// ResolveProject finds the project of the git repository containing dir:
// all worktrees of one repository are one project. Its key is the one
// pinned in the repository's git configuration (agentmail.project); a
// repository not pinned yet is keyed by the normalized URL of its origin
// remote, else by the canonical path of its main worktree (Pin then keeps
// that key for good).
func ResolveProject(dir string) (Project, error) {
	abs, err := canonical(dir)
	if err != nil {
		return Project{}, err
	}
	root, gitDir, ok := findWorkTree(abs)
	if !ok {
		return Project{}, fault.WithField(fmt.Errorf("%w: %s is not inside a git repository", ErrNoProject, abs), "project", "problem", "outside", "dir", abs)
	}
	repo, err := readRepository(gitDir)
	if err != nil {
		return Project{}, err
	}
	return resolved(root, abs, repo)
}

// ResolveIn is ResolveProject(dir) for at, the result of Project{}.In(dir):
// the same project, without finding and reading the repository again.
func ResolveIn(dir string, at Project) (Project, error) {
	if at.Root == "" || at.Repo == nil {
		return ResolveProject(dir) // no repository there, or an unreadable one: said as ResolveProject says it
	}
	return resolved(at.Root, at.Dir, at.Repo)
}

// Placed returns p in the working tree of at, the result of
// Project{}.In(dir): what p.In(dir) returns, without reading the
// repository again.
func (p Project) Placed(at Project) Project {
	if at.Root != "" {
		p.Root, p.Dir, p.Repo = at.Root, at.Dir, at.Repo
	}
	return p
}

// resolved is the project of the repository repo, whose working tree root
// holds the directory abs.
func resolved(root, abs string, repo *Repository) (Project, error) {
	key, source := repo.key()
	if err := CheckKey(key); err != nil {
		return Project{}, fault.WithField(fmt.Errorf("project of %s (%s): %w", root, source, err), "project", "problem", "unusable", "origin", source == SourceOrigin)
	}
	return Project{Key: key, Slug: Slug(key), Root: root, Dir: abs, Source: source, Repo: repo}, nil
}
