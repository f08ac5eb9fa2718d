package archive

import (
	"fmt"
	"io"
	"path"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Skip tells Changes which directories it need not descend into.
type Skip func(dir string) bool

// Changes calls fn for every file that differs between the commits from and
// to (from may be "" for "everything in to"), in path order. Deleted files
// are not reported: records are never deleted. Subtrees that are unchanged
// between the two commits, and directories for which skip returns true, are
// not read at all, so catching up on a few commits costs little however large
// the archive is.
func (a *Archive) Changes(from, to string, skip Skip, fn func(path string, data []byte) error) error {
	var fromTree plumbing.Hash
	if from != "" {
		c, err := object.GetCommit(a.st, plumbing.NewHash(from))
		if err != nil {
			return fmt.Errorf("changes: read commit %s: %w", from, err)
		}
		fromTree = c.TreeHash
	}
	c, err := object.GetCommit(a.st, plumbing.NewHash(to))
	if err != nil {
		return fmt.Errorf("changes: read commit %s: %w", to, err)
	}
	return a.diffTrees("", fromTree, c.TreeHash, skip, fn)
}

func (a *Archive) diffTrees(dir string, from, to plumbing.Hash, skip Skip, fn func(string, []byte) error) error {
	if from == to {
		return nil
	}
	old := map[string]plumbing.Hash{}
	if !from.IsZero() {
		t, err := object.GetTree(a.st, from)
		if err != nil {
			return fmt.Errorf("changes: read tree %s: %w", path.Join(dir, "."), err)
		}
		for _, e := range t.Entries {
			old[e.Name] = e.Hash
		}
	}
	t, err := object.GetTree(a.st, to)
	if err != nil {
		return fmt.Errorf("changes: read tree %s: %w", path.Join(dir, "."), err)
	}
	for _, e := range t.Entries {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		prev := old[e.Name]
		if prev == e.Hash {
			continue
		}
		switch e.Mode {
		case filemode.Dir:
			if skip != nil && skip(p) {
				continue
			}
			if err := a.diffTrees(p, prev, e.Hash, skip, fn); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable:
			data, err := a.readBlob(e.Hash)
			if err != nil {
				return fmt.Errorf("changes: read %s: %w", p, err)
			}
			if err := fn(p, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadFile returns the content of the file at p in commit rev.
func (a *Archive) ReadFile(rev, p string) ([]byte, error) {
	c, err := object.GetCommit(a.st, plumbing.NewHash(rev))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	e, err := t.FindEntry(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return a.readBlob(e.Hash)
}

func (a *Archive) readBlob(h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(a.st, h)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
