package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// IsIndexDamaged reports whether err comes from a damaged index file
// ("database disk image is malformed"): pages that cannot be read, which
// SQLite finds only when a query reaches them. The index is a cache of the
// archive, so RepairIndex can always rebuild it.
func IsIndexDamaged(err error) bool {
	if err == nil {
		return false
	}
	if isCorrupt(err) {
		return true
	}
	// Some callers report SQLite's error as text only.
	msg := err.Error()
	return strings.Contains(msg, "database disk image is malformed") || strings.Contains(msg, "file is not a database")
}

// RepairIndex replaces a damaged index (cause says how it showed) with one
// rebuilt from the archive, and notes it. Everything the index held but
// presence is in the archive, so nothing is lost.
func (s *Store) RepairIndex(ctx context.Context, cause error) error {
	if s.readOnly {
		return s.usePrivate(ctx, nil, fmt.Sprintf("its index is damaged (%v)", rootCause(cause)))
	}
	err := s.withLock(func() error { return s.rebuildDamaged(ctx, cause) })
	if err != nil {
		return fault.WithValues(fmt.Errorf("rebuild the damaged index: %w", err), "repair", "reindex")
	}
	return nil
}

// rebuildDamaged is RepairIndex for a caller that holds the lock.
func (s *Store) rebuildDamaged(ctx context.Context, cause error) error {
	if err := s.replaceIndex(); err != nil {
		return err
	}
	if _, err := s.rebuild(ctx, nil); err != nil {
		return err
	}
	s.note(fmt.Sprintf("the index was unreadable (%v); rebuilt it from the archive", rootCause(cause)))
	return nil
}

// rootCause is SQLite's own message for a damaged index, without the
// context wrapped around it.
func rootCause(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se
	}
	return err
}

// scratchDir is where Check builds its scratch index: beside the index, on
// the same file system, unless the store is read-only.
func (s *Store) scratchDir() string {
	if s.readOnly {
		return os.TempDir()
	}
	return s.dir
}
