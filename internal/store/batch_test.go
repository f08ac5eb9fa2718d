package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// TestGroupCommit: writes to one project that queue while a batch is being
// written go into the next batch together: one archive commit, whose
// message names them all; each write's function sees what those before it
// in the batch wrote; a write whose function fails is dropped alone; every
// caller returns its own result once its commit is done.
func TestGroupCommit(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	ctx := context.Background()
	branch := "refs/heads/projects/" + slug
	before := runGit(t, s.ArchiveDir(), "rev-list", "--count", branch)

	// Hold the project's lock, so that the first write waits for it with
	// a batch of its own and the others queue behind.
	release := holdProjectLock(t, s, slug)
	const n = 6
	results := make([]error, n+1)
	var wg sync.WaitGroup
	start := func(i int, fn func(*Tx) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.UpdateProject(ctx, slug, fn)
		}()
	}
	errRefused := errors.New("refused")
	send := func(i int) func(*Tx) error {
		return func(tx *Tx) error {
			// Each sees the messages of the writes before it.
			var seen int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&seen); err != nil {
				return err
			}
			m := message(i)
			m.Subject = fmt.Sprintf("after %d", seen)
			tx.Put(m)
			tx.Describe("GreenCastle", fmt.Sprintf("mail: message %d", i))
			return nil
		}
	}
	start(0, send(0))
	waitQueued(t, s, 0) // the first took its batch, and waits for the lock
	for i := 1; i <= n; i++ {
		if i == 3 {
			start(i, func(tx *Tx) error {
				tx.Put(message(99))
				return errRefused
			})
		} else {
			start(i, send(i))
		}
		waitQueued(t, s, i)
	}
	release()
	wg.Wait()
	for i, err := range results {
		switch {
		case i == 3 && !errors.Is(err, errRefused):
			t.Errorf("write %d: %v, want its own error", i, err)
		case i != 3 && err != nil:
			t.Errorf("write %d: %v", i, err)
		}
	}
	after := runGit(t, s.ArchiveDir(), "rev-list", "--count", branch)
	if got := atoi(t, after) - atoi(t, before); got != 2 {
		t.Errorf("%d commits for a write alone and a batch of %d, want 2", got, n)
	}
	log := runGit(t, s.ArchiveDir(), "log", "-1", "--format=%s%n%b", branch)
	if !strings.HasPrefix(log, "mail: message 1 (+4 more)\n") || strings.Contains(log, "message 3") {
		t.Errorf("the batch's commit message:\n%s", log)
	}
	var subjects []string
	rows, err := s.Index().QueryContext(ctx, `SELECT subject FROM messages ORDER BY subject`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sub string
		rows.Scan(&sub)
		subjects = append(subjects, sub)
	}
	// Six messages, each having seen those before it: 0 to 5, the refused
	// write's none.
	if want := "after 0,after 1,after 2,after 3,after 4,after 5"; strings.Join(subjects, ",") != want {
		t.Errorf("subjects %v, want %s", subjects, want)
	}
	if problems, err := s.Check(ctx); err != nil || len(problems) > 0 {
		t.Errorf("Check: %v %v", problems, err)
	}
}

// waitQueued waits until write i is queued for the project's next batch
// (i = 0: until the first write took its batch).
func waitQueued(t *testing.T, s *Store, i int) {
	t.Helper()
	q := s.queue(slug)
	deadline := time.Now().Add(5 * time.Second)
	for {
		q.mu.Lock()
		queued, busy := len(q.queue), q.busy
		q.mu.Unlock()
		if busy && queued == i {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("write %d: %d queued (busy %v)", i, queued, busy)
		}
		time.Sleep(time.Millisecond)
	}
}

