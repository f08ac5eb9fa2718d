package archive

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// dirChange is the set of changes below one directory: files written,
// files that are already blobs of the repository (links), and files
// removed.
type dirChange struct {
	files   map[string][]byte
	links   map[string]plumbing.Hash
	removed map[string]bool
	dirs    map[string]*dirChange
}

func (d *dirChange) add(p string, data []byte) error {
	leaf, name, err := d.leaf(p)
	if err != nil {
		return err
	}
	if leaf.files == nil {
		leaf.files = map[string][]byte{}
	}
	leaf.files[name] = data
	return nil
}

// link puts the blob h, which the repository has, at p.
func (d *dirChange) link(p string, h plumbing.Hash) error {
	leaf, name, err := d.leaf(p)
	if err != nil {
		return err
	}
	if leaf.links == nil {
		leaf.links = map[string]plumbing.Hash{}
	}
	leaf.links[name] = h
	return nil
}

// remove takes the file at p out of its directory.
func (d *dirChange) remove(p string) error {
	leaf, name, err := d.leaf(p)
	if err != nil {
		return err
	}
	if leaf.removed == nil {
		leaf.removed = map[string]bool{}
	}
	leaf.removed[name] = true
	return nil
}

// leaf validates the file path p and returns the change of the directory
// that holds it, made on the way, and the file's name.
func (d *dirChange) leaf(p string) (*dirChange, string, error) {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.Contains(p, "\x00") {
		return nil, "", fmt.Errorf("invalid archive path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return nil, "", fmt.Errorf("invalid archive path %q: git does not allow %q", p, part)
		}
	}
	for {
		dir, rest, nested := strings.Cut(p, "/")
		if _, isDir := d.dirs[dir]; !nested && isDir {
			return nil, "", fmt.Errorf("archive path %q is both a file and a directory", p)
		}
		if d.isFile(dir) && nested {
			return nil, "", fmt.Errorf("archive path %q is both a file and a directory", dir)
		}
		if !nested {
			return d, dir, nil
		}
		if d.dirs == nil {
			d.dirs = map[string]*dirChange{}
		}
		sub := d.dirs[dir]
		if sub == nil {
			sub = &dirChange{}
			d.dirs[dir] = sub
		}
		d, p = sub, rest
	}
}

// names returns the names of the entries the change writes or removes in
// its directory, so that the entries it leaves alone, most of a large
// directory, each cost one lookup.
func (d *dirChange) names() map[string]struct{} {
	names := make(map[string]struct{}, len(d.files)+len(d.links)+len(d.dirs)+len(d.removed))
	for n := range d.files {
		names[n] = struct{}{}
	}
	for n := range d.links {
		names[n] = struct{}{}
	}
	for n := range d.dirs {
		names[n] = struct{}{}
	}
	for n := range d.removed {
		names[n] = struct{}{}
	}
	return names
}

// replaces reports whether the change replaces or removes the entry e of
// its directory. (Map lookups by string(e.name) do not copy the name.)
func (d *dirChange) replaces(e rawEntry) bool {
	_, file := d.files[string(e.name)]
	_, link := d.links[string(e.name)]
	_, dir := d.dirs[string(e.name)]
	return file || link || dir || (!e.dir && d.removed[string(e.name)])
}

// isFile reports whether the change writes a file named name.
func (d *dirChange) isFile(name string) bool {
	_, file := d.files[name]
	_, link := d.links[name]
	return file || link
}

// treeWriter builds the objects of one commit with go-git's encoders.
type treeWriter struct {
	a       *Archive
	cache   Cache
	objs    []plumbing.EncodedObject
	seen    map[plumbing.Hash]bool
	written map[string][]byte // the trees and commit, by hash
	stale   []string
	// blobs is the hash of each blob written, by the memory it was
	// given in: a message's file and its copies in the sender's outbox
	// and the recipients' inboxes are one slice, hashed once.
	blobs map[blobKey]plumbing.Hash
}

// blobKey names the bytes of a blob by where they lie in memory: a change's
// data is not modified while its commit is encoded.
type blobKey struct {
	p *byte
	n int
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
	key := blobKey{unsafe.SliceData(data), len(data)}
	if h, ok := w.blobs[key]; ok && key.p != nil {
		return h, nil
	}
	h, err := w.object(plumbing.BlobObject, 0, func(o plumbing.EncodedObject) error {
		o.(*rawObject).data = data
		return nil
	})
	if err == nil && key.p != nil {
		if w.blobs == nil {
			w.blobs = map[blobKey]plumbing.Hash{}
		}
		w.blobs[key] = h
	}
	return h, err
}

// read returns a raw object from the archive's recent objects, the cache
// or the repository.
func (w *treeWriter) read(typ plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	if data, ok := w.a.recent.get(h.String()); ok {
		return data, nil
	}
	if w.cache != nil {
		if data, ok := w.cache.Object(h.String()); ok {
			return data, nil
		}
	}
	return w.a.readObject(typ, h)
}

