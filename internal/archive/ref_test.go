package archive

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/go-git/go-git/v5/plumbing"
)

// gitFails runs git on the bare repository dir and returns its output,
// failing the test if git succeeds.
func gitFails(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("git %s succeeded: %s", strings.Join(args, " "), out)
	}
	return string(out)
}

func shortLockWait(t *testing.T, d time.Duration) {
	old := refLockWait
	refLockWait = d
	t.Cleanup(func() { refLockWait = old })
}

// A lock git holds (its own file, not one of ours) is waited for: a commit
// that starts while git holds it lands once git lets go.
func TestCommitWaitsForGitsLock(t *testing.T) {
	a := newArchive(t)
	lock := a.refPath(Branch) + ".lock"
	if err := os.WriteFile(lock, []byte(head(t, a)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		os.Remove(lock)
	}()
	start := time.Now()
	h := commit(t, a, "after git", "x", "1")
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("commit took %s: it did not wait for the lock", waited)
	}
	if got := runGit(t, a.Dir(), "rev-parse", "main"); got != h {
		t.Errorf("git sees %s, want %s", got, h)
	}
}

// A lock git keeps is never taken over: the commit fails with
// ErrRefLocked and a hint, the branch stays, and git's lock is left alone.
func TestCommitGivesUpOnGitsLock(t *testing.T) {
	shortLockWait(t, 100*time.Millisecond)
	a := newArchive(t)
	before := head(t, a)
	lock := a.refPath(Branch) + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := a.Commit(before, []Change{{Path: "x", Data: []byte("1")}}, author("A"), "blocked", nil)
	if !errors.Is(err, ErrRefLocked) {
		t.Fatalf("Commit with git's lock held: %v, want ErrRefLocked", err)
	}
	if fault.Hint(err) == "" {
		t.Errorf("%v carries no hint", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("git's lock was removed: %v", err)
	}
	if h := head(t, a); h != before {
		t.Errorf("branch moved to %s", h)
	}
	os.Remove(lock)
}

// killedMidRef leaves what a write killed holding the branch's lock
// leaves: a temporary ref file and the lock, one file, naming hash.
func killedMidRef(t *testing.T, a *Archive, hash string) string {
	t.Helper()
	tmp := filepath.Join(a.Dir(), "agentmail-ref-killed")
	if err := os.WriteFile(tmp, []byte(hash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := a.refPath(Branch) + ".lock"
	if err := os.Link(tmp, lock); err != nil {
		t.Fatal(err)
	}
	return lock
}

// The lock a killed write left excludes git, as git's protocol says; the
// next commit recognizes it as its own and removes it.
func TestStaleLockExcludesGitUntilNextCommit(t *testing.T) {
	shortLockWait(t, 100*time.Millisecond)
	a := newArchive(t)
	base := head(t, a)
	lock := killedMidRef(t, a, strings.Repeat("ab", 20))
	out := gitFails(t, a.Dir(), "update-ref", "refs/heads/main", base, base)
	if !strings.Contains(out, "main.lock") {
		t.Errorf("git update-ref with our lock in place: %s", out)
	}
	h := commit(t, a, "heals", "x", "1")
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the stale lock is still there: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(a.Dir(), refTemp)); len(m) != 0 {
		t.Errorf("temporary ref files left: %v", m)
	}
	runGit(t, a.Dir(), "update-ref", "refs/heads/main", h, h)
}

// The next commit removes the stale lock and the temporary file it is, and
// leaves alone the temporary files of writes at work on other branches
// meanwhile (another project's, whose new value is written as its pack is).
func TestStaleLockLeavesOtherWritesTemps(t *testing.T) {
	shortLockWait(t, 100*time.Millisecond)
	a := newArchive(t)
	lock := killedMidRef(t, a, strings.Repeat("ab", 20))
	other := filepath.Join(a.Dir(), "agentmail-ref-other-write")
	if err := os.WriteFile(other, []byte(strings.Repeat("cd", 20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit(t, a, "heals", "x", "1")
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the stale lock is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.Dir(), "agentmail-ref-killed")); !os.IsNotExist(err) {
		t.Errorf("the stale lock's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another write's temporary ref file was removed: %v", err)
	}
}

// GC removes a stale lock too, before the temporary file that identifies
// it, so that the next commit is not left facing a lock it cannot claim.
func TestGCRemovesStaleLock(t *testing.T) {
	shortLockWait(t, 100*time.Millisecond)
	a := newArchive(t)
	lock := killedMidRef(t, a, strings.Repeat("ab", 20))
	if err := a.GC(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("GC left the stale lock: %v", err)
	}
	commit(t, a, "after gc", "x", "1")
}

// The compare-and-swap sees what git did: a commit git made on the branch
// (commit-tree + update-ref), and a branch git packed into packed-refs.
func TestCommitComparesWithGit(t *testing.T) {
	a := newArchive(t)
	c1 := commit(t, a, "one", "x", "1")
	// git moves the branch: a commit built on c1 is refused.
	tree := runGit(t, a.Dir(), "rev-parse", c1+"^{tree}")
	byGit := runGit(t, a.Dir(), "commit-tree", tree, "-p", c1, "-m", "by git")
	runGit(t, a.Dir(), "update-ref", "refs/heads/main", byGit, c1)
	_, err := a.Commit(c1, []Change{{Path: "x", Data: []byte("lost")}}, author("A"), "stale", nil)
	if !errors.Is(err, ErrMoved) || fault.Hint(err) == "" {
		t.Errorf("Commit on the parent git moved past: %v, want ErrMoved with a hint", err)
	}
	if h := head(t, a); h != byGit {
		t.Errorf("branch at %s, want git's %s", h, byGit)
	}
	// Packed: the branch is read from packed-refs, stale or not.
	runGit(t, a.Dir(), "pack-refs", "--all", "--prune")
	if _, err := a.Commit(c1, []Change{{Path: "x", Data: []byte("lost")}}, author("A"), "stale", nil); !errors.Is(err, ErrMoved) {
		t.Errorf("Commit on a stale parent with the branch packed: %v, want ErrMoved", err)
	}
	c3 := commit(t, a, "on packed", "x", "3")
	if got := runGit(t, a.Dir(), "rev-parse", "main"); got != c3 {
		t.Errorf("git sees %s, want %s", got, c3)
	}
	if n := runGit(t, a.Dir(), "rev-list", "--count", "main"); n != "4" {
		t.Errorf("%s commits, want 4 (init, one, git's, three)", n)
	}
}

// Readers never see the branch missing or partial while commits replace it.
func TestHeadNeverTorn(t *testing.T) {
	a := newArchive(t)
	reader, err := Open(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad []error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := reader.Head(); err != nil {
				bad = append(bad, err)
			}
		}
	}()
	for i := 0; i < 50; i++ {
		commit(t, a, "c", "x", strings.Repeat("y", i))
	}
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d reads of the branch failed during commits, first: %v", len(bad), bad[0])
	}
}

// go-git's storage cannot write to the archive: every write goes through
// fsys, which makes it durable in order.
func TestGoGitStorageIsReadOnly(t *testing.T) {
	a := newArchive(t)
	before := head(t, a)
	o := &rawObject{typ: plumbing.BlobObject, data: []byte("sneaked in")}
	if _, err := a.st.SetEncodedObject(o); err == nil {
		t.Error("go-git wrote an object")
	}
	if err := a.st.SetReference(plumbing.NewHashReference(Branch, o.Hash())); err == nil {
		t.Error("go-git wrote the branch")
	}
	if h := head(t, a); h != before {
		t.Errorf("branch moved to %s", h)
	}
	gitFails(t, a.Dir(), "cat-file", "-e", o.Hash().String())
}

// A hard link to the ref (a backup made with cp -al) keeps what it held:
// the branch moves by renaming a new file over the ref, never by writing
// into a file a reader or a link may hold.
func TestCommitLeavesHardLinksAlone(t *testing.T) {
	a := newArchive(t)
	c1 := commit(t, a, "one", "x", "1")
	backup := filepath.Join(t.TempDir(), "main")
	if err := os.Link(a.refPath(Branch), backup); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(a.refPath(Branch))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for i := 0; i < 3; i++ {
		commit(t, a, "more", "x", strings.Repeat("2", i+1))
	}
	if got, err := os.ReadFile(backup); err != nil || string(got) != c1+"\n" {
		t.Errorf("hard link to the ref holds %q, %v; want %s", got, err, c1)
	}
	var b [41]byte
	if n, err := held.ReadAt(b[:], 0); n != 41 || string(b[:]) != c1+"\n" {
		t.Errorf("a reader's open ref reads %q, %v; want %s", b[:n], err, c1)
	}
}

// noLinks is a file system without hard links (FAT, some network mounts).
type noLinks struct{ osFS }

func (noLinks) link(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }

// Without hard links the lock cannot be taken: the commit fails with a
// hint saying why, and nothing moves.
func TestCommitWithoutHardLinks(t *testing.T) {
	a := newArchive(t)
	before := head(t, a)
	a.fs = noLinks{}
	_, err := a.Commit(before, []Change{{Path: "x", Data: []byte("1")}}, author("A"), "no links", nil)
	if err == nil || !strings.Contains(fault.Hint(err), "hard link") {
		t.Fatalf("Commit without hard links: %v (hint %q)", err, fault.Hint(err))
	}
	if h := head(t, a); h != before {
		t.Errorf("branch moved to %s", h)
	}
	if _, err := os.Stat(a.refPath(Branch) + ".lock"); !os.IsNotExist(err) {
		t.Errorf("a lock was left: %v", err)
	}
}
