package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/crash"
	"github.com/agentmail/agentmail/internal/record"
)

// Group commit. Writes to one project made at once through one Store (a
// server's callers) are committed together: the first to come writes, and
// those that queue meanwhile go in its successor's batch, each decided in
// turn in one transaction of the index, where each sees what those before
// it wrote, and all of them committed to the archive as one commit, one
// pack and one set of syncs. A write whose function fails is dropped from
// the batch alone (a savepoint undoes what it did to the index); every
// caller returns once the commit holding its write is in the archive and
// the index, as it would alone.

// write is one caller's update in a batch.
type write struct {
	fn   func(*Tx) error
	t    *Tx
	err  error         // the caller's result
	done chan struct{} // closed once err is final
	lead chan struct{} // told when it is the write's turn to commit the queue
}

// writeQueue is the writes to one project waiting for their batch.
type writeQueue struct {
	mu    sync.Mutex
	queue []*write
	busy  bool // a batch is being written
}

// queue returns the write queue of the project slug.
func (s *Store) queue(slug string) *writeQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queues == nil {
		s.queues = map[string]*writeQueue{}
	}
	q := s.queues[slug]
	if q == nil {
		q = &writeQueue{}
		s.queues[slug] = q
	}
	return q
}

// join queues w and reports whether w is to write the queue: at once when
// no batch is being written, else when the batch before it is done. It
// returns false once another wrote w.
func (q *writeQueue) join(w *write) bool {
	q.mu.Lock()
	q.queue = append(q.queue, w)
	lead := !q.busy
	q.busy = true
	q.mu.Unlock()
	if lead {
		return true
	}
	select {
	case <-w.done:
		return false
	case <-w.lead:
		return true
	}
}

// take returns the writes queued, for a batch.
func (q *writeQueue) take() []*write {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.queue
	q.queue = nil
	return batch
}

// next hands the queue to the first write that came during the last batch.
func (q *writeQueue) next() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) > 0 {
		q.queue[0].lead <- struct{}{}
	} else {
		q.busy = false
	}
}

// UpdateProject is Update for a write to the project slug alone: every
// record fn queues must be in the project's directory. It holds that
// project's lock (see withProjectLock), so that writes to other projects
// go on meanwhile, and commits writes to the project that callers make at
// once together (see write).
func (s *Store) UpdateProject(ctx context.Context, slug string, fn func(*Tx) error) error {
	w := &write{fn: fn, done: make(chan struct{}), lead: make(chan struct{}, 1)}
	q := s.queue(slug)
	if q.join(w) {
		// Another caller's cancelled context must not fail this batch.
		s.writeBatch(context.WithoutCancel(ctx), slug, q.take())
		q.next()
	}
	<-w.done
	return w.err
}

// writeBatch commits batch, under the project slug's lock, and tells each
// write its result.
func (s *Store) writeBatch(ctx context.Context, slug string, batch []*write) {
	var committed bool
	run := func() error {
		if err := s.catchUpProject(ctx, slug); err != nil {
			return err
		}
		var err error
		committed, err = s.updateBatch(ctx, slug, batch)
		return err
	}
	err := s.withProjectLock(slug, run)
	if errors.Is(err, errStartOver) {
		// A new index, or one whose commits are gone: catch it up as a
		// whole, and write under the store lock.
		err = s.withLock(func() error {
			if err := s.catchUp(ctx); err != nil {
				return err
			}
			return run()
		})
	}
	if committed && IsIndexDamaged(err) {
		// The writes are done: the archive has them. Rebuild the index,
		// which needs the store lock, from the archive, which holds them.
		err = s.RepairIndex(ctx, err)
	}
	err = s.doneInArchive(committed, err)
	if err == nil {
		s.afterWrite()
	}
	for _, w := range batch {
		if w.err == nil {
			w.err = err
		}
		s.aborted(w.t, w.err)
		close(w.done)
	}
}

