package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/crash"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrRefLocked is returned by Commit when another git process holds the
// branch's lock file, refs/heads/main.lock, for longer than a write waits.
var ErrRefLocked = errors.New("archive branch is locked by another git process")

// refLockWait is how long a write waits for another git process to let go
// of the branch's lock file; git holds it for milliseconds.
var refLockWait = 2 * time.Second

// refTemp is the pattern of the temporary files that carry a new value of
// the branch into its lock file (see setRef).
const refTemp = "agentmail-ref-*"

// Head returns the commit the main branch points at, as 40 hex digits.
// The loose ref is read strictly: a file that does not hold a hash is
// ErrNoHead, never a reason to fall back on packed-refs, whose entry may
// be older. Only a missing loose ref is looked up there, through go-git
// (git pack-refs moves refs into packed-refs).
func (a *Archive) Head() (string, error) { return a.readRef(Branch) }

// readRef returns the commit the ref name points at, read as Head reads
// the main branch.
func (a *Archive) readRef(name string) (string, error) {
	b, err := os.ReadFile(a.refPath(name))
	if err == nil {
		h := strings.TrimSpace(string(b))
		if plumbing.IsHash(h) {
			return h, nil
		}
		return "", fmt.Errorf("%w: ref file holds %q", ErrNoHead, h)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	a.stMu.Lock()
	ref, err := a.st.Reference(plumbing.ReferenceName(name))
	a.stMu.Unlock()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoHead, err)
	}
	if ref.Type() != plumbing.HashReference {
		return "", fmt.Errorf("%w: %s", ErrNoHead, ref)
	}
	return ref.Hash().String(), nil
}

func (a *Archive) refPath(name string) string {
	return filepath.Join(a.dir, filepath.FromSlash(name))
}

// setRef moves the ref name from old (zero: the branch must not exist yet)
// to h with git's lock-file protocol, so that git and agentmail exclude
// each other: the new value is written to a temporary file and synced
// (writeRefTemp), which moveRef then takes as the ref's lock and renames over
// the ref. A reader sees the old ref or the new one, never a partial one.
func (a *Archive) setRef(name string, old, h plumbing.Hash) error {
	tmp, err := a.writeRefTemp(h)
	if tmp != "" {
		defer a.fs.remove(tmp)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	return a.moveRef(name, old, h, tmp)
}

// writeRefTemp writes h, a ref's new value, to a new temporary file and syncs
// it. It returns the file's path, also with an error once the file
// exists: the caller removes it. The file names nothing until moveRef
// links it as a ref's lock, so it may be written before the objects h
// names are durable.
func (a *Archive) writeRefTemp(h plumbing.Hash) (string, error) {
	return writeSynced(a.writer(), a.dir, refTemp, []byte(h.String()+"\n"), 0o644)
}

// moveRef moves the ref name from old to h, whose value writeRefTemp wrote to
// tmp: tmp is hard-linked as refs/heads/...lock (an exclusive create, as
// git's O_EXCL, that fails while another process holds the lock); under
// the lock the branch is compared with old, and the lock is renamed over
// the ref and its directory synced.
//
// The temporary file is what makes a lock this archive left behind
// recognizable as such (it is the same file), so that the next write can
// remove it; a lock git left behind is git's to clear. Callers serialize
// the writers of each ref, so no other write of this ref is in progress.
func (a *Archive) moveRef(name string, old, h plumbing.Hash, tmp string) error {
	ref := a.refPath(name)
	if err := a.makeRefDir(filepath.Dir(ref)); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	lock := ref + ".lock"
	if err := a.lockRef(name, tmp, lock); err != nil {
		return err
	}
	crash.Point(crash.AfterRefLock)
	if err := a.compareRef(name, old); err != nil {
		a.fs.remove(lock)
		return err
	}
	if err := a.fs.rename(lock, ref); err != nil {
		a.fs.remove(lock)
		return fmt.Errorf("update %s: %w", name, err)
	}
	if err := a.fs.syncDir(filepath.Dir(ref)); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	crash.Point(crash.AfterRef)
	return nil
}

// makeRefDir creates the directory dir of a ref, and its parents below
// refs/, durably: a ref renamed into a directory whose own entry a power
// loss could undo would be lost with it.
func (a *Archive) makeRefDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != a.dir {
		if err := a.makeRefDir(parent); err != nil {
			return err
		}
	}
	if err := a.fs.mkdir(dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return a.fs.syncDir(parent)
}

// compareRef checks, under the ref's lock, that the ref name is at old
// (zero: that it does not exist).
func (a *Archive) compareRef(name string, old plumbing.Hash) error {
	cur, err := a.readRef(name)
	if old.IsZero() && errors.Is(err, ErrNoHead) && !a.refFileExists(name) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	if cur != old.String() {
		return fault.WithHint(fmt.Errorf("%w (expected %s, found %s)", ErrMoved, old, cur),
			"another git process moved the branch; nothing was written, run the command again")
	}
	return nil
}

// refFileExists reports whether the loose ref name exists, whatever it
// holds: a ref file that holds no hash is damage, never "no ref".
func (a *Archive) refFileExists(name string) bool {
	_, err := os.Lstat(a.refPath(name))
	return err == nil
}

// lockRef takes the ref name's lock by linking tmp as lock, waiting up to
// refLockWait for another process to let go of it.
func (a *Archive) lockRef(name, tmp, lock string) error {
	deadline := time.Now().Add(refLockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := a.fs.link(tmp, lock)
		if err == nil {
			return nil
		}
		if _, serr := os.Stat(filepath.Dir(lock)); errors.Is(err, fs.ErrNotExist) && errors.Is(serr, fs.ErrNotExist) {
			// git pack-refs --prune removes a ref's directory once empty;
			// make it again, as git does.
			if err = a.makeRefDir(filepath.Dir(lock)); err == nil {
				continue
			}
		}
		if !errors.Is(err, fs.ErrExist) {
			return fault.WithHint(fmt.Errorf("lock %s: %w", name, err),
				"the store takes the branch's lock with a hard link: keep the store on a file system that has them, a local one")
		}
		if a.removeStaleLock(lock, tmp) {
			continue
		}
		if time.Now().After(deadline) {
			return fault.WithHint(fmt.Errorf("%w: %s exists (waited %s)", ErrRefLocked, lock, refLockWait),
				"run the command again once the git command working on the archive is done; if none is running, a git command crashed: remove "+lock)
		}
		time.Sleep(delay)
	}
}

// removeStaleLock removes lock, and the temporary ref file of the write
// that left it, if lock is one of the temporary files (current aside): that
// write was killed holding it. The temporary files of writes at work on
// other refs meanwhile stay. It reports whether it removed the lock.
func (a *Archive) removeStaleLock(lock, current string) bool {
	li, err := os.Stat(lock)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) // let go of since: try again
	}
	left, _ := filepath.Glob(filepath.Join(a.dir, refTemp))
	stale := ""
	for _, t := range left {
		if ti, err := os.Stat(t); t != current && err == nil && os.SameFile(li, ti) {
			stale = t
		}
	}
	if stale == "" {
		return false
	}
	if err := a.fs.remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	a.fs.remove(stale)
	return true
}
