// Package store ties the archive (a bare git repository, the source of
// truth) to the index (SQLite, a cache rebuilt from the archive on demand)
// and serializes writers on a file lock.
//
// The store owns the index's file, its transactions, the record of the
// archive commit it reflects, catch-up and rebuild, and the table of
// projects; the domain packages own the rest of its tables. Each registers
// a Projection that declares its tables and applies the archive's records
// to them, and runs its own queries on them through a Querier; none reads
// another's tables (TestTablesOwned).
//
// Every write follows the same path: take the lock, bring the index up to
// the archive's head, decide against the index, commit the new records to
// the archive (durably: synced to disk before the commit returns), then
// apply the very same records to the index in one SQL transaction that
// also records the new head. A process killed between the two steps, or a
// power loss, leaves an index behind the archive, which the next command
// notices and heals; the index itself is not synced.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/crash"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/flock"
	"github.com/agentmail/agentmail/internal/record"
	"slices"
)

// Sentinel errors callers branch on.
var (
	// ErrBusy: the store lock was not free within the wait, or another
	// git process held or moved the archive's branch during a write.
	ErrBusy = errors.New("store is busy")
	// ErrNotWritable: the store directory cannot be created or written.
	ErrNotWritable = errors.New("store is not writable")
	// ErrCorrupt: the archive cannot be read.
	ErrCorrupt = errors.New("archive is damaged")
	// ErrNotReadable: the user may not read the store.
	ErrNotReadable = errors.New("store is not readable")
)

// DefaultLockWait is how long a writer waits for the store lock.
const DefaultLockWait = 30 * time.Second

// Past maxPacks packs (each write adds one) or packThreshold loose objects
// (git's own gc.auto default; written by other tools), a write consolidates
// the archive.
const (
	maxPacks      = 64
	packThreshold = 6700
)

// Options tune a Store.
type Options struct {
	LockWait time.Duration    // 0 means DefaultLockWait
	Now      func() time.Time // nil means time.Now
	// Projections are the domain packages' tables of the index. The
	// index records the set it was built with and is rebuilt when opened
	// with another, so that it is never silently behind: every process
	// opening a store should register the same ones.
	Projections []Projection
}

// Querier runs statements on the index: the store's (Store.Index), a
// write transaction's (Tx) or a snapshot's (Store.Snapshot). A domain
// package runs through it the statements on the tables its projection
// owns, and on no other (TestTablesOwned checks it): what it needs of
// another package's tables it asks that package for.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Store is an open store directory.
type Store struct {
	lock  *flock.Lock // held during withLock
	dir   string
	arc   *archive.Archive
	db    *sql.DB
	opts  Options
	proj  layout // the projections, the store's own first
	notes []string
	wrote bool // an Update committed to the archive

	readOnly bool   // the user cannot write the store (see readonly.go)
	private  string // the temporary directory of a read-only store's private index
}

// DefaultDir returns $AGENTMAIL_HOME, else $XDG_DATA_HOME/agentmail, else
// ~/.local/share/agentmail.
func DefaultDir() (string, error) { return DefaultDirIn(os.Getenv) }

// DefaultDirIn is DefaultDir in the environment getenv reads.
func DefaultDirIn(getenv func(string) string) (string, error) {
	if d := getenv("AGENTMAIL_HOME"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "agentmail"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", fmt.Errorf("find the store: %w; set AGENTMAIL_HOME", errNoHome)
	}
	return filepath.Join(home, ".local", "share", "agentmail"), nil
}

// errNoHome is what os.UserHomeDir says on Unix without $HOME.
var errNoHome = errors.New("$HOME is not defined")