// updateBatch runs the functions of batch in turn in one transaction of
// the index, and commits the records of those that succeeded: to the
// archive, as one commit, then to the index. A function's error is its
// write's alone (w.err); the error returned is the batch's. committed
// reports that the archive has the commit. The caller holds the lock that
// writing to the project slug ("": to any) takes.
func (s *Store) updateBatch(ctx context.Context, slug string, batch []*write) (committed bool, err error) {
	sqlTx, err := s.writer().BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("begin: %w", err)
	}
	defer sqlTx.Rollback()
	var done []*Tx // the writes that succeeded
	messages := 0
	var later *indexing             // a write alone's records, going into the index while the archive writes them
	defer func() { later.wait() }() // before the transaction ends
	if len(batch) == 1 {
		// No write after it needs to see its rows: they are written while
		// the archive waits for its syncs, and the branch moves only once
		// they are in (see commit).
		w := batch[0]
		w.t = &Tx{sql: sqlTx, now: s.Now(), slug: slug}
		if err := s.run(w.t, w.fn); err != nil {
			return false, err
		}
		later = s.indexAsync(w.t)
		done = append(done, w.t)
	} else {
		for _, w := range batch {
			w.t = &Tx{sql: sqlTx, now: s.Now(), slug: slug}
			n, err := s.decide(ctx, w.t, w.fn)
			if err != nil {
				w.err = err
				continue
			}
			messages += n
			done = append(done, w.t)
		}
	}
	var files []record.File
	for _, t := range done {
		files = append(files, t.files...)
	}
	if len(files) > 0 {
		committed, err = s.commit(sqlTx, files, messages, describe(done), later)
		for _, t := range done {
			t.committed = committed
		}
		if err != nil {
			return committed, err
		}
	}
	crash.Point(crash.BeforeIndexCommit)
	if err := sqlTx.Commit(); err != nil {
		return committed, fmt.Errorf("index commit: %w", err)
	}
	crash.Point(crash.AfterIndexCommit)
	return committed, nil
}

// doneInArchive returns the error of a write that failed after its archive
// commit (committed) as a note instead: the archive is the source of truth,
// so the write happened, and the index catches up with it at the next
// command, as after a crash. Reporting it failed would invite a retry that
// writes it twice.
func (s *Store) doneInArchive(committed bool, err error) error {
	if !committed || err == nil {
		return err
	}
	s.note(fmt.Sprintf("written to the archive; the index could not take it yet (%v) and catches up with a later command", err))
	return nil
}

// decide runs fn, one write of a batch of several, on t and applies the
// records it queued to the index, so that the writes after it in the
// batch see them; in a savepoint, so that a failure undoes only what fn
// did. It returns the number of messages applied.
func (s *Store) decide(ctx context.Context, t *Tx, fn func(*Tx) error) (int, error) {
	if _, err := t.sql.ExecContext(ctx, `SAVEPOINT write`); err != nil {
		return 0, fmt.Errorf("savepoint: %w", err)
	}
	n, err := s.apply(t, fn)
	if err != nil {
		if _, rerr := t.sql.ExecContext(ctx, `ROLLBACK TO write`); rerr != nil {
			return 0, fmt.Errorf("%w (and undoing it: %v)", err, rerr)
		}
	}
	if _, rerr := t.sql.ExecContext(ctx, `RELEASE write`); rerr != nil && err == nil {
		err = fmt.Errorf("savepoint: %w", rerr)
	}
	return n, err
}

// apply runs fn on t (run) and applies the records it queued to the index.
func (s *Store) apply(t *Tx, fn func(*Tx) error) (int, error) {
	if err := s.run(t, fn); err != nil {
		return 0, err
	}
	return s.index(t)
}

// run runs fn on t and checks that the records it queued are in t's
// project. The records' files are encoded here, once, for the commit
// (t.files): a reservation of 50 patterns has 50.
func (s *Store) run(t *Tx, fn func(*Tx) error) error {
	if err := fn(t); err != nil {
		return err
	}
	if err := t.checkArchived(); err != nil {
		return err
	}
	for _, r := range t.recs {
		if err := record.CheckTimes(r); err != nil {
			return err
		}
		for _, f := range r.Files() {
			if t.slug != "" && !strings.HasPrefix(f.Path, record.ProjectDir(t.slug)+"/") {
				return fmt.Errorf("write %s: outside project %s, whose lock the write holds", f.Path, t.slug)
			}
			t.files = append(t.files, f)
		}
	}
	return nil
}

