package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// A Projection keeps tables of the index in step with the archive. The
// package that owns the tables registers it with the store (see
// Options.Projections) and is the only one to run statements on them: it
// declares their schema, applies the archive's records to them, and runs
// its own queries on them. The store owns the rest: the lock, the
// transactions, the index's head, catch-up and rebuild.
//
// Every record reaches Apply through one path, in the transaction that
// indexes it: a live write, a catch-up with commits another process made,
// and a rebuild from the archive alone all apply the same records the same
// way, so that they give the same rows (TestProjectionsConform).
type Projection interface {
	// Name identifies the projection and the version of its tables: the
	// index records the names of the projections it was built with, and
	// is rebuilt when opened with others. Change it with the tables.
	Name() string
	// Tables are the tables the projection owns.
	Tables() []Table
	// Prepare does the CPU work of applying rec, such as parsing text,
	// off the goroutine that writes the index; it returns what Apply
	// needs, or nil. It must not touch the index.
	Prepare(rec record.Record) any
	// Apply writes rec into the projection's tables with what Prepare
	// returned, ignoring the kinds of record it does not keep. Applying
	// a record twice changes nothing, which is what lets a crashed write
	// be replayed.
	Apply(w *Writer, rec record.Record, prepared any) error
}

// An Admitter is a Projection that checks the records it is given as the
// commands that write them check their input: a record another store
// wrote, which sync brought here, passed no check of this one (a broken or
// hostile remote may hold a lease on ** expiring in 2099, of an agent
// nobody registered). Before any projection applies a record, the store
// asks every Admitter: a record one refuses is kept out of the index, what
// an earlier version of it left there is dropped (see Dropper), and the
// refusal is kept for doctor (Store.Refused). Every ingestion path (a live
// write, a catch-up, a rebuild) goes through it, so a refusal must depend
// only on the record and the records before it in the archive's order
// (a project's agents come before its reservations): a rebuild then
// refuses the same.
type Admitter interface {
	// Admit returns why the index must not keep rec, "" to keep it;
	// checked reports whether it judged rec at all (false for the kinds
	// of record it does not check).
	Admit(w *Writer, rec record.Record) (checked bool, refusal string, err error)
}

// A Dropper is a Projection that holds rows of records an Admitter may
// refuse: Drop removes what an earlier version of rec left in its tables.
type Dropper interface {
	Drop(w *Writer, rec record.Record) error
}

// Table is a table of the index and how the store treats it.
type Table struct {
	Name    string   // its name in SQL
	Create  string   // the CREATE TABLE (or CREATE VIRTUAL TABLE) statement
	Indexes []string // its CREATE INDEX statements, "CREATE INDEX name ON table(...)"
	// Setup is statements run once the table is created, such as an
	// FTS5 table's configuration, which the table keeps.
	Setup []string
	// Kept marks a table not derived from the archive (presence): a
	// rebuild keeps its rows, and Check does not compare it.
	Kept bool
	// Local lists the columns whose values belong to one index, such as
	// row ids, which a rebuild may number otherwise: comparisons of two
	// indexes leave them out. (A column named project_id is compared as
	// the slug of the project it names.)
	Local []string
}

// virtual reports whether the table is a virtual table (FTS5), which a
// rebuild drops and creates again rather than emptying row by row.
func (t Table) virtual() bool { return strings.HasPrefix(t.Create, "CREATE VIRTUAL TABLE") }

// Writer is what a projection applies records with: statements in the
// transaction that indexes them. They run through the writer connection's
// cache of prepared statements (_stmt_cache_size), which keeps them from
// one transaction to the next: prepared in the transaction, each write
// parsed and planned them all again (a tenth of a send's index work).
type Writer struct {
	tx       *sql.Tx
	projects map[string]int64 // slug -> row id
	messages int              // messages applied
	refused  []string         // what was kept out of the index, a line each
	anyKept  *bool            // whether the refused table has rows; nil: not read yet
}

func newWriter(tx *sql.Tx) *Writer {
	return &Writer{tx: tx, projects: map[string]int64{}}
}

// Exec runs a statement.
func (w *Writer) Exec(query string, args ...any) (sql.Result, error) {
	return w.tx.Exec(query, args...)
}