// Open opens the store in dir, creating it on first use.
func Open(dir string, opts Options) (*Store, error) {
	if opts.LockWait == 0 {
		opts.LockWait = DefaultLockWait
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{dir: dir, opts: opts, proj: newLayout(opts.Projections)}
	arcDir := filepath.Join(dir, "archive.git")
	if _, err := os.Stat(filepath.Join(arcDir, "HEAD")); errors.Is(err, os.ErrPermission) {
		return nil, fault.WithHint(fmt.Errorf("%w: %s: %v", ErrNotReadable, dir, err),
			"ask the store's owner to let you read it (chmod -R a+rX "+arcDir+"), or point --store or AGENTMAIL_HOME at another store")
	}
	fresh := !archive.Exists(arcDir)
	if fresh {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, notWritable(dir, err)
		}
		if err := s.withLock(func() error { return archive.Init(arcDir, opts.Now()) }); err != nil {
			return nil, err
		}
		// The archive is made private to its creator; open it to whoever
		// may read the store directory, as the index is.
		if fi, err := os.Stat(dir); err == nil {
			os.Chmod(arcDir, fi.Mode().Perm())
		}
	}
	arc, err := archive.Open(arcDir)
	if err != nil {
		return nil, err
	}
	s.arc = arc
	if writable(dir) {
		if err := s.migrate(fresh); err != nil {
			arc.Close()
			return nil, err
		}
	} else {
		s.readOnly = true
		if legacy, _ := arc.Legacy(); legacy {
			arc.Close()
			return nil, fault.WithHint(fmt.Errorf("%w: %s: the archive needs a one-time migration to a branch per project", ErrNotWritable, dir),
				"run any agentmail command as the store's owner once, which migrates it")
		}
		if err := s.openReadOnly(context.Background()); err != nil {
			arc.Close()
			return nil, err
		}
		return s, nil
	}
	db, note, err := openIndex(filepath.Join(dir, "index.db"), s.proj)
	if err != nil {
		if isReadOnly(err) {
			return nil, notWritable(dir, err)
		}
		return nil, fmt.Errorf("open index: %w", err)
	}
	s.db = db
	if note != "" && !fresh {
		s.notes = append(s.notes, note)
	}
	return s, nil
}

// migrate gives each project of an archive made by an earlier version (or
// by archive.Init) its own branch, once, under the lock.
func (s *Store) migrate(fresh bool) error {
	if legacy, err := s.arc.Legacy(); err != nil || !legacy {
		return err
	}
	return s.withLock(func() error {
		if legacy, err := s.arc.Legacy(); err != nil || !legacy {
			return err // another process migrated it meanwhile
		}
		m, err := s.arc.Migrate()
		if err != nil {
			return err
		}
		if !fresh {
			s.notes = append(s.notes, fmt.Sprintf("migrated the archive to one branch per project (%d); the old main branch is kept as %s", len(m.Projects), archive.LegacyRef))
		}
		return nil
	})
}

func isReadOnly(err error) bool {
	msg := err.Error()
	return errors.Is(err, os.ErrPermission) || strings.Contains(msg, "readonly") || strings.Contains(msg, "unable to open database")
}

func notWritable(dir string, err error) error {
	return fault.WithHint(fmt.Errorf("%w: %s: %v", ErrNotWritable, dir, err), "point --store or AGENTMAIL_HOME at a directory you can write")
}

// Close closes the index and the archive.
func (s *Store) Close() error {
	err := s.closeIndex()
	if aerr := s.arc.Close(); err == nil {
		err = aerr
	}
	return err
}

// Dir returns the store directory.
func (s *Store) Dir() string { return s.dir }

// ArchiveDir returns the archive repository's directory.
func (s *Store) ArchiveDir() string { return s.arc.Dir() }

// Index returns the index for statements outside an update, such as
// queries. Call Fresh first.
func (s *Store) Index() Querier { return index{s.db} }

// index is the Querier of the whole index: the pool's methods that run
// statements, and none of those that close it or hand out connections.
type index struct{ db *sql.DB }

func (x index) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return x.db.ExecContext(ctx, query, args...)
}

func (x index) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.db.QueryContext(ctx, query, args...)
}

func (x index) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return x.db.QueryRowContext(ctx, query, args...)
}

// Has reports whether the store was opened with a projection named name.
func (s *Store) Has(name string) bool {
	return slices.ContainsFunc(s.proj, func(p Projection) bool { return p.Name() == name })
}

// Projections returns the projections the store was opened with, for a
// package that asks another's projection what it knows (through an
// interface of its own that the other implements).
func (s *Store) Projections() []Projection { return slices.Clone(s.opts.Projections) }

// Now returns the current time in whole seconds, the precision of every
// timestamp in records.
func (s *Store) Now() time.Time { return s.Clock().Truncate(time.Second) }

// Clock returns the current time, in UTC, at full precision.
func (s *Store) Clock() time.Time { return s.opts.Now().UTC() }

// Notes returns, once, what the store had to repair on its own since the
// last call, one line each.
func (s *Store) Notes() []string {
	n := s.notes
	s.notes = nil
	return n
}

func (s *Store) withLock(fn func() error) error {
	if s.readOnly {
		return s.readOnlyError()
	}
	l, err := flock.Acquire(filepath.Join(s.dir, "lock"), s.opts.LockWait)
	if err != nil {
		if errors.Is(err, flock.ErrTimeout) {
			return fmt.Errorf("%w: %v", ErrBusy, err)
		}
		return notWritable(s.dir, err)
	}
	defer l.Release()
	s.lock = l
	defer func() { s.lock = nil }()
	return fn()
}

