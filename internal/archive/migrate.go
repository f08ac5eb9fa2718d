package archive

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentmail/agentmail/internal/crash"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// LegacyRef is where Migrate keeps the single main branch of earlier
// versions, with all its history, so that nothing is lost.
const LegacyRef = "refs/agentmail/legacy/main"

// Legacy reports whether the archive still has the main branch that held
// every project before each had its own (and that Init still creates).
func (a *Archive) Legacy() (bool, error) {
	_, err := a.readRef(Branch)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNoHead) && !a.refFileExists(Branch) {
		return false, nil
	}
	return false, err
}

// Migration says what Migrate did.
type Migration struct {
	From     string   // the old main branch's commit, now LegacyRef
	Projects []string // the slugs given a branch
}

// Migrate gives each project of the main branch, projects/<slug>/, its own
// branch ProjectRef(slug) whose first commit holds that directory's tree
// as it is on main (its message names main's commit), then moves main to
// LegacyRef. History is not rewritten per project: LegacyRef keeps all of
// it, readable with git log, and the trees are shared, so the migration
// writes one commit object per project whatever the archive's size.
//
// Every step is idempotent and the commits are deterministic (their time
// is main's), so a migration killed at any point completes when run again.
// A main branch that holds no project (a new store's, which Init makes)
// is removed without a trace: Migration.From is then "".
//
// The caller holds the store lock.
func (a *Archive) Migrate() (Migration, error) {
	old, err := a.readRef(Branch)
	if err != nil {
		return Migration{}, fmt.Errorf("migrate: %w", err)
	}
	if legacy, err := a.readRef(LegacyRef); err == nil && legacy == old {
		// Done but for main's removal, which a power loss undid.
		if err := a.deleteRef(Branch, old); err != nil {
			return Migration{}, fmt.Errorf("migrate: %w", err)
		}
		return Migration{From: old}, a.adoptFirst()
	}
	var oc object.Commit
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(old), &oc); err != nil {
		return Migration{}, fmt.Errorf("migrate: read %s: %w", old, err)
	}
	trees, err := a.projectTrees(oc.TreeHash)
	if err != nil {
		return Migration{}, fmt.Errorf("migrate: %w", err)
	}
	m := Migration{From: old}
	if len(trees) == 0 {
		// Nothing but Init's empty commit (or an old store that never held
		// a project): there is no history to keep, so no LegacyRef, which
		// only a store that really was migrated has.
		crash.Point(crash.MigrateBranches)
		if err := a.deleteRef(Branch, old); err != nil {
			return Migration{}, fmt.Errorf("migrate: %w", err)
		}
		return Migration{}, nil
	}
	w := a.newTreeWriter(nil)
	commits := map[string]plumbing.Hash{}
	author := Author{Name: "agentmail", Email: "agentmail@agentmail", When: oc.Committer.When}
	for slug, tree := range trees {
		c, err := w.commit(tree, plumbing.ZeroHash, author, fmt.Sprintf("migrate: projects/%s from main %s", slug, old))
		if err != nil {
			return Migration{}, fmt.Errorf("migrate: %w", err)
		}
		commits[slug] = c
		m.Projects = append(m.Projects, slug)
	}
	sort.Strings(m.Projects)
	if len(w.objs) > 0 {
		if _, err := a.writePack(w.objs); err != nil {
			return Migration{}, fmt.Errorf("migrate: write pack: %w", err)
		}
	}
	for _, slug := range m.Projects {
		if err := a.createRef(ProjectRef(slug), commits[slug]); err != nil {
			return Migration{}, fmt.Errorf("migrate: %w", err)
		}
	}
	crash.Point(crash.MigrateBranches)
	if err := a.createRef(LegacyRef, plumbing.NewHash(old)); err != nil {
		return Migration{}, fmt.Errorf("migrate: %w", err)
	}
	if err := a.deleteRef(Branch, old); err != nil {
		return Migration{}, fmt.Errorf("migrate: %w", err)
	}
	return m, a.adoptFirst()
}

// adoptFirst points HEAD, once main is gone, at the first project's branch.
func (a *Archive) adoptFirst() error {
	st, err := a.State()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	slugs := slices.Sorted(maps.Keys(st))
	if len(slugs) == 0 {
		return nil
	}
	if err := a.adoptHead(slugs[0]); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// projectTrees returns the tree of each directory below projects/ in the
// tree root.
func (a *Archive) projectTrees(root plumbing.Hash) (map[string]plumbing.Hash, error) {
	trees := map[string]plumbing.Hash{}
	entries, err := a.readTree(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name != "projects" || e.Mode != filemode.Dir {
			continue
		}
		projects, err := a.readTree(e.Hash)
		if err != nil {
			return nil, err
		}
		for _, p := range projects {
			if p.Mode == filemode.Dir {
				trees[p.Name] = p.Hash
			}
		}
	}
	return trees, nil
}

// createRef makes the ref name point at h unless it already does (an
// earlier, interrupted run made it); a ref that points elsewhere is an
// error.
func (a *Archive) createRef(name string, h plumbing.Hash) error {
	cur, err := a.readRef(name)
	if err == nil {
		if cur == h.String() {
			return nil
		}
		return fault.WithHint(fmt.Errorf("%s exists at %s, want %s", name, cur, h),
			"the archive was changed by hand during its migration: inspect it with git --git-dir "+a.dir+" show-ref")
	}
	return a.setRef(name, plumbing.ZeroHash, h)
}

// deleteRef removes the ref name if it still points at old, under its lock
// as setRef moves it; one that packed-refs lists is removed by git, which
// rewrites that file too.
func (a *Archive) deleteRef(name, old string) error {
	if a.packed(name) {
		_, err := a.git(nil, nil, "update-ref", "-d", name, old)
		return err
	}
	tmp, err := a.fs.writeTemp(a.dir, refTemp, []byte(old+"\n"), 0o644)
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	defer a.fs.remove(tmp)
	ref := a.refPath(name)
	lock := ref + ".lock"
	if err := a.lockRef(name, tmp, lock); err != nil {
		return err
	}
	defer a.fs.remove(lock)
	if err := a.compareRef(name, plumbing.NewHash(old)); err != nil {
		return err
	}
	if err := a.fs.remove(ref); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return a.fs.syncDir(filepath.Dir(ref))
}

// packed reports whether packed-refs lists the ref name.
func (a *Archive) packed(name string) bool {
	b, err := os.ReadFile(filepath.Join(a.dir, "packed-refs"))
	return err == nil && strings.Contains(string(b), " "+name+"\n")
}
