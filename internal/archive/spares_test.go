package archive

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// creating counts the files made through writeTemp.
type creating struct {
	osFS
	created atomic.Int32
}

func (c *creating) writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	c.created.Add(1)
	return c.osFS.writeTemp(dir, pattern, data, perm)
}

// spareFiles lists the spare files in the archive.
func spareFiles(t *testing.T, a *Archive) []string {
	t.Helper()
	var all []string
	for _, d := range spareDirs {
		m, err := filepath.Glob(filepath.Join(a.Dir(), d.dir, d.pattern))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	return all
}

// TestCommitFillsSpares: with spare files made ahead, a commit creates no
// file: it fills three spares (pack, index, the branch's new value), and
// the archive is sound; Close removes the spares left.
func TestCommitFillsSpares(t *testing.T) {
	a := newArchive(t)
	c := &creating{}
	a.fs = c
	if err := a.MakeSpares(); err != nil {
		t.Fatal(err)
	}
	made := len(spareFiles(t, a))
	if made != sparesPerDir*len(spareDirs) {
		t.Fatalf("%d spare files, want %d", made, sparesPerDir*len(spareDirs))
	}
	c.created.Store(0)
	h := commit(t, a, "into spares", "projects/p/messages/2026/11/22/m.md", "m")
	if n := c.created.Load(); n != 0 {
		t.Errorf("the commit created %d files, want none: spares were there", n)
	}
	if left := len(spareFiles(t, a)); left != made-3 {
		t.Errorf("%d spare files left after a commit, want %d", left, made-3)
	}
	runGit(t, a.Dir(), "fsck", "--strict")
	if got := runGit(t, a.Dir(), "cat-file", "-p", h+":projects/p/messages/2026/11/22/m.md"); got != "m" {
		t.Errorf("git reads %q", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if left := spareFiles(t, a); len(left) != 0 {
		t.Errorf("Close left spare files: %v", left)
	}
}

// TestSparesRemovedByOthers: spares another process removed (GC removes
// what looks left behind) are passed over, and the commit creates its
// files.
func TestSparesRemovedByOthers(t *testing.T) {
	a := newArchive(t)
	if err := a.MakeSpares(); err != nil {
		t.Fatal(err)
	}
	a.removeLeftovers()
	c := &creating{}
	a.fs = c
	commit(t, a, "spares gone", "x", "1")
	if n := c.created.Load(); n != 3 {
		t.Errorf("the commit created %d files, want 3", n)
	}
	runGit(t, a.Dir(), "fsck", "--strict")
}
