package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-billy/v5"
)

// fsys is the file system the archive writes through: the operating
// system's, or in tests one that also records what a power loss would keep.
// It is safe for concurrent use. Its operations are POSIX's and none is
// durable by itself: a file's data
// survives a power loss once syncFile has returned, a directory entry once
// syncDir of its directory has. writeFiles and Archive.setRef are where the
// archive orders them. Paths are absolute.
type fsys interface {
	// writeTemp creates a new file in dir, named as os.CreateTemp names
	// it from pattern, with data and mode perm, and returns its path.
	writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error)
	// fill writes data to the existing empty file name, which it does not
	// create, and gives it mode perm.
	fill(name string, data []byte, perm os.FileMode) error
	syncFile(name string) error
	syncDir(name string) error
	rename(from, to string) error
	// link makes to a hard link of from; it fails with fs.ErrExist if
	// to exists, which makes it an exclusive create.
	link(from, to string) error
	remove(name string) error
	mkdir(name string) error
}

// osFS is the operating system's file system.
type osFS struct{}

func (osFS) writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	if err := writeClose(f, data, perm); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func (osFS) fill(name string, data []byte, perm os.FileMode) error {
	// No O_TRUNC: the file is empty, and ext4 starts writing back a file
	// truncated and rewritten as it is closed, which the sync does anyway.
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return writeClose(f, data, perm)
}

// writeClose writes data to f, gives it mode perm and closes it.
func writeClose(f *os.File, data []byte, perm os.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (osFS) syncFile(name string) error { return SyncPath(name) }
func (osFS) syncDir(name string) error  { return SyncPath(name) }

// SyncPath fsyncs the file or directory at name: what makes a file's
// contents, or a directory's entries (a rename into it), durable.
func SyncPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (osFS) rename(from, to string) error { return os.Rename(from, to) }
func (osFS) link(from, to string) error   { return os.Link(from, to) }
func (osFS) remove(name string) error     { return os.Remove(name) }
func (osFS) mkdir(name string) error      { return os.Mkdir(name, 0o755) }

// file is a file to be written by writeFiles.
type file struct {
	name string // base name
	data []byte
	perm os.FileMode
}

// writeFiles makes files durable in dir under their names: each is written
// to a temporary file and synced, all at once, then they are renamed into
// place in the order given and the directory is synced once. A name never
// holds a partly written file, and the order is the order in which the
// names appear to a reader; a power loss before the directory is synced
// can keep a prefix of the renames (file systems journal them in order) or
// none.
func writeFiles(fs fsys, dir string, files ...file) error {
	temps := make([]string, len(files))
	renamed := 0
	defer func() {
		for _, t := range temps[renamed:] {
			if t != "" {
				fs.remove(t)
			}
		}
	}()
	err := concurrently(len(files), func(i int) error {
		f := files[i]
		t, err := writeSynced(fs, dir, ".tmp-"+f.name+"-", f.data, f.perm)
		temps[i] = t
		if err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, f := range files {
		if err := fs.rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		renamed++
	}
	if err := fs.syncDir(dir); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// writeSynced writes data to a new temporary file in dir, named from
// pattern, and syncs it. It returns the file's path, also with an error
// once the file exists, for the caller to remove.
func writeSynced(fs fsys, dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	t, err := fs.writeTemp(dir, pattern, data, perm)
	if err != nil {
		return "", err
	}
	return t, fs.syncFile(t)
}

// concurrently runs fn(0) to fn(n-1) at once, each but the first on a
// goroutine of its own, and returns the first error of the lowest i. The
// syncs of a write's files overlap so: each waits for the disk, and the
// file system commits its journal for all of them together.
func concurrently(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	if n > 0 {
		errs[0] = fn(0)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readOnly is the file system go-git's storage sees: it refuses every
// write, so that nothing reaches the archive but through fsys, in the
// order that makes it durable.
type readOnly struct{ billy.Filesystem }

var errReadOnly = errors.New("the archive's go-git storage is read-only; writes go through fsys")

func (readOnly) Create(string) (billy.File, error)           { return nil, errReadOnly }
func (readOnly) TempFile(string, string) (billy.File, error) { return nil, errReadOnly }
func (readOnly) Rename(string, string) error                 { return errReadOnly }
func (readOnly) Remove(string) error                         { return errReadOnly }
func (readOnly) MkdirAll(string, os.FileMode) error          { return errReadOnly }
func (readOnly) Symlink(string, string) error                { return errReadOnly }
func (r readOnly) Capabilities() billy.Capability            { return billy.ReadCapability | billy.SeekCapability }

func (r readOnly) Chroot(p string) (billy.Filesystem, error) {
	fs, err := r.Filesystem.Chroot(p)
	if err != nil {
		return nil, err
	}
	return readOnly{fs}, nil
}

func (r readOnly) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, errReadOnly
	}
	return r.Filesystem.OpenFile(name, flag, perm)
}