// QueryRow runs a query that returns at most one row, in the transaction,
// for a projection that reads its own tables (or, for Admit, another's
// through what that package exports) before it writes.
func (w *Writer) QueryRow(query string, args ...any) *sql.Row {
	return w.tx.QueryRow(query, args...)
}

// ProjectID returns the row id the index knows the project with slug by,
// which the projections' tables refer to it with. A project not seen yet
// gets a row that its project.json fills in: in path order, the records
// of a project's agents come before it.
func (w *Writer) ProjectID(slug string) (int64, error) {
	if id, ok := w.projects[slug]; ok {
		return id, nil
	}
	var id int64
	err := w.tx.QueryRow(`SELECT id FROM projects WHERE slug = ?`, slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		res, err = w.tx.Exec(`INSERT INTO projects(key, slug, created) VALUES ('', ?, '')`, slug)
		if err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("project %s: %w", slug, err)
	}
	w.projects[slug] = id
	return id, nil
}

// projects is the store's own projection: the projects, the top-level
// directories of the archive, which every other projection refers to by
// row id (Writer.ProjectID).
type projects struct{}

// Name is bumped whenever the tables change, so that an index made by
// another version is rebuilt.
func (projects) Name() string { return "projects4" }

func (projects) Tables() []Table {
	return []Table{{
		Name:    "projects",
		Create:  `CREATE TABLE projects(id INTEGER PRIMARY KEY, key TEXT NOT NULL, slug TEXT NOT NULL UNIQUE, created TEXT NOT NULL, archived TEXT NOT NULL DEFAULT '')`,
		Indexes: []string{`CREATE INDEX projects_key ON projects(key)`},
		Local:   []string{"id"},
	}, {
		// The idempotency keys of the writes (see Tx.Replay), by agent
		// (folded) and key.
		Name: "idempotency",
		Create: `CREATE TABLE idempotency(project_id INTEGER NOT NULL, agent TEXT NOT NULL, key TEXT NOT NULL,
			op TEXT NOT NULL, created TEXT NOT NULL, result TEXT NOT NULL, PRIMARY KEY(project_id, agent, key)) WITHOUT ROWID`,
	}, {
		// The records an Admitter kept out of the index, by path, with why.
		Name:   "refused",
		Create: `CREATE TABLE refused(path TEXT PRIMARY KEY, reason TEXT NOT NULL) WITHOUT ROWID`,
	}}
}

func (projects) Prepare(record.Record) any { return nil }

func (projects) Apply(w *Writer, rec record.Record, _ any) error {
	if k, ok := rec.(*record.Idempotency); ok {
		return applyKey(w, k)
	}
	p, ok := rec.(*record.Project)
	if !ok {
		return nil
	}
	if _, err := w.ProjectID(p.Slug); err != nil {
		return err
	}
	_, err := w.Exec(`UPDATE projects SET key = ?, created = ?, archived = ? WHERE slug = ?`, p.Key, record.FormatTime(p.Created), record.FormatTime(p.Archived), p.Slug)
	return err
}

// ProjectRow is a project as the index holds it.
type ProjectRow struct {
	ID       int64 // the row id the projections' tables refer to it by
	Key      string
	Slug     string
	Created  time.Time
	Archived time.Time // zero while the project is active
}

// LookupProject returns the project with slug, if the index holds it.
func LookupProject(ctx context.Context, q Querier, slug string) (ProjectRow, bool, error) {
	return lookupProject(ctx, q, `slug = ?`, slug)
}

