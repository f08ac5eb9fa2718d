package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
)

// Options tune a Feed; the zero value is what serve needs.
type Options struct {
	// Poll is how often the projects' branches are read; 25 ms if zero
	// (an idle poll costs some 30 µs).
	Poll time.Duration
	// Now is the clock leases expire by; time.Now if nil. Give the one the
	// service dates records by.
	Now func() time.Time
	// Note is told what the feed could not read (it tries again at the
	// next poll); nil drops it.
	Note func(string)
	// Buffer is how many events a subscriber may fall behind by before
	// its stream is ended (its client reconnects with Last-Event-ID and
	// misses nothing); 4096 if zero.
	Buffer int
	// Ready returns a project's ready tasks (open, unclaimed, every
	// dependency closed), read when the feed adopts the project and after
	// each commit that changes its tasks: a task ready after and not
	// before is sent as work available. Nil sends no work events;
	// FollowService sets it to the service's ready list.
	Ready func(slug string) ([]service.Task, error)
}

// Errors of Subscribe.
var (
	// ErrClosed: the feed was closed (the server is shutting down).
	ErrClosed = fmt.Errorf("the event feed is closed: %w", service.ErrShuttingDown)
	// errNotAncestor: a commit is not in a branch's history.
	errNotAncestor = errors.New("not in the project's history")
)

// maxLine bounds the line of single-parent commits a poll follows
// in-process; a longer one, or one with a merge, is listed by git.
const maxLine = 1000

// Feed follows every project's branch of one archive and fans the events
// out to its subscribers: one poll loop per store, however many clients.
type Feed struct {
	opts Options

	arcMu sync.Mutex // go-git's storage is read by one goroutine at a time
	arc   *archive.Archive
	owned bool // the feed opened arc, and closes it
	ended bool // the archive was closed

	pollMu sync.Mutex // one poll at a time

	mu       sync.Mutex // the fields below
	heads    archive.State
	leases   map[string]map[string]expiry // by project, by leaseKey
	readyIDs map[string]map[string]bool   // by project: the ids of its ready tasks (Options.Ready)
	// tasksMoved: by project, the last commit published that changed its
	// tasks, whose ready tasks a later poll reads, and since when it waits.
	tasksMoved map[string]moved
	subs       map[*subscription]bool
	taps       []func(Event)        // told of every event of every project (Tap)
	written    map[string]written   // by commit: what this process wrote (Written), until published
	unwritten  map[string]time.Time // by commit: when a poll first found it untold (see ready)
	closed     bool

	told    atomic.Bool   // the feed is told of its process's writes (FollowService)
	writing func() bool   // a write of the process is under way (FollowService: service.Service.Writing)
	wake    chan struct{} // Written asks for a poll at once

	readBack atomic.Int64 // commits whose changes were read from the archive: a test observes it

	stop chan struct{}
	done chan struct{}
}

// written is what a commit of this process wrote on a project's branch:
// the project-relative files, in path order, copies left out.
type written struct {
	slug  string
	files []record.File
}

// maxWritten bounds the commits Written keeps: past it the feed has
// fallen far behind, or skipped them (a project it adopted at a later
// head), and those it still needs are read back from the archive.
const maxWritten = 1024

// subscription is one client's stream of a project's live events. The
// feed closes ch when the client falls Buffer events behind or the feed
// closes.
type subscription struct {
	slug string
	ch   chan Event
}

// NewFeed opens the archive at dir (the store's archive.git, which must
// exist) and follows it from its current heads: the events of later
// commits, and the expiry of the leases held now. Close stops it.
func NewFeed(dir string, opts Options) (*Feed, error) {
	arc, err := archive.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("event feed: %w", err)
	}
	f, err := start(arc, true, opts)
	if err != nil {
		arc.Close()
	}
	return f, err
}

