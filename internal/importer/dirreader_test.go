package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDirReader: a dirReader reads what os.ReadFile reads, files of any
// size from directories in any order, through symbolic links too, and
// fails as os.ReadFile fails.
func TestDirReader(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for _, dir := range []string{"a", "b", "a/c"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{0, 1, 1000, 64 << 10, 64<<10 + 1, 300 << 10} {
			p := filepath.Join(root, dir, filepath.Base(dir)+"-"+string(rune('a'+size%26))+".md")
			data := bytes.Repeat([]byte{byte('a' + size%26)}, size)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	link := filepath.Join(root, "b", "link.md")
	if err := os.Symlink(paths[4], link); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, link, filepath.Join(root, "a", "missing.md"), filepath.Join(root, "nodir", "x.md"), paths[0], paths[len(paths)-1])
	r := &dirReader{fd: -1}
	defer r.close()
	for _, p := range paths {
		want, wantErr := os.ReadFile(p)
		got, err := r.read(p)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("read %s: error %v, want %v", p, err, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("read %s: %d bytes, want %d", p, len(got), len(want))
		}
	}
}
