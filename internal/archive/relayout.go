package archive

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Relocate says where a file directly in a directory belongs now,
// relative to that directory; moved false leaves it where it is.
type Relocate func(name string) (to string, moved bool)

// Relayout returns the commit, on top of rev (a commit of a project's
// branch), that moves each file directly in the directory dir of rev's
// tree to dir/to, to being relocate's answer, and how many files it moved:
// rev itself and 0 when none moves. A file already at a destination is
// merged with the one moved there by resolve (their path relative to the
// branch), so that two histories, one relaid out and one not, hold one
// version of each file once merged. The commit's message is message(n).
//
// The commit depends on rev alone (its author is agentmail, its time
// rev's), so that two stores that relay out one commit write the same one
// and their later merges meet. Relayout writes the objects but moves no
// ref (see MoveProject). When nothing moves it reads three objects.
func (a *Archive) Relayout(rev, dir string, relocate Relocate, resolve Resolve, message func(n int) string) (string, int, error) {
	p, err := a.planMoves(rev, dir, relocate)
	if err != nil || len(p.moves) == 0 {
		return rev, 0, err
	}
	change := &dirChange{}
	for _, m := range p.moves {
		if err := p.trees.relocate(change, p.base, dir, m, resolve); err != nil {
			return "", 0, fmt.Errorf("relayout %s/: %w", dir, err)
		}
	}
	w := a.newTreeWriter(nil)
	root, err := w.apply(p.commit.TreeHash, change)
	if err != nil {
		return "", 0, fmt.Errorf("relayout %s/: %w", dir, err)
	}
	author := Author{Name: "agentmail", Email: "agentmail@agentmail", When: p.commit.Committer.When}
	h, err := w.commit(root, plumbing.NewHash(rev), author, message(len(p.moves)))
	if err != nil {
		return "", 0, fmt.Errorf("relayout %s/: %w", dir, err)
	}
	if _, err := a.writePack(w.objs); err != nil {
		return "", 0, fmt.Errorf("relayout %s/: write pack: %w", dir, err)
	}
	return h.String(), len(p.moves), nil
}

// Unmoved returns how many files Relayout would move in commit rev,
// reading three objects when there are none.
func (a *Archive) Unmoved(rev, dir string, relocate Relocate) (int, error) {
	p, err := a.planMoves(rev, dir, relocate)
	return len(p.moves), err
}

// movePlan is what Relayout moves in a commit.
type movePlan struct {
	commit object.Commit
	trees  treeReader
	base   plumbing.Hash // the directory's tree
	moves  []move
}

// move is the move of the file name, blob h, to to.
type move struct {
	name, to string
	h        plumbing.Hash
}

func (a *Archive) planMoves(rev, dir string, relocate Relocate) (movePlan, error) {
	p := movePlan{trees: treeReader{a: a, read: map[plumbing.Hash]parsedTree{}}}
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(rev), &p.commit); err != nil {
		return p, fmt.Errorf("relayout %s/: read %s: %w", dir, rev, err)
	}
	var err error
	if p.base, err = p.trees.subtree(p.commit.TreeHash, dir); err != nil || p.base.IsZero() {
		return p, err
	}
	t, err := p.trees.get(p.base)
	if err != nil {
		return p, fmt.Errorf("relayout %s/: %w", dir, err)
	}
	for _, e := range t.entries {
		if to, moved := relocate(string(e.name)); moved && !e.dir {
			p.moves = append(p.moves, move{string(e.name), to, entryHash(t.data, e)})
		}
	}
	return p, nil
}

// relocate records in change (rooted at the branch's tree) the move m in
// the directory dir (tree base).
func (r treeReader) relocate(change *dirChange, base plumbing.Hash, dir string, m move, resolve Resolve) error {
	name, to, h := m.name, m.to, m.h
	if err := change.remove(dir + "/" + name); err != nil {
		return err
	}
	there, err := r.lookup(base, to)
	switch {
	case err != nil:
		return err
	case there.IsZero():
		return change.link(dir+"/"+to, h)
	case there == h:
		return nil // the same file is in its place already
	}
	moved, err := r.a.readObject(plumbing.BlobObject, h)
	if err != nil {
		return fmt.Errorf("read %s/%s: %w", dir, name, err)
	}
	placed, err := r.a.readObject(plumbing.BlobObject, there)
	if err != nil {
		return fmt.Errorf("read %s/%s: %w", dir, to, err)
	}
	merged, _, err := resolve(dir+"/"+to, placed, moved)
	if err != nil {
		return fmt.Errorf("merge %s/%s into %s: %w", dir, name, to, err)
	}
	if bytes.Equal(merged, placed) {
		return nil
	}
	return change.add(dir+"/"+to, merged)
}

// treeReader reads trees, each once.
type treeReader struct {
	a    *Archive
	read map[plumbing.Hash]parsedTree
}

// parsedTree is an encoded tree and its entries, by name and kind.
type parsedTree struct {
	data    []byte
	entries []rawEntry
	byName  map[entryKey]plumbing.Hash
}

type entryKey struct {
	name string
	dir  bool
}

func (r treeReader) get(h plumbing.Hash) (parsedTree, error) {
	if t, ok := r.read[h]; ok {
		return t, nil
	}
	data, entries, err := r.a.rawTree(h)
	if err != nil {
		return parsedTree{}, fmt.Errorf("read tree %s: %w", h, err)
	}
	t := parsedTree{data, entries, make(map[entryKey]plumbing.Hash, len(entries))}
	for _, e := range entries {
		t.byName[entryKey{string(e.name), e.dir}] = entryHash(data, e)
	}
	r.read[h] = t
	return t, nil
}

// entry returns the hash of the entry name of the tree h (a directory's
// when dir), zero when there is none.
func (r treeReader) entry(h plumbing.Hash, name string, dir bool) (plumbing.Hash, error) {
	t, err := r.get(h)
	return t.byName[entryKey{name, dir}], err
}

// subtree returns the tree at the directory p below tree, zero when there
// is none.
func (r treeReader) subtree(tree plumbing.Hash, p string) (plumbing.Hash, error) {
	h := tree
	for _, name := range strings.Split(p, "/") {
		var err error
		if h, err = r.entry(h, name, true); err != nil || h.IsZero() {
			return h, err
		}
	}
	return h, nil
}

// lookup returns the blob of the file at p below tree, zero when there is
// none.
func (r treeReader) lookup(tree plumbing.Hash, p string) (plumbing.Hash, error) {
	h := tree
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		var err error
		if h, err = r.subtree(tree, p[:i]); err != nil || h.IsZero() {
			return h, err
		}
		p = p[i+1:]
	}
	return r.entry(h, p, false)
}