// Follow is NewFeed on an archive handle already open, which the feed
// does not close: give the store's own (service.Service.Archive), whose
// last writes it then reads from memory, and which saves a second
// handle's object cache. Close the feed before the archive.
func Follow(arc *archive.Archive, opts Options) (*Feed, error) {
	return start(arc, false, opts)
}

// FollowService is Follow on svc's archive handle, told of every commit
// svc writes (service.Service.OnCommit): the feed reads none of those
// back from the archive, only the commits of other processes and merges.
// This is the feed serve runs.
func FollowService(svc *service.Service, opts Options) (*Feed, error) {
	arc, err := svc.Archive()
	if err != nil {
		return nil, err
	}
	if opts.Ready == nil {
		opts.Ready = func(slug string) ([]service.Task, error) { return readyOf(svc, slug) }
	}
	f, err := Follow(arc, opts)
	if err != nil {
		return nil, err
	}
	f.told.Store(true)
	f.mu.Lock()
	f.writing = svc.Writing
	f.mu.Unlock()
	if err := svc.OnCommit(func(c store.Committed) { f.Written(c.Project, c.Commit, c.Files) }); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Written gives the feed the files (as record.File.Path names them, under
// projects/<slug>/) that this process wrote in commit, on the project
// slug's branch, where a path written twice holds the last: the feed makes
// the commit's events from them instead of comparing the commit's trees
// with its parent's. Their ids, order and data are those the comparison
// gives. The commit must be a single-parent commit that wrote exactly
// files, as a store's write is.
func (f *Feed) Written(slug, commit string, files []record.File) {
	own := ownFiles(slug, files)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if len(f.written) >= maxWritten {
		clear(f.written)
	}
	f.written[commit] = written{slug: slug, files: own}
	select { // poll now: the commit's events go out at once
	case f.wake <- struct{}{}:
	default:
	}
}

// ownFiles returns the files of the project slug that a commit wrote, as
// writtenEvents takes them: relative to the project's directory, in path
// order, each path once with the last data written, inbox and outbox
// copies left out.
func ownFiles(slug string, files []record.File) []record.File {
	dir := record.ProjectDir(slug) + "/"
	skip := skipCopies(slug)
	last := map[string][]byte{}
	for _, file := range files {
		if p, ok := strings.CutPrefix(file.Path, dir); ok && !inSkipped(p, skip) {
			last[p] = file.Data
		}
	}
	own := make([]record.File, 0, len(last))
	for p, data := range last {
		own = append(own, record.File{Path: p, Data: data})
	}
	slices.SortFunc(own, func(a, b record.File) int { return strings.Compare(a.Path, b.Path) })
	return own
}

// inSkipped reports whether a directory above the file at p is one skip
// leaves out.
func inSkipped(p string, skip archive.Skip) bool {
	for i := range len(p) {
		if p[i] == '/' && skip(p[:i]) {
			return true
		}
	}
	return false
}

// takeWritten returns and forgets what Written was told of commit c of the
// project slug.
func (f *Feed) takeWritten(slug, commit string) ([]record.File, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.written[commit]
	delete(f.written, commit)
	return w.files, ok && w.slug == slug
}

// start follows arc from its current heads.
func start(arc *archive.Archive, owned bool, opts Options) (*Feed, error) {
	opts.Poll = cmp.Or(opts.Poll, 25*time.Millisecond)
	opts.Buffer = cmp.Or(opts.Buffer, 4096)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f := &Feed{opts: opts, arc: arc, owned: owned, heads: archive.State{}, leases: map[string]map[string]expiry{}, readyIDs: map[string]map[string]bool{}, tasksMoved: map[string]moved{},
		subs: map[*subscription]bool{}, written: map[string]written{}, unwritten: map[string]time.Time{}, stop: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	if err := f.poll(); err != nil {
		return nil, fmt.Errorf("event feed: %w", err)
	}
	go f.run()
	return f, nil
}

// Close stops the feed and ends every subscriber's stream; the handlers
// serving them return. Call it before shutting the HTTP server down:
// streams never go idle by themselves.
func (f *Feed) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	for s := range f.subs {
		close(s.ch)
	}
	f.subs = nil
	f.taps = nil
	f.mu.Unlock()
	close(f.stop)
	<-f.done
	f.arcMu.Lock()
	defer f.arcMu.Unlock()
	f.ended = true
	if !f.owned {
		return nil
	}
	return f.arc.Close()
}

func (f *Feed) run() {
	defer close(f.done)
	t := time.NewTicker(f.opts.Poll)
	defer t.Stop()
	said := "" // the failure last noted: a lasting one is told once
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		case <-f.wake:
		}
		err := f.poll()
		switch {
		case err != nil && err.Error() != said:
			said = err.Error()
			f.note(fmt.Sprintf("events: %v (trying again)", err))
		case err == nil && said != "":
			said = ""
			f.note("events: the archive reads again")
		}
	}
}