// Head returns the archive's current commit: a small file read, for
// callers that poll for changes.
func (s *Store) Head() (string, error) { return s.archiveHead() }

// Snapshot runs fn on the index's connection inside a read transaction,
// so that every statement fn runs sees the same state of the index however
// many it takes, while writers go on. fn must use q for every query.
func (s *Store) Snapshot(ctx context.Context, fn func(q Querier) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read the index: %w", err)
	}
	defer conn.Close()
	// A plain BEGIN defers locking to the first statement and only reads;
	// Update's transactions take the write lock at once (_txlock).
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return fmt.Errorf("read the index: %w", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
			// Never let the pool hand out a connection inside a transaction.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return fn(conn)
}

// Fresh brings the index up to the archive's head. When they already agree
// it costs two small reads and takes no lock.
func (s *Store) Fresh(ctx context.Context) error {
	head, err := s.arc.State()
	if err == nil {
		if idx, err := s.indexHead(s.db); err == nil && idx == head.String() {
			return nil
		}
	}
	if s.readOnly {
		if s.private != "" {
			return s.catchUp(ctx)
		}
		return s.usePrivate(ctx, s.db, "its index is behind the archive")
	}
	return s.withLock(func() error { return s.catchUp(ctx) })
}

type querier interface {
	QueryRow(query string, args ...any) *sql.Row
}

func (s *Store) indexHead(q querier) (string, error) {
	var h string
	err := q.QueryRow(`SELECT value FROM meta WHERE key = 'head'`).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return h, err
}

