package archive

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A write killed between renaming its pack index and its pack leaves an
// index without a pack. Neither go-git nor git may trip over it, and GC
// removes it.
func TestIndexWithoutPackIsHarmless(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a.git")
	if err := Init(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := a.Head()
	res, err := a.Commit(head, []Change{{Path: "x/y.txt", Data: []byte("hello\n")}}, Author{Name: "T", Email: "t@t", When: time.Now()}, "add", nil)
	if err != nil {
		t.Fatal(err)
	}
	idxs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
	data, err := os.ReadFile(idxs[0])
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "objects", "pack", "pack-"+strings.Repeat("ab", 20)+".idx")
	if err := os.WriteFile(orphan, data, 0o444); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fresh.ReadFile(res.Head, "x/y.txt")
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("read with an orphan index: %q, %v", got, err)
	}
	if out, err := exec.Command("git", "--git-dir", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck with an orphan index: %v: %s", err, out)
	}
	if err := fresh.GC(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("GC left the orphan index: %v", err)
	}
}
