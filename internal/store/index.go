package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// schemaVersion is bumped whenever the layout of the store's own tables
// changes, or the way projections are kept; an index of another version
// (or built with other projections, see layout.name) is rebuilt from the
// archive on open.
const schemaVersion = 14

// schema is the store's own part of the index: meta records the archive
// commit the index reflects; the projections' tables follow it.
var schema = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	// objects caches the raw commit and trees of the archive's head along
	// recently written paths (see archive.Cache). Content-addressed, so
	// never stale, and left alone by rebuilds.
	`CREATE TABLE objects(hash TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID`,
}

// driverName is go-sqlite3 with the WAL kept between connections: SQLite
// otherwise deletes the -wal and -shm files when the last connection
// closes, and every agentmail process, being the last, created and deleted
// both. Emptied at close (SQLite truncates a kept WAL to nothing when the
// last connection closes, given any journal_size_limit), a kept WAL is
// inert even if index.db is deleted beside it; a stale -shm is rebuilt by
// the next opener.
const driverName = "sqlite3_agentmail"

// walSizeLimit is the journal_size_limit: the size down to which SQLite
// truncates the WAL as it starts it again after a checkpoint. Above what
// a checkpoint's worth of commits fills (1,000 pages, 4 MB), so that
// commits overwrite the file rather than extend it: at 0, every commit
// after a checkpoint grew it again, a block at a time (a send's COMMIT at
// 100,000 messages, median of 1,000 in pairs: 242-289 µs, was 309-402).
const walSizeLimit = 16 << 20

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", walSizeLimit), nil); err != nil {
			return err
		}
		if err := c.SetFileControlInt("main", sqlite3.SQLITE_FCNTL_PERSIST_WAL, 1); err != nil {
			return err
		}
		if connectHook != nil {
			connectHook(c)
		}
		return nil
	}})
}

// connectHook, when set (by tests), is given each new connection to an
// index once it is set up: TestOneShotOpenStatements counts what a
// one-shot process's open asks of SQLite.
var connectHook func(*sqlite3.SQLiteConn)

// JoinParam is a parameter compared for equality, or a LIMIT, in a query
// that SQLite plans by the values bound: "+?", not "?" (and "+?1", not
// "?1"). Planning a query that joins tables or has subqueries, reads a
// table with a partial index (is the index's condition implied?), or
// orders by a primary key, SQLite may look at the value bound to a
// parameter, and then marks the statement to be compiled again when its
// parameters are cleared, which go-sqlite3 does each time it keeps a
// statement for reuse: every run of the statement compiled it again. The
// unary plus, which changes no value, keeps the parameter out of the plan;
// the plan is the same. sqlitetest.CompiledOnce tells whether a query
// needs it.
const JoinParam = "+?"

// sqliteURI is path as an SQLite URI filename. "%", "?" and "#" in it are
// escaped: SQLite would take them for the URI's syntax (a store under a
// directory named "#1" would put its index elsewhere), and go-sqlite3 for
// the start of its options.
func sqliteURI(path string) string {
	return "file:" + uriEscaper.Replace(path)
}

// uriEscaper is sqliteURI's replacer, made once: a replacer builds its
// table of 256 entries as it first replaces, which a new one per call did
// in every process (11-15 µs of a one-shot command's CPU, issue 25).
var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// busyTimeout is how long a statement waits for another connection's lock
// on the index (SQLite's busy timeout) before it fails "database is locked".
const busyTimeout = 30 * time.Second

// openDB opens the index's writer: one connection, whose transactions take
// SQLite's write lock as they begin (_txlock=immediate). Its page cache is
// 16 MB: a long-lived server filled 64 MB of it with pages the OS caches
// anyway (serve's RSS after the bench's sends: 149 → 123 MB, sends and
// seeding as fast).
func openDB(path string) (*sql.DB, error) {
	dsn := sqliteURI(path) + fmt.Sprintf("?_journal_mode=WAL&_synchronous=OFF&_busy_timeout=%d&", busyTimeout.Milliseconds()) + "_txlock=immediate&_cache_size=-16384&_stmt_cache_size=32"
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// maxReaders is the number of read connections to the index: queries
// beyond it wait for one. Each caches up to 4 MB of pages: in a
// long-lived server 16 MB each grew to 64 MB of copies of what the
// operating system caches anyway, and the pages at 100,000 messages take
// no longer with 4 (the message page: 3.7 and 3.8 ms with 16 MB, 2.9 and
// 3.7 ms with 4, in-process, alternated).
const maxReaders = 4

// openReaders opens the read connections to the index at path, which
// openIndex has made: WAL lets them read while the writer writes.
// query_only keeps a statement that would write from running on them.
// They sync nothing, as the writer: the last connection of a process to
// close checkpoints the WAL into index.db, and a reader's default
// (synchronous=NORMAL) had that checkpoint sync the WAL, the directory and
// index.db, three fsyncs as a read or a send exited, for an index that
// is never synced (the archive is; see Store).
func openReaders(path string) (*sql.DB, error) {
	dsn := sqliteURI(path) + fmt.Sprintf("?_synchronous=OFF&_busy_timeout=%d&_query_only=1&_cache_size=-4096&_stmt_cache_size=32", busyTimeout.Milliseconds())
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxReaders)
	db.SetMaxIdleConns(maxReaders)
	return db, nil
}

