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
//
// A Store serves any number of goroutines at once. Reads run concurrently
// on a pool of read connections (SQLite's WAL lets them go on while a
// write commits), unless the store was opened with one connection for
// everything (Options.OneConnection, the command line's). A write to one project (UpdateProject) holds the store's
// file lock shared and the project's own lock exclusively, so that writes
// to different projects, in this process or others, do not wait for each
// other's locks; they meet only in the index's single writer connection,
// for the moments their SQL transactions take. What spans the store
// (Update, rebuilds, migration) holds the store lock exclusively. Roll-ups
// of the archive's packs hold a lock of their own (see rollUpIfDue), and
// writers go on while they run.
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
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
	// ErrIndexDiffers: doctor found the index damaged or apart from the
	// archive, and the archive sound; the index is rebuilt from it.
	ErrIndexDiffers = errors.New("index does not match the archive")
	// ErrNotReadable: the user may not read the store.
	ErrNotReadable = errors.New("store is not readable")
)

// DefaultLockWait is how long a writer waits for the store lock.
const DefaultLockWait = 30 * time.Second

// Options tune a Store.
type Options struct {
	LockWait time.Duration    // 0 means DefaultLockWait
	Now      func() time.Time // nil means time.Now
	// RollUpInBackground has the store consolidate the archive's packs
	// in a goroutine, off the writers' path, rather than in the write
	// that finds them too many, and make the files the next writes fill
	// there too (see afterWrite): for a long-lived process (a server), not
	// for a command line process, which exits as its write returns.
	RollUpInBackground bool
	// OneShot is for a process that runs one operation and exits (the
	// command line). Its reads share the writer's connection to the index
	// rather than a pool of their own, so that it opens, sets up and
	// prepares its statements on one connection, not two (reads of
	// concurrent goroutines wait for each other and for writes); and its
	// writes neither read nor fill the objects table (see objectCache),
	// which costs a process that makes one write more than it saves.
	OneShot bool
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

// Store is an open store directory. It is safe for concurrent use.
type Store struct {
	dir   string
	arc   *archive.Archive
	opts  Options
	proj  layout      // the projections, the store's own first
	wrote atomic.Bool // an update committed to the archive

	readOnly bool // the user cannot write the store (see readonly.go)

	mu    sync.Mutex
	db    *sql.DB  // the index's writer: one connection
	rdb   *sql.DB  // the index's readers
	notes []string // see Notes

	privateMu sync.Mutex // held while a read-only store switches to its private index
	private   string     // the temporary directory of a read-only store's private index

	cached cachedObjects          // what the writes of this handle change in the objects table
	queues map[string]*writeQueue // by project; guarded by mu

	rolling    atomic.Bool    // a background roll-up is at work (see rollUpIfDue)
	sparing    atomic.Bool    // spare files are being made (see afterWrite)
	background sync.WaitGroup // the goroutines of both, which Close waits for

	onCommit atomic.Pointer[func(Committed)] // see OnCommit
	writing  atomic.Int32                    // commits under way, from before the branch moves to after OnCommit is told (Writing)
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
		return nil, fault.WithField(fmt.Errorf("%w: %s: %v", ErrNotReadable, dir, err), "store", "archive", arcDir)
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
		if err := s.relayoutReservations(); err != nil {
			arc.Close()
			return nil, err
		}
	} else {
		s.readOnly = true
		if legacy, _ := arc.Legacy(); legacy {
			arc.Close()
			return nil, fault.WithField(fmt.Errorf("%w: %s: the archive needs a one-time migration to a branch per project", ErrNotWritable, dir), "store", "problem", "migration")
		}
		if err := s.openReadOnly(context.Background()); err != nil {
			arc.Close()
			return nil, err
		}
		return s, nil
	}
	path := filepath.Join(dir, "index.db")
	db, note, err := openIndex(path, s.proj)
	if err != nil {
		if isReadOnly(err) {
			return nil, notWritable(dir, err)
		}
		return nil, fmt.Errorf("open index: %w", err)
	}
	rdb, err := s.openReaders(path, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open index: %w", err)
	}
	s.db, s.rdb = db, rdb
	if note != "" && !fresh {
		s.note(note)
	}
	return s, nil
}

// migrate gives each project of an archive made by an earlier version its
// own branch, once, under the lock; archive.Init's main branch, which holds
// no project, goes without a trace.
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
		if !fresh && m.From != "" {
			s.note(fmt.Sprintf("migrated the archive to one branch per project (%d); the old main branch is kept as %s", len(m.Projects), archive.LegacyRef))
		}
		return nil
	})
}

