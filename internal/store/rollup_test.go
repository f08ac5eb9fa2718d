package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/flock"
	"github.com/agentmail/agentmail/internal/record"
)

// openRollUpStore opens a store in a new directory that rolls up in the
// background or not, with the test project set up.
func openRollUpStore(t *testing.T, background bool, wait time.Duration) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), Options{Now: clock, LockWait: wait, Projections: testProjections, RollUpInBackground: background})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	setup(t, s)
	return s
}

// send writes message n to the test project, as a send does.
func send(t *testing.T, s *Store, n int) {
	t.Helper()
	err := s.UpdateProject(context.Background(), slug, func(tx *Tx) error {
		tx.Put(message(n))
		tx.Describe("GreenCastle", fmt.Sprint("mail ", n))
		return nil
	})
	if err != nil {
		t.Fatalf("send %d: %v", n, err)
	}
}

// checkMessages checks that messages 0 to n-1 are in the index and, as
// written, in the archive, whose packs git finds sound.
func checkMessages(t *testing.T, s *Store, n int) {
	t.Helper()
	fresh(t, s)
	var indexed int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM messages`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if indexed != n {
		t.Errorf("index holds %d messages, want %d", indexed, n)
	}
	// A handle of its own reads what is on disk, not what this one wrote.
	a, err := archive.Open(s.ArchiveDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	head := strings.TrimPrefix(archiveHead(t, s), slug+":")
	for i := 0; i < n; i++ {
		m := message(i)
		data, err := a.ReadFile(head, strings.TrimPrefix(m.Path(), record.ProjectDir(slug)+"/"))
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if want := m.Files()[0].Data; string(data) != string(want) {
			t.Fatalf("message %d reads back as %q, want %q", i, data, want)
		}
	}
	runGit(t, s.ArchiveDir(), "fsck", "--strict")
}

// TestRollUpAtWorkLeavesWritersAlone: while a roll-up holds its lock (here
// the test, as a slow git pack-objects in another process would), writes
// go on without waiting for it, whether the store rolls up in the
// background or before the write returns, and leave the packs to it; once
// it is done, the next write rolls up. The lock wait is short, so a write
// that waited for the roll-up would fail.
func TestRollUpAtWorkLeavesWritersAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	for _, background := range []bool{false, true} {
		t.Run(fmt.Sprint("background=", background), func(t *testing.T) {
			s := openRollUpStore(t, background, 200*time.Millisecond)
			l, err := flock.Acquire(s.rollUpPath(), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			n := archive.MaxPacks + 6
			for i := 0; i < n; i++ {
				send(t, s, i)
			}
			if got := s.arc.Packs(); got <= archive.MaxPacks {
				t.Fatalf("%d packs: a write rolled up while another roll-up was at work", got)
			}
			l.Release()
			send(t, s, n)
			s.background.Wait()
			if got := s.arc.Packs(); got > archive.MaxPacks {
				t.Errorf("%d packs after the roll-up let go, want at most %d", got, archive.MaxPacks)
			}
			checkMessages(t, s, n+1)
			if notes := s.Notes(); len(notes) != 0 {
				t.Errorf("notes: %q", notes)
			}
		})
	}
}

// TestRollUpsFallingBehind: past twice the packs that call for a roll-up,
// a write waits for the roll-up at work and then rolls up itself, so that
// packs stay bounded however slow roll-ups are.
func TestRollUpsFallingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	s := openRollUpStore(t, true, 10*time.Second)
	l, err := flock.Acquire(s.rollUpPath(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; s.arc.Packs() < 2*archive.MaxPacks; n++ {
		send(t, s, n)
	}
	if got := s.arc.Packs(); got != 2*archive.MaxPacks {
		t.Fatalf("%d packs, want %d: nothing rolls up while the lock is held", got, 2*archive.MaxPacks)
	}
	const held = 300 * time.Millisecond
	go func() {
		time.Sleep(held)
		l.Release()
	}()
	start := time.Now()
	send(t, s, n) // one pack too many
	if waited := time.Since(start); waited < held {
		t.Errorf("the write past %d packs returned after %s, before the roll-up at work let go", 2*archive.MaxPacks, waited)
	}
	if got := s.arc.Packs(); got > archive.MaxPacks {
		t.Errorf("%d packs once the write past %d returned, want at most %d", got, 2*archive.MaxPacks, archive.MaxPacks)
	}
	checkMessages(t, s, n+1)
}

// TestWritesDuringBackgroundRollUps: a store that rolls up in the
// background keeps writing while its roll-ups run; every write survives
// the roll-ups, readable from the archive and the index, the archive
// stays sound and its packs bounded.
func TestWritesDuringBackgroundRollUps(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	s := openRollUpStore(t, true, 10*time.Second)
	n, during := 3*archive.MaxPacks, 0
	for i := 0; i < n; i++ {
		send(t, s, i)
		if s.rolling.Load() {
			during++ // returned while a roll-up was at work
		}
		if got := s.arc.Packs(); got > 2*archive.MaxPacks {
			t.Fatalf("%d packs after write %d", got, i)
		}
	}
	s.background.Wait()
	if during == 0 {
		t.Error("no write returned while a roll-up was at work")
	}
	if got := s.arc.Packs(); got > archive.MaxPacks {
		t.Errorf("%d packs after the roll-ups, want at most %d", got, archive.MaxPacks)
	}
	checkMessages(t, s, n)
	if notes := s.Notes(); len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
}

// TestSparesAfterWrites: a long-lived store makes the files its next
// writes fill once a write is done, and removes those left as it closes; a
// command line process makes none (it would leave them to nobody).
func TestSparesAfterWrites(t *testing.T) {
	spares := func(s *Store) []string {
		var all []string
		for _, pattern := range []string{"objects/pack/.tmp-spare-*", "agentmail-ref-spare-*"} {
			m, _ := filepath.Glob(filepath.Join(s.ArchiveDir(), pattern))
			all = append(all, m...)
		}
		return all
	}
	for _, background := range []bool{false, true} {
		t.Run(fmt.Sprint("background=", background), func(t *testing.T) {
			s := openRollUpStore(t, background, 5*time.Second)
			send(t, s, 0)
			s.background.Wait()
			made := len(spares(s))
			if background && made == 0 {
				t.Error("no spare files after a write")
			}
			if !background && made != 0 {
				t.Errorf("a command line store made %d spare files", made)
			}
			send(t, s, 1)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left := spares(s); len(left) != 0 {
				t.Errorf("Close left spare files: %v", left)
			}
		})
	}
}
