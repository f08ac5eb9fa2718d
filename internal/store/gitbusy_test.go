package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
)

// gitCommitOnBranch makes a commit with the system git on the archive's
// branch, as a person would, and returns it.
func gitCommitOnBranch(t *testing.T, dir string) string {
	t.Helper()
	h := runGit(t, dir, "rev-parse", "refs/heads/main")
	cmd := exec.Command("git", "--git-dir", dir, "commit-tree", h+"^{tree}", "-p", h, "-m", "note: by hand")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=h@example.com",
		"GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=h@example.com")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git commit-tree: %v", err)
	}
	c := strings.TrimSpace(string(out))
	runGit(t, dir, "update-ref", "refs/heads/main", c, h)
	return c
}

// When the system git moves the branch while a write decides, or holds the
// branch's lock, the write fails with ErrBusy and a hint to run it again;
// nothing of it is written, git's commit stays, and the next write lands
// on top of git's.
func TestUpdateBusyWhileGitWorks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		git   func(t *testing.T, dir string) (cleanup func())
		cause error
	}{
		{"git moved the branch", func(t *testing.T, dir string) func() {
			gitCommitOnBranch(t, dir)
			return func() {}
		}, archive.ErrMoved},
		{"git holds the branch's lock", func(t *testing.T, dir string) func() {
			lock := filepath.Join(dir, "refs", "heads", "main.lock")
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return func() { os.Remove(lock) }
		}, archive.ErrRefLocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			setup(t, s)
			idx := indexHead(t, s.db)
			var cleanup func()
			err := s.Update(context.Background(), func(tx *Tx) error {
				cleanup = tc.git(t, s.ArchiveDir())
				tx.Put(message(1))
				return nil
			})
			cleanup()
			if !errors.Is(err, ErrBusy) || !errors.Is(err, tc.cause) || fault.Hint(err) == "" {
				t.Fatalf("Update: %v; want ErrBusy for %v, with a hint", err, tc.cause)
			}
			if got := indexHead(t, s.db); got != idx {
				t.Errorf("the index moved to %s", got)
			}
			byGit := archiveHead(t, s)
			put(t, s, "again", message(1))
			fresh(t, s)
			var n int
			if err := s.db.QueryRow(`SELECT count(*) FROM messages WHERE id = ?`, message(1).ID).Scan(&n); err != nil || n != 1 {
				t.Errorf("the message is indexed %d times (%v), want once", n, err)
			}
			runGit(t, s.ArchiveDir(), "merge-base", "--is-ancestor", byGit, "refs/heads/main")
			runGit(t, s.ArchiveDir(), "fsck", "--strict")
		})
	}
}
