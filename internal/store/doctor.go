package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ReindexStats describes a rebuild.
type ReindexStats struct {
	Messages int
	Elapsed  time.Duration
}

// Reindex rebuilds every derived table from the archive alone, in one
// transaction: concurrent readers see the old index until it commits.
// Presence, which the archive does not hold, is kept. An index too damaged
// to rebuild in place is replaced by a new file.
func (s *Store) Reindex(ctx context.Context) (ReindexStats, error) {
	var st ReindexStats
	err := s.withLock(func() error {
		start := time.Now()
		n, err := s.rebuild(ctx)
		if err != nil && isCorrupt(err) {
			if err = s.replaceIndex(); err == nil {
				n, err = s.rebuild(ctx)
			}
		}
		if err != nil {
			return err
		}
		st = ReindexStats{Messages: n, Elapsed: time.Since(start)}
		return nil
	})
	return st, err
}

func (s *Store) rebuild(ctx context.Context) (int, error) {
	head, err := s.archiveHead()
	if err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := s.ingestAll(tx, head)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// replaceIndex throws the index file away and starts a new, empty one.
func (s *Store) replaceIndex() error {
	s.db.Close()
	path := filepath.Join(s.dir, "index.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove damaged index: %w", err)
		}
	}
	db, _, err := openIndex(path, s.opts.Extensions)
	if err != nil {
		return err
	}
	s.db = db
	s.notes = append(s.notes, "the index was damaged; replaced it with a new one")
	return nil
}

// comparedColumns lists, per derived table, the columns a rebuilt index must
// reproduce (row ids are allowed to differ).
var comparedColumns = map[string]string{
	"projects":     "key, slug, created",
	"agents":       "(SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), fold, name, program, model, task, registered, updated, retired, policy",
	"messages":     "id, (SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), thread, named_thread, sender, to_list, cc_list, bcc_list, subject, importance, ack_required, category, reply_to, created, hold_ms, path, body",
	"recipients":   "(SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), agent, message_id, kind, read_at, acked_at",
	"reservations": "id, (SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), agent, pattern, exclusive, reason, created, expires, released, released_by, release_reason",
	"locks":        "(SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), key, holder, created, expires, released",
	"contacts":     "(SELECT slug FROM %[1]s.projects p WHERE p.id = project_id), requester, target, state, reason, requested, decided, expires",
}

// Check verifies the store without changing it: SQLite's integrity check,
// git fsck on the archive, and a comparison of the index with one rebuilt
// from the archive in a scratch file. It returns one line per problem.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	var problems []string
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil || res != "ok" {
		problems = append(problems, fmt.Sprintf("index integrity: %v %s", err, res))
	}
	if err := s.arc.Fsck(); err != nil {
		problems = append(problems, "archive: "+err.Error())
	}
	err := s.withLock(func() error {
		head, err := s.archiveHead()
		if err != nil {
			return err
		}
		if idx, _ := s.indexHead(s.db); idx != head {
			problems = append(problems, fmt.Sprintf("index is at %.12s, archive at %.12s (any command catches up)", idx, head))
			return nil
		}
		scratch, err := os.MkdirTemp(s.dir, ".check-")
		if err != nil {
			return notWritable(s.dir, err)
		}
		defer os.RemoveAll(scratch)
		path := filepath.Join(scratch, "index.db")
		db, _, err := openIndex(path, s.opts.Extensions)
		if err != nil {
			return err
		}
		defer db.Close()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := s.ingest(tx, "", head); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, `ATTACH DATABASE ? AS rebuilt`, path); err != nil {
			return err
		}
		defer s.db.ExecContext(ctx, `DETACH DATABASE rebuilt`)
		for _, table := range derivedTables {
			live := fmt.Sprintf("SELECT "+comparedColumns[table]+" FROM main.%[2]s", "main", table)
			rebuilt := fmt.Sprintf("SELECT "+comparedColumns[table]+" FROM rebuilt.%[2]s", "rebuilt", table)
			var extra, missing int
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM ("+live+" EXCEPT "+rebuilt+")").Scan(&extra); err != nil {
				return fmt.Errorf("compare %s: %w", table, err)
			}
			if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM ("+rebuilt+" EXCEPT "+live+")").Scan(&missing); err != nil {
				return fmt.Errorf("compare %s: %w", table, err)
			}
			if extra+missing > 0 {
				problems = append(problems, fmt.Sprintf("index table %s differs from the archive: %d rows not in the archive, %d archive rows missing (run agentmail doctor --reindex)", table, extra, missing))
			}
		}
		return nil
	})
	return problems, err
}

// ArchiveStats describes the archive's storage.
type ArchiveStats struct {
	LooseObjects int
	Packs        int
	Bytes        int64
}

// GC packs the whole archive into one pack and prunes what is unreachable.
func (s *Store) GC() (ArchiveStats, error) {
	var st ArchiveStats
	err := s.withLock(func() error {
		if err := s.arc.GC(s.lock.File()); err != nil {
			return err
		}
		var err error
		st, err = s.archiveStats()
		return err
	})
	return st, err
}

// Stats describes the archive's storage as it is.
func (s *Store) Stats() (ArchiveStats, error) { return s.archiveStats() }

func (s *Store) archiveStats() (ArchiveStats, error) {
	n, err := s.arc.Size()
	return ArchiveStats{LooseObjects: s.arc.LooseObjects(), Packs: s.arc.Packs(), Bytes: n}, err
}

// String describes the archive's storage in one line.
func (s ArchiveStats) String() string {
	return fmt.Sprintf("%d loose objects, %d packs, %d bytes", s.LooseObjects, s.Packs, s.Bytes)
}
