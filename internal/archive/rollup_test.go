package archive

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// loosening is the file system of a roll-up during which git gc loosens an
// object from a pack it is about to delete (git repack -A writes the
// unreachable objects of the packs it replaces as loose objects): the
// first file the roll-up syncs, the loose object appears.
type loosening struct {
	osFS
	loosen func()
}

func (l *loosening) syncFile(name string) error {
	if l.loosen != nil {
		l.loosen()
		l.loosen = nil
	}
	return l.osFS.syncFile(name)
}

// writeLoose writes the object h, of type typ with content data, as a loose
// object of the repository at dir.
func writeLoose(t *testing.T, dir, typ, h string, data []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	zw.Write(data)
	zw.Close()
	path := filepath.Join(dir, "objects", h[:2], h[2:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestRollUpKeepsObjectsLoosenedMeanwhile: a roll-up removes the loose
// objects it rolled up and no other. An object git gc loosens meanwhile
// from a pack it then deletes lives on loose only; git prune-packed, run
// while that pack was still there, would have removed it.
func TestRollUpKeepsObjectsLoosenedMeanwhile(t *testing.T) {
	a := newArchive(t)
	commit(t, a, "in the pack git replaces", "projects/p/notes/kept.md", "loosened by git gc")
	replaced, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "pack-*.pack"))
	blob := runGit(t, a.Dir(), "rev-parse", "HEAD:projects/p/notes/kept.md")
	for _, p := range replaced {
		// git's, not the roll-up's to take.
		if err := os.WriteFile(strings.TrimSuffix(p, ".pack")+".keep", nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		commit(t, a, fmt.Sprint(i), fmt.Sprintf("projects/p/messages/m%d.md", i), fmt.Sprint("message ", i))
	}
	// A loose object for the roll-up to take, as git commit-tree leaves.
	writeLoose(t, a.Dir(), "blob", runGit(t, a.Dir(), "hash-object", "--stdin"), nil)
	// What git gc writes of the packs it replaces, as loose objects.
	var objs []string
	for _, p := range replaced {
		idx, err := os.ReadFile(strings.TrimSuffix(p, ".pack") + ".idx")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(idx[idxHeader-1]); i++ { // a handful
			objs = append(objs, fmt.Sprintf("%x", idx[idxHeader+20*i:idxHeader+20*(i+1)]))
		}
	}
	a.fs = &loosening{loosen: func() {
		for _, h := range objs {
			typ := runGit(t, a.Dir(), "cat-file", "-t", h)
			data, err := exec.Command("git", "--git-dir", a.Dir(), "cat-file", typ, h).Output()
			if err != nil {
				t.Fatal(err)
			}
			writeLoose(t, a.Dir(), typ, h, data)
		}
	}}
	if err := a.Pack(nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range replaced { // git gc is done: it deletes the packs it replaced
		base := strings.TrimSuffix(p, ".pack")
		for _, ext := range []string{".keep", ".pack", ".idx", ".rev"} {
			os.Remove(base + ext)
		}
	}
	if got := runGit(t, a.Dir(), "cat-file", "blob", blob); got != "loosened by git gc" {
		t.Errorf("the object git gc loosened reads %q", got)
	}
}
