// Package archive stores agentmail's durable records in a bare git repository.
//
// Writes use go-git plumbing only: the blobs, the trees along the changed
// paths and a commit are written as loose objects and refs/heads/main is then
// moved with a compare-and-swap. There is no work tree and no git index, so
// the cost of a write depends on the depth of the changed paths and the size
// of the directories on them, not on the size of the archive.
//
// Callers serialize writers themselves (the store's file lock); the
// compare-and-swap on the branch is the second line of defence.
package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Branch is the one branch the archive keeps.
const Branch = "refs/heads/main"

// ErrMoved is returned by Commit when the branch no longer points at the
// parent the caller built on: another writer got there first.
var ErrMoved = errors.New("archive branch moved during the write")

// ErrNoHead reports that the branch could not be read. On an initialized
// archive this is transient (a concurrent rewrite of the ref) or a sign of
// damage; it never means "no history".
var ErrNoHead = errors.New("archive branch not found")

// Archive is an open bare repository.
type Archive struct {
	dir string
	st  *filesystem.Storage
}

// Change is one file written by a commit.
type Change struct {
	Path string // slash-separated, relative to the repository root
	Data []byte
}

// Author identifies who made a commit.
type Author struct {
	Name  string
	Email string
	When  time.Time
}

// Exists reports whether dir holds an initialized archive.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// Init creates a bare repository at dir whose main branch holds one empty
// commit, so that a missing branch can never be mistaken for an empty
// archive. The repository is built in a temporary directory and renamed into
// place, so a crash leaves either nothing or a complete archive. The caller
// must hold the store lock.
func Init(dir string, when time.Time) error {
	if Exists(dir) {
		return nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".archive-init-")
	if err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return fmt.Errorf("init archive: %w", err)
		}
	}
	files := map[string]string{
		"HEAD":        "ref: " + Branch + "\n",
		"config":      "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n",
		"description": "agentmail archive: messages, agents and reservations, one commit per change\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("init archive: %w", err)
		}
	}
	tree := newObject(plumbing.TreeObject, nil)
	commit := newObject(plumbing.CommitObject, encodeCommit(tree.hash, plumbing.ZeroHash,
		Author{Name: "agentmail", Email: "agentmail@agentmail", When: when}, "init: agentmail archive"))
	if _, _, err := writePack(tmp, []rawObject{tree, commit}); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	if err := open(tmp).setHead(commit.hash); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	return nil
}

// Open opens the archive at dir, which must have been created by Init.
func Open(dir string) (*Archive, error) {
	if !Exists(dir) {
		return nil, fmt.Errorf("open archive %s: %w", dir, os.ErrNotExist)
	}
	return open(dir), nil
}

func open(dir string) *Archive {
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(32*cache.MiByte), filesystem.Options{KeepDescriptors: true})
	return &Archive{dir: dir, st: st}
}

// Close releases the pack files the archive keeps open.
func (a *Archive) Close() error { return a.st.Close() }

// Dir returns the repository directory.
func (a *Archive) Dir() string { return a.dir }

// Head returns the commit the main branch points at, as 40 hex digits.
func (a *Archive) Head() (string, error) {
	b, err := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(Branch)))
	if err == nil {
		h := strings.TrimSpace(string(b))
		if plumbing.IsHash(h) {
			return h, nil
		}
		return "", fmt.Errorf("%w: ref file holds %q", ErrNoHead, h)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", Branch, err)
	}
	// git gc may have moved the ref into packed-refs.
	packed, perr := os.ReadFile(filepath.Join(a.dir, "packed-refs"))
	if perr == nil {
		for _, line := range strings.Split(string(packed), "\n") {
			if h, ref, ok := strings.Cut(line, " "); ok && ref == Branch && plumbing.IsHash(h) {
				return h, nil
			}
		}
	}
	return "", ErrNoHead
}

// Cache returns raw commit and tree objects by hash, so that a write need
// not read back the objects the previous write made. Objects are immutable,
// so a cache can only miss, never be wrong.
type Cache interface {
	Object(hash string) ([]byte, bool)
}

// Result describes a commit.
type Result struct {
	Head    string            // the new commit
	Written map[string][]byte // the commit and trees written, worth caching
	Stale   []string          // the commit and trees it replaced
	Objects int               // objects written
	Pack    string            // the checksum naming the pack written
	Offsets map[string]int64  // where the commit and trees written start in it (see ReadStored)
}