// indexing is the records of a write going into the index on a goroutine
// of their own (indexAsync); nil is no records.
type indexing struct {
	done     chan struct{}
	messages int
	err      error
}

// indexAsync applies t's records to the index, in t's transaction, on a
// goroutine of its own; wait returns its result. database/sql runs one
// statement at a time on the transaction's connection, so the write's
// other statements (the commit's reads of cached objects) may go on
// meanwhile.
func (s *Store) indexAsync(t *Tx) *indexing {
	if len(t.recs) == 0 {
		return nil
	}
	x := &indexing{done: make(chan struct{})}
	go func() {
		defer close(x.done)
		x.messages, x.err = s.index(t)
	}()
	return x
}

// wait returns, once they are in, the number of messages among the
// records and the error that stopped them.
func (x *indexing) wait() (int, error) {
	if x == nil {
		return 0, nil
	}
	<-x.done
	return x.messages, x.err
}

// index applies t's records to the index and returns the number of
// messages among them. A write of many records (an import's batch) has
// them prepared (plain text, FTS tokens) on other goroutines, ahead of
// the one that applies them in order, as a rebuild does (see ingest).
func (s *Store) index(t *Tx) (int, error) {
	w := newWriter(t.sql)
	if len(t.recs) < prepareAheadMin {
		for _, r := range t.recs {
			if err := s.proj.apply(w, r, s.proj.prepare(r)); err != nil {
				return 0, fmt.Errorf("index: %w", err)
			}
		}
		return w.messages, nil
	}
	prepared := make([][]any, len(t.recs))
	ready := make([]chan struct{}, len(t.recs))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var next atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go func() {
			for i := int(next.Add(1)) - 1; i < len(t.recs); i = int(next.Add(1)) - 1 {
				select {
				case <-stop:
					return
				default:
				}
				prepared[i] = s.proj.prepare(t.recs[i])
				close(ready[i])
			}
		}()
	}
	for i, r := range t.recs {
		<-ready[i]
		if err := s.proj.apply(w, r, prepared[i]); err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
		prepared[i] = nil
	}
	return w.messages, nil
}

// prepareAheadMin is the number of records from which a write's are
// prepared on goroutines of their own: a send's few are not worth it.
const prepareAheadMin = 16

// description is a commit's author and message.
type description struct{ name, message string }

// author is the commit's author, at when.
func (d description) author(when time.Time) archive.Author {
	return archive.Author{Name: d.name, Email: strings.ToLower(d.name) + "@agentmail", When: when}
}

// describe describes the commit of the writes done: alone, as its Tx
// says; together, by the first's subject and the number of the others,
// with every write's subject below, one a line.
func describe(done []*Tx) description {
	var d description
	var lines []string
	for _, t := range done {
		if len(t.recs) == 0 {
			continue
		}
		author, subject := t.author, t.subject
		if author == "" {
			author = "agentmail"
		}
		if subject == "" {
			subject = fmt.Sprintf("update: %d records", len(t.recs))
		}
		if d.name == "" {
			d.name = author
		} else if d.name != author {
			d.name = "agentmail"
		}
		lines = append(lines, subject)
	}
	d.message = lines[0]
	if len(lines) > 1 {
		d.message = fmt.Sprintf("%s (+%d more)\n\n%s", lines[0], len(lines)-1, strings.Join(lines, "\n"))
	}
	return d
}

// commit writes files, those of the records of one batch, to the archive
// as one commit on the index's head, and records the new head in tx,
// which has applied the records, or is applying those of later: the
// branch moves only once they are in, and not if they failed. messages is
// how many of the records applied are messages. committed reports that
// the archive has the commit, whatever the error.
func (s *Store) commit(tx *sql.Tx, files []record.File, messages int, d description, later *indexing) (committed bool, err error) {
	parent, err := s.indexHead(tx)
	if err != nil {
		return false, fmt.Errorf("read index head: %w", err)
	}
	changes := make([]archive.Change, len(files))
	for i, f := range files {
		changes[i] = archive.Change{Path: f.Path, Data: f.Data}
	}
	ready := func() error {
		n, err := later.wait()
		messages += n
		return err
	}
	s.writing.Add(1) // before the branch moves, until OnCommit is told
	defer s.writing.Add(-1)
	res, err := s.arc.CommitProjectsWhenReady(parent, changes, d.author(s.Now()), d.message, s.objectCache(tx), ready)
	if errors.Is(err, archive.ErrRefLocked) || errors.Is(err, archive.ErrMoved) {
		// Another git process is at work on the archive; nothing was
		// written, and the command can run again.
		return false, fmt.Errorf("%w: %w", ErrBusy, err)
	}
	if err != nil {
		return false, err
	}
	s.wrote.Store(true)
	s.tellCommitted(parent, res.Head, files)
	if err := s.cacheWritten(tx, res); err != nil {
		return true, err
	}
	return true, setHead(tx, res.Head, messages, false)
}

