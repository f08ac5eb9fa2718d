package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentmail/agentmail/internal/fault"
	"golang.org/x/sys/unix"
)

// A store its user cannot write (another user's, or on a read-only file
// system) still answers reads. Its index is opened read-only: SQLite can
// read a WAL database without writing when the -wal and -shm files are
// there, and every writer keeps them (see driverName). When the index is
// behind the archive, missing, damaged or otherwise unusable without a
// write, reads are answered from a private index in a temporary directory:
// a copy of the shared one brought up to date with the archive, or one
// built from the archive alone. Writes fail with ErrNotWritable, and
// presence (last seen) is not recorded.

// writable reports whether the user may write the store in dir: the
// directory, its archive, its index and its lock file, those that exist.
func writable(dir string) bool {
	for _, p := range []string{dir, filepath.Join(dir, "archive.git"), filepath.Join(dir, "index.db"), filepath.Join(dir, "lock")} {
		if err := unix.Access(p, unix.W_OK); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	return true
}

// ReadOnly reports whether the store was opened for reading only, because
// its user cannot write it.
func (s *Store) ReadOnly() bool { return s.readOnly }

// readOnlyError is what a write to a read-only store returns.
func (s *Store) readOnlyError() error {
	return fault.WithField(fmt.Errorf("%w: %s: you can read it but not write it", ErrNotWritable, s.dir), "store", "problem", "read_only")
}

// openReadOnly opens the index of a read-only store: the shared one when
// SQLite can read it as it is, else a private one.
func (s *Store) openReadOnly(ctx context.Context) error {
	db, why := openShared(filepath.Join(s.dir, "index.db"), s.proj)
	if db != nil {
		s.db, s.rdb = db, db
		return nil
	}
	return s.usePrivate(ctx, nil, why)
}

// openShared opens the index at path read-only. When that cannot work it
// returns nil and why: its WAL files are missing (SQLite would have to
// create them), it cannot be read, or it is of another layout (it would
// have to be rebuilt).
func openShared(path string, l layout) (*sql.DB, string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err != nil {
			return nil, "its index cannot be read without writing to the store"
		}
	}
	db, err := sql.Open(driverName, sqliteURI(path)+"?mode=ro&_busy_timeout=30000&_cache_size=-65536&_stmt_cache_size=32")
	if err != nil {
		return nil, fmt.Sprintf("its index is unreadable (%v)", err)
	}
	db.SetMaxOpenConns(1)
	var layout string
	v, err := userVersion(db)
	if err == nil && v == schemaVersion {
		err = db.QueryRow(`SELECT value FROM meta WHERE key = 'layout'`).Scan(&layout)
	}
	switch {
	case err != nil:
		db.Close()
		return nil, fmt.Sprintf("its index is unreadable (%v)", rootCause(err))
	case v != schemaVersion || layout != l.name():
		db.Close()
		return nil, "its index was built by another version of agentmail"
	}
	return db, ""
}

// usePrivate switches a read-only store to a private index in a temporary
// directory, a copy of from (nil for none; a copy that fails is none)
// brought up to date with the archive, and notes why (the store's own
// index is unusable for that reason).
func (s *Store) usePrivate(ctx context.Context, from *sql.DB, why string) error {
	tmp, err := os.MkdirTemp("", "agentmail-index-")
	if err != nil {
		return fault.WithHint(fmt.Errorf("private index: %w", err), "set TMPDIR to a directory you can write")
	}
	path := filepath.Join(tmp, "index.db")
	if from != nil {
		if _, err := from.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
			os.Remove(path) // build it from the archive instead
		}
	}
	db, _, err := openIndex(path, s.proj)
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("private index: %w", err)
	}
	s.closeIndex()
	s.mu.Lock()
	s.db, s.rdb, s.private = db, db, tmp
	s.mu.Unlock()
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	s.note("you cannot write this store and " + why + "; answered from a private index brought up to date with the archive")
	return nil
}

// closeIndex closes the index, and removes it if it is a private one.
func (s *Store) closeIndex() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	if s.rdb != nil && s.rdb != s.db {
		if rerr := s.rdb.Close(); err == nil {
			err = rerr
		}
	}
	if s.private != "" {
		if rerr := os.RemoveAll(s.private); err == nil {
			err = rerr
		}
		s.private = ""
	}
	return err
}
