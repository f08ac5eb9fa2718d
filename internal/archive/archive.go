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
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
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
	a := open(tmp)
	root, err := a.writeTree(nil)
	if err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	c, err := a.writeCommit(root, plumbing.ZeroHash, Author{Name: "agentmail", Email: "agentmail@agentmail", When: when}, "init: agentmail archive")
	if err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	if err := a.setHead(c); err != nil {
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
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(32*cache.MiByte), filesystem.Options{})
	return &Archive{dir: dir, st: st}
}

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

// Commit writes changes on top of parent and moves the branch to the new
// commit if, and only if, it still points at parent. It returns the new
// commit's hash and the number of objects written.
func (a *Archive) Commit(parent string, changes []Change, author Author, message string) (string, int, error) {
	if len(changes) == 0 {
		return "", 0, errors.New("commit: nothing to write")
	}
	p := plumbing.NewHash(parent)
	pc, err := object.GetCommit(a.st, p)
	if err != nil {
		return "", 0, fmt.Errorf("commit: read parent %s: %w", parent, err)
	}
	rootChanges := &dirChange{}
	for _, c := range changes {
		if err := rootChanges.add(c.Path, c.Data); err != nil {
			return "", 0, fmt.Errorf("commit: %w", err)
		}
	}
	w := &treeWriter{a: a}
	root, err := w.apply(pc.TreeHash, rootChanges)
	if err != nil {
		return "", 0, fmt.Errorf("commit: %w", err)
	}
	c, err := a.writeCommit(root, p, author, message)
	if err != nil {
		return "", 0, fmt.Errorf("commit: %w", err)
	}
	cur, err := a.Head()
	if err != nil {
		return "", 0, fmt.Errorf("commit: %w", err)
	}
	if cur != parent {
		return "", 0, fmt.Errorf("commit: %w (expected %s, found %s)", ErrMoved, parent, cur)
	}
	if err := a.setHead(c); err != nil {
		return "", 0, fmt.Errorf("commit: %w", err)
	}
	return c.String(), w.written + 1, nil
}

// setHead points the branch at h by writing a temporary file and renaming
// it, so a reader never sees a partly written ref.
func (a *Archive) setHead(h plumbing.Hash) error {
	f, err := os.CreateTemp(a.dir, ".ref-main-")
	if err != nil {
		return fmt.Errorf("update %s: %w", Branch, err)
	}
	_, werr := f.WriteString(h.String() + "\n")
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(a.dir, filepath.FromSlash(Branch)))
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("update %s: %w", Branch, werr)
	}
	return nil
}

func (a *Archive) writeCommit(tree, parent plumbing.Hash, author Author, message string) (plumbing.Hash, error) {
	sig := object.Signature{Name: author.Name, Email: author.Email, When: author.When}
	c := &object.Commit{Author: sig, Committer: sig, Message: message + "\n", TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	o := a.st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return a.st.SetEncodedObject(o)
}

func (a *Archive) writeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sort.Sort(object.TreeEntrySorter(entries))
	o := a.st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return a.st.SetEncodedObject(o)
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
	dir, rest, nested := strings.Cut(p, "/")
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

type treeWriter struct {
	a       *Archive
	written int
	blobs   map[plumbing.Hash]bool
}

// apply rewrites the tree base (zero for a new directory) with the changes
// in d and returns the new tree's hash. Only trees on changed paths are read
// and written.
func (w *treeWriter) apply(base plumbing.Hash, d *dirChange) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	subBase := map[string]plumbing.Hash{}
	if !base.IsZero() {
		t, err := object.GetTree(w.a.st, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		entries = make([]object.TreeEntry, 0, len(t.Entries)+len(d.files)+len(d.dirs))
		for _, e := range t.Entries {
			_, isFile := d.files[e.Name]
			_, isDir := d.dirs[e.Name]
			if isDir && e.Mode == filemode.Dir {
				subBase[e.Name] = e.Hash
			}
			if !isFile && !isDir {
				entries = append(entries, e)
			}
		}
	}
	for name, data := range d.files {
		h, err := w.writeBlob(data)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write blob %s: %w", name, err)
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, sub := range d.dirs {
		h, err := w.apply(subBase[name], sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	h, err := w.a.writeTree(entries)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
	}
	w.written++
	return h, nil
}

func (w *treeWriter) writeBlob(data []byte) (plumbing.Hash, error) {
	o := w.a.st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	o.SetSize(int64(len(data)))
	ow, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := ow.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	h := o.Hash()
	if w.blobs[h] {
		return h, nil // the same content is often written several times (inbox and outbox copies)
	}
	if _, err := w.a.st.SetEncodedObject(o); err != nil {
		return plumbing.ZeroHash, err
	}
	if w.blobs == nil {
		w.blobs = map[plumbing.Hash]bool{}
	}
	w.blobs[h] = true
	w.written++
	return h, nil
}