// ProjectRefName is the project slug's branch.
func ProjectRefName(slug string) string { return "refs/heads/projects/" + slug }

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOnCommit: every commit a write makes is told, once the branch names
// it, with the files its records wrote; a write that fails tells nothing.
func TestOnCommit(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	ctx := context.Background()
	var told []Committed
	s.OnCommit(func(c Committed) { told = append(told, c) })
	for i := range 2 {
		err := s.UpdateProject(ctx, slug, func(tx *Tx) error {
			tx.Put(message(i))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		head := runGit(t, s.ArchiveDir(), "rev-parse", "refs/heads/projects/"+slug)
		if len(told) != i+1 {
			t.Fatalf("after write %d: told %d commits", i, len(told))
		}
		c := told[i]
		if c.Project != slug || c.Commit != head || !reflect.DeepEqual(c.Files, message(i).Files()) {
			t.Errorf("told %s %s %d files, want %s %s %d files", c.Project, c.Commit, len(c.Files), slug, head, len(message(i).Files()))
		}
	}
	err := s.UpdateProject(ctx, slug, func(tx *Tx) error {
		tx.Put(message(3))
		return errors.New("refused")
	})
	if err == nil || len(told) != 2 {
		t.Errorf("a failed write: %v, told %d commits", err, len(told))
	}
}

// countedRecord is a record that counts how often its files are asked for.
type countedRecord struct {
	record.Record
	calls *int
}

func (c countedRecord) Files() []record.File {
	*c.calls++
	return c.Record.Files()
}

// A write encodes each record's files once: the check that they are in
// the write's project and the commit use the same (a reservation of 50
// patterns has 50 files).
func TestFilesEncodedOnce(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	var committed []record.File
	s.OnCommit(func(c Committed) { committed = c.Files })
	calls := 0
	msg := message(1)
	err := s.UpdateProject(context.Background(), slug, func(tx *Tx) error {
		tx.Put(countedRecord{msg, &calls})
		tx.Describe("GreenCastle", "mail: counted")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("the record's files were encoded %d times, want 1", calls)
	}
	if want := msg.Files(); !reflect.DeepEqual(committed, want) {
		t.Errorf("committed %d files, want the record's %d", len(committed), len(want))
	}
}

// hookProjection is a projection with no tables of its own whose Apply
// calls apply, for tests to watch or refuse what a write indexes.
type hookProjection struct{ apply func(record.Record) error }

func (hookProjection) Name() string              { return "hook1" }
func (hookProjection) Tables() []Table           { return nil }
func (hookProjection) Prepare(record.Record) any { return nil }
func (h hookProjection) Apply(_ *Writer, rec record.Record, _ any) error {
	if _, ok := rec.(*record.Message); ok && h.apply != nil {
		return h.apply(rec)
	}
	return nil
}

// openHooked opens a store whose index applies every message through
// apply too.
func openHooked(t *testing.T, apply func(record.Record) error) *Store {
	t.Helper()
	projections := append(slices.Clone(testProjections), hookProjection{apply})
	s, err := Open(t.TempDir(), Options{Now: clock, LockWait: 5 * time.Second, Projections: projections})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// packs counts the archive's pack files.
func packs(t *testing.T, s *Store) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(s.ArchiveDir(), "objects", "pack", "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}

// A write alone goes into the index while the archive writes it: its
// message is applied only once the write's pack is in the archive, and
// the write succeeds (one after the other, the index would wait for a
// pack that comes after it, and time out).
func TestIndexedWhileArchiveWrites(t *testing.T) {
	var s *Store
	var before int
	watching := false
	s = openHooked(t, func(record.Record) error {
		if !watching {
			return nil
		}
		for deadline := time.Now().Add(10 * time.Second); packs(t, s) == before; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return errors.New("no pack was written while the message was indexed")
			}
		}
		return nil
	})
	setup(t, s)
	before, watching = packs(t, s), true
	err := s.UpdateProject(context.Background(), slug, func(tx *Tx) error {
		tx.Put(message(1))
		tx.Describe("GreenCastle", "mail: indexed while written")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.Index().QueryRowContext(context.Background(), `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 1 {
		t.Errorf("messages in the index: %d (%v), want 1", n, err)
	}
}

// A write whose records the index refuses is not committed, though the
// archive wrote its objects meanwhile: the project's branch stays, the
// index has none of it, and the caller gets the index's error.
func TestIndexRefusalMovesNoBranch(t *testing.T) {
	refused := errors.New("refused by the index")
	refuse := false
	s := openHooked(t, func(record.Record) error {
		if refuse {
			return refused
		}
		return nil
	})
	setup(t, s)
	head, err := s.ProjectHead(slug)
	if err != nil {
		t.Fatal(err)
	}
	refuse = true
	err = s.UpdateProject(context.Background(), slug, func(tx *Tx) error {
		tx.Put(message(1))
		tx.Describe("GreenCastle", "mail: refused")
		return nil
	})
	if !errors.Is(err, refused) {
		t.Fatalf("UpdateProject: %v, want the index's error", err)
	}
	if now, _ := s.ProjectHead(slug); now != head {
		t.Errorf("the branch moved to %s (was %s) for a write the index refused", now, head)
	}
	var n int
	if err := s.Index().QueryRowContext(context.Background(), `SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 0 {
		t.Errorf("messages in the index: %d (%v), want 0", n, err)
	}
	refuse = false
	put(t, s, "mail: after", message(2))
	if problems, err := s.Check(context.Background()); err != nil || len(problems) > 0 {
		t.Errorf("doctor --check: %v %q", err, problems)
	}
}
