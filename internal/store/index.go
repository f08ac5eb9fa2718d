package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// schemaVersion is bumped whenever the index layout changes; an index of
// another version is rebuilt from the archive on open.
const schemaVersion = 13

// schema is the index layout. Everything but presence is derived from the
// archive.
var schema = []string{
	`CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE projects(id INTEGER PRIMARY KEY, key TEXT NOT NULL, slug TEXT NOT NULL UNIQUE, created TEXT NOT NULL)`,
	`CREATE INDEX projects_key ON projects(key)`,
	`CREATE TABLE agents(project_id INTEGER NOT NULL, fold TEXT NOT NULL, name TEXT NOT NULL,
		program TEXT NOT NULL, model TEXT NOT NULL, task TEXT NOT NULL,
		registered TEXT NOT NULL, updated TEXT NOT NULL, retired INTEGER NOT NULL DEFAULT 0, policy TEXT NOT NULL DEFAULT '',
		PRIMARY KEY(project_id, fold)) WITHOUT ROWID`,
	// presence is keyed by project slug, not row id: it outlives rebuilds.
	`CREATE TABLE presence(slug TEXT NOT NULL, fold TEXT NOT NULL, last_seen TEXT NOT NULL,
		PRIMARY KEY(slug, fold)) WITHOUT ROWID`,
	`CREATE TABLE messages(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, project_id INTEGER NOT NULL,
		thread TEXT NOT NULL, named_thread TEXT NOT NULL, sender TEXT NOT NULL,
		to_list TEXT NOT NULL, cc_list TEXT NOT NULL, bcc_list TEXT NOT NULL,
		subject TEXT NOT NULL, importance TEXT NOT NULL, ack_required INTEGER NOT NULL,
		category TEXT NOT NULL, reply_to TEXT NOT NULL, created TEXT NOT NULL, hold_ms INTEGER NOT NULL DEFAULT 0,
		path TEXT NOT NULL, body TEXT NOT NULL)`,
	`CREATE INDEX messages_project ON messages(project_id, id)`,
	`CREATE INDEX messages_thread ON messages(project_id, thread, id)`,
	`CREATE INDEX messages_sender ON messages(project_id, sender, id)`,
	// seq is the message's messages.seq, so that the seqs of an agent's mail
	// (which search checks hits against) are read from this table alone.
	`CREATE TABLE recipients(project_id INTEGER NOT NULL, agent TEXT NOT NULL, message_id TEXT NOT NULL, seq INTEGER NOT NULL,
		kind TEXT NOT NULL, read_at TEXT, acked_at TEXT,
		urgent INTEGER NOT NULL DEFAULT 0, ack_required INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY(project_id, agent, message_id)) WITHOUT ROWID`,
	`CREATE INDEX recipients_message ON recipients(message_id)`,
	// What agentmail check counts and lists, in time proportional to the
	// unread (unacknowledged) mail rather than to all mail received. The
	// indexes cover the columns of their WHERE clauses: without read_at
	// (acked_at) in the index SQLite visits the table for every entry.
	`CREATE INDEX recipients_unread ON recipients(project_id, agent, message_id, urgent, read_at) WHERE read_at IS NULL`,
	`CREATE INDEX recipients_unacked ON recipients(project_id, agent, message_id, ack_required, acked_at) WHERE ack_required AND acked_at IS NULL`,
	`CREATE TABLE reservations(id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, agent TEXT NOT NULL,
		pattern TEXT NOT NULL, exclusive INTEGER NOT NULL, reason TEXT NOT NULL, created TEXT NOT NULL,
		expires TEXT NOT NULL, released TEXT, released_by TEXT NOT NULL, release_reason TEXT NOT NULL)`,
	`CREATE INDEX reservations_open ON reservations(project_id, released, expires)`,
	`CREATE TABLE locks(project_id INTEGER NOT NULL, key TEXT NOT NULL, holder TEXT NOT NULL,
		created TEXT NOT NULL, expires TEXT NOT NULL, released TEXT, run TEXT NOT NULL DEFAULT '',
		PRIMARY KEY(project_id, key)) WITHOUT ROWID`,
	`CREATE TABLE contacts(project_id INTEGER NOT NULL, requester TEXT NOT NULL, target TEXT NOT NULL,
		state TEXT NOT NULL, reason TEXT NOT NULL, requested TEXT NOT NULL, decided TEXT, expires TEXT,
		PRIMARY KEY(project_id, requester, target)) WITHOUT ROWID`,
	// The requests waiting for an agent's answer, which check counts.
	`CREATE INDEX contacts_waiting ON contacts(project_id, target) WHERE state = 'requested'`,
	// objects caches the raw commit and trees of the archive's head along
	// recently written paths (see archive.Cache). Content-addressed, so
	// never stale, and left alone by rebuilds.
	`CREATE TABLE objects(hash TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID`,
}

