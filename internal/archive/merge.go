package archive

import (
	"errors"
	"fmt"
	"os/exec"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Resolve merges two different versions of the file at path (relative to
// a project's branch) into one. For merges to be commutative, associative
// and idempotent, so must Resolve be. It reports dropped when the merged
// file leaves one version out whole (two versions of a file that should
// never differ): the merge commit names the path, for doctor, and keeps
// both versions reachable through its parents.
type Resolve func(path string, a, b []byte) (merged []byte, dropped bool, err error)

// differsPrefix starts each line of a merge commit's message that names a
// file whose two versions differed and were settled by dropping one.
const differsPrefix = "differs: "

// Merge returns the commit that holds both ours and theirs, two commits of
// one project's branch: one of them when the other is its ancestor,
// otherwise a new merge commit whose tree is the union of both trees, a
// file present in both with different content being resolve's. Records
// are never deleted, so no common ancestor is needed. The merge commit is
// the same whichever side makes it: its parents are sorted, its author is
// agentmail and its time the later of the two commits'. Merge writes the
// objects but moves no ref (see MoveProject).
func (a *Archive) Merge(ours, theirs string, resolve Resolve) (string, error) {
	if ours == theirs {
		return ours, nil
	}
	var oc, tc object.Commit
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(ours), &oc); err != nil {
		return "", fmt.Errorf("merge: read %s: %w", ours, err)
	}
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(theirs), &tc); err != nil {
		return "", fmt.Errorf("merge: read %s: %w", theirs, err)
	}
	switch base, err := a.mergeBase(oc, tc); {
	case err != nil:
		return "", fmt.Errorf("merge: %w", err)
	case base == theirs:
		return ours, nil
	case base == ours:
		return theirs, nil
	}
	w := a.newTreeWriter(nil)
	var dropped []string
	tree, err := w.mergeTrees("", oc.TreeHash, tc.TreeHash, func(p string, x, y []byte) ([]byte, bool, error) {
		m, d, err := resolve(p, x, y)
		if d {
			dropped = append(dropped, p)
		}
		return m, d, err
	})
	if err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	parents := []string{ours, theirs}
	sort.Strings(parents)
	msg := fmt.Sprintf("merge: %s %s\n", parents[0], parents[1])
	if len(dropped) > 0 {
		sort.Strings(dropped)
		msg += "\nTwo versions differed; the merge kept one, both are in its parents:\n"
		for _, p := range dropped {
			msg += differsPrefix + p + "\n"
		}
	}
	when := oc.Committer.When
	if tc.Committer.When.After(when) {
		when = tc.Committer.When
	}
	sig := object.Signature{Name: "agentmail", Email: "agentmail@agentmail", When: when.UTC()}
	c := object.Commit{Author: sig, Committer: sig, TreeHash: tree,
		Message:      msg,
		ParentHashes: []plumbing.Hash{plumbing.NewHash(parents[0]), plumbing.NewHash(parents[1])}}
	h, err := w.object(plumbing.CommitObject, 512, c.Encode)
	if err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	if _, err := a.writePack(w.objs); err != nil {
		return "", fmt.Errorf("merge: write pack: %w", err)
	}
	return h.String(), nil
}

// mergeTrees writes the union of the trees x and y (zero: none), dir
// being their path.
func (w *treeWriter) mergeTrees(dir string, x, y plumbing.Hash, resolve Resolve) (plumbing.Hash, error) {
	if x == y || y.IsZero() {
		return x, nil
	}
	if x.IsZero() {
		return y, nil
	}
	xs, err := w.a.readTree(x)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read tree %s/: %w", dir, err)
	}
	ys, err := w.a.readTree(y)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read tree %s/: %w", dir, err)
	}
	onlyX := make(map[string]object.TreeEntry, len(xs))
	for _, e := range xs {
		onlyX[e.Name] = e
	}
	out := make([]object.TreeEntry, 0, len(xs)+len(ys))
	for _, e := range ys {
		o, both := onlyX[e.Name]
		if !both {
			out = append(out, e)
			continue
		}
		delete(onlyX, e.Name)
		merged, err := w.mergeEntry(path.Join(dir, e.Name), o, e, resolve)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		out = append(out, merged)
	}
	for _, e := range onlyX {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return sortName(out[i]) < sortName(out[j]) })
	t := object.Tree{Entries: out}
	return w.object(plumbing.TreeObject, 0, t.Encode)
}

