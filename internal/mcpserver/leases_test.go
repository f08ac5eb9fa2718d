package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
)

func TestFileReservations(t *testing.T) {
	g, b := twoAgents(t)

	granted := g.ok("file_reservation_paths", args{"paths": []string{"src/api/**"}, "reason": "auth rewrite"})
	g.want(granted, "granted.0.pattern", "src/api/**")
	g.want(granted, "granted.0.exclusive", true)
	g.want(granted, "granted.0.expires", g.clock.Now().Add(time.Hour).Format(time.RFC3339))

	// All or nothing: a conflict is a tool error listing every conflict.
	e := b.fail("file_reservation_paths", args{"paths": []string{"docs/**", "src/api/routes.go"}}, "RESERVATION_CONFLICT")
	if e.Type != "FILE_RESERVATION_CONFLICT" || len(e.Conflicts) != 1 || e.Conflicts[0].Holder != "GreenCastle" ||
		e.Conflicts[0].Pattern != "src/api/routes.go" || e.Conflicts[0].HolderPattern != "src/api/**" {
		t.Errorf("conflict: %+v", e)
	}
	if !strings.Contains(e.Hint, "GreenCastle") || !strings.Contains(e.Hint, "allow_conflicts") {
		t.Errorf("the conflict's hint names neither the holder nor allow_conflicts: %q", e.Hint)
	}
	if n := len(b.ok("check_file_reservations", args{"paths": []string{"docs/x.md"}}).list("paths.0.holders")); n != 0 {
		t.Errorf("docs/** was granted although the request conflicted: %d holders", n)
	}
	// allow_conflicts grants, as mcp_agent_mail does, listing them.
	advisory := b.ok("file_reservation_paths", args{"paths": []string{"src/api/routes.go"}, "exclusive": false, "allow_conflicts": true})
	b.want(advisory, "granted.0.exclusive", false)
	b.want(advisory, "conflicts.0.holder", "GreenCastle")

	held := b.ok("check_file_reservations", args{"paths": []string{"src/api/routes.go"}})
	b.want(held, "paths.0.holders.0.agent", "GreenCastle")
	b.want(held, "paths.0.holders.1.agent", "BlueLake")
	b.fail("check_file_reservations", args{"paths": []string{}}, "USAGE")

	renewed := g.ok("renew_file_reservations", args{"extend_seconds": 600})
	g.want(renewed, "renewed", 1)
	g.want(renewed, "file_reservations.0.expires", g.clock.Now().Add(time.Hour+10*time.Minute).Format(time.RFC3339))
	g.fail("renew_file_reservations", args{"file_reservation_ids": []string{"01ZZZZZZZZZZ"}}, "NOT_FOUND")

	// Taking another's reservation needs it expired or its holder silent.
	mine := advisory.str("granted.0.id")
	g.fail("force_release_file_reservation", args{"file_reservation_id": mine}, "INVALID_ARGUMENT")
	g.clock.Add(2 * time.Hour)
	forced := g.ok("force_release_file_reservation", args{"file_reservation_id": mine, "note": "needed the router"})
	g.want(forced, "released", 1)
	g.want(forced, "file_reservations.0.agent", "BlueLake")
	b.want(b.ok("fetch_inbox", args{"include_bodies": true}), "messages.0.subject", "Released your reservation of src/api/routes.go")

	g.ok("file_reservation_paths", args{"paths": []string{"src/api/**"}}) // the first one expired meanwhile
	released := g.ok("release_file_reservations", args{"paths": []string{"src/api/**"}})
	g.want(released, "released", 1)
	g.want(released, "file_reservations.0.pattern", "src/api/**")
	g.fail("release_file_reservations", args{"paths": []string{}}, "INVALID_ARGUMENT")
}

// Releasing or renewing names nothing: all of the agent's reservations.
func TestReleaseAll(t *testing.T) {
	g, _ := twoAgents(t)
	g.ok("file_reservation_paths", args{"paths": []string{"a/**", "b/**"}})
	g.want(g.ok("renew_file_reservations", args{}), "renewed", 2)
	g.want(g.ok("release_file_reservations", args{}), "released", 2)
	g.want(g.ok("release_file_reservations", args{}), "released", 0)
}

func TestLocks(t *testing.T) {
	g, b := twoAgents(t)
	lock := g.ok("acquire_lock", args{"key": "deploy/staging", "ttl_seconds": 120})
	g.want(lock, "lock.holder", "GreenCastle")
	g.want(lock, "lock.expires", g.clock.Now().Add(2*time.Minute).Format(time.RFC3339))
	e := b.fail("acquire_lock", args{"key": "deploy/staging"}, "LOCK_HELD")
	if e.Lock == nil || e.Lock.Holder != "GreenCastle" || !strings.Contains(e.Hint, "GreenCastle") {
		t.Errorf("held: %+v", e)
	}
	g.want(g.ok("renew_lock", args{"key": "deploy/staging", "ttl_seconds": 600}), "lock.expires", g.clock.Now().Add(10*time.Minute).Format(time.RFC3339))
	b.fail("renew_lock", args{"key": "deploy/staging"}, "LOCK_HELD")
	g.want(g.ok("list_locks", args{"prefix": "deploy/"}), "locks.0.key", "deploy/staging")
	g.fail("list_locks", args{"format": "toon"}, "INVALID_ARGUMENT")
	b.fail("release_lock", args{"key": "deploy/staging"}, "LOCK_HELD")
	g.want(g.ok("release_lock", args{"key": "deploy/staging"}), "lock.key", "deploy/staging")
	if n := len(g.ok("list_locks", args{}).list("locks")); n != 0 {
		t.Errorf("%d locks after the release", n)
	}
}

