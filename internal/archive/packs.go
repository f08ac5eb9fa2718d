package archive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// maxNewPacks is how many new packs newPacks opens itself before it has
// go-git index them all again.
const maxNewPacks = 64

// newPacks opens the packs that appeared since go-git listed the pack
// directory. Every write adds a pack, and go-git can only drop and reload
// the index of every pack (Reindex): done on every read of a new commit,
// that costs as much as the packs between roll-ups. Only a pack that went
// away (a roll-up, a git gc), or too many new ones, makes it reindex.
// Its methods are called with the archive's stMu held.
type newPacks struct {
	listed map[string]bool // the packs go-git indexed; nil: not listed yet
	opened map[string]*packfile.Packfile
	cache  cache.Object // go-git's: a pack opened alone would make its own, of 96 MiB
	// What a test observes: the indexes read here, and go-git's reindexes.
	loads, reindexes int
}

// object returns h from the packs opened here.
func (n *newPacks) object(typ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	for _, p := range n.opened {
		o, err := p.Get(h)
		if err == plumbing.ErrObjectNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if typ != plumbing.AnyObject && o.Type() != typ {
			return nil, plumbing.ErrObjectNotFound
		}
		return o, nil
	}
	return nil, plumbing.ErrObjectNotFound
}

// refresh lists the pack directory and opens the packs new since it last
// did. Short of new packs to open, or when one went away, it has go-git
// index them all again: the object looked for may be in a pack git is
// replacing, or go-git may have indexed the packs partly.
func (n *newPacks) refresh(a *Archive) error {
	names, err := packNames(a.dir)
	if err != nil {
		return err
	}
	var fresh []string
	for name := range names {
		if !n.listed[name] && n.opened[name] == nil {
			fresh = append(fresh, name)
		}
	}
	gone := n.listed == nil
	for name := range n.listed {
		gone = gone || !names[name]
	}
	if gone || len(fresh) == 0 || len(n.opened)+len(fresh) > maxNewPacks {
		return n.reindex(a, names)
	}
	for _, name := range fresh {
		if err := n.open(a, name); err != nil {
			return n.reindex(a, names) // half-written by git, perhaps: go-git tells
		}
	}
	return nil
}

// reindex has go-git index the packs names again, and closes those opened
// here.
func (n *newPacks) reindex(a *Archive, names map[string]bool) error {
	a.st.ObjectStorage.Reindex()
	n.reindexes++
	n.listed = names
	return n.close()
}

// open reads the index of the pack name and opens it.
func (n *newPacks) open(a *Archive, name string) error {
	base := filepath.Join(a.dir, "objects", "pack", name)
	data, err := os.ReadFile(base + ".idx")
	if err != nil {
		return err
	}
	n.loads++
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return fmt.Errorf("read %s.idx: %w", name, err)
	}
	fs := a.st.Filesystem()
	f, err := fs.Open(filepath.Join("objects", "pack", name+".pack"))
	if err != nil {
		return err
	}
	if n.opened == nil {
		n.opened = map[string]*packfile.Packfile{}
	}
	n.opened[name] = packfile.NewPackfileWithCache(idx, fs, f, n.cache, 0)
	return nil
}

// close closes the packs opened here.
func (n *newPacks) close() error {
	var first error
	for name, p := range n.opened {
		if err := p.Close(); err != nil && first == nil {
			first = err
		}
		delete(n.opened, name)
	}
	return first
}

// packNames returns the names (pack-<sum>) of the packs in the archive at
// dir that have their index: git writes the index last.
func packNames(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "objects", "pack"))
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	names := map[string]bool{}
	for name := range have {
		if base, ok := strings.CutSuffix(name, ".pack"); ok && have[base+".idx"] {
			names[base] = true
		}
	}
	return names, nil
}
