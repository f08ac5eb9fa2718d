package archive

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

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
	var c object.Commit
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(rev), &c); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return c.TreeHash, nil
}

func (a *Archive) readTree(h plumbing.Hash) ([]object.TreeEntry, error) {
	var t object.Tree
	if err := a.decode(plumbing.TreeObject, h, &t); err != nil {
		return nil, err
	}
	return t.Entries, nil
}

// decode reads the object h of type typ into v with go-git's decoder.
func (a *Archive) decode(typ plumbing.ObjectType, h plumbing.Hash, v interface {
	Decode(plumbing.EncodedObject) error
}) error {
	data, err := a.readObject(typ, h)
	if err != nil {
		return err
	}
	return v.Decode(&rawObject{typ: typ, data: data})
}

// diffTrees calls fn for the files of the tree to that differ from the
// tree from (zero for none), below dir. The trees are compared as encoded,
// side by side in git's order: a day's directory of thousands of messages
// costs a scan, not a decoding of every entry twice.
func (a *Archive) diffTrees(dir string, from, to plumbing.Hash, skip Skip, fn func(string, []byte) error) error {
	if from == to {
		return nil
	}
	var oldData []byte
	var old []rawEntry
	if !from.IsZero() {
		var err error
		if oldData, old, err = a.rawTree(from); err != nil {
			return fmt.Errorf("read tree %s/: %w", dir, err)
		}
	}
	data, entries, err := a.rawTree(to)
	if err != nil {
		return fmt.Errorf("read tree %s/: %w", dir, err)
	}
	i := 0
	for _, e := range entries {
		for i < len(old) && compareEntries(old[i], e) < 0 {
			i++ // gone from to: records are never deleted
		}
		var prev plumbing.Hash
		if i < len(old) && compareEntries(old[i], e) == 0 {
			o := old[i]
			if bytes.Equal(oldData[o.start:o.end], data[e.start:e.end]) {
				continue
			}
			prev = entryHash(oldData, o)
		}
		p := string(e.name)
		if dir != "" {
			p = dir + "/" + p
		}
		h := entryHash(data, e)
		if e.dir {
			if skip != nil && skip(p) {
				continue
			}
			if err := a.diffTrees(p, prev, h, skip, fn); err != nil {
				return err
			}
			continue
		}
		blob, err := a.readObject(plumbing.BlobObject, h)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if err := fn(p, blob); err != nil {
			return err
		}
	}
	return nil
}

// rawTree returns the encoded tree h and its entries.
func (a *Archive) rawTree(h plumbing.Hash) ([]byte, []rawEntry, error) {
	data, err := a.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, nil, err
	}
	entries, err := parseTree(data)
	return data, entries, err
}

// entryHash returns the hash the entry e of the encoded tree data names.
func entryHash(data []byte, e rawEntry) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], data[e.end-len(h):e.end])
	return h
}

// compareEntries compares two tree entries in git's order, a directory's
// name as if it ended in "/".
func compareEntries(a, b rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(keyAfter(a, n), keyAfter(b, n))
}

// keyAfter returns byte n of the name git sorts e by, whose first n bytes
// are its name's or all of it; -1 past its end.
func keyAfter(e rawEntry, n int) int {
	switch {
	case n < len(e.name):
		return int(e.name[n])
	case e.dir:
		return '/'
	}
	return -1
}

// ReadFile returns the content of the file at p in commit rev. A commit
// or file that does not exist is an error wrapping os.ErrNotExist.
func (a *Archive) ReadFile(rev, p string) ([]byte, error) {
	h, err := a.commitTree(rev)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("read %s: no commit %s: %w", p, rev, os.ErrNotExist)
	}
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
			if e.Name == name && (e.Mode == filemode.Dir) == (i < len(parts)-1) {
				h, found = e.Hash, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("read %s: %w", p, os.ErrNotExist)
		}
	}
	return a.readObject(plumbing.BlobObject, h)
}

// readObject returns the content of an object from the repository, or
// from the commits and trees this handle wrote last. The handle lists the
// packs when it needs them, and every write adds one while roll-ups and
// git remove some: an object it cannot find or read may be in a pack
// written since, so it lists them again (see packSet). A roll-up or git gc
// at work removes the packs it replaced one after the other, once the pack
// that replaces them is in place: readObject looks again, briefly apart,
// readRetries times, and for as long as the packs keep changing, up to
// readPatience.
func (a *Archive) readObject(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if data, ok := a.recent.get(h.String()); ok {
		return data, nil // written by this handle a moment ago: perhaps in a pack not listed yet
	}
	a.stMu.Lock()
	defer a.stMu.Unlock()
	data, err := a.packs.object(a, typ, h)
	deadline := time.Now().Add(readPatience)
	for i := 0; err != nil; i++ {
		if i > 0 {
			time.Sleep(min(time.Duration(i)*10*time.Millisecond, 50*time.Millisecond))
		}
		changed, rerr := a.packs.refresh(a)
		if rerr != nil {
			return nil, rerr
		}
		if i >= readRetries && (!changed || time.Now().After(deadline)) {
			break
		}
		data, err = a.packs.object(a, typ, h)
	}
	return data, err
}

// readRetries is how many times readObject looks again for an object it
// could not read, the packs changing or not.
const readRetries = 5

// readPatience bounds the time readObject looks again while the packs
// keep changing: longer than a roll-up takes to remove what it replaced.
const readPatience = 2 * time.Second