// A lock acquired with a wait holds up no other call: the holder's
// release goes through during the wait, and the waiter then gets it.
func TestAcquireLockWaits(t *testing.T) {
	g, b := twoAgents(t)
	g.ok("acquire_lock", args{"key": "leader"})
	got := make(chan doc, 1)
	go func() { got <- b.ok("acquire_lock", args{"key": "leader", "wait_seconds": 20}) }()
	time.Sleep(300 * time.Millisecond) // b is waiting
	start := time.Now()
	g.ok("release_lock", args{"key": "leader"})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("release took %s while another call waited for the lock", d)
	}
	select {
	case d := <-got:
		b.want(d, "lock.holder", "BlueLake")
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting acquire did not get the lock once released")
	}
}

func TestBuildSlots(t *testing.T) {
	g, b := twoAgents(t)
	slot := g.ok("acquire_build_slot", args{"slot": "frontend", "branch": "main"})
	g.want(slot, "lock.key", "build/frontend")
	g.want(slot, "lock.expires", g.clock.Now().Add(time.Hour).Format(time.RFC3339))
	b.fail("acquire_build_slot", args{"slot": "frontend", "exclusive": false}, "INVALID_ARGUMENT")
	b.fail("acquire_build_slot", args{"slot": "frontend"}, "LOCK_HELD")
	g.want(g.ok("list_locks", args{"prefix": "build/"}), "locks.0.holder", "GreenCastle")

	// Renewing extends from the expiry, as mcp_agent_mail does.
	g.clock.Add(10 * time.Minute)
	g.want(g.ok("renew_build_slot", args{"slot": "frontend", "extend_seconds": 600}), "lock.expires", g.clock.Now().Add(50*time.Minute+10*time.Minute).Format(time.RFC3339))
	b.fail("renew_build_slot", args{"slot": "frontend"}, "LOCK_HELD")

	g.fail("release_build_slot", args{"slot": " "}, "USAGE")
	g.want(g.ok("release_build_slot", args{"slot": "frontend"}), "lock.key", "build/frontend")
	b.want(b.ok("acquire_lock", args{"key": "build/frontend"}), "lock.holder", "BlueLake") // the same lock
}

// A project that syncs decides grants by pushing them. With its remote
// down, the tools that grant fail with REMOTE_UNREACHABLE and a hint that
// names their offline argument; with offline: true they grant here,
// unconfirmed, as the command line's --offline does.
func TestOfflineGrants(t *testing.T) {
	g := newHarness(t)
	g.ok("register_agent", args{"name": "GreenCastle"})
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, t.TempDir(), "init", "-q", "--bare", remote)
	if err := g.srv.gate.Do(func(svc *service.Service) error {
		_, err := svc.Sync(context.Background(), service.Scope{Project: service.ProjectRef{Dir: g.repo}}, service.SyncRequest{Remote: remote})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	held := g.ok("file_reservation_paths", args{"paths": []string{"docs/**"}})
	if _, ok := held.get("granted.0.unconfirmed").(bool); ok {
		t.Errorf("a grant pushed to the remote is unconfirmed: %v", held)
	}
	if err := os.Rename(remote, remote+".down"); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		tool    string
		args    args
		granted string // the path of the unconfirmed flag in the offline grant's document
	}{
		{"file_reservation_paths", args{"paths": []string{"src/**"}}, "granted.0.unconfirmed"},
		{"macro_file_reservation_cycle", args{"paths": []string{"lib/**"}}, "file_reservations.granted.0.unconfirmed"},
		{"macro_start_session", args{"agent_name": "GreenCastle", "file_reservation_paths": []string{"cmd/**"}}, "file_reservations.granted.0.unconfirmed"},
		{"renew_file_reservations", args{"paths": []string{"docs/**"}}, "file_reservations.0.unconfirmed"},
		{"acquire_lock", args{"key": "deploy/staging"}, "lock.unconfirmed"},
		{"acquire_build_slot", args{"slot": "frontend"}, "lock.unconfirmed"},
	} {
		e := g.fail(c.tool, c.args, "REMOTE_UNREACHABLE")
		if !strings.Contains(e.Hint, "offline: true") || strings.Contains(e.Hint, "--offline") {
			t.Errorf("%s: the hint does not name the offline argument: %q", c.tool, e.Hint)
		}
		if !strings.Contains(e.Message, remote) {
			t.Errorf("%s: the message does not name the remote: %q", c.tool, e.Message)
		}
		c.args["offline"] = true
		g.want(g.ok(c.tool, c.args), c.granted, true)
	}
	// Nothing was granted by the refused calls: what stands is what the
	// offline ones granted, each once.
	locks := g.ok("list_locks", args{})
	if n := len(locks.list("locks")); n != 2 {
		t.Errorf("%d locks held, want 2 (deploy/staging, build/frontend): %v", n, locks)
	}
}
