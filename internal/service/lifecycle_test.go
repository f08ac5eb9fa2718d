package service

import (
	"context"
	"testing"
)

// An archived project is left out of the project list but with all, and
// refuses writes (PROJECT_ARCHIVED) until it is unarchived.
func TestArchiveProjectHidesAndRefuses(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	resp, err := f.svc.ArchiveProject(ctx, as("GreenCastle"), true)
	if err != nil || resp.Status != "archived" || !resp.Changed || resp.ArchivedAt.IsZero() {
		t.Fatalf("archive: %+v, %v", resp, err)
	}
	if list, err := f.svc.Projects(ctx, false); err != nil || len(list.Projects) != 0 {
		t.Errorf("projects without all: %+v, %v", list, err)
	}
	if list, err := f.svc.Projects(ctx, true); err != nil || len(list.Projects) != 1 || list.Projects[0].Archived == nil {
		t.Errorf("projects with all: %+v, %v", list, err)
	}
	_, err = f.svc.Send(ctx, as("GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: "hi", Body: "x"})
	wantCode(t, "send to an archived project", err, "PROJECT_ARCHIVED")
	_, err = f.svc.ArchiveProject(ctx, as("Nobody"), false)
	wantCode(t, "unarchive as nobody registered", err, "NOT_REGISTERED")
	if _, err := f.svc.ArchiveProject(ctx, as("BlueLake"), false); err != nil {
		t.Fatal(err)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "hi", Body: "x"})
}

// Retiring an agent releases its reservations; a registration token is
// the agent's in its project only, and the same each time.
func TestRetireReleasesAndTokens(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	if _, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"src/**"}, TTL: 3600e9, Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	resp, err := f.svc.Retire(ctx, as("GreenCastle"), RetireRequest{Name: "BlueLake", Retired: true})
	if err != nil || resp.Status != "retired" || len(resp.ReleasedLeases) != 1 || resp.ReleasedCount != 1 {
		t.Fatalf("retire: %+v, %v", resp, err)
	}
	list, err := f.svc.Agents(ctx, as(""), AgentsRequest{})
	if err != nil || len(list.Agents) != 1 || list.Agents[0].Name != "GreenCastle" {
		t.Errorf("agents without all: %+v, %v", list.Agents, err)
	}
	_, err = f.svc.Send(ctx, as("GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: "hi", Body: "x"})
	wantCode(t, "send to a retired agent", err, "AGENT_RETIRED")

	tok, err := f.svc.RegistrationToken(as(""), "BlueLake")
	if err != nil || len(tok) < 20 {
		t.Fatalf("token %q, %v", tok, err)
	}
	again, _ := f.svc.RegistrationToken(as(""), "bluelake")
	other, _ := f.svc.RegistrationToken(as(""), "GreenCastle")
	if again != tok || other == tok {
		t.Errorf("tokens: %q, %q, %q", tok, again, other)
	}
	if ok, err := f.svc.CheckRegistrationToken(as(""), "GreenCastle", tok); ok || err != nil {
		t.Errorf("BlueLake's token accepted for GreenCastle: %v", err)
	}
	elsewhere := as("")
	elsewhere.Project = ProjectRef{Key: "github.com/acme/other"}
	if ok, _ := f.svc.CheckRegistrationToken(elsewhere, "BlueLake", tok); ok {
		t.Error("a token accepted in another project")
	}
}
