package archive

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// dirChange is the set of changes below one directory.
type dirChange struct {
	files map[string][]byte
	dirs  map[string]*dirChange
}

func (d *dirChange) add(p string, data []byte) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.Contains(p, "\x00") {
		return fmt.Errorf("invalid archive path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("invalid archive path %q: git does not allow %q", p, part)
		}
	}
	dir, rest, nested := strings.Cut(p, "/")
	if _, isDir := d.dirs[dir]; !nested && isDir {
		return fmt.Errorf("archive path %q is both a file and a directory", p)
	}
	if _, isFile := d.files[dir]; nested && isFile {
		return fmt.Errorf("archive path %q is both a file and a directory", dir)
	}
	if !nested {
		if d.files == nil {
			d.files = map[string][]byte{}
		}
		d.files[dir] = data
		return nil
	}
	if d.dirs == nil {
		d.dirs = map[string]*dirChange{}
	}
	sub := d.dirs[dir]
	if sub == nil {
		sub = &dirChange{}
		d.dirs[dir] = sub
	}
	return sub.add(rest, data)
}

// treeWriter builds the objects of one commit with go-git's encoders.
type treeWriter struct {
	a       *Archive
	cache   Cache
	objs    []plumbing.EncodedObject
	seen    map[plumbing.Hash]bool
	written map[string][]byte // the trees and commit, by hash
	stale   []string
}

// object encodes an object of type typ with encode into a buffer of
// capacity size, adds it to the commit's objects unless it is there
// already (two directories alike are one tree, and a pack must hold each
// object once) and returns its hash.
func (w *treeWriter) object(typ plumbing.ObjectType, size int, encode func(plumbing.EncodedObject) error) (plumbing.Hash, error) {
	o := &rawObject{typ: typ, data: make([]byte, 0, size)}
	if err := encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	h := o.Hash()
	if w.seen[h] {
		return h, nil
	}
	w.seen[h] = true
	w.objs = append(w.objs, o)
	if typ != plumbing.BlobObject {
		w.written[h.String()] = o.data
	}
	return h, nil
}

func (w *treeWriter) blob(data []byte) (plumbing.Hash, error) {
	return w.object(plumbing.BlobObject, 0, func(o plumbing.EncodedObject) error {
		o.(*rawObject).data = data
		return nil
	})
}

// read returns a raw object from the cache or the repository.
func (w *treeWriter) read(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if w.cache != nil {
		if data, ok := w.cache.Object(h.String()); ok {
			return data, nil
		}
	}
	return w.a.readObject(typ, h)
}

// apply writes the tree base (zero for a new directory) with the changes
// in d and returns the new tree's hash. Only the trees on changed paths
// are read and written.
func (w *treeWriter) apply(base plumbing.Hash, d *dirChange) (plumbing.Hash, error) {
	var old object.Tree
	size := 0 // of the encoded tree, a guess
	if !base.IsZero() {
		data, err := w.read(plumbing.TreeObject, base)
		if err == nil {
			err = old.Decode(&rawObject{typ: plumbing.TreeObject, data: data})
		}
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		w.stale = append(w.stale, base.String())
		size = len(data)
	}
	kept := make([]object.TreeEntry, 0, len(old.Entries))
	subBase := map[string]plumbing.Hash{}
	for _, e := range old.Entries {
		_, isFile := d.files[e.Name]
		_, isDir := d.dirs[e.Name]
		if isDir && e.Mode == filemode.Dir {
			subBase[e.Name] = e.Hash
		}
		if !isFile && !isDir {
			kept = append(kept, e)
		}
	}
	added := make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
	for name, data := range d.files {
		h, err := w.blob(data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		added = append(added, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		size += len("100644 \x00") + len(name) + len(h)
	}
	for name, sub := range d.dirs {
		h, err := w.apply(subBase[name], sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		added = append(added, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		size += len("40000 \x00") + len(name) + len(h)
	}
	sort.Sort(object.TreeEntrySorter(added))
	t := object.Tree{Entries: mergeEntries(kept, added)}
	return w.object(plumbing.TreeObject, size, t.Encode)
}

// mergeEntries merges two lists of tree entries in git's order into one.
func mergeEntries(a, b []object.TreeEntry) []object.TreeEntry {
	out := make([]object.TreeEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if sortName(b[0]) < sortName(a[0]) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// sortName is the name git sorts a tree entry by: a directory's as if it
// ended in "/".
func sortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// rawObject is a git object held in memory, for go-git's encoders and
// decoders. Unlike plumbing.MemoryObject it is sized in advance (a tree is
// encoded entry by entry) and hands out its data without a copy.
type rawObject struct {
	typ  plumbing.ObjectType
	data []byte
	hash plumbing.Hash
}

func (o *rawObject) Hash() plumbing.Hash {
	if o.hash.IsZero() {
		o.hash = plumbing.ComputeHash(o.typ, o.data)
	}
	return o.hash
}

func (o *rawObject) Type() plumbing.ObjectType     { return o.typ }
func (o *rawObject) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *rawObject) Size() int64                   { return int64(len(o.data)) }
func (o *rawObject) SetSize(int64)                 {}
func (o *rawObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *rawObject) Writer() (io.WriteCloser, error) { return o, nil }
func (o *rawObject) Close() error                    { return nil }
func (o *rawObject) Write(p []byte) (int, error)     { o.data = append(o.data, p...); return len(p), nil }
