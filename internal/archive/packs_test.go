package archive

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestNewPacks: a handle reading the commits another handle writes opens
// each one's new pack alone, rather than having go-git reload the index of
// every pack; a roll-up that removes packs has it reindex, and the reads
// go on.
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
	read(commit(t, w, "second", "f", "second"), "f", "second") // the first miss lists the packs
	base, loads := r.packs.reindexes, r.packs.loads
	const n = 5
	for i := range n {
		read(commit(t, w, fmt.Sprint(i), fmt.Sprintf("d/f%d", i), fmt.Sprint(i)), fmt.Sprintf("d/f%d", i), fmt.Sprint(i))
	}
	if r.packs.reindexes != base || r.packs.loads-loads != n || len(r.packs.opened) != n {
		t.Errorf("after %d commits read: %d reindexes (want %d), %d indexes read, %d packs opened (want %d each)",
			n, r.packs.reindexes, base, r.packs.loads-loads, len(r.packs.opened), n)
	}
	if err := w.GC(nil); err != nil {
		t.Fatal(err)
	}
	read(commit(t, w, "after gc", "g", "g"), "g", "g")
	read(head(t, w), "d/f0", "0")
	if r.packs.reindexes != base+1 || len(r.packs.opened) != 0 {
		t.Errorf("after a roll-up: %d reindexes (want %d), %d packs opened (want 0)", r.packs.reindexes, base+1, len(r.packs.opened))
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
