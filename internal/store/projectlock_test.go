package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
)

// putIn writes recs to the project slug with UpdateProject.
func putIn(s *Store, slug string, recs ...record.Record) error {
	return s.UpdateProject(context.Background(), slug, func(tx *Tx) error {
		tx.Put(recs...)
		tx.Describe("GreenCastle", "test: "+slug)
		return nil
	})
}

// agentIn is an agent record of the project slug.
func agentIn(slug, name string) *record.Agent {
	a := agent(name)
	a.Project = slug
	return a
}

// TestProjectLocks: while project B's lock is held, in this process or in
// another (flock(1) holding the lock file), a write to project A goes
// through at once, and a write to B waits for B's lock and gives up with
// ErrBusy.
func TestProjectLocks(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	const a, b = "alpha-00000001", "beta-00000002"
	for _, p := range []string{a, b} {
		if err := putIn(s, p, project(p)); err != nil {
			t.Fatal(err)
		}
	}
	impatient, err := Open(dir, Options{Now: clock, LockWait: 300 * time.Millisecond, Projections: testProjections})
	if err != nil {
		t.Fatal(err)
	}
	defer impatient.Close()
	check := func(how string) {
		t.Helper()
		start := time.Now()
		if err := putIn(impatient, a, agentIn(a, "GreenCastle")); err != nil {
			t.Errorf("%s: write to A: %v", how, err)
		}
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("%s: the write to A took %s", how, d)
		}
		if err := putIn(impatient, b, agentIn(b, "BlueLake")); !errors.Is(err, ErrBusy) {
			t.Errorf("%s: write to B while its lock is held: %v, want ErrBusy", how, err)
		}
	}

	// In this process: B's lock held, as a merge into B holds it while it
	// writes the archive. (A write to B in its SQL transaction holds the
	// index's single writer too, for the moments that takes.)
	release := holdProjectLock(t, s, b)
	check("B's lock held in this process")
	release()

	// In another process.
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) is needed to hold the lock from another process")
	}
	cmd := exec.Command("flock", "--exclusive", s.projectLockPath(b), "sh", "-c", "echo held; read x")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if _, err := stdout.Read(make([]byte, 5)); err != nil {
		t.Fatalf("flock(1) did not take the lock: %v", err)
	}
	check("flock(1) holding B's lock")
	stdin.Close()
	cmd.Wait()
	if err := putIn(impatient, b, agentIn(b, "BlueLake")); err != nil {
		t.Errorf("write to B once its lock is free: %v", err)
	}
	if problems, err := s.Check(context.Background()); err != nil || len(problems) > 0 {
		t.Errorf("Check: %v %v", problems, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "locks", a)); err != nil {
		t.Errorf("project A's lock file: %v", err)
	}
}

// holdProjectLock takes the project slug's lock in s until release is
// called.
func holdProjectLock(t *testing.T, s *Store, slug string) (release func()) {
	t.Helper()
	holding, done, held := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		held <- s.withProjectLock(slug, func() error {
			close(holding)
			<-done
			return nil
		})
	}()
	<-holding
	return func() {
		t.Helper()
		close(done)
		if err := <-held; err != nil {
			t.Fatalf("holding %s's lock: %v", slug, err)
		}
	}
}

// TestUpdateProjectRefusesOtherProjects: an update that holds one
// project's lock writes nothing of another.
func TestUpdateProjectRefusesOtherProjects(t *testing.T) {
	s := openStore(t, t.TempDir())
	const a, b = "alpha-00000001", "beta-00000002"
	if err := putIn(s, a, project(a), agentIn(b, "BlueLake")); err == nil {
		t.Fatal("an update of A wrote a record of B")
	}
	if head, _ := s.Head(); head != "" {
		t.Errorf("the archive moved to %q", head)
	}
}

// TestFreshWaitsForWriter: a reader that finds a project's branch ahead of
// the index while the project's writer is at work (its commit in the
// archive, not yet in the index) waits for the writer, and then reads the
// write: a wait that saw the branch move never misses the write.
func TestFreshWaitsForWriter(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	ctx := context.Background()
	release := holdProjectLock(t, s, slug)
	// The writer's commit, in the archive alone.
	m := message(1)
	var changes []archive.Change
	for _, f := range m.Files() {
		changes = append(changes, archive.Change{Path: f.Path, Data: f.Data})
	}
	head, err := s.indexHead(s.writer())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.arc.CommitProjects(head, changes, archive.Author{Name: "GreenCastle", Email: "greencastle@agentmail", When: t0}, "mail", nil); err != nil {
		t.Fatal(err)
	}
	fresh := make(chan error)
	go func() { fresh <- s.Fresh(ctx) }()
	select {
	case err := <-fresh:
		t.Fatalf("Fresh returned (%v) while the project's writer was at work", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-fresh; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.Index().QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE id = ?`, m.ID).Scan(&n); err != nil || n != 1 {
		t.Errorf("after Fresh, the index holds the write %d times (%v)", n, err)
	}
}
