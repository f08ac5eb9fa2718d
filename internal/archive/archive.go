// Package archive stores agentmail's durable records in a bare git repository.
//
// A write encodes the blobs, the trees along the changed paths and a commit
// with go-git, writes them as one pack with its index, and then moves
// refs/heads/main with git's lock-file protocol and a compare-and-swap.
// There is no work tree and no git index, so the cost of a write depends on
// the depth of the changed paths and the size of the directories on them,
// not on the size of the archive.
//
// Writes are durable when Commit returns: the pack and index are synced
// before the branch may name them, and the branch is synced before Commit
// returns (see fsys). go-git's storage is used to read only.
//
// Callers serialize the writers of each branch themselves (the store's
// per-project file locks); the branch's lock file excludes other git
// processes, and the compare-and-swap is the second line of defence.
//
// The system git may work on the archive meanwhile. Until the branch names
// a write's pack, its objects are unreachable; a concurrent git gc keeps
// them (git repack loosens unreachable objects younger than
// gc.pruneExpire, two weeks, or keeps them in a cruft pack, and git prune
// spares them for as long), and deletes only packs that existed when it
// started, after writing their objects elsewhere. Only a prune with no
// grace period (git gc --prune=now) could drop them, as it could any
// concurrent git writer's; GC runs one only under the store's lock.
package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/crash"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Branch is the one branch the archive keeps.
const Branch = "refs/heads/main"

// ErrMoved is returned by Commit when the branch no longer points at the
// parent the caller built on: another writer got there first.
var ErrMoved = errors.New("archive branch moved during the write")

// ErrNoHead reports that the branch could not be read. On an initialized
// archive this is transient (a concurrent rewrite of the ref by a tool that
// does not rename refs into place) or a sign of damage; it never means "no
// history".
var ErrNoHead = errors.New("archive branch not found")

// Archive is an open bare repository. Commits on different branches may
// run at once; the caller serializes those on one branch.
type Archive struct {
	dir    string
	stMu   sync.Mutex          // go-git's storage is not safe for concurrent use
	st     *filesystem.Storage // reads
	fs     fsys                // writes
	recent recentObjects       // the commits and trees this handle wrote last
	packs  packSet             // the objects, read; under stMu
	spares spares              // empty files made ahead for writes to fill

	packCount packCount // see PacksAbout
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
// archive. The repository is built in a temporary directory, made durable,
// and renamed into place, so a crash leaves either nothing (and a
// temporary directory the next Init removes) or a complete archive. The
// caller must hold the store lock.
func Init(dir string, when time.Time) error {
	return initArchive(osFS{}, dir, when)
}

func initArchive(fs fsys, dir string, when time.Time) error {
	if Exists(dir) {
		return nil
	}
	parent := filepath.Dir(dir)
	if left, err := filepath.Glob(filepath.Join(parent, ".archive-init-*")); err == nil {
		for _, l := range left {
			os.RemoveAll(l) // a killed Init's; the caller holds the lock
		}
	}
	tmp, err := os.MkdirTemp(parent, ".archive-init-")
	if err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := build(fs, tmp, when); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	crash.Point(crash.InitBuilt)
	if err := fs.rename(tmp, dir); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	if err := fs.syncDir(parent); err != nil {
		return fmt.Errorf("init archive: %w", err)
	}
	return nil
}

// build makes the empty directory tmp a durable bare repository with one
// empty commit on the main branch.
func build(fs fsys, tmp string, when time.Time) error {
	dirs := []string{"objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags", "info"}
	for _, d := range dirs {
		if err := fs.mkdir(filepath.Join(tmp, d)); err != nil {
			return err
		}
	}
	err := writeFiles(fs, tmp,
		file{"HEAD", []byte("ref: " + Branch + "\n"), 0o644},
		file{"config", []byte("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n"), 0o644},
		file{"description", []byte("agentmail archive: messages, agents and reservations, one commit per change\n"), 0o644})
	if err != nil {
		return err
	}
	a := open(tmp, fs)
	defer a.Close()
	w := a.newTreeWriter(nil)
	root, err := w.apply(plumbing.ZeroHash, &dirChange{})
	if err != nil {
		return err
	}
	c, err := w.commit(root, plumbing.ZeroHash, Author{Name: "agentmail", Email: "agentmail@agentmail", When: when}, "init: agentmail archive")
	if err != nil {
		return err
	}
	if _, err := a.writePack(w.objs); err != nil {
		return err
	}
	if err := a.setRef(Branch, plumbing.ZeroHash, c); err != nil {
		return err
	}
	// Every directory's entries, deepest first, then the root's.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := fs.syncDir(filepath.Join(tmp, dirs[i])); err != nil {
			return err
		}
	}
	return fs.syncDir(tmp)
}

// Open opens the archive at dir, which must have been created by Init.
func Open(dir string) (*Archive, error) {
	if !Exists(dir) {
		return nil, fmt.Errorf("open archive %s: %w", dir, os.ErrNotExist)
	}
	return open(dir, osFS{}), nil
}

func open(dir string, fs fsys) *Archive {
	objects := cache.NewObjectLRU(32 * cache.MiByte)
	st := filesystem.NewStorageWithOptions(readOnly{osfs.New(dir)}, objects, filesystem.Options{KeepDescriptors: true})
	return &Archive{dir: dir, st: st, fs: fs, packs: packSet{cache: objects}}
}

