package archive

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ProjectRefs is the namespace of the projects' branches. Each project of
// the store has its own history, refs/heads/projects/<slug>, whose tree is
// rooted at that project's files, so that one project can be pushed,
// cloned (git clone -b projects/<slug>) or logged without the others. A
// branch rather than a private namespace, so that every git tool and web
// UI shows it as one.
const ProjectRefs = "refs/heads/projects/"

// ProjectRef returns the branch of the project slug.
func ProjectRef(slug string) string { return ProjectRefs + slug }

// projectDir is the directory a project's files appear under in the
// paths the archive's callers use: its branch's tree is that directory's.
const projectDir = "projects/"

// ErrLegacyState reports a state written before the archive kept one
// branch per project: a single commit of the old main branch.
var ErrLegacyState = errors.New("archive state predates per-project branches")

// State is what the archive holds: the commit of each project's branch, by
// slug. Its String form is what callers store and compare; two states are
// equal exactly when their strings are.
type State map[string]string

// String returns "slug:commit" pairs sorted by slug, space-separated; ""
// for an archive with no project yet.
func (s State) String() string {
	slugs := make([]string, 0, len(s))
	for slug := range s {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	var b strings.Builder
	for i, slug := range slugs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(slug + ":" + s[slug])
	}
	return b.String()
}

// ParseState parses a State's String form.
func ParseState(str string) (State, error) {
	s := State{}
	for _, f := range strings.Fields(str) {
		slug, h, ok := strings.Cut(f, ":")
		if !ok || slug == "" || !plumbing.IsHash(h) {
			if plumbing.IsHash(f) {
				return nil, fmt.Errorf("%w: %s", ErrLegacyState, f)
			}
			return nil, fmt.Errorf("archive state: %q is not slug:commit", f)
		}
		s[slug] = h
	}
	return s, nil
}

// State reads every project's branch: the loose refs strictly (a ref file
// that does not hold a hash is ErrNoHead), then packed-refs for the
// branches that have no loose ref.
func (a *Archive) State() (State, error) {
	for _, d := range []string{"objects", "refs"} {
		// What git requires of a repository: without it, no ref is
		// "no project yet" but damage.
		if _, err := os.Stat(filepath.Join(a.dir, d)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoHead, err)
		}
	}
	s, err := a.packedProjects()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(a.refPath(ProjectRefs))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", ProjectRefs, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".lock") {
			continue
		}
		h, err := a.readRef(ProjectRef(name))
		if err != nil {
			return nil, err
		}
		s[name] = h
	}
	return s, nil
}

// packedProjects returns the projects' branches listed in packed-refs.
func (a *Archive) packedProjects() (State, error) {
	s := State{}
	f, err := os.Open(filepath.Join(a.dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		h, name, ok := strings.Cut(sc.Text(), " ")
		if ok && plumbing.IsHash(h) && strings.HasPrefix(name, ProjectRefs) {
			s[strings.TrimPrefix(name, ProjectRefs)] = h
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	return s, nil
}

// CommitProjects writes changes, whose paths are projects/<slug>/..., as
// one commit on each project's branch that they touch, on top of the
// project's commit in parent (none: the project's first commit), and moves
// each branch with a compare-and-swap (ErrMoved, ErrRefLocked as Commit).
// Result.Head is the new state's String form. A write normally touches one
// project; one that touches several moves their branches one after the
// other, in slug order.
func (a *Archive) CommitProjects(parent string, changes []Change, author Author, message string, cache Cache) (Result, error) {
	return a.CommitProjectsWhenReady(parent, changes, author, message, cache, nil)
}

// CommitProjectsWhenReady is CommitProjects, calling ready (when not nil)
// once the commit's objects and the first branch's new value are durable,
// before any branch moves, so that a caller can do meanwhile what must be
// done before the commit is published: ready's error abandons the commit
// (no branch moves; its objects stay unreachable) and is returned.
func (a *Archive) CommitProjectsWhenReady(parent string, changes []Change, author Author, message string, cache Cache, ready func() error) (Result, error) {
	state, err := ParseState(parent)
	if err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	bySlug := map[string][]Change{}
	for _, c := range changes {
		slug, rest, ok := strings.Cut(strings.TrimPrefix(c.Path, projectDir), "/")
		if !strings.HasPrefix(c.Path, projectDir) || !ok || slug == "" {
			return Result{}, fmt.Errorf("commit: archive path %q is not in a project's directory", c.Path)
		}
		bySlug[slug] = append(bySlug[slug], Change{Path: rest, Data: c.Data})
	}
	if len(bySlug) == 0 {
		return Result{}, errors.New("commit: nothing to write")
	}
	slugs := make([]string, 0, len(bySlug))
	for slug := range bySlug {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	total := Result{Written: map[string][]byte{}}
	for _, slug := range slugs {
		res, err := a.commitOn(ProjectRef(slug), state[slug], bySlug[slug], author, message, cache, ready)
		if err != nil {
			return Result{}, err
		}
		ready = nil // called before the first branch moved
		if state[slug] == "" {
			if err := a.adoptHead(slug); err != nil {
				return Result{}, fmt.Errorf("commit: %w", err)
			}
		}
		state[slug] = res.Head
		for h, data := range res.Written {
			total.Written[h] = data
		}
		total.Stale = append(total.Stale, res.Stale...)
		total.Objects += res.Objects
	}
	total.Head = state.String()
	return total, nil
}

// ProjectChanges is Changes between two states: every file that differs
// between each project's commits in from and to, as projects/<slug>/...,
// project by project, in path order within each. Only the projects whose commit differs are read; their
// trees are compared, not their histories, so merges cost what they
// change. A legacy from is ErrLegacyState: read everything.
func (a *Archive) ProjectChanges(from, to string, skip Skip, fn func(path string, data []byte) error) error {
	fs, err := ParseState(from)
	if err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	ts, err := ParseState(to)
	if err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	slugs := make([]string, 0, len(ts))
	for slug := range ts {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	for _, slug := range slugs {
		if fs[slug] == ts[slug] {
			continue
		}
		var fromTree plumbing.Hash
		if fs[slug] != "" {
			if fromTree, err = a.commitTree(fs[slug]); err != nil {
				return fmt.Errorf("changes: %w", err)
			}
		}
		toTree, err := a.commitTree(ts[slug])
		if err != nil {
			return fmt.Errorf("changes: %w", err)
		}
		if err := a.diffTrees(projectDir+slug, fromTree, toTree, skip, fn); err != nil {
			return err
		}
	}
	return nil
}

// adoptHead points HEAD at the project slug's branch if HEAD names no
// branch that exists (a new archive's main, gone since the migration), so
// that a plain git clone of the archive checks out a project.
func (a *Archive) adoptHead(slug string) error {
	b, err := os.ReadFile(filepath.Join(a.dir, "HEAD"))
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	target, symbolic := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if !symbolic {
		return nil // detached by hand: leave it
	}
	if _, err := a.readRef(target); err == nil || a.refFileExists(target) {
		return nil
	}
	return writeFiles(a.fs, a.dir, file{"HEAD", []byte("ref: " + ProjectRef(slug) + "\n"), 0o644})
}