// openReaders returns the read connections to the index at path, whose
// writer is db: db itself for a store of one connection
// (Options.OneShot).
func (s *Store) openReaders(path string, db *sql.DB) (*sql.DB, error) {
	if s.opts.OneShot {
		return db, nil
	}
	return openReaders(path)
}

// openIndex opens (creating or rebuilding as needed) the index at path,
// with the tables of l. It returns a note when the index had to be thrown
// away.
func openIndex(path string, l layout) (*sql.DB, string, error) {
	_, statErr := os.Stat(path)
	missing := errors.Is(statErr, os.ErrNotExist)
	db, err := openDB(path)
	if err != nil {
		return nil, "", err
	}
	version, err := userVersion(db)
	// Switching a new database to WAL needs a moment of exclusive access,
	// and SQLite answers "locked" at once rather than waiting when another
	// process is doing the same: try again for a while.
	for wait := time.Duration(0); err != nil && isBusy(err) && wait < 5*time.Second; wait += 10 * time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		version, err = userVersion(db)
	}
	note := ""
	switch {
	case err != nil && isCorrupt(err):
		cause := err
		db.Close()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if rerr := os.Remove(path + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				return nil, "", fmt.Errorf("remove corrupt index: %w", rerr)
			}
		}
		if db, err = openDB(path); err != nil {
			return nil, "", err
		}
		note = fmt.Sprintf("the index was unreadable (%v); rebuilt it from the archive", cause)
		version = 0
	case err != nil:
		db.Close()
		return nil, "", err
	case missing:
		note = "the index was missing; built it from the archive"
	}
	if version == schemaVersion {
		var have string
		if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'layout'`).Scan(&have); err != nil || have != l.name() {
			version = -1
		}
	}
	if version != schemaVersion {
		if version != 0 {
			note = "the index was built by another version of agentmail; rebuilt it from the archive"
		}
		if err := createSchema(db, l); err != nil {
			db.Close()
			return nil, "", fmt.Errorf("create index: %w", err)
		}
	}
	return db, note, nil
}

func userVersion(db *sql.DB) (int, error) {
	var v int
	err := db.QueryRow(`PRAGMA user_version`).Scan(&v)
	return v, err
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

func isCorrupt(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB
	}
	return false
}

// createSchema (re)creates every table, inside one transaction, unless a
// concurrent process already did. A kept table (presence) whose table and
// indexes are as the layout creates them keeps its rows: they are not
// derived from the archive, so a rebuild could not bring them back.
func createSchema(db *sql.DB, l layout) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v == schemaVersion {
		var have string
		if tx.QueryRow(`SELECT value FROM meta WHERE key = 'layout'`).Scan(&have) == nil && have == l.name() {
			return nil
		}
	}
	kept, err := unchangedKept(tx, l)
	if err != nil {
		return err
	}
	// Virtual tables' shadow tables go with them.
	rows, err := tx.Query(`SELECT type, name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%'
		AND name NOT IN (SELECT m.name || s.suffix FROM sqlite_master m, (SELECT '_data' AS suffix UNION SELECT '_idx'
		UNION SELECT '_content' UNION SELECT '_docsize' UNION SELECT '_config') s WHERE m.sql LIKE 'CREATE VIRTUAL TABLE%')`)
	if err != nil {
		return err
	}
	var drops []string
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			rows.Close()
			return err
		}
		if !kept[name] {
			drops = append(drops, fmt.Sprintf("DROP %s IF EXISTS %q", strings.ToUpper(typ), name))
		}
	}
	rows.Close()
	stmts := append(drops, schema...)
	for _, t := range l.tables() {
		if !kept[t.Name] {
			stmts = append(append(append(stmts, t.Create), t.Setup...), t.Indexes...)
		}
	}
	if err := execAll(tx, stmts); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('layout', ?)`, l.name()); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// unchangedKept returns the kept tables of l that the
// index already has exactly as l creates them, indexes included.
func unchangedKept(tx *sql.Tx, l layout) (map[string]bool, error) {
	kept := map[string]bool{}
	for _, t := range l.tables() {
		if !t.Kept {
			continue
		}
		rows, err := tx.Query(`SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC, sql`, t.Name)
		if err != nil {
			return nil, err
		}
		var have []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, err
			}
			have = append(have, s)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		want := append([]string{t.Create}, slices.Sorted(slices.Values(t.Indexes))...)
		kept[t.Name] = slices.Equal(have, want)
	}
	return kept, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