func (f *Feed) note(line string) {
	if f.opts.Note != nil {
		f.opts.Note(line)
	}
}

// withArchive runs fn on the archive, alone.
func (f *Feed) withArchive(fn func(arc *archive.Archive) error) error {
	f.arcMu.Lock()
	defer f.arcMu.Unlock()
	if f.ended {
		return ErrClosed
	}
	return fn(f.arc)
}

// poll reads the branches, publishes the events of the commits they moved
// by, then the expiries that are due.
func (f *Feed) poll() error {
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	var state archive.State
	if err := f.withArchive(func(arc *archive.Archive) (err error) { state, err = arc.State(); return err }); err != nil {
		return err
	}
	slugs := make([]string, 0, len(state))
	for slug := range state {
		slugs = append(slugs, slug)
	}
	slices.Sort(slugs)
	f.workDue(state)
	var errs []error
	for _, slug := range slugs {
		if err := f.advance(slug, state[slug]); err != nil {
			errs = append(errs, fmt.Errorf("project %s: %w", slug, err))
		}
	}
	f.expire()
	return errors.Join(errs...)
}

// head returns the commit of the project slug the feed has published up
// to, "" for a project it does not know.
func (f *Feed) head(slug string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.heads[slug]
}

// advance publishes the events of the commits the project slug's branch
// moved by to reach head, commit by commit. A project seen for the first
// time is adopted at head: nobody can have subscribed to it yet.
func (f *Feed) advance(slug, head string) error {
	old := f.head(slug)
	if old == head {
		return nil
	}
	if old == "" {
		return f.adopt(slug, head)
	}
	commits, err := f.between(old, head)
	if errors.Is(err, errNotAncestor) {
		f.note(fmt.Sprintf("events: the history of project %s was rewritten; following it from %s", slug, head))
		return f.adopt(slug, head)
	}
	if err != nil {
		return err
	}
	for _, c := range commits[:f.ready(commits)] {
		evs, err := f.events(slug, c)
		if err != nil {
			return err // published up to the commit before; the next poll goes on from there
		}
		f.publish(slug, c.Hash, evs)
		if slices.ContainsFunc(evs, func(e Event) bool { return e.Type == TypeTask }) {
			f.mu.Lock()
			f.tasksMoved[slug] = moved{c.Hash, cmp.Or(f.tasksMoved[slug].since, time.Now())}
			f.mu.Unlock()
		}
	}
	return nil
}

// handWait is how long a feed told of its process's writes waits for a
// commit to be told (Written) before it reads the commit back: the branch
// moves a moment before the writer can tell of the commit.
const handWait = 100 * time.Millisecond

