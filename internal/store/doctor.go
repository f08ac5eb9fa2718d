package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
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
	return s.ReindexWithProgress(ctx, nil)
}

// ReindexWithProgress is Reindex telling progress, when not nil, how many
// messages it has indexed, after each one, out of a total: the number the
// index held before, 0 when unknown, never less than done.
func (s *Store) ReindexWithProgress(ctx context.Context, progress func(done, total int)) (ReindexStats, error) {
	var st ReindexStats
	err := s.withLock(func() error {
		start := time.Now()
		n, err := s.rebuild(ctx, progress)
		if err != nil && isCorrupt(err) {
			if err = s.replaceIndex(); err == nil {
				s.note("the index was damaged; replaced it with a new one")
				n, err = s.rebuild(ctx, progress)
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

func (s *Store) rebuild(ctx context.Context, progress func(done, total int)) (int, error) {
	head, err := s.archiveHead()
	if err != nil {
		return 0, err
	}
	var indexed func(int)
	if progress != nil {
		var total int // an estimate; a damaged index gives none
		if err := s.writer().QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'messages'`).Scan(&total); err != nil {
			total = 0
		}
		indexed = func(done int) {
			if total > 0 && done > total {
				total = done
			}
			progress(done, total)
		}
	}
	tx, err := s.writer().BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := s.ingestAll(tx, head, indexed)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// replaceIndex throws the index file away and starts a new, empty one.
// The caller holds the store lock exclusively.
func (s *Store) replaceIndex() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.db.Close()
	if s.rdb != s.db {
		s.rdb.Close()
	}
	path := filepath.Join(s.dir, "index.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove damaged index: %w", err)
		}
	}
	db, _, err := openIndex(path, s.proj)
	if err != nil {
		return err
	}
	rdb, err := s.openReaders(path, db)
	if err != nil {
		db.Close()
		return err
	}
	s.db, s.rdb = db, rdb
	return nil
}

// comparedColumns returns the columns of table that two indexes of one
// archive must agree on, as an SQL list for the database schema db (main,
// or an attached one): every column but the local ones, and a project id
// as its project's slug.
func comparedColumns(ctx context.Context, q Querier, db string, t Table) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, t.Name)
	if err != nil {
		return "", fmt.Errorf("columns of %s: %w", t.Name, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", fmt.Errorf("columns of %s: %w", t.Name, err)
		}
		switch {
		case slices.Contains(t.Local, c):
		case c == "project_id":
			cols = append(cols, fmt.Sprintf(`(SELECT slug FROM %s.projects p WHERE p.id = project_id)`, db))
		default:
			cols = append(cols, fmt.Sprintf("%q", c))
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("columns of %s: %w", t.Name, err)
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("columns of %s: none", t.Name)
	}
	return strings.Join(cols, ", "), nil
}

// Contents returns the rows of every table derived from the archive, as
// Check compares two indexes: by table, each row as the text of its
// compared columns, sorted. Two indexes of one archive have the same
// contents however they were built.
func (s *Store) Contents(ctx context.Context) (map[string][]string, error) {
	out := map[string][]string{}
	for _, t := range s.proj.derived() {
		cols, err := comparedColumns(ctx, index{w: s.writer(), r: s.writer()}, "main", t)
		if err != nil {
			return nil, err
		}
		rows, err := s.writer().QueryContext(ctx, "SELECT "+cols+" FROM main."+t.Name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.Name, err)
		}
		list, err := rowTexts(rows)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.Name, err)
		}
		slices.Sort(list)
		out[t.Name] = list
	}
	return out, nil
}

// rowTexts renders each row as its values separated by " | ", NULL as
// NULL, and closes rows.
func rowTexts(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	list := []string{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				parts[i] = "NULL"
			case []byte:
				parts[i] = string(v)
			default:
				parts[i] = fmt.Sprint(v)
			}
		}
		list = append(list, strings.Join(parts, " | "))
	}
	return list, rows.Err()
}

// Check verifies the store without changing it: SQLite's integrity check,
// git fsck on the archive, and a comparison of the index with one rebuilt
// from the archive in a scratch file. It returns one line per problem; a
// damaged index is a problem, not an error.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	problems := s.checkIndexPages(ctx)
	if err := s.arc.Fsck(); err != nil {
		problems = append(problems, "archive: "+err.Error())
	}
	if len(problems) > 0 {
		return problems, nil // comparing with a damaged index or archive would only fail
	}
	findings, err := s.mergeFindings()
	if err != nil {
		return nil, err
	}
	problems = append(problems, findings...)
	compare := func() error {
		p, err := s.compareRebuilt(ctx)
		problems = append(problems, p...)
		return err
	}
	if s.readOnly {
		// Its user cannot take the lock: a write by the owner during the
		// comparison may show as a difference.
		err = compare()
	} else {
		err = s.withLock(compare)
	}
	if IsIndexDamaged(err) {
		return append(problems, damagedProblem(err)), nil
	}
	if IsFull(err) && !errors.Is(err, ErrFull) {
		err = fmt.Errorf("%w: comparing the index with the archive needs room for a scratch index: %v", ErrFull, err)
	}
	return problems, err
}

// mergeFindings reports, for each project, the files whose two versions
// a merge with another machine settled by keeping one (see
// archive.Resolve): the other version is kept in the merge's parents.
func (s *Store) mergeFindings() ([]string, error) {
	st, err := s.arc.State()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, slug := range slices.Sorted(maps.Keys(st)) {
		f, err := s.arc.MergeFindings(slug)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}

// checkIndexPages runs SQLite's quick_check, which reads every page of the
// index, and reports what it finds.
func (s *Store) checkIndexPages(ctx context.Context) []string {
	rows, err := s.writer().QueryContext(ctx, `PRAGMA quick_check(10)`)
	if err != nil {
		return []string{damagedProblem(err)}
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return []string{damagedProblem(err)}
		}
		for _, l := range strings.Split(line, "\n") {
			// A row may hold several lines, the first naming the database.
			if l = strings.TrimSpace(l); l != "ok" && l != "" && !strings.HasPrefix(l, "*** in database") {
				found = append(found, l)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return []string{damagedProblem(err)}
	}
	switch len(found) {
	case 0:
		return nil
	case 1:
		return []string{damagedProblem(errors.New(found[0]))}
	}
	return []string{damagedProblem(fmt.Errorf("%s, and %d more of SQLite's quick_check findings", found[0], len(found)-1))}
}

func damagedProblem(err error) string {
	return fmt.Sprintf("index is damaged: %v (a reindex, which any use of the store makes, rebuilds it from the archive)", rootCause(err))
}

// compareRebuilt builds an index from the archive in a scratch file and
// compares it with the live one. The caller holds the lock.
func (s *Store) compareRebuilt(ctx context.Context) ([]string, error) {
	head, err := s.archiveHead()
	if err != nil {
		return nil, err
	}
	if idx, err := s.indexHead(s.writer()); err != nil {
		return nil, err
	} else if idx != head {
		who := "any command"
		if s.readOnly {
			who = "a command by a user who can write the store"
		}
		return []string{fmt.Sprintf("%s (%s catches up)", behind(idx, head), who)}, nil
	}
	scratch, err := os.MkdirTemp(s.scratchDir(), ".check-")
	if err != nil {
		return nil, notWritable(s.dir, err)
	}
	defer os.RemoveAll(scratch)
	path := filepath.Join(scratch, "index.db")
	db, _, err := openIndex(path, s.proj)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := s.ingest(tx, "", head, head, nil, true); err != nil {
		tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if _, err := s.writer().ExecContext(ctx, `ATTACH DATABASE ? AS rebuilt`, path); err != nil {
		return nil, err
	}
	defer s.writer().ExecContext(ctx, `DETACH DATABASE rebuilt`)
	var problems []string
	for _, t := range s.proj.derived() {
		liveCols, err := comparedColumns(ctx, index{w: s.writer(), r: s.writer()}, "main", t)
		if err != nil {
			return nil, err
		}
		rebuiltCols, err := comparedColumns(ctx, index{w: s.writer(), r: s.writer()}, "rebuilt", t)
		if err != nil {
			return nil, err
		}
		live := "SELECT " + liveCols + " FROM main." + t.Name
		rebuilt := "SELECT " + rebuiltCols + " FROM rebuilt." + t.Name
		var extra, missing int
		if err := s.writer().QueryRowContext(ctx, "SELECT count(*) FROM ("+live+" EXCEPT "+rebuilt+")").Scan(&extra); err != nil {
			return nil, fmt.Errorf("compare %s: %w", t.Name, err)
		}
		if err := s.writer().QueryRowContext(ctx, "SELECT count(*) FROM ("+rebuilt+" EXCEPT "+live+")").Scan(&missing); err != nil {
			return nil, fmt.Errorf("compare %s: %w", t.Name, err)
		}
		if extra+missing > 0 {
			problems = append(problems, fmt.Sprintf("index table %s differs from the archive: %s not in the archive, %s missing (a reindex rebuilds it from the archive)",
				t.Name, count(extra, "row"), count(missing, "archive row")))
		}
	}
	return problems, nil
}

// behind says which projects' commits the index (at the archive state idx)
// lacks of the archive's (at head).
func behind(idx, head string) string {
	have, _ := archive.ParseState(idx)
	want, _ := archive.ParseState(head)
	var lag []string
	for _, slug := range slices.Sorted(maps.Keys(want)) {
		if have[slug] != want[slug] {
			lag = append(lag, fmt.Sprintf("%s at %.12s, archive at %.12s", slug, cmp.Or(have[slug], "nothing"), want[slug]))
		}
	}
	if len(lag) == 0 {
		return fmt.Sprintf("index is at %q, archive at %q", idx, head)
	}
	return "index is at " + strings.Join(lag, "; ")
}

// ArchiveStats describes the archive's storage.
type ArchiveStats struct {
	LooseObjects int
	Packs        int
	Bytes        int64
}

// GC packs the whole archive into one pack and prunes what is unreachable,
// under the store lock and the roll-up lock: git repack removes every pack
// it started from, and a roll-up at work would remove some of them first.
func (s *Store) GC() (ArchiveStats, error) {
	var st ArchiveStats
	err := s.withLockFile(func(hold *os.File) error {
		l, err := s.acquire(s.rollUpPath(), false)
		if err != nil {
			return err
		}
		defer l.Release()
		if err := s.arc.GC(hold, l.File()); err != nil {
			return err
		}
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
	return fmt.Sprintf("%s, %s, %s", count(s.LooseObjects, "loose object"), count(s.Packs, "pack"), count(int(s.Bytes), "byte"))
}

// count renders n things of a noun whose plural takes an s: "1 pack",
// "2 packs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
