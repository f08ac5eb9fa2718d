package archive

import (
	"fmt"
	"testing"
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