// ListProjects returns every project the index holds, by slug.
func ListProjects(ctx context.Context, q Querier) ([]ProjectRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, key, slug, created, archived FROM projects ORDER BY slug`)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	defer rows.Close()
	var out []ProjectRow
	for rows.Next() {
		var p ProjectRow
		var created, archived string
		if err := rows.Scan(&p.ID, &p.Key, &p.Slug, &created, &archived); err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
		p.Created, _ = record.ParseTime(created)
		p.Archived, _ = record.ParseTime(archived)
		out = append(out, p)
	}
	return out, rows.Err()
}

// LookupProjectByKey returns the project with key, ignoring case, the
// oldest when several match.
func LookupProjectByKey(ctx context.Context, q Querier, key string) (ProjectRow, bool, error) {
	return lookupProject(ctx, q, `key = ? COLLATE NOCASE`, key)
}

func lookupProject(ctx context.Context, q Querier, where, arg string) (ProjectRow, bool, error) {
	var p ProjectRow
	var created, archived string
	err := q.QueryRowContext(ctx, `SELECT id, key, slug, created, archived FROM projects WHERE `+where+` ORDER BY created, id LIMIT 1`, arg).
		Scan(&p.ID, &p.Key, &p.Slug, &created, &archived)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("look up project %s: %w", arg, err)
	}
	p.Created, _ = record.ParseTime(created)
	p.Archived, _ = record.ParseTime(archived)
	return p, true, nil
}

// EnsureProject returns the row id of the project with slug, recording
// the project, with key, when the index does not hold it yet: its row
// is made in the transaction and its record queued for the commit. created
// reports that it was new; the row goes if the update is abandoned (see
// OnAbort).
func (t *Tx) EnsureProject(ctx context.Context, key, slug string) (id int64, created bool, err error) {
	p, ok, err := LookupProject(ctx, t, slug)
	if err != nil || ok {
		return p.ID, false, err
	}
	now := t.now
	res, err := t.sql.ExecContext(ctx, `INSERT INTO projects(key, slug, created) VALUES (?, ?, ?)`, key, slug, record.FormatTime(now))
	if err != nil {
		return 0, false, fmt.Errorf("record project %s: %w", slug, err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, false, err
	}
	t.Put(&record.Project{Key: key, Slug: slug, Created: now})
	return id, true, nil
}

// layout is the projections of an index, the store's own first.
type layout []Projection

func newLayout(ps []Projection) layout { return append(layout{projects{}}, ps...) }

// name identifies the index layout: the core schema's version and the
// projections' names, in any order they were registered in.
func (l layout) name() string {
	var names []string
	for _, p := range l {
		names = append(names, p.Name())
	}
	slices.Sort(names)
	return fmt.Sprint(schemaVersion) + "+" + strings.Join(names, "+")
}

// tables returns every table of the projections.
func (l layout) tables() []Table {
	var out []Table
	for _, p := range l {
		out = append(out, p.Tables()...)
	}
	return out
}

// derived returns the tables derived from the archive: those a rebuild
// empties and Check compares.
func (l layout) derived() []Table {
	var out []Table
	for _, t := range l.tables() {
		if !t.Kept {
			out = append(out, t)
		}
	}
	return out
}

// prepare runs the projections' CPU work for a record; it may run on
// another goroutine than apply.
func (l layout) prepare(rec record.Record) []any {
	out := make([]any, len(l))
	for i, p := range l {
		out[i] = p.Prepare(rec)
	}
	return out
}

// apply writes one record into every projection, with what prepare
// returned for it, unless an Admitter refuses it.
func (l layout) apply(w *Writer, rec record.Record, prepared []any) error {
	if _, ok := rec.(*record.Message); ok {
		w.messages++
	}
	if checked, err := l.admit(w, rec); err != nil || !checked {
		return err
	}
	for i, p := range l {
		if err := p.Apply(w, rec, prepared[i]); err != nil {
			return fmt.Errorf("%s: %w", p.Name(), err)
		}
	}
	return nil
}

// admit asks every Admitter about rec. It returns false when one refused
// it, after keeping it out of the index; a record admitted after an
// earlier version of it was refused is no longer listed as refused.
func (l layout) admit(w *Writer, rec record.Record) (bool, error) {
	judged := false
	for _, p := range l {
		a, ok := p.(Admitter)
		if !ok {
			continue
		}
		checked, why, err := a.Admit(w, rec)
		if err != nil {
			return false, fmt.Errorf("%s: %w", p.Name(), err)
		}
		judged = judged || checked
		if why != "" {
			return false, l.refuse(w, rec, why)
		}
	}
	if !judged {
		return true, nil
	}
	if w.anyKept == nil {
		var has bool
		if err := w.tx.QueryRow(`SELECT EXISTS(SELECT 1 FROM refused)`).Scan(&has); err != nil {
			return false, fmt.Errorf("read refused records: %w", err)
		}
		w.anyKept = &has
	}
	if *w.anyKept {
		for _, f := range rec.Files() {
			if _, err := w.tx.Exec(`DELETE FROM refused WHERE path = ?`, f.Path); err != nil {
				return false, fmt.Errorf("admit %s: %w", f.Path, err)
			}
		}
	}
	return true, nil
}

// Refusal returns why the index would keep rec out (see Admitter), ""
// when it would keep it, changing nothing: for what acts on a record
// read from the archive rather than from the index, such as a remote's
// lock that sync makes a holding here yield to.
func (s *Store) Refusal(ctx context.Context, rec record.Record) (string, error) {
	_, rdb := s.pools()
	tx, err := rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", fmt.Errorf("judge %T: %w", rec, err)
	}
	defer tx.Rollback()
	w := newWriter(tx)
	for _, p := range s.proj {
		if a, ok := p.(Admitter); ok {
			if _, why, err := a.Admit(w, rec); err != nil || why != "" {
				return why, err
			}
		}
	}
	return "", nil
}

// refuse keeps rec out of the index: each Dropper drops what an earlier
// version left, and the refused table says why.
func (l layout) refuse(w *Writer, rec record.Record, why string) error {
	for _, p := range l {
		if d, ok := p.(Dropper); ok {
			if err := d.Drop(w, rec); err != nil {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
		}
	}
	for _, f := range rec.Files() {
		if _, err := w.tx.Exec(`INSERT OR REPLACE INTO refused(path, reason) VALUES (?, ?)`, f.Path, why); err != nil {
			return fmt.Errorf("refuse %s: %w", f.Path, err)
		}
		w.refused = append(w.refused, refusedLine(f.Path, why))
	}
	kept := true
	w.anyKept = &kept
	return nil
}

// refusedLine says that the record at path was kept out of the index, and
// why.
func refusedLine(path, why string) string {
	return fmt.Sprintf("kept %s out of the index: %s (another store wrote it and sync brought it here; "+
		"the archive keeps it, nothing here acts on it)", path, why)
}

// Refused returns a line for each record of the archive that the index
// keeps out (see Admitter), by path.
func (s *Store) Refused(ctx context.Context) ([]string, error) {
	rows, err := s.Index().QueryContext(ctx, `SELECT path, reason FROM refused ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("read refused records: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var path, why string
		if err := rows.Scan(&path, &why); err != nil {
			return nil, fmt.Errorf("read refused records: %w", err)
		}
		out = append(out, refusedLine(path, why))
	}
	return out, rows.Err()
}