// ready returns how many of commits, a line of single-parent commits
// or a history with merges, the feed publishes now. A feed told of its
// process's writes leaves a commit it has not been told of to a later
// poll, with those after it, until it has waited handWait for it: it may
// be this process's, about to be told. A line with a merge is published
// whole (sync makes merges, and every commit of such a line but the last
// may be of another process).
func (f *Feed) ready(commits []archive.CommitInfo) int {
	if !f.told.Load() || slices.ContainsFunc(commits, func(c archive.CommitInfo) bool { return len(c.Parents) > 1 }) {
		return len(commits)
	}
	now := time.Now() // not Options.Now: a test's clock may stand still
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writing != nil && !f.writing() {
		// The branches were read before this: a commit of this process
		// they named has been told of by now (Written), so a commit not
		// told of is another process's, read back at once.
		for _, c := range commits {
			delete(f.unwritten, c.Hash)
		}
		return len(commits)
	}
	if len(f.unwritten) >= maxWritten {
		clear(f.unwritten)
	}
	n := len(commits)
	for i, c := range commits {
		if _, ok := f.written[c.Hash]; ok {
			continue
		}
		first, ok := f.unwritten[c.Hash]
		if !ok {
			first = now
			f.unwritten[c.Hash] = now
		}
		if now.Sub(first) < handWait {
			n = min(n, i)
		}
	}
	for _, c := range commits[:n] {
		delete(f.unwritten, c.Hash)
	}
	return n
}

// adopt starts following the project slug at head, watching the leases
// held there.
func (f *Feed) adopt(slug, head string) error {
	var leases []Event
	err := f.withArchive(func(arc *archive.Archive) (err error) { leases, err = leaseEvents(arc, slug, head); return err })
	if err != nil {
		return err
	}
	now := f.opts.Now()
	watched := map[string]expiry{}
	for _, e := range leases {
		if x, ok := watch(e, now); ok {
			watched[leaseKey(&e)] = x
		}
	}
	ready := f.readyTasks(slug)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heads[slug], f.leases[slug] = head, watched
	if ready != nil {
		f.readyIDs[slug] = map[string]bool{}
		for _, t := range ready {
			f.readyIDs[slug][t.ID] = true
		}
	}
	return nil
}

// moved is a commit that changed a project's tasks, waiting for workDue
// since a time.
type moved struct {
	head  string
	since time.Time
}

// workWait bounds how long work waits for a project's branch to stand
// still: past it, the ready tasks are read at once (a work event may then
// come before the events of a commit made in the meantime).
const workWait = time.Second

// workDue sends the work available of each project whose tasks a commit
// published by an earlier poll changed, and whose branch has not moved
// since (state): its writer has indexed it, and the index shows no later
// commit, whose events must come first. A project whose branch moves
// meanwhile waits for a later poll, up to workWait.
func (f *Feed) workDue(state archive.State) {
	f.mu.Lock()
	due := map[string]moved{}
	for slug, m := range f.tasksMoved {
		if state[slug] == f.heads[slug] || time.Since(m.since) > workWait {
			due[slug] = m
		}
	}
	f.mu.Unlock()
	for _, slug := range slices.Sorted(maps.Keys(due)) {
		ready := f.readyTasks(slug)
		var now archive.State
		if err := f.withArchive(func(arc *archive.Archive) (err error) { now, err = arc.State(); return err }); err != nil ||
			now[slug] != state[slug] && time.Since(due[slug].since) <= workWait {
			continue
		}
		f.mu.Lock()
		if f.tasksMoved[slug] == due[slug] {
			delete(f.tasksMoved, slug)
		}
		f.mu.Unlock()
		f.workAvailable(slug, due[slug].head, ready)
	}
}

// readyOf is the ready tasks of the project slug in svc.
func readyOf(svc *service.Service, slug string) ([]service.Task, error) {
	ctx := context.Background()
	ref, err := svc.ProjectBySlug(ctx, slug)
	if err != nil {
		return nil, err
	}
	resp, err := svc.Tasks(ctx, service.Scope{Project: ref, Watching: true}, service.TaskListRequest{Ready: true})
	return resp.Tasks, err
}

