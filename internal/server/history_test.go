package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// TestHistory: the project's history, newest first, as the API pages it
// (a page, then the next from the same commit however the branch moved
// meanwhile) and as the History page shows it, each change with what it
// means and links to its files as that commit left them; a bad cursor is
// INVALID_ARGUMENT.
func TestHistory(t *testing.T) {
	ctx := context.Background()
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	if _, err := h.svc.Control(ctx, h.scope("Human"), service.ControlRequest{Agent: "BlueLake", Action: "pause", Reason: "review"}); err != nil {
		t.Fatal(err)
	}
	api := "/api/projects/" + h.slug + "/history"
	first := h.do("GET", api+"?limit=1", nil).doc(t)
	commits := first["commits"].([]any)
	top := commits[0].(map[string]any)
	if len(commits) != 1 || first["more"] != true || top["subject"] != "control: Human pauses BlueLake" || top["author"] != "Human" {
		t.Fatalf("the newest change: %v", first)
	}
	from := first["from"].(string)
	if _, err := h.svc.Control(ctx, h.scope("Human"), service.ControlRequest{Agent: "BlueLake", Action: "resume"}); err != nil {
		t.Fatal(err)
	}
	next := h.do("GET", api+"?limit=1&skip=1&from="+from, nil).doc(t)
	second := next["commits"].([]any)[0].(map[string]any)
	if second["commit"] == top["commit"] || strings.HasPrefix(second["subject"].(string), "control:") {
		t.Fatalf("the page after the first, from the same commit: %v", next)
	}
	files := top["files"].([]any)
	if len(files) != 1 || files[0] != "projects/"+h.slug+"/agents/BlueLake/control.json" {
		t.Fatalf("the pause's files: %v", files)
	}
	if r := h.do("GET", api+"?from=HEAD", nil); r.status != 400 || r.code(t) != "INVALID_ARGUMENT" {
		t.Fatalf("a cursor that is no commit: %d %s", r.status, r.body)
	}

	// Time travel: a lease released since is held as of the commit that
	// took it, and not now.
	r, err := h.svc.Reserve(ctx, h.scope("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/api/**"}, TTL: time.Hour, Reason: "auth"})
	if err != nil {
		t.Fatal(err)
	}
	taken := h.do("GET", api+"?limit=1", nil).doc(t)["from"].(string)
	if _, err := h.svc.Release(ctx, h.scope("GreenCastle"), service.Selection{IDs: []string{r.Granted[0].ID}}); err != nil {
		t.Fatal(err)
	}
	then := h.do("GET", api+"/"+taken+"/leases", nil).doc(t)
	if l := then["reservations"].([]any); len(l) != 1 || l[0].(map[string]any)["pattern"] != "src/api/**" {
		t.Fatalf("leases as of the reserve: %v", then)
	}
	past := string(h.do("GET", "/mail/"+h.slug+"/reservations?at="+taken, nil).body)
	now := string(h.do("GET", "/mail/"+h.slug+"/reservations", nil).body)
	if !strings.Contains(past, "As of commit") || !strings.Contains(past, "<code>src/api/**</code>") || strings.Contains(past, "released") {
		t.Errorf("the reservations page as of the reserve:\n%s", past)
	}
	if !strings.Contains(now, "released") {
		t.Errorf("the reservations page now shows no released lease:\n%s", now)
	}
	if r := h.do("GET", api+"/"+strings.Repeat("0", 40)+"/leases", nil); r.status != 404 {
		t.Errorf("leases as of a commit that is not: %d %s", r.status, r.body)
	}

	page := string(h.do("GET", "/mail/"+h.slug+"/history", nil).body)
	for _, want := range []string{"control: Human resumes BlueLake", "control: Human pauses BlueLake",
		"<li>BlueLake paused by Human</li>", "<li>lease on src/api/** released by GreenCastle</li>",
		`href="/mail/` + h.slug + `/archive/` + top["commit"].(string) + `/projects/` + h.slug + `/agents/BlueLake/control.json"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the history page lacks %s:\n%s", want, page)
		}
	}
}