// indexName returns the name of the index a CREATE INDEX statement makes.
func indexName(create string) string {
	f := strings.Fields(create)
	if len(f) < 3 {
		return ""
	}
	return f[2]
}

// clear empties the derived tables and drops their indexes, for a
// rebuild that fills them and then creates the indexes again: SQLite
// builds an index from all rows at once much faster than it keeps one up
// to date through every insert. Virtual tables are dropped and created
// again, since deleting from one such as FTS5's goes row by row.
func (l layout) clear(tx *sql.Tx) error {
	var stmts []string
	for _, t := range l.derived() {
		for _, ix := range t.Indexes {
			stmts = append(stmts, `DROP INDEX IF EXISTS `+indexName(ix))
		}
		if t.virtual() {
			stmts = append(append(stmts, `DROP TABLE IF EXISTS `+t.Name, t.Create), t.Setup...)
		} else {
			stmts = append(stmts, `DELETE FROM `+t.Name)
		}
	}
	return execAll(tx, stmts)
}

// createIndexes creates the derived tables' indexes that clear dropped.
func (l layout) createIndexes(tx *sql.Tx) error {
	var stmts []string
	for _, t := range l.derived() {
		stmts = append(stmts, t.Indexes...)
	}
	return execAll(tx, stmts)
}

func execAll(tx *sql.Tx, stmts []string) error {
	for _, stmt := range stmts {
		if _, err := tx.Exec(stmt); err != nil {
			return fmt.Errorf("%s: %w", firstLine(stmt), err)
		}
	}
	return nil
}

// NullTime is an optional time as the index keeps it: NULL when unset,
// else as records write it.
func NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return record.FormatTime(t)
}

// Strings runs a query of one text column and returns its values.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
