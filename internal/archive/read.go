package archive

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
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
		t, err := a.commitTree(from)
		if err != nil {
			return fmt.Errorf("changes: %w", err)
		}
		fromTree = t
	}
	toTree, err := a.commitTree(to)
	if err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	return a.diffTrees("", fromTree, toTree, skip, fn)
}

func (a *Archive) commitTree(rev string) (plumbing.Hash, error) {
	data, err := a.readObject(plumbing.CommitObject, plumbing.NewHash(rev))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return commitTree(data)
}

func (a *Archive) readTree(h plumbing.Hash) ([]treeEntry, error) {
	data, err := a.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	return parseTree(data)
}

func (a *Archive) diffTrees(dir string, from, to plumbing.Hash, skip Skip, fn func(string, []byte) error) error {
	if from == to {
		return nil
	}
	old := map[string]plumbing.Hash{}
	if !from.IsZero() {
		entries, err := a.readTree(from)
		if err != nil {
			return fmt.Errorf("read tree %s/: %w", dir, err)
		}
		for _, e := range entries {
			old[e.name] = e.hash
		}
	}
	entries, err := a.readTree(to)
	if err != nil {
		return fmt.Errorf("read tree %s/: %w", dir, err)
	}
	for _, e := range entries {
		p := e.name
		if dir != "" {
			p = dir + "/" + e.name
		}
		prev := old[e.name]
		if prev == e.hash {
			continue
		}
		if e.dir {
			if skip != nil && skip(p) {
				continue
			}
			if err := a.diffTrees(p, prev, e.hash, skip, fn); err != nil {
				return err
			}
			continue
		}
		data, err := a.readObject(plumbing.BlobObject, e.hash)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if err := fn(p, data); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile returns the content of the file at p in commit rev.
func (a *Archive) ReadFile(rev, p string) ([]byte, error) {
	h, err := a.commitTree(rev)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	parts := strings.Split(p, "/")
	for i, name := range parts {
		entries, err := a.readTree(h)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		found := false
		for _, e := range entries {
			if e.name == name && e.dir == (i < len(parts)-1) {
				h, found = e.hash, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("read %s: %w", p, os.ErrNotExist)
		}
	}
	return a.readObject(plumbing.BlobObject, h)
}

// readObject returns the content of an object from the repository. go-git
// caches the list of packs, and every write adds one: an object it cannot
// find may be in a pack another process wrote since, so it looks again.
func (a *Archive) readObject(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	o, err := a.st.EncodedObject(typ, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		a.st.ObjectStorage.Reindex()
		o, err = a.st.EncodedObject(typ, h)
	}
	if err != nil {
		return nil, err
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
