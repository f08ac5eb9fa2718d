package archive

import (
	"fmt"
	"testing"
)

// askCache is a Cache that has nothing and counts what it is asked for.
type askCache struct{ asked int }

func (c *askCache) Object(string) ([]byte, bool) { c.asked++; return nil, false }

// TestRecentObjects: a handle's next write on a branch reads the commit and
// trees its last write made from memory, asking neither the caller's cache
// nor the repository; a write another handle made is read as before, and
// both histories come out whole.
func TestRecentObjects(t *testing.T) {
	a := newArchive(t)
	path := "messages/2026/11/22/"
	commit(t, a, "first", path+"a.md", "a")
	cache := &askCache{}
	res, err := a.Commit(head(t, a), []Change{{Path: path + "b.md", Data: []byte("b")}}, author("GreenCastle"), "second", cache)
	if err != nil {
		t.Fatal(err)
	}
	if cache.asked != 0 {
		t.Errorf("the write after a write asked the cache for %d objects, want none", cache.asked)
	}
	other, err := Open(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Commit(res.Head, []Change{{Path: path + "c.md", Data: []byte("c")}}, author("BlueLake"), "third", cache); err != nil {
		t.Fatal(err)
	}
	if cache.asked == 0 {
		t.Error("a handle that wrote nothing yet did not ask the cache")
	}
	commit(t, a, "fourth", path+"d.md", "d")
	got := lsTree(t, a.Dir(), "main")
	for _, f := range []string{"a", "b", "c", "d"} {
		if got[path+f+".md"] != blobHash([]byte(f)) {
			t.Errorf("%s.md = %q after writes by two handles, want %q", f, got[path+f+".md"], blobHash([]byte(f)))
		}
	}
}

// TestRecentObjectsRead: the commits and trees a handle wrote lately, the
// ones later writes superseded included, are read back from memory (by a
// reader sharing the store's handle, serve's event feed, which diffs each
// commit with its parent), not looked for in packs go-git has not listed.
func TestRecentObjectsRead(t *testing.T) {
	a := newArchive(t)
	commit(t, a, "first", "d/a.md", "a")
	if _, err := a.ReadFile(head(t, a), "d/a.md"); err != nil {
		t.Fatal(err)
	}
	loads := a.packs.loads
	c2 := commit(t, a, "second", "d/b.md", "b")
	c3 := commit(t, a, "third", "d/c.md", "c")
	commit(t, a, "fourth", "d/d.md", "d")
	for _, c := range []string{c2, c3} {
		info, err := a.ReadCommit(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Changes(info.Parents[0], c, func(string) bool { return true }, func(string, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if a.packs.loads != loads {
		t.Errorf("reading the commits and root trees written lately: %d indexes opened; want none", a.packs.loads-loads)
	}
}

// TestRecentSupersededBound: superseded objects are kept to maxSuperseded
// bytes, oldest dropped first, while the objects the next write reads stay
// whatever the superseded ones weigh.
func TestRecentSupersededBound(t *testing.T) {
	var r recentObjects
	tree := make([]byte, 300<<10) // a busy day's directory
	write := func(i int) string { return fmt.Sprintf("tree-%d", i) }
	r.update(map[string][]byte{write(0): tree}, nil)
	const writes = 3 * maxSuperseded / (300 << 10)
	for i := 1; i <= writes; i++ {
		r.update(map[string][]byte{write(i): tree}, []string{write(i - 1)})
	}
	if _, ok := r.get(write(writes)); !ok {
		t.Errorf("the tree the next write reads was dropped")
	}
	if r.supersededSize > maxSuperseded {
		t.Errorf("superseded objects take %d bytes, want at most %d", r.supersededSize, maxSuperseded)
	}
	if _, ok := r.get(write(writes - 1)); !ok {
		t.Errorf("the tree the last write superseded was dropped, want kept while under %d bytes", maxSuperseded)
	}
	if _, ok := r.get(write(0)); ok {
		t.Errorf("the oldest superseded tree is kept past %d bytes of superseded objects", maxSuperseded)
	}
	if want := (writes + 1) * len(tree); r.size >= want {
		t.Errorf("recent objects hold %d bytes, the sum of all writes", r.size)
	}
	if got := len(r.objects) * len(tree); got != r.size {
		t.Errorf("size = %d, want %d for %d objects", r.size, got, len(r.objects))
	}
}
