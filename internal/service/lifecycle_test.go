package service

import (
	"context"
	"testing"
	"time"
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
	if _, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour, Reason: "r"}); err != nil {
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

// A purge takes old messages out of the inbox, the search and a rebuilt
// index alike (dry run first); the archive's history keeps them.
func TestPurgeOldMessages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	old := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "ancient plans", Body: "zebra"})
	f.clock.Add(40 * 24 * time.Hour)
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "fresh plans", Body: "zebra"})

	dry, err := f.svc.Purge(ctx, as("GreenCastle"), PurgeRequest{MaxAgeDays: 30, DryRun: true})
	if err != nil || dry.Status != "dry_run" || dry.MessagesAffected != 1 || dry.Messages[0].ID != old.ID || !dry.HistoryKept {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	inboxSubjects := func() []string {
		box, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range box.Messages {
			out = append(out, m.Subject)
		}
		return out
	}
	if got := inboxSubjects(); len(got) != 2 {
		t.Fatalf("a dry run purged: %v", got)
	}
	done, err := f.svc.Purge(ctx, as("GreenCastle"), PurgeRequest{MaxAgeDays: 30})
	if err != nil || done.Status != "purged" || done.MessagesAffected != 1 {
		t.Fatalf("purge: %+v, %v", done, err)
	}
	for _, pass := range []string{"live", "rebuilt"} {
		if got := inboxSubjects(); len(got) != 1 || got[0] != "fresh plans" {
			t.Errorf("%s index: inbox %v", pass, got)
		}
		res, err := f.svc.Search(ctx, as("BlueLake"), SearchRequest{Query: "zebra"})
		if err != nil || len(res.Results) != 1 {
			t.Errorf("%s index: search %+v, %v", pass, res.Results, err)
		}
		if _, err := f.svc.Doctor(ctx, DoctorRequest{Reindex: true}); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := f.svc.Doctor(ctx, DoctorRequest{Check: true}); err != nil {
		t.Errorf("doctor after a purge: %+v, %v", r, err)
	}
	again, err := f.svc.Purge(ctx, as("GreenCastle"), PurgeRequest{MaxAgeDays: 30})
	if err != nil || again.MessagesAffected != 0 {
		t.Errorf("a second purge: %+v, %v", again, err)
	}
	_, err = f.svc.Purge(ctx, as("GreenCastle"), PurgeRequest{MaxAgeDays: -1})
	wantCode(t, "a negative age", err, "USAGE")
}

// A hard delete needs its confirmation word for word; it takes the agent
// and the mail it sent out of every index, releases its leases; the name
// registers again as a new agent.
func TestHardDeleteAgent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	f.send("BlueLake", SendRequest{To: []string{"GreenCastle"}, Subject: "from blue", Body: "x"})
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "to blue", Body: "x"})
	if _, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour, Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.HardDeleteAgent(ctx, as("GreenCastle"), "BlueLake", "i understand")
	wantCode(t, "a wrong confirmation", err, "INVALID_ARGUMENT")
	resp, err := f.svc.HardDeleteAgent(ctx, as("GreenCastle"), "BlueLake", HardDeleteConfirmation)
	if err != nil || resp.Status != "hard_deleted" || resp.DeletedCounts != (DeletedCounts{Agents: 1, Messages: 1, FileReservations: 1}) || !resp.HistoryKept {
		t.Fatalf("hard delete: %+v, %v", resp, err)
	}
	for _, pass := range []string{"live", "rebuilt"} {
		list, err := f.svc.Agents(ctx, as(""), AgentsRequest{All: true})
		if err != nil || len(list.Agents) != 1 {
			t.Errorf("%s index: agents %+v, %v", pass, list.Agents, err)
		}
		box, err := f.svc.Inbox(ctx, as("GreenCastle"), InboxRequest{})
		if err != nil || len(box.Messages) != 0 {
			t.Errorf("%s index: GreenCastle's inbox %+v, %v", pass, box.Messages, err)
		}
		if _, err := f.svc.Doctor(ctx, DoctorRequest{Reindex: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.svc.HardDeleteAgent(ctx, as("GreenCastle"), "BlueLake", HardDeleteConfirmation)
	wantCode(t, "deleting it again", err, "UNKNOWN_RECIPIENT")
	f.register("BlueLake")
	if resp, err := f.svc.HardDeleteProject(ctx, as("GreenCastle"), HardDeleteConfirmation); err != nil || resp.DeletedCounts.Agents != 2 || resp.DeletedCounts.Messages != 1 {
		t.Errorf("hard delete project: %+v, %v", resp, err)
	}
	if list, err := f.svc.Agents(ctx, as(""), AgentsRequest{All: true}); err != nil || len(list.Agents) != 0 {
		t.Errorf("after the project's hard delete: %+v, %v", list.Agents, err)
	}
	if r, err := f.svc.Doctor(ctx, DoctorRequest{Check: true}); err != nil {
		t.Errorf("doctor after hard deletes: %+v, %v", r, err)
	}
}