func isReadOnly(err error) bool {
	msg := err.Error()
	return errors.Is(err, os.ErrPermission) || strings.Contains(msg, "readonly") || strings.Contains(msg, "unable to open database")
}

func notWritable(dir string, err error) error {
	return fault.WithField(fmt.Errorf("%w: %s: %v", ErrNotWritable, dir, err), "store", "problem", "permission")
}

// Close waits for the background work of its writes, writes what the store's
// writes changed in the objects table (see cachedObjects), and closes the
// index and the archive.
func (s *Store) Close() error {
	s.background.Wait()
	s.flushCached()
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
// queries. Call Fresh first. Queries run on the read connections, other
// statements on the writer, without waiting for another connection's write
// (see index.ExecContext); inside an update, use its Tx.
func (s *Store) Index() Querier {
	db, rdb := s.pools()
	return index{w: db, r: rdb}
}

// pools returns the index's writer and readers.
func (s *Store) pools() (db, rdb *sql.DB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db, s.rdb
}

// writer returns the index's writer connection pool.
func (s *Store) writer() *sql.DB {
	db, _ := s.pools()
	return db
}

// index is the Querier of the whole index: the pools' methods that run
// statements, and none of those that close them or hand out connections.
type index struct{ w, r *sql.DB }

// ExecContext runs a statement on the writer without waiting for SQLite's
// write lock: outside an update, a statement is a read's bookkeeping (an
// agent's last-seen time), and reads never wait for writers. While
// another connection holds the lock, it returns ErrBusy at once.
func (x index) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	conn, err := x.w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return nil, err
	}
	res, err := conn.ExecContext(ctx, query, args...)
	if _, rerr := conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds())); rerr != nil {
		// Never hand a writer that does not wait back to the pool.
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	if isBusy(err) {
		return nil, fmt.Errorf("%w: another process is writing the index", ErrBusy)
	}
	return res, err
}

func (x index) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.r.QueryContext(ctx, query, args...)
}

func (x index) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return x.r.QueryRowContext(ctx, query, args...)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}

// note records a line for Notes.
func (s *Store) note(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, line)
}

// withLock runs fn holding the store lock exclusively: no other writer,
// of any project, in any process, is at work meanwhile.
func (s *Store) withLock(fn func() error) error {
	return s.withLockFile(func(*os.File) error { return fn() })
}

// withLockFile is withLock passing fn the lock's file, for a git command
// to inherit (see archive.GC).
func (s *Store) withLockFile(fn func(hold *os.File) error) error {
	if s.readOnly {
		return s.readOnlyError()
	}
	l, err := s.acquire(s.lockPath(), false)
	if err != nil {
		return err
	}
	defer l.Release()
	return fn(l.File())
}

func (s *Store) lockPath() string { return filepath.Join(s.dir, "lock") }

// projectLockPath is the file of the project slug's write lock.
func (s *Store) projectLockPath(slug string) string {
	return filepath.Join(s.dir, "locks", slug)
}

// acquire takes the lock at path, exclusively unless shared, waiting up
// to Options.LockWait.
func (s *Store) acquire(path string, shared bool) (*flock.Lock, error) {
	take := flock.Acquire
	if shared {
		take = flock.AcquireShared
	}
	l, err := take(path, s.opts.LockWait)
	if err != nil {
		if errors.Is(err, flock.ErrTimeout) {
			return nil, fmt.Errorf("%w: %v", ErrBusy, err)
		}
		return nil, notWritable(s.dir, err)
	}
	return l, nil
}

// withProjectLock runs fn holding the store lock shared and the project
// slug's lock exclusively: no other writer of that project, and nothing
// that spans the store, is at work meanwhile; writers of other projects
// may be.
func (s *Store) withProjectLock(slug string, fn func() error) error {
	if s.readOnly {
		return s.readOnlyError()
	}
	if err := os.MkdirAll(filepath.Dir(s.projectLockPath(slug)), 0o755); err != nil {
		return notWritable(s.dir, err)
	}
	shared, err := s.acquire(s.lockPath(), true)
	if err != nil {
		return err
	}
	defer shared.Release()
	l, err := s.acquire(s.projectLockPath(slug), false)
	if err != nil {
		return err
	}
	defer l.Release()
	return fn()
}

// Head returns the archive's current commit: a small file read, for
// callers that poll for changes.
func (s *Store) Head() (string, error) { return s.archiveHead() }

