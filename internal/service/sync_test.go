package service

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// Syncing with another remote forgets what was last seen on the one before,
// which the new one may not have: sync --status then counts every commit
// as ahead, none being known there yet (and the next fetch negotiates from
// the branch's history, not from that commit).
func TestSyncAnotherRemoteForgetsLastSeen(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	f.register("GreenCastle", "BlueLake")
	ctx := context.Background()
	first, second := filepath.Join(t.TempDir(), "first.git"), filepath.Join(t.TempDir(), "second.git")
	for _, r := range []string{first, second} {
		git(t, "", "init", "-q", "--bare", r)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "before", Body: "x"})
	if _, err := f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{Remote: first}); err != nil {
		t.Fatal(err)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "after", Body: "x"})
	st, err := f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{Remote: first, Status: true})
	if err != nil || st.Ahead != 1 {
		t.Fatalf("status with the first remote: ahead %d, %v; want 1", st.Ahead, err)
	}
	st, err = f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{Remote: second, Status: true})
	if err != nil {
		t.Fatal(err)
	}
	all, err := strconv.Atoi(git(t, "", "--git-dir", filepath.Join(f.svc.cfg.Dir, "archive.git"), "rev-list", "--count", st.Head))
	if err != nil {
		t.Fatal(err)
	}
	if st.Remote != second || st.Ahead != all || st.Behind != 0 {
		t.Errorf("status with another remote: %s ahead %d behind %d; want %s ahead %d (every commit) behind 0",
			st.Remote, st.Ahead, st.Behind, second, all)
	}
}