// mergeEntry merges the entries x and y of one name at path p.
func (w *treeWriter) mergeEntry(p string, x, y object.TreeEntry, resolve Resolve) (object.TreeEntry, error) {
	xDir, yDir := x.Mode == filemode.Dir, y.Mode == filemode.Dir
	switch {
	case x.Hash == y.Hash:
		return x, nil
	case xDir && yDir:
		h, err := w.mergeTrees(p, x.Hash, y.Hash, resolve)
		return object.TreeEntry{Name: x.Name, Mode: filemode.Dir, Hash: h}, err
	case xDir || yDir:
		return object.TreeEntry{}, fmt.Errorf("%s is a file on one side and a directory on the other", p)
	}
	xb, err := w.a.readObject(plumbing.BlobObject, x.Hash)
	if err != nil {
		return object.TreeEntry{}, fmt.Errorf("read %s: %w", p, err)
	}
	yb, err := w.a.readObject(plumbing.BlobObject, y.Hash)
	if err != nil {
		return object.TreeEntry{}, fmt.Errorf("read %s: %w", p, err)
	}
	data, _, err := resolve(p, xb, yb)
	if err != nil {
		return object.TreeEntry{}, fmt.Errorf("merge %s: %w", p, err)
	}
	h, err := w.blob(data)
	return object.TreeEntry{Name: x.Name, Mode: filemode.Regular, Hash: h}, err
}

// mergeBase returns a best common ancestor of the commits x and y, ""
// for none. When one is the other's parent (a fast-forward, the common
// case of a write just pushed) it asks no git process.
func (a *Archive) mergeBase(x, y object.Commit) (string, error) {
	for _, p := range y.ParentHashes {
		if p == x.Hash {
			return x.Hash.String(), nil
		}
	}
	for _, p := range x.ParentHashes {
		if p == y.Hash {
			return y.Hash.String(), nil
		}
	}
	out, err := exec.Command("git", "--git-dir", a.dir, "merge-base", x.Hash.String(), y.Hash.String()).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return "", nil // unrelated histories
	}
	if err != nil {
		return "", fmt.Errorf("git merge-base: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// ancestorWalk bounds the commits IsAncestor reads itself before it asks
// git: a grant's parent is most often a few writes here past what was last
// pushed, and reading those costs less than starting git.
const ancestorWalk = 64

// IsAncestor reports whether commit x is an ancestor of commit y (or y).
// It reads y's history itself, up to ancestorWalk commits, then asks git
// merge-base (for which an x that is no commit here is an error).
func (a *Archive) IsAncestor(x, y string) (bool, error) {
	found, whole, err := a.lookBack(plumbing.NewHash(x), plumbing.NewHash(y), ancestorWalk)
	if err != nil || found || whole {
		return found, err
	}
	out, err := exec.Command("git", "--git-dir", a.dir, "merge-base", "--is-ancestor", x, y).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("git merge-base: %v: %s", err, out)
	}
	return true, nil
}

// lookBack looks for commit x in the history of commit y, reading at most
// limit commits: whole reports that it read all of that history.
func (a *Archive) lookBack(x, y plumbing.Hash, limit int) (found, whole bool, err error) {
	queue := []plumbing.Hash{y}
	queued := map[plumbing.Hash]bool{y: true}
	for read := 0; len(queue) > 0; read++ {
		h := queue[0]
		queue = queue[1:]
		if h == x {
			return true, false, nil
		}
		if read == limit {
			return false, false, nil
		}
		var c object.Commit
		if err := a.decode(plumbing.CommitObject, h, &c); err != nil {
			return false, false, fmt.Errorf("read commit %s: %w", h, err)
		}
		for _, p := range c.ParentHashes {
			if !queued[p] {
				queued[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, true, nil
}

// MoveProject moves the project slug's branch from old (the commit the
// caller read) to h with the lock-file protocol and a compare-and-swap.
func (a *Archive) MoveProject(slug, old, h string) error {
	var o plumbing.Hash
	if old != "" {
		o = plumbing.NewHash(old)
	}
	if old == "" {
		if err := a.adoptHead(slug); err != nil {
			return err
		}
	}
	return a.setRef(ProjectRef(slug), o, plumbing.NewHash(h))
}

// MergeFindings returns, for the branch of project slug, one line per file
// a merge settled by dropping one of two versions (see Resolve): the merge
// commit, the file, and the parents that hold the two versions.
func (a *Archive) MergeFindings(slug string) ([]string, error) {
	out, stderr, err := a.run("log", "--merges", "--format=%H %P%n%b%x00", ProjectRef(slug), "--")
	if err != nil {
		return nil, fmt.Errorf("read the merges of %s: %s", slug, lastLine(stderr))
	}
	var findings []string
	for _, entry := range strings.Split(out, "\x00") {
		head, body, _ := strings.Cut(strings.TrimSpace(entry), "\n")
		hashes := strings.Fields(head)
		if len(hashes) < 3 {
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			if p, ok := strings.CutPrefix(line, differsPrefix); ok {
				findings = append(findings, fmt.Sprintf("merge %.12s of project %s kept one of two different versions of %s; both are in its parents (git show %.12s:%s, git show %.12s:%s)",
					hashes[0], slug, p, hashes[1], p, hashes[2], p))
			}
		}
	}
	return findings, nil
}
