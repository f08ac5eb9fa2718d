package service

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentUse: one Service called by many goroutines at once, as a
// server calls it: writers to two projects and readers of both. Every
// message sent is in the archive once and in the index once, no call
// fails, and the index agrees with the archive afterwards (doctor
// --check). Run with -race, it also checks that the store's state is
// guarded.
func TestConcurrentUse(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	projects := []string{"github.com/acme/shop", "github.com/acme/bank"}
	scope := func(p int, agent string) Scope {
		return Scope{Project: ProjectRef{Key: projects[p]}, Agent: agent}
	}
	for p := range projects {
		for _, n := range []string{"GreenCastle", "BlueLake"} {
			if _, err := f.svc.Register(ctx, scope(p, ""), RegisterRequest{Name: &n}); err != nil {
				t.Fatal(err)
			}
		}
	}
	const writers, each = 4, 8 // per project
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for p := range projects {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					subject := fmt.Sprintf("p%d w%d m%d", p, w, i)
					if _, err := f.svc.Send(ctx, scope(p, "GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: subject, Body: "body of " + subject}); err != nil {
						errs <- fmt.Errorf("send %s: %w", subject, err)
						return
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 * each {
				if _, err := f.svc.Inbox(ctx, scope(p, "BlueLake"), InboxRequest{Limit: 20}); err != nil {
					errs <- fmt.Errorf("inbox: %w", err)
					return
				}
				if _, err := f.svc.Search(ctx, scope(p, "BlueLake"), SearchRequest{Query: "body"}); err != nil {
					errs <- fmt.Errorf("search: %w", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for p := range projects {
		resp, err := f.svc.Inbox(ctx, scope(p, "BlueLake"), InboxRequest{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, m := range resp.Messages {
			seen[m.Subject]++
		}
		for w := range writers {
			for i := range each {
				if s := fmt.Sprintf("p%d w%d m%d", p, w, i); seen[s] != 1 {
					t.Errorf("the index holds %q %d times, want once", s, seen[s])
				}
			}
		}
		if len(resp.Messages) != writers*each {
			t.Errorf("project %d: %d messages in the inbox, want %d", p, len(resp.Messages), writers*each)
		}
		if n := archivedMessages(t, f.svc.Dir(), projects[p]); n != writers*each {
			t.Errorf("project %d: %d messages in the archive, want %d", p, n, writers*each)
		}
	}
	doc, err := f.svc.Doctor(ctx, DoctorRequest{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Check.OK {
		t.Errorf("doctor --check after concurrent use: %v", doc.Check.Problems)
	}
}

// archivedMessages counts the canonical message files of the project key's
// branch, as git lists them.
func archivedMessages(t *testing.T, storeDir, key string) int {
	t.Helper()
	p, err := ResolveProject(ProjectRef{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "--git-dir", filepath.Join(storeDir, "archive.git"),
		"ls-tree", "-r", "--name-only", "refs/heads/projects/"+p.Slug, "messages/").Output()
	if err != nil {
		t.Fatalf("git ls-tree: %v", err)
	}
	return len(strings.Fields(string(out)))
}