// Commit writes changes on top of parent and moves the branch to the new
// commit if, and only if, it still points at parent. The objects are written
// as one pack. cache may be nil.
func (a *Archive) Commit(parent string, changes []Change, author Author, message string, cache Cache) (Result, error) {
	if len(changes) == 0 {
		return Result{}, errors.New("commit: nothing to write")
	}
	w := &treeWriter{a: a, cache: cache, written: map[string][]byte{}, blobs: map[plumbing.Hash]bool{}}
	p := plumbing.NewHash(parent)
	pdata, err := w.read(plumbing.CommitObject, p)
	if err != nil {
		return Result{}, fmt.Errorf("commit: read parent %s: %w", parent, err)
	}
	root, err := commitTree(pdata)
	if err != nil {
		return Result{}, fmt.Errorf("commit: parent %s: %w", parent, err)
	}
	w.stale = append(w.stale, parent)
	rootChanges := &dirChange{}
	for _, c := range changes {
		if err := rootChanges.add(c.Path, c.Data); err != nil {
			return Result{}, fmt.Errorf("commit: %w", err)
		}
	}
	newRoot, err := w.apply(root, rootChanges)
	if err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	c := newObject(plumbing.CommitObject, encodeCommit(newRoot, p, author, message))
	w.add(c)
	pack, offsets, err := writePack(a.dir, w.objs)
	if err != nil {
		return Result{}, fmt.Errorf("commit: write pack: %w", err)
	}
	a.st.ObjectStorage.Reindex() // let go-git see the new pack
	cur, err := a.Head()
	if err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	if cur != parent {
		return Result{}, fmt.Errorf("commit: %w (expected %s, found %s)", ErrMoved, parent, cur)
	}
	if err := a.setHead(c.hash); err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	res := Result{Head: c.hash.String(), Written: w.written, Stale: w.stale, Objects: len(w.objs),
		Pack: pack, Offsets: make(map[string]int64, len(w.written))}
	for h := range w.written {
		res.Offsets[h] = offsets[plumbing.NewHash(h)]
	}
	return res, nil
}

// setHead points the branch at h. The new ref is written to a spare file
// beside it and the two are swapped in one step, so a reader never sees a
// partly written ref; the old ref becomes the next write's spare and is
// overwritten in place, so a write allocates no file (creating one costs
// ~0.1-1 ms, far more than the rest of the update). A reader that opened
// the ref before one write and reads it during the next could see a torn
// hash; Store re-reads the head under the lock before it relies on it.
// Hard links to the ref (cp -al) see the in-place write. Where the file
// system cannot swap, the spare is renamed over the ref.
func (a *Archive) setHead(h plumbing.Hash) error {
	ref := filepath.Join(a.dir, filepath.FromSlash(Branch))
	spare := filepath.Join(a.dir, ".ref-main-spare")
	err := overwrite(spare, []byte(h.String()+"\n"))
	if err == nil && exchange(spare, ref) != nil {
		err = os.Rename(spare, ref)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", Branch, err)
	}
	return nil
}