// Close removes the spare files no write filled and releases the pack
// files the archive keeps open.
func (a *Archive) Close() error {
	a.removeSpares()
	a.stMu.Lock()
	defer a.stMu.Unlock()
	return errors.Join(a.packs.close(), a.st.Close())
}

// Dir returns the repository directory.
func (a *Archive) Dir() string { return a.dir }

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
}

// Commit writes changes on top of parent and moves the branch to the new
// commit if, and only if, it still points at parent: ErrMoved otherwise,
// and ErrRefLocked if another git process holds the branch's lock. The
// objects are written as one pack, synced before the branch moves; the
// branch is synced before Commit returns. cache may be nil.
func (a *Archive) Commit(parent string, changes []Change, author Author, message string, cache Cache) (Result, error) {
	if parent == "" {
		return Result{}, errors.New("commit: no parent")
	}
	return a.commitOn(Branch, parent, changes, author, message, cache, nil)
}

// commitOn is Commit on the ref name; parent "" makes a root commit, and
// the ref must not exist yet. The ref's new value is written and synced
// while the pack is, so that their syncs overlap: it names nothing until
// moveRef links it as the ref's lock, once the pack is durable. ready, when
// not nil, is called then, before the ref moves: its error abandons the
// commit, whose objects stay unreachable.
func (a *Archive) commitOn(ref, parent string, changes []Change, author Author, message string, cache Cache, ready func() error) (Result, error) {
	w, res, err := a.encodeCommit(parent, changes, author, message, cache)
	if err != nil {
		return Result{}, err
	}
	var tmp string
	err = concurrently(2, func(i int) error {
		if i == 0 {
			if _, err := a.writePack(w.objs); err != nil {
				return fmt.Errorf("write pack: %w", err)
			}
			return nil
		}
		var err error
		if tmp, err = a.writeRefTemp(plumbing.NewHash(res.Head)); err != nil {
			return fmt.Errorf("update %s: %w", ref, err)
		}
		return nil
	})
	if tmp != "" {
		defer a.fs.remove(tmp)
	}
	if err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	crash.Point(crash.AfterObjects)
	if ready != nil {
		if err := ready(); err != nil {
			return Result{}, err
		}
	}
	var p plumbing.Hash
	if parent != "" {
		p = plumbing.NewHash(parent)
	}
	if err := a.moveRef(ref, p, plumbing.NewHash(res.Head), tmp); err != nil {
		return Result{}, fmt.Errorf("commit: %w", err)
	}
	a.recent.update(res.Written, res.Stale)
	return res, nil
}

// CommitOnto writes the commit of changes on top of parent ("" for a root
// commit) and its objects, and moves no ref: for a commit that must be
// published (pushed) before any branch here names it.
func (a *Archive) CommitOnto(parent string, changes []Change, author Author, message string, cache Cache) (Result, error) {
	w, res, err := a.encodeCommit(parent, changes, author, message, cache)
	if err != nil {
		return Result{}, err
	}
	if _, err := a.writePack(w.objs); err != nil {
		return Result{}, fmt.Errorf("commit: write pack: %w", err)
	}
	return res, nil
}

// encodeCommit encodes the objects of the commit of changes on top of
// parent ("" for a root commit), for its caller to write.
func (a *Archive) encodeCommit(parent string, changes []Change, author Author, message string, cache Cache) (*treeWriter, Result, error) {
	if len(changes) == 0 {
		return nil, Result{}, errors.New("commit: nothing to write")
	}
	w := a.newTreeWriter(cache)
	var p plumbing.Hash
	var pc object.Commit
	if parent != "" {
		p = plumbing.NewHash(parent)
		pdata, err := w.read(plumbing.CommitObject, p)
		if err != nil {
			return nil, Result{}, fmt.Errorf("commit: read parent %s: %w", parent, err)
		}
		if err := pc.Decode(&rawObject{typ: plumbing.CommitObject, data: pdata}); err != nil {
			return nil, Result{}, fmt.Errorf("commit: parent %s: %w", parent, err)
		}
		w.stale = append(w.stale, parent)
	}
	rootChanges := &dirChange{}
	for _, c := range changes {
		if err := rootChanges.add(c.Path, c.Data); err != nil {
			return nil, Result{}, fmt.Errorf("commit: %w", err)
		}
	}
	root, err := w.apply(pc.TreeHash, rootChanges)
	if err != nil {
		return nil, Result{}, fmt.Errorf("commit: %w", err)
	}
	c, err := w.commit(root, p, author, message)
	if err != nil {
		return nil, Result{}, fmt.Errorf("commit: %w", err)
	}
	return w, Result{Head: c.String(), Written: w.written, Stale: w.stale, Objects: len(w.objs)}, nil
}

func (a *Archive) newTreeWriter(cache Cache) *treeWriter {
	return &treeWriter{a: a, cache: cache, seen: map[plumbing.Hash]bool{}, written: map[string][]byte{}}
}

// commit encodes the commit of tree on parent (zero for none).
func (w *treeWriter) commit(tree, parent plumbing.Hash, author Author, message string) (plumbing.Hash, error) {
	sig := object.Signature{Name: author.Name, Email: author.Email, When: author.When.UTC()}
	c := object.Commit{Author: sig, Committer: sig, Message: message + "\n", TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	return w.object(plumbing.CommitObject, 512, c.Encode)
}
