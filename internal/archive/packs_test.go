package archive

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestNewPacks: a handle reading the commits another handle writes reads
// the index of each one's new pack, once, and no other; a roll-up that
// removes packs leaves the reads going on, the packs gone dropped.
func TestNewPacks(t *testing.T) {
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
	read(commit(t, w, "first", "f", "first"), "f", "first")
	loads := r.objects.loads
	const n = 5
	for i := range n {
		read(commit(t, w, fmt.Sprint(i), fmt.Sprintf("d/f%d", i), fmt.Sprint(i)), fmt.Sprintf("d/f%d", i), fmt.Sprint(i))
	}
	if got := r.objects.loads - loads; got != n {
		t.Errorf("after %d commits read: %d pack indexes read, want %d", n, got, n)
	}
	if err := w.GC(nil); err != nil {
		t.Fatal(err)
	}
	read(commit(t, w, "after gc", "g", "g"), "g", "g")
	read(head(t, w), "d/f0", "0")
	if got, want := len(r.objects.packs), w.Packs(); got != want {
		t.Errorf("after a roll-up: %d packs kept open, want the %d there are", got, want)
	}
}

// TestObjectStoreReadsWhatGitWrote: every object of every pack (one by git
// repack with offset deltas, one by git pack-objects with reference
// deltas, agentmail's own), and every loose object, reads as git cat-file
// prints it.
func TestObjectStoreReadsWhatGitWrote(t *testing.T) {
	a := newArchive(t)
	h := head(t, a)
	var cache mapCache = map[string][]byte{}
	for i := range 60 { // versions of directories, which git stores as deltas
		res, err := a.Commit(h, messageChanges(i), author("GreenCastle"), fmt.Sprint(i), cache)
		if err != nil {
			t.Fatal(err)
		}
		cache.update(res)
		h = res.Head
	}
	runGit(t, a.Dir(), "repack", "-a", "-d", "-q", "--window=50", "--depth=50")
	all := runGit(t, a.Dir(), "rev-list", "--objects", "--all")
	refDeltas := filepath.Join(a.Dir(), "objects", "pack", "pack")
	cmd := exec.Command("git", "--git-dir", a.Dir(), "pack-objects", "-q", "--no-reuse-delta", "--window=50", refDeltas)
	cmd.Stdin = strings.NewReader(all + "\n")
	if out, err := cmd.CombinedOutput(); err != nil { // no --delta-base-offset: its deltas name their bases
		t.Fatalf("git pack-objects: %v: %s", err, out)
	}
	for i := 60; i < 63; i++ { // agentmail's own packs
		res, err := a.Commit(h, messageChanges(i), author("GreenCastle"), fmt.Sprint(i), cache)
		if err != nil {
			t.Fatal(err)
		}
		cache.update(res)
		h = res.Head
	}
	file := filepath.Join(t.TempDir(), "loose")
	if err := os.WriteFile(file, []byte("a loose object"), 0o644); err != nil {
		t.Fatal(err)
	}
	loose := runGit(t, a.Dir(), "hash-object", "-w", file)
	names, err := packNames(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for name := range names {
		s := objectStore{dir: a.Dir()}
		p, err := s.open(name)
		if err != nil {
			t.Fatal(err)
		}
		s.packs = map[string]*pack{name: p}
		var listed []string
		for _, line := range strings.Split(runGit(t, a.Dir(), "verify-pack", "-v", filepath.Join(a.Dir(), "objects", "pack", name+".idx")), "\n") {
			f := strings.Fields(line)
			if len(f) >= 5 && plumbing.IsHash(f[0]) {
				listed = append(listed, f[0])
				if len(f) == 7 { // a delta, and its base
					deltas++
				}
			}
		}
		sameAsGit(t, &s, listed...)
		s.close()
	}
	if len(names) < 4 || deltas == 0 {
		t.Fatalf("%d packs, %d deltas: the test needs git's two packs, deltas, and agentmail's", len(names), deltas)
	}
	s := objectStore{dir: a.Dir()}
	sameAsGit(t, &s, loose)
	if _, _, err := s.object(plumbing.NewHash(blobHash([]byte("nowhere")))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("an object nowhere: %v, want ErrObjectNotFound", err)
	}
}

// sameAsGit checks that s reads the objects hashes as git cat-file
// --batch prints them.
func sameAsGit(t *testing.T, s *objectStore, hashes ...string) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", s.dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	for _, h := range hashes {
		head, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(head)) // <hash> <type> <size>
		size, _ := strconv.Atoi(f[len(f)-1])
		if len(f) != 3 || len(rest) < size+1 {
			t.Fatalf("git cat-file --batch: %q", head)
		}
		want := rest[:size]
		out = rest[size+1:]
		typ, data, err := s.object(plumbing.NewHash(h))
		if err != nil {
			t.Errorf("object %s: %v", h, err)
			continue
		}
		if typ.String() != f[1] || !bytes.Equal(data, want) {
			t.Errorf("object %s: a %s of %d bytes read, git has a %s of %d", h, typ, len(data), f[1], size)
		}
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
