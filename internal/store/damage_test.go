package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/record"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// An index damaged in its middle pages opens (its header is fine) but
// cannot be rebuilt in place: Reindex replaces the file and rebuilds it.
func TestReindexReplacesDamagedIndex(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	recs := []record.Record{project("shop-00000000"), agent("GreenCastle")}
	for i := 0; i < 300; i++ {
		recs = append(recs, message(i))
	}
	put(t, s, "seed", recs...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "index.db")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for off := int64(4096 * 3); off+4096 < fi.Size(); off += 4096 * 2 {
		f.WriteAt(garbage, off)
	}
	f.Close()

	s = openStore(t, dir)
	st, err := s.Reindex(context.Background())
	if err != nil {
		t.Fatalf("Reindex of a damaged index: %v", err)
	}
	if notes := strings.Join(s.Notes(), "\n"); !strings.Contains(notes, "damaged") {
		t.Fatalf("the damaged index was not replaced (notes %q)", notes)
	}
	if st.Messages != 300 {
		t.Fatalf("rebuilt %d messages, want 300", st.Messages)
	}
	problems, err := s.Check(context.Background())
	if err != nil || len(problems) > 0 {
		t.Fatalf("Check after replacing the index: %v, %v", problems, err)
	}
}

func TestIsIndexDamaged(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("store is busy"), false},
		{sqlite3.Error{Code: sqlite3.ErrBusy}, false},
		{fmt.Errorf("inbox: %w", sqlite3.Error{Code: sqlite3.ErrCorrupt}), true},
		{fmt.Errorf("open: %w", sqlite3.Error{Code: sqlite3.ErrNotADB}), true},
		{fmt.Errorf("catch up: %v", "database disk image is malformed"), true},
		{fmt.Errorf("%w: doctor found 1 problem", ErrCorrupt), false}, // the archive's, not the index's
	}
	for _, tt := range tests {
		if got := IsIndexDamaged(tt.err); got != tt.want {
			t.Errorf("IsIndexDamaged(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