// readyTasks returns the project slug's ready tasks by Options.Ready, nil
// (noted) when they cannot be read or there is no Ready.
func (f *Feed) readyTasks(slug string) []service.Task {
	if f.opts.Ready == nil {
		return nil
	}
	list, err := f.opts.Ready(slug)
	if err != nil {
		f.note(fmt.Sprintf("events: the ready tasks of project %s: %v", slug, err))
		return nil
	}
	if list == nil {
		list = []service.Task{}
	}
	return list
}

// workAvailable sends work available for each task of the project slug
// in ready and not at the last look, after commit head: a task created
// ready, whose last dependency closed, unclaimed or reopened. It runs at
// a poll after the one that published head (workDue): a commit's writer
// indexes it a moment after the branch moves. These events, like
// expiries, carry no id: what is ready is read from the index, not from
// one commit.
func (f *Feed) workAvailable(slug, head string, ready []service.Task) {
	if ready == nil {
		return
	}
	at := record.FormatTime(f.opts.Now())
	f.mu.Lock()
	defer f.mu.Unlock()
	was, now := f.readyIDs[slug], map[string]bool{}
	for _, t := range ready {
		now[t.ID] = true
		if was != nil && !was[t.ID] {
			t := t
			f.send(Event{Type: TypeWork, Project: slug, State: StateAvailable, Commit: head, Time: at, Task: &t})
		}
	}
	f.readyIDs[slug] = now
}

// events returns the events of commit c of the project slug: from the
// files this process wrote in it (Written), else from its trees.
func (f *Feed) events(slug string, c archive.CommitInfo) ([]Event, error) {
	files, ok := f.takeWritten(slug, c.Hash)
	var evs []Event
	err := f.withArchive(func(arc *archive.Archive) (err error) {
		if ok {
			evs, err = writtenEvents(arc, slug, c, files)
			return err
		}
		f.readBack.Add(1)
		evs, err = commitEvents(arc, slug, c)
		return err
	})
	return evs, err
}

// between returns the commits reachable from head and not from base,
// parents first: in-process along a line of single-parent commits (what
// every write makes), by git when a merge is on the way.
func (f *Feed) between(base, head string) ([]archive.CommitInfo, error) {
	var line []archive.CommitInfo
	err := f.withArchive(func(arc *archive.Archive) error {
		for h := head; h != base; {
			c, err := arc.ReadCommit(h)
			if err != nil {
				return err
			}
			if len(c.Parents) != 1 || len(line) == maxLine {
				line, err = since(arc, base, head)
				return err
			}
			line = append(line, c)
			h = c.Parents[0]
		}
		slices.Reverse(line)
		return nil
	})
	return line, err
}

// since is between by git: errNotAncestor when base is not in head's
// history.
func since(arc *archive.Archive, base, head string) ([]archive.CommitInfo, error) {
	ok, err := arc.IsAncestor(base, head)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", base, errNotAncestor)
	}
	hashes, err := arc.Since(base, head)
	if err != nil {
		return nil, err
	}
	out := make([]archive.CommitInfo, 0, len(hashes))
	for _, h := range hashes {
		c, err := arc.ReadCommit(h)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// publish moves the project slug's head to commit and sends its events,
// at once for every subscriber: one that subscribed before sees them live,
// one after replays up to commit.
func (f *Feed) publish(slug, commit string, evs []Event) {
	now := f.opts.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heads[slug] = commit
	for _, e := range evs {
		if isLease(&e) {
			key := leaseKey(&e)
			delete(f.leases[slug], key)
			if x, ok := watch(e, now); ok {
				f.leases[slug][key] = x
			}
		}
		f.send(e)
	}
}

// expire sends an expired event for every watched lease whose time has
// come, in the order they expired.
func (f *Feed) expire() {
	now := f.opts.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	var due []Event
	for slug, leases := range f.leases {
		for key, x := range leases {
			if now.Before(x.at) {
				continue
			}
			delete(leases, key)
			e := x.event
			e.Commit, e.Time = f.heads[slug], record.FormatTime(x.at)
			due = append(due, e)
		}
	}
	slices.SortFunc(due, func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(leaseKey(&a), leaseKey(&b)))
	})
	for _, e := range due {
		f.send(e)
	}
}

