package archive

import (
	"os"
	"path/filepath"
	"sync"
)

// Spare files. Every write creates three files (its pack, the pack's index
// and the branch's new value), and creating a file allocates an inode: on
// ext4, whose allocator steps over the inodes freed in the last half
// minute, that costs a write up to a millisecond of processor time each
// when writes and roll-ups have been freeing inodes, as a busy archive's
// do. A long-lived process makes empty files ahead, off the writers' path
// (MakeSpares), and a write fills one instead of creating a file; a write
// that finds none creates its files as before. A filled spare is a
// temporary file like any other: synced, then renamed into place.

// spareDirs are the directories writes create files in, relative to the
// archive, with the pattern their spares are named by: one that the
// clean-up of what killed writes leave behind (removeLeftovers) matches,
// and, in the archive's directory, the one of the temporary ref files.
var spareDirs = []struct{ dir, pattern string }{
	{filepath.Join("objects", "pack"), ".tmp-spare-*"},
	{".", "agentmail-ref-spare-*"},
}

// sparesPerDir is how many spares MakeSpares keeps in each directory: a
// write fills two in objects/pack.
const sparesPerDir = 4

// spares are the empty files an archive handle made ahead, by directory.
type spares struct {
	mu    sync.Mutex
	files map[string][]string
}

// take returns a spare of dir, or "" if none is left.
func (s *spares) take(dir string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := s.files[dir]
	if len(names) == 0 {
		return ""
	}
	name := names[len(names)-1]
	s.files[dir] = names[:len(names)-1]
	return name
}

// count returns the number of spares of dir.
func (s *spares) count(dir string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files[dir])
}

func (s *spares) add(dir, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string][]string{}
	}
	s.files[dir] = append(s.files[dir], name)
}

// all takes every spare left.
func (s *spares) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, n := range s.files {
		names = append(names, n...)
	}
	s.files = nil
	return names
}

// MakeSpares makes empty files for the next writes of this handle to
// fill, up to a few in each directory writes create files in. It is for a
// long-lived process, to call when no write waits for it.
func (a *Archive) MakeSpares() error {
	for _, d := range spareDirs {
		dir := filepath.Join(a.dir, d.dir)
		for a.spares.count(dir) < sparesPerDir {
			name, err := a.fs.writeTemp(dir, d.pattern, nil, 0o644)
			if err != nil {
				return err
			}
			a.spares.add(dir, name)
		}
	}
	return nil
}

// removeSpares removes the spares no write filled.
func (a *Archive) removeSpares() {
	for _, name := range a.spares.all() {
		a.fs.remove(name)
	}
}

// writer returns the file system a write creates its files through.
func (a *Archive) writer() fsys { return sparing{a.fs, &a.spares} }

// sparing is the archive's fsys, whose writeTemp fills a spare of the
// directory when there is one. A spare another process removed meanwhile
// (GC removes leftovers) is passed over.
type sparing struct {
	fsys
	spares *spares
}

func (s sparing) writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	for name := s.spares.take(dir); name != ""; name = s.spares.take(dir) {
		if err := s.fill(name, data, perm); err == nil {
			return name, nil
		}
		s.remove(name)
	}
	return s.fsys.writeTemp(dir, pattern, data, perm)
}
