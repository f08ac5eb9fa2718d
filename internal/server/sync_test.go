package server

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
)

// A server syncs the projects that have synced before on its own: mail
// sent on another machine shows in its API without a command, and the
// rounds that brought it are noted.
func TestServeSyncsOnInterval(t *testing.T) {
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, t.TempDir(), "init", "-q", "--bare", remote)
	var (
		mu    sync.Mutex
		notes []string
	)
	h := startServer(t, Config{SyncEvery: 100 * time.Millisecond, Store: service.Config{Note: func(n string) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}}})
	h.seed([]string{"BlueLake"})
	if _, err := h.svc.Sync(ctx, h.scope(""), service.SyncRequest{Remote: remote}); err != nil {
		t.Fatal(err)
	}

	other := service.New(service.Config{Dir: filepath.Join(t.TempDir(), "other")})
	defer other.Close()
	if _, err := other.Sync(ctx, h.scope(""), service.SyncRequest{Remote: remote}); err != nil {
		t.Fatal(err)
	}
	name := "GreenCastle"
	if _, err := other.Register(ctx, h.scope(""), service.RegisterRequest{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Send(ctx, h.scope("GreenCastle"), service.SendRequest{To: []string{"BlueLake"}, Subject: "from the other machine", Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Sync(ctx, h.scope(""), service.SyncRequest{}); err != nil {
		t.Fatal(err)
	}

	inbox := "/api/projects/" + h.slug + "/agents/BlueLake/inbox"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := h.do("GET", inbox, nil)
		if r.status == 200 && strings.Contains(string(r.body), "from the other machine") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not sync the other machine's mail in 10 s: %d %s", r.status, r.body)
		}
	}
	// The round is noted once it has ended, which may be a moment after
	// its mail can be read.
	noted := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(notes, "\n")
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(noted(), "sync "+h.slug+": "); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no round noted: %q", noted())
		}
	}
}