// derivedTables are emptied by a rebuild; presence is kept.
var derivedTables = []string{"projects", "agents", "messages", "recipients", "reservations", "locks", "contacts"}

// schemaIndex is a CREATE INDEX statement of the schema.
type schemaIndex struct{ name, create string }

// derivedIndexes returns the schema's secondary indexes on derived tables.
func derivedIndexes() []schemaIndex {
	var out []schemaIndex
	for _, stmt := range schema {
		// CREATE INDEX name ON table(columns) [WHERE ...]
		f := strings.Fields(stmt)
		if len(f) < 5 || f[0] != "CREATE" || f[1] != "INDEX" || f[3] != "ON" {
			continue
		}
		table, _, _ := strings.Cut(f[4], "(")
		if slices.Contains(derivedTables, table) {
			out = append(out, schemaIndex{name: f[2], create: stmt})
		}
	}
	return out
}

// driverName is go-sqlite3 with the WAL kept between connections: SQLite
// otherwise deletes the -wal and -shm files when the last connection
// closes, and every agentmail process, being the last, created and deleted
// both. Emptied at close (journal_size_limit), a kept WAL is inert even if
// index.db is deleted beside it; a stale -shm is rebuilt by the next opener.
const driverName = "sqlite3_agentmail"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec("PRAGMA journal_size_limit = 0", nil); err != nil {
			return err
		}
		return c.SetFileControlInt("main", sqlite3.SQLITE_FCNTL_PERSIST_WAL, 1)
	}})
}