// send passes e to the subscribers of its project; f.mu is held. A
// subscriber whose buffer is full is dropped: its stream ends, and its
// client's reconnection replays what it missed.
func (f *Feed) send(e Event) {
	for _, tap := range f.taps {
		tap(e)
	}
	for s := range f.subs {
		if s.slug != e.Project {
			continue
		}
		select {
		case s.ch <- e:
		default:
			delete(f.subs, s)
			close(s.ch)
		}
	}
}

// Tap has fn told of every live event of every project, in order, as
// subscribers are (an expiry too), from now until the feed closes: serve
// queues webhook deliveries so. fn is called with the feed's lock held:
// it must not block (hand the event to a buffered channel). Tap returns
// the commit each project's live events follow: Replay up to it gives
// what came before, with nothing missed or told twice.
func (f *Feed) Tap(fn func(Event)) map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.taps = append(f.taps, fn)
	return maps.Clone(f.heads)
}

// Replay calls emit with the events of the project slug after the event
// lastID (an event id, or a commit alone: after all of its events), up
// to the commit head, in order. An id that names no event of the
// project's history up to head is an error; expiries are not replayed.
func (f *Feed) Replay(slug, lastID, head string, emit func(Event) error) error {
	return f.replay(slug, lastID, head, emit)
}

// subscribe registers a subscriber to the project slug and returns it
// with the commit its live events follow. A project the feed does not
// know is looked for once more (it may have been made a moment ago).
func (f *Feed) subscribe(slug string) (*subscription, string, error) {
	if f.head(slug) == "" {
		if err := f.poll(); err != nil {
			f.note(fmt.Sprintf("events: %v", err))
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, "", ErrClosed
	}
	head := f.heads[slug]
	if head == "" {
		return nil, "", fault.WithHint(fmt.Errorf("%w: no project %q in this store", service.ErrNotFound, slug),
			"name a project by its slug: GET /api/projects lists them")
	}
	s := &subscription{slug: slug, ch: make(chan Event, f.opts.Buffer)}
	f.subs[s] = true
	return s, head, nil
}

// unsubscribe ends s, if the feed has not.
func (f *Feed) unsubscribe(s *subscription) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs[s] {
		delete(f.subs, s)
		close(s.ch)
	}
}

// subscribers returns how many streams are being served.
func (f *Feed) subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// replay calls emit with the events of the project slug after the event
// lastID, up to commit head, in order. An id that is not one of ours, or
// whose commit is not in the project's history up to head, is errBadID:
// the caller starts from head.
func (f *Feed) replay(slug, lastID, head string, emit func(Event) error) error {
	pos, err := parseID(lastID)
	if err != nil {
		return err
	}
	var first archive.CommitInfo
	if err := f.withArchive(func(arc *archive.Archive) (err error) { first, err = arc.ReadCommit(pos.commit); return err }); err != nil {
		return fmt.Errorf("%q: %w: its commit is not in the archive", lastID, errBadID)
	}
	commits, err := f.between(pos.commit, head)
	if errors.Is(err, errNotAncestor) {
		return fmt.Errorf("%q: %w: its commit is not in the project's history", lastID, errBadID)
	}
	if err != nil {
		return err
	}
	for i, c := range append([]archive.CommitInfo{first}, commits...) {
		evs, err := f.events(slug, c)
		if err != nil {
			return err
		}
		if i == 0 {
			evs = evs[min(pos.n+1, len(evs)):]
		}
		for _, e := range evs {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
	return nil
}