// apply writes the tree base (zero for a new directory) with the changes
// in d and returns the new tree's hash. Only the trees on changed paths
// are read and written, and each is edited as encoded: the entries d
// leaves alone are copied as they are, so that adding a file to a
// directory of thousands costs a copy, not a decoding and an encoding of
// every entry.
func (w *treeWriter) apply(base plumbing.Hash, d *dirChange) (plumbing.Hash, error) {
	var old []rawEntry
	var data []byte
	if !base.IsZero() {
		var err error
		if data, err = w.read(plumbing.TreeObject, base); err == nil {
			old, err = parseTree(data)
		}
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		w.stale = append(w.stale, base.String())
	}
	subBase := map[string]plumbing.Hash{}
	for _, e := range old {
		if _, isDir := d.dirs[string(e.name)]; isDir && e.dir {
			subBase[string(e.name)] = plumbing.Hash(data[e.end-20 : e.end])
		}
	}
	added := make([]newEntry, 0, len(d.files)+len(d.links)+len(d.dirs))
	for name, content := range d.files {
		h, err := w.blob(content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		added = append(added, newEntry{key: name, encoded: encodeEntry(filemode.Regular, name, h)})
	}
	for name, h := range d.links {
		added = append(added, newEntry{key: name, encoded: encodeEntry(filemode.Regular, name, h)})
	}
	for name, sub := range d.dirs {
		h, err := w.apply(subBase[name], sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		added = append(added, newEntry{key: name + "/", encoded: encodeEntry(filemode.Dir, name, h)})
	}
	sort.Slice(added, func(i, j int) bool { return added[i].key < added[j].key })
	size := len(data)
	for _, e := range added {
		size += len(e.encoded)
	}
	out := make([]byte, 0, size)
	touched := d.names()
	for _, e := range old {
		if _, ok := touched[string(e.name)]; ok && d.replaces(e) {
			continue
		}
		for len(added) > 0 && compareKey(e, added[0].key) > 0 {
			out, added = append(out, added[0].encoded...), added[1:]
		}
		out = append(out, data[e.start:e.end]...)
	}
	for _, e := range added {
		out = append(out, e.encoded...)
	}
	return w.object(plumbing.TreeObject, 0, func(o plumbing.EncodedObject) error {
		o.(*rawObject).data = out
		return nil
	})
}

// rawEntry is an entry of an encoded tree, "<mode> <name>\x00<hash>",
// found where it lies in the tree's data.
type rawEntry struct {
	name       []byte
	dir        bool
	start, end int // the entry's bytes in the tree's data
}

// parseTree finds the entries of the encoded tree data.
func parseTree(data []byte) ([]rawEntry, error) {
	entries := make([]rawEntry, 0, len(data)/64)
	for i := 0; i < len(data); {
		sp := bytes.IndexByte(data[i:], ' ')
		if sp < 0 {
			return nil, errors.New("tree entry without a mode")
		}
		nul := bytes.IndexByte(data[i+sp:], 0)
		if nul < 0 {
			return nil, errors.New("tree entry without a name")
		}
		end := i + sp + nul + 1 + 20
		if end > len(data) {
			return nil, errors.New("tree cut short")
		}
		mode := data[i : i+sp]
		entries = append(entries, rawEntry{name: data[i+sp+1 : i+sp+nul], dir: string(mode) == "40000", start: i, end: end})
		i = end
	}
	return entries, nil
}

// newEntry is an entry apply adds, encoded, with the key git sorts it by.
type newEntry struct {
	key     string // see sortName
	encoded []byte
}

// encodeEntry encodes a tree entry as git does.
func encodeEntry(mode filemode.FileMode, name string, h plumbing.Hash) []byte {
	m := strconv.FormatUint(uint64(mode), 8)
	b := make([]byte, 0, len(m)+len(name)+2+len(h))
	b = append(append(append(b, m...), ' '), name...)
	b = append(b, 0)
	return append(b, h[:]...)
}

// compareKey compares the key git sorts the entry e by (see sortName)
// with key.
func compareKey(e rawEntry, key string) int {
	n := len(e.name)
	if e.dir {
		n++
	}
	for i := 0; i < n && i < len(key); i++ {
		c := byte('/')
		if i < len(e.name) {
			c = e.name[i]
		}
		if c != key[i] {
			return int(c) - int(key[i])
		}
	}
	return n - len(key)
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
		o.hash = hashObject(o.typ, o.data)
	}
	return o.hash
}

// hashObject returns the name git gives an object of type typ holding
// data. Blobs, whose content comes from users, are hashed as go-git hashes
// them, with SHA-1 collision detection (git's own SHA1DC); trees and
// commits, which agentmail writes itself (names of a restricted alphabet,
// hashes, dates), with the standard library's SHA-1, several times faster
// on the day's trees a write rewrites. The two agree on every input that
// is not a collision attack.
func hashObject(typ plumbing.ObjectType, data []byte) plumbing.Hash {
	if typ == plumbing.BlobObject {
		return plumbing.ComputeHash(typ, data)
	}
	h := sha1.New()
	h.Write(typ.Bytes())
	h.Write([]byte{' '})
	h.Write(strconv.AppendInt(nil, int64(len(data)), 10))
	h.Write([]byte{0})
	h.Write(data)
	var sum plumbing.Hash
	copy(sum[:], h.Sum(nil))
	return sum
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
