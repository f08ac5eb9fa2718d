package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What was last seen on one remote says nothing of another, which may not
// have it: sync --status with another remote counts every commit as ahead,
// none being known there yet (and a sync with it forgets that commit, so
// that its fetch negotiates from the branch's history). Status remembers
// no remote: the next status is the first remote's again.
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
	st, err = f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{Status: true})
	if err != nil || st.Remote != first || st.Ahead != 1 {
		t.Fatalf("status after a status with another remote: %s ahead %d, %v; want %s ahead 1", st.Remote, st.Ahead, err, first)
	}
}

// The leases and locks granted offline are confirmed in the push of the
// sync that takes them to the remote: the push's compare-and-swap decides
// them, so the commit that says so goes with them, not in a second round
// (a fetch and a push more, each push a walk of the archive's trees on
// the remote).
func TestSyncConfirmsOfflineGrantsInItsPush(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	f.register("GreenCastle")
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "remote.git")
	git(t, "", "init", "-q", "--bare", remote)
	if _, err := f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{Remote: remote}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour, Offline: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AcquireLock(ctx, as("GreenCastle"), LockRequest{Key: "deploy", TTL: time.Hour, Offline: true}); err != nil {
		t.Fatal(err)
	}

	trace := filepath.Join(t.TempDir(), "trace2.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	resp, err := f.svc.Sync(ctx, as("GreenCastle"), SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if pushes := gitCommands(t, trace, "push"); pushes != 1 {
		t.Errorf("the sync ran %d git pushes, want 1", pushes)
	}
	res, err := f.svc.Reservations(ctx, as("GreenCastle"), ReservationsRequest{})
	if err != nil || len(res.Reservations) != 1 || res.Reservations[0].Unconfirmed {
		t.Errorf("reservations after the sync: %+v, %v; want src/** confirmed", res.Reservations, err)
	}
	locks, err := f.svc.Locks(ctx, as("GreenCastle"), "")
	if err != nil || len(locks.Locks) != 1 || locks.Locks[0].Unconfirmed {
		t.Errorf("locks after the sync: %+v, %v; want deploy confirmed", locks.Locks, err)
	}
	// The confirmation is on the remote: nothing is left to push.
	if resp.Ahead != 0 || resp.Behind != 0 {
		t.Errorf("after the sync: ahead %d, behind %d; want 0, 0", resp.Ahead, resp.Behind)
	}
	if got := git(t, "", "--git-dir", remote, "log", "-1", "--format=%s", remoteBranch(t, remote)); !strings.HasPrefix(got, "confirm: ") {
		t.Errorf("the remote's last commit is %q, want the confirmation", got)
	}
}

// gitCommands returns how many git processes not started by git ran the
// git command verb, as git's trace2 event log at path tells.
func gitCommands(t *testing.T, path, verb string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev struct {
			Event string   `json:"event"`
			SID   string   `json:"sid"`
			Argv  []string `json:"argv"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("trace2 line %q: %v", line, err)
		}
		if ev.Event == "start" && !strings.Contains(ev.SID, "/") && slices.Contains(ev.Argv, verb) {
			n++
		}
	}
	return n
}

// remoteBranch returns the one project branch the remote at dir has.
func remoteBranch(t *testing.T, dir string) string {
	t.Helper()
	refs := strings.Fields(git(t, "", "--git-dir", dir, "for-each-ref", "--format=%(refname)", "refs/agentmail/projects/"))
	if len(refs) != 1 {
		t.Fatalf("the remote has the project branches %v, want one", refs)
	}
	return refs[0]
}