// Snapshot runs fn on the index's connection inside a read transaction,
// so that every statement fn runs sees the same state of the index however
// many it takes, while writers go on. fn must use q for every query.
func (s *Store) Snapshot(ctx context.Context, fn func(q Querier) error) error {
	_, rdb := s.pools()
	conn, err := rdb.Conn(ctx)
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
// it costs two small reads and takes no lock; else it catches up each
// project that is behind under that project's lock, waiting for a writer
// at work on it to be done.
//
// When catching up fails for lack of space, reads answer from the index as
// it is, with a note: what the archive holds beyond it shows once there is
// space again, and writes fail with ErrFull (through IsFull) meanwhile.
func (s *Store) Fresh(ctx context.Context) error {
	err := s.fresh(ctx)
	if IsFull(err) {
		s.note(fmt.Sprintf("the index is behind the archive and there is no space to catch up (%v); answering from the index as it is: free space on the store's disk", err))
		return nil
	}
	return err
}

// CatchUp is Fresh, but returns the error of a catch-up that failed for
// lack of space (IsFull) rather than note it: for doctor, which says why
// the index is behind.
func (s *Store) CatchUp(ctx context.Context) error { return s.fresh(ctx) }

func (s *Store) fresh(ctx context.Context) error {
	head, err := s.arc.State()
	_, rdb := s.pools()
	idx, ierr := s.indexHead(rdb)
	if err == nil && ierr == nil && idx == head.String() {
		return nil
	}
	if s.readOnly {
		s.privateMu.Lock()
		defer s.privateMu.Unlock()
		if s.private != "" {
			return s.catchUp(ctx)
		}
		return s.usePrivate(ctx, s.writer(), "its index is behind the archive")
	}
	have, perr := archive.ParseState(idx)
	if err != nil || ierr != nil || perr != nil || idx == "" {
		return s.withLock(func() error { return s.catchUp(ctx) })
	}
	for slug, commit := range head {
		if have[slug] == commit {
			continue
		}
		err := s.withProjectLock(slug, func() error { return s.catchUpProject(ctx, slug) })
		if errors.Is(err, errStartOver) {
			return s.withLock(func() error { return s.catchUp(ctx) })
		}
		if err != nil {
			return err
		}
	}
	return nil
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
	st, err := s.archiveState()
	return st.String(), err
}

// archiveState is archiveHead as an archive.State.
func (s *Store) archiveState() (archive.State, error) {
	var err error
	for i := 0; i < 20; i++ {
		var st archive.State
		if st, err = s.arc.State(); err == nil {
			return st, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// catchUp ingests the commits between the index's head and the archive's.
// The caller holds the store lock exclusively.
func (s *Store) catchUp(ctx context.Context) error {
	head, err := s.archiveHead()
	if err != nil {
		return err
	}
	db := s.writer()
	idx, err := s.indexHead(db)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	if idx == head {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
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
	if _, err := s.ingest(tx, idx, head, head, nil, false); err != nil {
		// The index's commit may be gone (an archive replaced by hand):
		// start over from nothing.
		if _, err := s.ingestAll(tx, head, nil); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// errStartOver: the index cannot be caught up one project at a time, and
// must be by catchUp, under the store lock.
var errStartOver = errors.New("the index must be caught up as a whole")

// catchUpProject ingests the commits between the index's head of the
// project slug and the archive's. The caller holds the project's lock.
func (s *Store) catchUpProject(ctx context.Context, slug string) error {
	st, err := s.archiveState()
	if err != nil {
		return err
	}
	db := s.writer()
	// Nothing to catch up, as a rule: say so without the write lock a
	// transaction takes, which would wait for other projects' writers. No
	// one else moves this project's head in the index meanwhile.
	if idx, err := s.indexHead(db); err == nil && idx != "" {
		if have, err := archive.ParseState(idx); err == nil && have[slug] == st[slug] {
			return nil
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("catch up: %w", err)
	}
	defer tx.Rollback()
	idx, err := s.indexHead(tx)
	if err != nil {
		return fmt.Errorf("read index head: %w", err)
	}
	have, err := archive.ParseState(idx)
	if err != nil || (idx == "" && len(st) > 0) {
		return errStartOver // a legacy or a new index
	}
	if have[slug] == st[slug] {
		return nil
	}
	from, to := archive.State{}, archive.State{slug: st[slug]}
	if have[slug] != "" {
		from[slug] = have[slug]
	}
	have[slug] = st[slug]
	if _, err := s.ingest(tx, from.String(), to.String(), have.String(), nil, false); err != nil {
		return fmt.Errorf("%w: %v", errStartOver, err)
	}
	return tx.Commit()
}

// ingest applies every record changed between commits from and to, and
// records head as the index's head; indexed, when not nil, is told the
// number of messages indexed so far after each one. The records kept out
// of the index (see Admitter) are noted, unless quiet. Three goroutines share
// the work, each feeding the next in order: reading the archive (inflating
// objects), decoding and preparing records (front matter, plain text, FTS
// tokens), and the SQL inserts, which must stay on one connection.
func (s *Store) ingest(tx *sql.Tx, from, to, head string, indexed func(int), quiet bool) (int, error) {
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
	var applyErr error
	for it := range items {
		if applyErr != nil {
			continue // drain
		}
		if it.err != nil {
			s.note("skipped " + it.err.Error())
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
	for _, line := range w.refused {
		if !quiet {
			s.note(line)
		}
	}
	if walkErr != nil {
		return 0, fmt.Errorf("%w: %v", ErrCorrupt, walkErr)
	}
	if err := setHead(tx, head, w.messages, from == "" && to == head); err != nil {
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
	n, err := s.ingest(tx, "", head, head, indexed, false)
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
	slug      string    // the project it writes, "" for any
	now       time.Time // when the update began, as Store.Now
	recs      []record.Record
	files     []record.File // recs' files, once applied
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

// aborted runs the OnAbort functions of t (nil: its function never ran)
// when err ended an update that wrote nothing, and returns err.
func (s *Store) aborted(t *Tx, err error) error {
	if err != nil && t != nil && !t.committed {
		for _, undo := range t.aborted {
			undo()
		}
	}
	return err
}

// Wrote reports whether an Update of this Store has committed to the
// archive: a command that did cannot simply be run again.
func (s *Store) Wrote() bool { return s.wrote.Load() }

// rollUpPath is the file of the roll-up lock. A roll-up holds it and no
// other lock, so that writers, which each add a pack, go on while it runs:
// it removes only the packs it rolled up (see archive.Pack). Whatever
// removes packs it did not write (GC) holds it too.
func (s *Store) rollUpPath() string { return filepath.Join(s.dir, "rollup") }

// rollUpIfDue consolidates the archive once a write (or merge) has left too
// many packs; the caller holds none of the store's locks. A long-lived
// store (Options.RollUpInBackground) rolls up in a goroutine and the write
// returns at once; a command line process, whose goroutines die with it
// the moment its write returns, rolls up before the write returns. Past
// twice the packs that call for a roll-up, roll-ups are falling behind the
// writers, and the write waits for the one at work and rolls up after it
// if need be, so that packs cannot pile up without bound.
func (s *Store) rollUpIfDue() {
	switch {
	case !s.arc.NeedsRollUp(s.arc.PacksAbout()):
	case s.arc.Packs() > 2*archive.MaxPacks:
		s.rollUp(true)
	case s.opts.RollUpInBackground:
		s.inBackground(&s.rolling, func() { s.rollUp(false) })
	default:
		s.rollUp(false)
	}
}

// afterWrite is what a long-lived store does, off the writers' path, once
// a write (or merge) is done and its locks let go: make the files the next
// writes fill (see archive.MakeSpares), and roll up if need be. A command
// line process only rolls up.
func (s *Store) afterWrite() {
	if s.opts.RollUpInBackground {
		s.inBackground(&s.sparing, func() {
			if err := s.arc.MakeSpares(); err != nil {
				s.note("could not make spare files for the next writes: " + err.Error())
			}
		})
	}
	s.rollUpIfDue()
}

// inBackground runs fn on a goroutine that Close waits for, unless the one
// running flags is at work still.
func (s *Store) inBackground(running *atomic.Bool, fn func()) {
	if !running.CompareAndSwap(false, true) {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer running.Store(false)
		fn()
	}()
}

// rollUp consolidates the archive under the roll-up lock, if it still needs
// it then. A roll-up at work elsewhere (another goroutine or process) is
// left to it, unless wait: then rollUp waits for it to finish first. A
// failure is a note: the writes are done.
func (s *Store) rollUp(wait bool) {
	var l *flock.Lock
	var err error
	if wait {
		l, err = s.acquire(s.rollUpPath(), false)
	} else {
		l, err = flock.TryAcquire(s.rollUpPath(), false)
	}
	if err != nil {
		s.note("could not pack the archive: " + err.Error())
	}
	if l == nil {
		return
	}
	defer l.Release()
	if s.arc.NeedsRollUp(s.arc.Packs()) {
		if err := s.arc.Pack(l.File()); err != nil {
			s.note("could not pack the archive: " + err.Error())
		}
	}
}