// overwrite writes data over the file name, creating it if need be. A ref
// is always as long as the last, so the file is rewritten in place.
func overwrite(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if fi, serr := f.Stat(); err == nil && (serr != nil || fi.Size() != int64(len(data))) {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// encodeCommit renders a commit object.
func encodeCommit(tree, parent plumbing.Hash, author Author, message string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", tree)
	if !parent.IsZero() {
		fmt.Fprintf(&b, "parent %s\n", parent)
	}
	sig := fmt.Sprintf("%s <%s> %d +0000", author.Name, author.Email, author.When.Unix())
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", sig, sig, message)
	return b.Bytes()
}

// commitTree returns the tree a raw commit object points at.
func commitTree(data []byte) (plumbing.Hash, error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	h, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || !plumbing.IsHash(string(h)) {
		return plumbing.ZeroHash, errors.New("malformed commit")
	}
	return plumbing.NewHash(string(h)), nil
}

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

// treeWriter builds the objects of one commit.
type treeWriter struct {
	a       *Archive
	cache   Cache
	objs    []rawObject
	blobs   map[plumbing.Hash]bool
	written map[string][]byte
	stale   []string
}

func (w *treeWriter) add(o rawObject) {
	if o.typ != plumbing.BlobObject {
		// Two directories alike (an inbox and an outbox day holding the
		// same message) are one tree, which a pack must hold once.
		if _, dup := w.written[o.hash.String()]; dup {
			return
		}
		w.written[o.hash.String()] = o.data
	}
	w.objs = append(w.objs, o)
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

// treeEntry is one entry of a git tree.
type treeEntry struct {
	name string
	dir  bool
	hash plumbing.Hash
}

func parseTree(data []byte) ([]treeEntry, error) {
	var entries []treeEntry
	for i := 0; i < len(data); {
		name, dir, h, next, err := nextEntry(data, i)
		if err != nil {
			return nil, err
		}
		entries = append(entries, treeEntry{name: string(name), dir: dir, hash: h})
		i = next
	}
	return entries, nil
}

// nextEntry parses the entry of the encoded tree data that starts at i and
// returns where the next one starts.
func nextEntry(data []byte, i int) (name []byte, dir bool, h plumbing.Hash, next int, err error) {
	rest := data[i:]
	sp := bytes.IndexByte(rest, ' ')
	nul := bytes.IndexByte(rest, 0)
	if sp < 0 || nul < sp || len(rest) < nul+21 {
		return nil, false, h, 0, errors.New("malformed tree")
	}
	copy(h[:], rest[nul+1:nul+21])
	return rest[sp+1 : nul], string(rest[:sp]) == "40000", h, i + nul + 21, nil
}

// treeKey is the name git sorts a tree entry by: directories as if they
// ended in "/".
func treeKey(e treeEntry) string {
	if e.dir {
		return e.name + "/"
	}
	return e.name
}

// compareKey compares e with the entry (name, dir) in git's order, as
// treeKey would, without building the keys.
func compareKey(e treeEntry, name []byte, dir bool) int {
	n := min(len(e.name), len(name))
	for i := 0; i < n; i++ {
		if e.name[i] != name[i] {
			return int(e.name[i]) - int(name[i])
		}
	}
	// Past the common part: the next name byte, "/" for a directory whose
	// name ends there, or -1 where the key ends. Names hold no "/".
	a, b := -1, -1
	if len(e.name) > n {
		a = int(e.name[n])
	} else if e.dir {
		a = '/'
	}
	if len(name) > n {
		b = int(name[n])
	} else if dir {
		b = '/'
	}
	return a - b
}

// appendEntry appends the encoding of e to b.
func appendEntry(b []byte, e treeEntry) []byte {
	if e.dir {
		b = append(b, "40000 "...)
	} else {
		b = append(b, "100644 "...)
	}
	b = append(b, e.name...)
	b = append(b, 0)
	return append(b, e.hash[:]...)
}

// apply rewrites the tree base (zero for a new directory) with the changes
// in d and returns the new tree's hash. Only trees on changed paths are read
// and written, and a big directory is not decoded: its unchanged entries are
// copied as they are, in runs, around the ones added or replaced.
func (w *treeWriter) apply(base plumbing.Hash, d *dirChange) (plumbing.Hash, error) {
	var old []byte
	if !base.IsZero() {
		var err error
		if old, err = w.read(plumbing.TreeObject, base); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		w.stale = append(w.stale, base.String())
	}
	subBase := map[string]plumbing.Hash{}
	for i := 0; i < len(old) && len(d.dirs) > 0; {
		name, dir, h, next, err := nextEntry(old, i)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		if _, ok := d.dirs[string(name)]; ok && dir {
			subBase[string(name)] = h
		}
		i = next
	}
	added := make([]treeEntry, 0, len(d.files)+len(d.dirs))
	for name, data := range d.files {
		blob := newObject(plumbing.BlobObject, data)
		if !w.blobs[blob.hash] { // the same content is often written several times (inbox and outbox copies)
			w.blobs[blob.hash] = true
			w.add(blob)
		}
		added = append(added, treeEntry{name: name, hash: blob.hash})
	}
	for name, sub := range d.dirs {
		h, err := w.apply(subBase[name], sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		added = append(added, treeEntry{name: name, dir: true, hash: h})
	}
	sort.Slice(added, func(i, j int) bool { return treeKey(added[i]) < treeKey(added[j]) })
	size := len(old)
	for _, e := range added {
		size += len("100644 \x00") + len(e.name) + len(e.hash)
	}
	out := make([]byte, 0, size)
	run := 0 // where the current run of kept entries starts
	for i := 0; i < len(old); {
		name, dir, _, next, err := nextEntry(old, i)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		for len(added) > 0 && compareKey(added[0], name, dir) < 0 {
			out = appendEntry(append(out, old[run:i]...), added[0])
			run, added = i, added[1:]
		}
		_, isFile := d.files[string(name)]
		_, isDir := d.dirs[string(name)]
		if isFile || isDir { // replaced
			out = append(out, old[run:i]...)
			run = next
		}
		i = next
	}
	out = append(out, old[run:]...)
	for _, e := range added {
		out = appendEntry(out, e)
	}
	t := newObject(plumbing.TreeObject, out)
	w.add(t)
	return t.hash, nil
}
