package archive

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestPackSet: a handle reading the commits another handle writes opens
// each one's new pack alone, and no index twice; a roll-up that replaces
// the packs has it close those gone and open the new ones, and the reads
// go on.
func TestPackSet(t *testing.T) {
	w := newArchive(t)
	r, err := Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := func(rev, p, want string) {
		t.Helper()
		if got, err := r.ReadFile(rev, p); err != nil || string(got) != want {
			t.Fatalf("ReadFile(%s, %s) = %q, %v; want %q", rev, p, got, err, want)
		}
	}
	listed := func() int {
		t.Helper()
		packs, err := listPacks(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		return len(packs)
	}
	read(commit(t, w, "first", "f", "first"), "f", "first")
	loads, before := r.packs.loads, listed()
	const n = 5
	for i := range n {
		read(commit(t, w, fmt.Sprint(i), fmt.Sprintf("d/f%d", i), fmt.Sprint(i)), fmt.Sprintf("d/f%d", i), fmt.Sprint(i))
	}
	if r.packs.loads-loads < n || r.packs.loads > before+n || len(r.packs.listed) != listed() {
		t.Errorf("after %d commits read: %d indexes opened (want %d, and none twice: %d in all for %d packs), %d packs listed, %d in the archive",
			n, r.packs.loads-loads, n, r.packs.loads, before+n, len(r.packs.listed), listed())
	}
	if err := w.GC(nil); err != nil {
		t.Fatal(err)
	}
	read(commit(t, w, "after gc", "g", "g"), "g", "g")
	read(head(t, w), "d/f0", "0")
	if len(r.packs.listed) != listed() || listed() != 2 {
		t.Errorf("after a roll-up and a commit: %d packs listed, %d in the archive (want 2)", len(r.packs.listed), listed())
	}
}

// TestPackSetLazy: a new handle on an archive of many packs, as a command
// line process is, reads the files the last commit wrote opening the
// indexes of the largest pack and the newest alone, and a file of the
// roll-up from the largest: it does not open every pack, nor any twice.
func TestPackSetLazy(t *testing.T) {
	w := newArchive(t)
	for i := range 20 {
		commit(t, w, fmt.Sprint(i), fmt.Sprintf("old/f%d", i), strings.Repeat("x", 100)+fmt.Sprint(i))
	}
	if err := w.GC(nil); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		commit(t, w, fmt.Sprint(i), fmt.Sprintf("new/f%d", i), fmt.Sprint(i))
		time.Sleep(10 * time.Millisecond) // apart in the packs' times
	}
	packs, err := listPacks(w.Dir())
	if err != nil || len(packs) != 11 {
		t.Fatalf("listPacks = %d packs, %v; want 11", len(packs), err)
	}
	r, err := Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := func(p, want string) {
		t.Helper()
		if got, err := r.ReadFile(head(t, w), p); err != nil || string(got) != want {
			t.Fatalf("ReadFile(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	read("new/f9", "9")
	if r.packs.loads > 2 {
		t.Errorf("reading the newest commit's file: %d indexes opened; want at most 2 (the largest pack, the newest)", r.packs.loads)
	}
	read("old/f3", strings.Repeat("x", 100)+"3")
	if r.packs.loads > 2 {
		t.Errorf("reading a rolled-up file too: %d indexes opened; want at most 2", r.packs.loads)
	}
	read("new/f0", "0")
	if r.packs.loads > 11 {
		t.Errorf("%d indexes opened for 11 packs: one twice", r.packs.loads)
	}
}

// TestPackIndex: a pack's index read where it lies answers as go-git's
// reading it whole, and every object of a pack git made (with deltas)
// reads as git shows it.
func TestPackIndex(t *testing.T) {
	a := newArchive(t)
	body := strings.Repeat("a line of a message that changes little from one version to the next\n", 40)
	for i := range 30 {
		commit(t, a, fmt.Sprint(i), "d/f.md", body+fmt.Sprint(i), fmt.Sprintf("e/%d.md", i), body)
	}
	if err := a.GC(nil); err != nil {
		t.Fatal(err)
	}
	idxs, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d packs after gc", len(idxs))
	}
	data, err := os.ReadFile(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(want); err != nil {
		t.Fatal(err)
	}
	got, err := openPackIndex(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer got.close()
	entries := func(x idxfile.Index, byOffset bool) []idxfile.Entry {
		t.Helper()
		iter, err := x.Entries()
		if byOffset {
			iter, err = x.EntriesByOffset()
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []idxfile.Entry
		for {
			e, err := iter.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, *e)
		}
	}
	all := entries(want, false)
	if n, _ := got.Count(); n != int64(len(all)) || len(all) < 60 {
		t.Fatalf("%d objects, go-git reads %d", n, len(all))
	}
	if g := entries(got, false); !slices.Equal(g, all) {
		t.Errorf("entries differ from go-git's")
	}
	if g, w := entries(got, true), entries(want, true); !slices.Equal(g, w) {
		t.Errorf("entries by offset differ from go-git's")
	}
	var hashes []string
	for _, e := range all {
		off, err := got.FindOffset(e.Hash)
		crc, _ := got.FindCRC32(e.Hash)
		h, _ := got.FindHash(int64(e.Offset))
		if err != nil || off != int64(e.Offset) || crc != e.CRC32 || h != e.Hash {
			t.Errorf("%s: offset %d crc %x hash %s, %v; want %d %x", e.Hash, off, crc, h, err, e.Offset, e.CRC32)
		}
		hashes = append(hashes, e.Hash.String())
	}
	missing := plumbing.NewHash(strings.Repeat("f", 40))
	if ok, _ := got.Contains(missing); ok {
		t.Error("Contains a hash the pack lacks")
	}
	if _, err := got.FindHash(1); err != plumbing.ErrObjectNotFound {
		t.Errorf("FindHash of no object's offset: %v", err)
	}

	// Every object, read by a fresh handle, is what git shows.
	r, err := Open(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	shown := gitObjects(t, a.Dir(), hashes)
	for _, h := range hashes {
		data, err := r.readObject(plumbing.AnyObject, plumbing.NewHash(h))
		if err != nil || string(data) != shown[h] {
			t.Errorf("%s: %d bytes, %v; git shows %d", h, len(data), err, len(shown[h]))
		}
	}
}

// gitObjects returns the content of the objects hashes as git cat-file
// shows them.
func gitObjects(t *testing.T, dir string, hashes []string) map[string]string {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]string{}
	for len(out) > 0 {
		line, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(line))
		size, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("git cat-file: %q", line)
		}
		objs[f[0]] = string(rest[:size])
		out = rest[size+1:]
	}
	return objs
}

// TestLooseObjects: objects another git tool left loose are read, by type.
func TestLooseObjects(t *testing.T) {
	a := newArchive(t)
	cmd := exec.Command("git", "--git-dir", a.Dir(), "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader("loose\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	h := plumbing.NewHash(strings.TrimSpace(string(out)))
	if data, err := a.readObject(plumbing.BlobObject, h); err != nil || string(data) != "loose\n" {
		t.Errorf("loose blob: %q, %v", data, err)
	}
	if _, err := a.readObject(plumbing.TreeObject, h); err != plumbing.ErrObjectNotFound {
		t.Errorf("loose blob read as a tree: %v", err)
	}
}

// TestCompareEntries: tree entries compare in git's order, a directory's
// name as if it ended in "/".
func TestCompareEntries(t *testing.T) {
	names := []struct {
		name string
		dir  bool
	}{{"a", true}, {"a", false}, {"a.md", false}, {"a-b", true}, {"a0", false}, {"ab", true}, {"b", false}, {"", false}}
	for _, x := range names {
		for _, y := range names {
			ex := object.TreeEntry{Name: x.name, Mode: filemode.Regular}
			ey := object.TreeEntry{Name: y.name, Mode: filemode.Regular}
			if x.dir {
				ex.Mode = filemode.Dir
			}
			if y.dir {
				ey.Mode = filemode.Dir
			}
			want := cmp.Compare(sortName(ex), sortName(ey))
			got := compareEntries(rawEntry{name: []byte(x.name), dir: x.dir}, rawEntry{name: []byte(y.name), dir: y.dir})
			if cmp.Compare(got, 0) != want {
				t.Errorf("compareEntries(%q dir=%v, %q dir=%v) = %d, want sign %d", x.name, x.dir, y.name, y.dir, got, want)
			}
		}
	}
}