// archiveHead reads the projects' branches (archive.State's String form),
// retrying briefly: a ref that cannot be read is a concurrent rewrite by a
// foreign tool, never "empty".
func (s *Store) archiveHead() (string, error) {
	var err error
	for i := 0; i < 20; i++ {
		var st archive.State
		if st, err = s.arc.State(); err == nil {
			return st.String(), nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "", fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// catchUp ingests the commits between the index's head and the archive's.
// The caller holds the lock.
func (s *Store) catchUp(ctx context.Context) error {
	head, err := s.archiveHead()
	if err != nil {
		return err
	}
	idx, err := s.indexHead(s.db)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	if idx == head {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("catch up: %w", err)
	}
	defer tx.Rollback()
	if idx == "" {
		// A new index.
		if _, err := s.ingestAll(tx, head, nil); err != nil {
			return err
		}
		return tx.Commit()
	}
	if _, err := s.ingest(tx, idx, head, nil); err != nil {
		// The index's commit may be gone (an archive replaced by hand):
		// start over from nothing.
		if _, err := s.ingestAll(tx, head, nil); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ingest applies every record changed between commits from and to, and
// records to as the index's head; indexed, when not nil, is told the
// number of messages indexed so far after each one. Three goroutines share
// the work, each feeding the next in order: reading the archive (inflating
// objects), decoding and preparing records (front matter, plain text, FTS
// tokens), and the SQL inserts, which must stay on one connection.
func (s *Store) ingest(tx *sql.Tx, from, to string, indexed func(int)) (int, error) {
	type file struct {
		path string
		data []byte
	}
	type item struct {
		path     string
		rec      record.Record
		prepared []any
		err      error
	}
	files := make(chan file, 512)
	items := make(chan item, 512)
	stop := make(chan struct{})
	var walkErr error
	go func() {
		defer close(files)
		walkErr = s.arc.ProjectChanges(from, to, record.SkipCopies, func(path string, data []byte) error {
			select {
			case files <- file{path, data}:
				return nil
			case <-stop:
				return errStopped
			}
		})
	}()
	go func() {
		// items is closed only once files is, so that walkErr is final
		// when the range over items below ends.
		defer close(items)
		stopped := false
		for f := range files {
			if stopped {
				continue // drain
			}
			rec, err := record.Decode(f.path, f.data)
			if rec == nil && err == nil {
				continue
			}
			var prepared []any
			if err == nil {
				prepared = s.proj.prepare(rec)
			}
			select {
			case items <- item{f.path, rec, prepared, err}:
			case <-stop:
				stopped = true
			}
		}
	}()
	w := newWriter(tx)
	defer w.close()
	var applyErr error
	for it := range items {
		if applyErr != nil {
			continue // drain
		}
		if it.err != nil {
			s.notes = append(s.notes, "skipped "+it.err.Error())
			continue
		}
		before := w.messages
		if err := s.proj.apply(w, it.rec, it.prepared); err != nil {
			applyErr = fmt.Errorf("index %s: %w", it.path, err)
			close(stop)
		} else if indexed != nil && w.messages != before {
			indexed(w.messages)
		}
	}
	if applyErr != nil {
		return 0, applyErr
	}
	if walkErr != nil {
		return 0, fmt.Errorf("%w: %v", ErrCorrupt, walkErr)
	}
	if err := setHead(tx, to, w.messages, from == ""); err != nil {
		return 0, err
	}
	return w.messages, nil
}

var errStopped = errors.New("stopped")

// ingestAll empties the derived tables and fills them from the whole
// archive up to head, telling indexed as ingest does. Their secondary
// indexes are dropped first and built again at the end (see layout.clear).
func (s *Store) ingestAll(tx *sql.Tx, head string, indexed func(int)) (int, error) {
	if err := s.proj.clear(tx); err != nil {
		return 0, fmt.Errorf("clear the index: %w", err)
	}
	n, err := s.ingest(tx, "", head, indexed)
	if err != nil {
		return 0, err
	}
	if err := s.proj.createIndexes(tx); err != nil {
		return 0, fmt.Errorf("index the index: %w", err)
	}
	return n, nil
}

// setHead records head as the archive commit the index reflects, and
// counts the messages applied to reach it (from scratch: all of them), the
// estimate of a rebuild's progress.
func setHead(tx *sql.Tx, head string, messages int, scratch bool) error {
	_, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('head', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, head)
	if err == nil && (messages > 0 || scratch) {
		_, err = tx.Exec(`INSERT INTO meta(key, value) VALUES ('messages', ?1)
			ON CONFLICT(key) DO UPDATE SET value = CASE WHEN ?2 THEN ?1 ELSE CAST(value AS INTEGER) + ?1 END`, messages, scratch)
	}
	return err
}

// Tx is a write in progress: reads see the index as of the archive's head,
// Put queues records for the commit. It is the Querier of the update's
// transaction.
type Tx struct {
	sql       *sql.Tx
	now       time.Time // when the update began, as Store.Now
	recs      []record.Record
	author    string
	subject   string
	committed bool     // the archive has the commit
	aborted   []func() // run when the update writes nothing
}

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.sql.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.sql.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query for at most one row in the transaction.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.sql.QueryRowContext(ctx, query, args...)
}

// Put queues records to be committed when the update function returns nil.
func (t *Tx) Put(recs ...record.Record) { t.recs = append(t.recs, recs...) }

// Describe sets the commit's author (an agent name) and one-line subject.
func (t *Tx) Describe(author, subject string) { t.author, t.subject = author, subject }

// OnAbort registers fn to run should the update write nothing after all
// (the update function or the archive commit fails), for a caller that
// keeps state learnt inside the transaction, such as the row id of a
// project the transaction creates.
func (t *Tx) OnAbort(fn func()) { t.aborted = append(t.aborted, fn) }

// Update runs fn under the store lock against an up-to-date index, then
// commits the records fn queued (one archive commit for all of them) and
// indexes them. If fn returns an error nothing is written.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	var t *Tx
	err := s.withLock(func() error {
		var err error
		if t, err = s.begin(ctx); err != nil {
			return err
		}
		sqlTx := t.sql
		defer sqlTx.Rollback()
		if err := fn(t); err != nil {
			return err
		}
		if len(t.recs) > 0 {
			if err := s.commit(t); err != nil {
				return s.committed(ctx, t, err)
			}
		}
		crash.Point(crash.BeforeIndexCommit)
		if err := sqlTx.Commit(); err != nil {
			return s.committed(ctx, t, fmt.Errorf("index commit: %w", err))
		}
		crash.Point(crash.AfterIndexCommit)
		if s.shouldPack() {
			if err := s.arc.Pack(s.lock.File()); err != nil {
				s.notes = append(s.notes, "could not pack the archive: "+err.Error())
			}
		}
		return nil
	})
	if err != nil && t != nil && !t.committed {
		for _, undo := range t.aborted {
			undo()
		}
	}
	return err
}

// begin catches the index up with the archive and begins the transaction
// of an update. The caller holds the lock, and rolls the transaction back.
func (s *Store) begin(ctx context.Context) (*Tx, error) {
	if err := s.catchUp(ctx); err != nil {
		return nil, err
	}
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &Tx{sql: sqlTx, now: s.Now()}, nil
}

// committed handles err, met while indexing the write of t. Once the
// archive has the commit, the write is done: an index found damaged then is
// rebuilt from the archive, which holds the write too, rather than failing
// a command that must not be repeated.
func (s *Store) committed(ctx context.Context, t *Tx, err error) error {
	if !t.committed || !IsIndexDamaged(err) {
		return err
	}
	t.sql.Rollback()
	return s.rebuildDamaged(ctx, err)
}

// Wrote reports whether an Update of this Store has committed to the
// archive: a command that did cannot simply be run again.
func (s *Store) Wrote() bool { return s.wrote }

// shouldPack decides whether the archive needs consolidating.
func (s *Store) shouldPack() bool {
	return s.arc.Packs() > maxPacks || s.arc.LooseObjects() > packThreshold
}

// commit returns the archive commit of t's records, made at now: their
// files, its author and its subject.
func (t *Tx) commit(now time.Time) (changes []archive.Change, author archive.Author, subject string) {
	for _, r := range t.recs {
		for _, f := range r.Files() {
			changes = append(changes, archive.Change{Path: f.Path, Data: f.Data})
		}
	}
	name := t.author
	if name == "" {
		name = "agentmail"
	}
	subject = t.subject
	if subject == "" {
		subject = fmt.Sprintf("update: %d records", len(t.recs))
	}
	return changes, archive.Author{Name: name, Email: strings.ToLower(name) + "@agentmail", When: now}, subject
}

func (s *Store) commit(t *Tx) error {
	parent, err := s.indexHead(t.sql)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	changes, author, subject := t.commit(s.Now())
	cache, err := newObjectCache(t.sql)
	if err != nil {
		return err
	}
	defer cache.close()
	res, err := s.arc.CommitProjects(parent, changes, author, subject, cache)
	if errors.Is(err, archive.ErrRefLocked) || errors.Is(err, archive.ErrMoved) {
		// Another git process is at work on the archive; nothing was
		// written, and the command can run again.
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	if err != nil {
		return err
	}
	t.committed, s.wrote = true, true
	return s.indexRecords(t.sql, t.recs, res, res.Head)
}

// indexRecords indexes recs, just committed as res, and records head (the
// archive's state) as the index's.
func (s *Store) indexRecords(tx *sql.Tx, recs []record.Record, res archive.Result, head string) error {
	if err := cacheObjects(tx, res); err != nil {
		return err
	}
	w := newWriter(tx)
	defer w.close()
	for _, r := range recs {
		if err := s.proj.apply(w, r, s.proj.prepare(r)); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	return setHead(tx, head, w.messages, false)
}

// objectCache serves archive objects from the index's objects table: the
// commit and trees of the archive's head along recently written paths, so
// that a write reads them from the index instead of the archive, where
// finding them means loading the index of every pack.
type objectCache struct {
	get *sql.Stmt
}

func newObjectCache(tx *sql.Tx) (*objectCache, error) {
	st, err := tx.Prepare(`SELECT data FROM objects WHERE hash = ?`)
	if err != nil {
		return nil, fmt.Errorf("object cache: %w", err)
	}
	return &objectCache{get: st}, nil
}

func (c *objectCache) close() { c.get.Close() }

// Object implements archive.Cache.
func (c *objectCache) Object(hash string) ([]byte, bool) {
	var data []byte
	if err := c.get.QueryRow(hash).Scan(&data); err != nil {
		return nil, false
	}
	return data, true
}

// cacheObjects replaces the objects a commit made stale with the ones it
// wrote, so the cache holds the head's recently written paths and no more.
// Statements carry many rows each: a write touches a few dozen objects.
func cacheObjects(tx *sql.Tx, res archive.Result) error {
	const chunk = 400 // well below SQLite's limit on bound variables
	for i := 0; i < len(res.Stale); i += chunk {
		part := res.Stale[i:min(i+chunk, len(res.Stale))]
		args := make([]any, len(part))
		for j, h := range part {
			args[j] = h
		}
		q := `DELETE FROM objects WHERE hash IN (?` + strings.Repeat(",?", len(args)-1) + `)`
		if _, err := tx.Exec(q, args...); err != nil {
			return fmt.Errorf("object cache: %w", err)
		}
	}
	args := make([]any, 0, 2*chunk)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := `INSERT OR REPLACE INTO objects(hash, data) VALUES (?,?)` + strings.Repeat(",(?,?)", len(args)/2-1)
		_, err := tx.Exec(q, args...)
		args = args[:0]
		return err
	}
	for h, data := range res.Written {
		args = append(args, h, data)
		if len(args) == 2*chunk {
			if err := flush(); err != nil {
				return fmt.Errorf("object cache: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("object cache: %w", err)
	}
	return nil
}
