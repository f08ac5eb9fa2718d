package archive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestEncodePack: the packs a write makes are what git makes of the same
// objects, whatever their sizes (a size takes one to four bytes of the
// entry header) and types (trees are stored, in blocks of at most 64 KB):
// git verify-pack accepts the pack with its index and lists every object,
// and each reads back as written.
func TestEncodePack(t *testing.T) {
	a := newArchive(t)
	var objs []plumbing.EncodedObject
	for _, n := range []int{0, 1, 15, 16, 127, 128, 2047, 2048, 1 << 14, 300000} {
		data := bytes.Repeat([]byte{byte('a' + n%26)}, n)
		objs = append(objs, &rawObject{typ: plumbing.BlobObject, data: data})
	}
	blobs := len(objs)
	for _, n := range []int{0, 3, 5000} { // 5,000 entries make a tree of some 150 KB
		var tree object.Tree
		for i := range n {
			tree.Entries = append(tree.Entries, object.TreeEntry{Name: fmt.Sprintf("%06d-a-message-subject.md", i), Mode: filemode.Regular, Hash: objs[i%blobs].Hash()})
		}
		o := &rawObject{typ: plumbing.TreeObject}
		if err := tree.Encode(o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	sum, err := a.writePack(objs)
	if err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(a.Dir(), "objects", "pack", "pack-"+sum.String()+".idx")
	out := runGit(t, a.Dir(), "verify-pack", "-v", idx)
	for _, o := range objs {
		want := o.Hash().String() + " " + o.Type().String() + " "
		if !strings.Contains(out, want) {
			t.Errorf("git verify-pack does not list %s of %d bytes:\n%s", o.Hash(), o.Size(), out)
		}
	}
	for _, o := range objs {
		data, err := a.readObject(o.Type(), o.Hash())
		if err != nil || !bytes.Equal(data, o.(*rawObject).data) {
			t.Errorf("read back %s (%d bytes): %d bytes, %v", o.Hash(), o.Size(), len(data), err)
		}
	}
	if _, err := os.Stat(strings.TrimSuffix(idx, ".idx") + ".pack"); err != nil {
		t.Error(err)
	}
}

// TestEncodePackStoresSmallBlobs: a blob under smallBlob bytes is stored,
// a larger one deflated.
func TestEncodePackStoresSmallBlobs(t *testing.T) {
	tests := []struct {
		size   int
		stored bool
	}{{0, true}, {300, true}, {smallBlob - 1, true}, {smallBlob, false}, {4096, false}}
	for _, tt := range tests {
		data := bytes.Repeat([]byte("ab"), tt.size/2+1)[:tt.size]
		var pack bytes.Buffer
		entries, _, err := encodePack(&pack, []plumbing.EncodedObject{&rawObject{typ: plumbing.BlobObject, data: data}})
		if err != nil {
			t.Fatal(err)
		}
		entry := pack.Len() - 20 - int(entries[0].offset) // the pack ends in its checksum
		if stored := entry > tt.size; stored != tt.stored {
			t.Errorf("a blob of %d bytes takes %d in the pack: stored %v, want %v", tt.size, entry, stored, tt.stored)
		}
	}
}

// TestHashObject: the names a write gives its objects are git's, for
// every type (git hash-object agrees).
func TestHashObject(t *testing.T) {
	a := newArchive(t)
	tree := &rawObject{typ: plumbing.TreeObject}
	if err := (&object.Tree{Entries: []object.TreeEntry{{Name: "a.md", Mode: filemode.Regular, Hash: plumbing.ComputeHash(plumbing.BlobObject, []byte("a"))}}}).Encode(tree); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*rawObject{
		{typ: plumbing.BlobObject, data: []byte("a")},
		{typ: plumbing.BlobObject, data: nil},
		tree,
		{typ: plumbing.TreeObject, data: nil},
	} {
		path := filepath.Join(t.TempDir(), "object")
		if err := os.WriteFile(path, o.data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := runGit(t, a.Dir(), "hash-object", "--literally", "-t", o.typ.String(), path)
		if got := hashObject(o.typ, o.data).String(); got != want {
			t.Errorf("%s of %d bytes: %s, git says %s", o.typ, len(o.data), got, want)
		}
	}
}
