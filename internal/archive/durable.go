package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
)

// fsys is the file system the archive writes through: the operating
// system's, or in tests one that also records what a power loss would keep.
// Its operations are POSIX's and none is durable by itself: a file's data
// survives a power loss once syncFile has returned, a directory entry once
// syncDir of its directory has. writeFiles and Archive.setRef are where the
// archive orders them. Paths are absolute.
type fsys interface {
	// writeTemp creates a new file in dir, named as os.CreateTemp names
	// it from pattern, with data and mode perm, and returns its path.
	writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error)
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
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func (osFS) syncFile(name string) error { return syncPath(name) }
func (osFS) syncDir(name string) error  { return syncPath(name) }

// syncPath fsyncs the file or directory at name.
func syncPath(name string) error {
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
// to a temporary file and synced, then they are renamed into place in the
// order given and the directory is synced once. A name never holds a
// partly written file, and the order is the order in which the names
// appear to a reader; a power loss before the directory is synced can keep
// a prefix of the renames (file systems journal them in order) or none.
func writeFiles(fs fsys, dir string, files ...file) error {
	temps := make([]string, 0, len(files))
	renamed := 0
	defer func() {
		for _, t := range temps[renamed:] {
			fs.remove(t)
		}
	}()
	for _, f := range files {
		t, err := fs.writeTemp(dir, ".tmp-"+f.name+"-", f.data, f.perm)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		temps = append(temps, t)
		if err := fs.syncFile(t); err != nil {
			return fmt.Errorf("sync %s: %w", f.name, err)
		}
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