func openDB(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=OFF&_busy_timeout=30000&_txlock=immediate&_cache_size=-65536&_stmt_cache_size=32"
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// openIndex opens (creating or rebuilding as needed) the index at path,
// with the tables of exts. It returns a note when the index had to be thrown
// away.
func openIndex(path string, exts []Extension) (*sql.DB, string, error) {
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
	layout := layoutName(exts)
	if version == schemaVersion {
		var have string
		if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'layout'`).Scan(&have); err != nil || have != layout {
			version = -1
		}
	}
	if version != schemaVersion {
		if version != 0 {
			note = "the index was built by another version of agentmail; rebuilt it from the archive"
		}
		if err := createSchema(db, exts, layout); err != nil {
			db.Close()
			return nil, "", fmt.Errorf("create index: %w", err)
		}
	}
	return db, note, nil
}

// layoutName identifies the index layout: the core schema and the
// extensions' names.
func layoutName(exts []Extension) string {
	parts := []string{fmt.Sprint(schemaVersion)}
	for _, e := range exts {
		parts = append(parts, e.Name())
	}
	return strings.Join(parts, "+")
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
// concurrent process already did.
func createSchema(db *sql.DB, exts []Extension, layout string) error {
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
		if tx.QueryRow(`SELECT value FROM meta WHERE key = 'layout'`).Scan(&have) == nil && have == layout {
			return nil
		}
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
		drops = append(drops, fmt.Sprintf("DROP %s IF EXISTS %q", strings.ToUpper(typ), name))
	}
	rows.Close()
	stmts := append(drops, schema...)
	for _, e := range exts {
		stmts = append(stmts, e.Schema()...)
	}
	for _, stmt := range stmts {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("%s: %w", firstLine(stmt), err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('layout', ?)`, layout); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// indexer applies decoded records to the index inside one transaction.
type indexer struct {
	exts     []Extension
	tx       *sql.Tx
	projects map[string]int64
	stmts    map[string]*sql.Stmt
	messages int
}

func newIndexer(tx *sql.Tx, exts []Extension) *indexer {
	return &indexer{exts: exts, tx: tx, projects: map[string]int64{}, stmts: map[string]*sql.Stmt{}}
}

func (ix *indexer) exec(query string, args ...any) error {
	st := ix.stmts[query]
	if st == nil {
		var err error
		if st, err = ix.tx.Prepare(query); err != nil {
			return err
		}
		ix.stmts[query] = st
	}
	_, err := st.Exec(args...)
	return err
}

func (ix *indexer) close() {
	for _, st := range ix.stmts {
		st.Close()
	}
}

// projectID returns the row id of the project with slug, creating a
// placeholder row that project.json fills in (in path order, a project's
// agents come before its project.json).
func (ix *indexer) projectID(slug string) (int64, error) {
	if id, ok := ix.projects[slug]; ok {
		return id, nil
	}
	var id int64
	err := ix.tx.QueryRow(`SELECT id FROM projects WHERE slug = ?`, slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		res, err = ix.tx.Exec(`INSERT INTO projects(key, slug, created) VALUES ('', ?, '')`, slug)
		if err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("project %s: %w", slug, err)
	}
	ix.projects[slug] = id
	return id, nil
}

// prepare runs the extensions' CPU work for a record; it may run on another
// goroutine than apply.
func prepare(exts []Extension, rec record.Record) []any {
	m, ok := rec.(*record.Message)
	if !ok || len(exts) == 0 {
		return nil
	}
	out := make([]any, len(exts))
	for i, e := range exts {
		out[i] = e.Prepare(m)
	}
	return out
}

// apply writes one record into the index, with what prepare returned for
// it. Applying the same record twice changes nothing, which is what lets a
// crashed write be replayed.
func (ix *indexer) apply(rec record.Record, prepared []any) error {
	switch r := rec.(type) {
	case *record.Project:
		if _, err := ix.projectID(r.Slug); err != nil {
			return err
		}
		return ix.exec(`UPDATE projects SET key = ?, created = ? WHERE slug = ?`, r.Key, record.FormatTime(r.Created), r.Slug)
	case *record.Agent:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		return ix.exec(`INSERT INTO agents(project_id, fold, name, program, model, task, registered, updated, retired, policy)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(project_id, fold) DO UPDATE SET name = excluded.name, program = excluded.program,
			model = excluded.model, task = excluded.task, registered = excluded.registered, updated = excluded.updated,
			retired = excluded.retired, policy = excluded.policy`,
			pid, strings.ToLower(r.Name), r.Name, r.Program, r.Model, r.Task, record.FormatTime(r.Registered), record.FormatTime(r.Updated), r.Retired, r.Policy)
	case *record.Message:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		ix.messages++
		seq, inserted, err := ix.insertMessage(pid, r)
		if err != nil || !inserted {
			return err
		}
		for i, e := range ix.exts {
			if err := e.Apply(ix.tx, seq, prepared[i]); err != nil {
				return fmt.Errorf("%s: %w", e.Name(), err)
			}
		}
		for kind, names := range map[string][]string{"to": r.To, "cc": r.Cc, "bcc": r.Bcc} {
			for _, n := range names {
				if err := ix.exec(`INSERT INTO recipients(project_id, agent, message_id, seq, kind, urgent, ack_required)
					VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
					pid, n, r.ID, seq, kind, r.Importance == "high" || r.Importance == "urgent", r.AckRequired); err != nil {
					return err
				}
			}
		}
		return nil
	case *record.Receipt:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		return ix.exec(`UPDATE recipients SET read_at = ?, acked_at = ? WHERE project_id = ? AND agent = ? AND message_id = ?`,
			nullTime(r.ReadAt), nullTime(r.AckedAt), pid, r.Agent, r.Message)
	case *record.Reservation:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		return ix.exec(`INSERT OR REPLACE INTO reservations(id, project_id, agent, pattern, exclusive, reason,
			created, expires, released, released_by, release_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, pid, r.Agent, r.Pattern, r.Exclusive, r.Reason, record.FormatTime(r.Created),
			record.FormatTime(r.Expires), nullTime(r.Released), r.ReleasedBy, r.ReleaseReason)
	case *record.Contact:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		return ix.exec(`INSERT OR REPLACE INTO contacts(project_id, requester, target, state, reason, requested, decided, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pid, r.From, r.To, r.State, r.Reason, record.FormatTime(r.Requested),
			nullTime(r.Decided), nullTime(r.Expires))
	case *record.Lock:
		pid, err := ix.projectID(r.Project)
		if err != nil {
			return err
		}
		return ix.exec(`INSERT OR REPLACE INTO locks(project_id, key, holder, created, expires, released, run)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, pid, r.Key, r.Holder, record.FormatTime(r.Created),
			record.FormatTime(r.Expires), nullTime(r.Released), r.Run)
	}
	return fmt.Errorf("index: unknown record type %T", rec)
}

// insertMessage adds a message row unless it is there already, and returns
// its row id.
func (ix *indexer) insertMessage(pid int64, r *record.Message) (int64, bool, error) {
	const q = `INSERT INTO messages(id, project_id, thread, named_thread, sender, to_list, cc_list, bcc_list,
		subject, importance, ack_required, category, reply_to, created, hold_ms, path, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`
	st := ix.stmts[q]
	if st == nil {
		var err error
		if st, err = ix.tx.Prepare(q); err != nil {
			return 0, false, err
		}
		ix.stmts[q] = st
	}
	res, err := st.Exec(r.ID, pid, r.ThreadID(), r.Thread, r.From, strings.Join(r.To, ","), strings.Join(r.Cc, ","), strings.Join(r.Bcc, ","),
		r.Subject, r.Importance, r.AckRequired, r.Category, r.ReplyTo, record.FormatTime(r.Created), r.Hold.Milliseconds(), r.Path(), r.Body)
	if err != nil {
		return 0, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	seq, err := res.LastInsertId()
	return seq, err == nil, err
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return record.FormatTime(t)
}