// Update runs fn under the store lock against an up-to-date index, then
// commits the records fn queued (one archive commit for all of them) and
// indexes them. If fn returns an error nothing is written. It excludes
// every other writer; a write to one project is UpdateProject.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	w := &write{fn: fn}
	err := s.withLock(func() error {
		if err := s.catchUp(ctx); err != nil {
			return err
		}
		committed, err := s.updateBatch(ctx, "", []*write{w})
		if committed && IsIndexDamaged(err) {
			w.t.sql.Rollback()
			err = s.rebuildDamaged(ctx, err)
		}
		return s.doneInArchive(committed, err)
	})
	if err == nil {
		s.afterWrite()
	}
	return s.aborted(w.t, err)
}

// Committed is a commit a Store wrote on a project's branch, as OnCommit
// tells it.
type Committed struct {
	Project string        // the project's slug
	Commit  string        // the commit, on the project's branch
	Files   []record.File // the files written, in the order written; a path may come twice, the last wins
}

// OnCommit has fn told of every commit this Store writes on a project's
// branch, once the branch names it: the commit and the files the
// records wrote, so that a reader in this process (serve's event feed)
// need not read them back. fn is called by the writer, which holds the
// project's lock: it must return at once. Commits this Store does not
// write (other processes', merges) are not told.
func (s *Store) OnCommit(fn func(Committed)) { s.onCommit.Store(&fn) }

// Writing reports whether a commit of this Store is under way: from
// before its branch moves until OnCommit's function has been told of it.
// A reader that sees a branch at a commit it was not told of, and then
// finds no commit under way, knows the commit is another process's (or a
// merge's): it need not wait to be told.
func (s *Store) Writing() bool { return s.writing.Load() > 0 }

// tellCommitted tells OnCommit's function of the commits from the archive
// state parent to head, which wrote files.
func (s *Store) tellCommitted(parent, head string, files []record.File) {
	fn := s.onCommit.Load()
	if fn == nil || *fn == nil {
		return
	}
	before, err := archive.ParseState(parent)
	if err != nil {
		return // a legacy state: the archive has no project branches to follow
	}
	after, err := archive.ParseState(head)
	if err != nil {
		return
	}
	for slug, commit := range after {
		if before[slug] == commit {
			continue
		}
		dir := record.ProjectDir(slug) + "/"
		var mine []record.File
		for _, f := range files {
			if strings.HasPrefix(f.Path, dir) {
				mine = append(mine, f)
			}
		}
		(*fn)(Committed{Project: slug, Commit: commit, Files: mine})
	}
}

// ErrArchived: the project is archived, and takes no writes until it is
// unarchived.
var ErrArchived = errors.New("project archived")

// checkArchived refuses a write to an archived project, unless the write
// records the project itself (archives or unarchives it).
func (t *Tx) checkArchived() error {
	if t.slug == "" || len(t.recs) == 0 {
		return nil
	}
	for _, r := range t.recs {
		if p, ok := r.(*record.Project); ok && p.Slug == t.slug {
			return nil
		}
	}
	var archived string
	err := t.sql.QueryRow(`SELECT archived FROM projects WHERE slug = ?`, t.slug).Scan(&archived)
	if errors.Is(err, sql.ErrNoRows) || err == nil && archived == "" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("project %s: %w", t.slug, err)
	}
	return fmt.Errorf("%w: project %s was archived at %s and takes no writes", ErrArchived, t.slug, archived)
}
