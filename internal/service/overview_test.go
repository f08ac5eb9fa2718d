package service

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProjectsAndSlugs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "hi", Body: "x"})
	list, err := f.svc.Projects(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Projects) != 1 || list.Projects[0].Key != projectKey || list.Projects[0].Holds != (Counts{Agents: 2, Messages: 1}) {
		t.Fatalf("projects: %+v", list.Projects)
	}
	ref, err := f.svc.ProjectBySlug(ctx, list.Projects[0].Slug)
	if err != nil || ref.Key != projectKey {
		t.Fatalf("by slug: %+v, %v", ref, err)
	}
	_, err = f.svc.ProjectBySlug(ctx, "nothing-00000000")
	wantCode(t, "unknown slug", err, "NOT_FOUND")
}

func TestMailboxPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	var sent []string
	for i := range 5 {
		sent = append(sent, f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: strings.Repeat("s", i+1), Body: "x"}).ID)
	}
	slices.Reverse(sent) // newest first
	var got []string
	for before := ""; ; {
		in, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{Limit: 2, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		out, err := f.svc.Outbox(ctx, as("GreenCastle"), OutboxRequest{Limit: 2, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Messages) != len(out.Messages) {
			t.Fatalf("before %q: inbox %d, outbox %d messages", before, len(in.Messages), len(out.Messages))
		}
		if len(in.Messages) == 0 {
			break
		}
		for i, m := range in.Messages {
			got = append(got, m.ID)
			if out.Messages[i].ID != m.ID {
				t.Fatalf("before %q: outbox %s, inbox %s", before, out.Messages[i].ID, m.ID)
			}
		}
		before = got[len(got)-1]
	}
	if !slices.Equal(got, sent) {
		t.Fatalf("pages gave %v, want %v", got, sent)
	}
}

func TestOverseerViews(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	m := f.send("GreenCastle", SendRequest{To: []string{"BlueLake", "RedFox"}, Subject: "please ack", Body: "x", Ack: true})
	f.send("RedFox", SendRequest{To: []string{"BlueLake"}, Subject: "no ack", Body: "x"})
	if _, err := f.svc.Mark(ctx, as("RedFox"), MarkRequest{IDs: []string{m.ID}, Ack: true}); err != nil {
		t.Fatal(err)
	}
	acks, err := f.svc.AwaitingAcks(ctx, as(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(acks.Messages) != 1 || acks.Messages[0].ID != m.ID || !slices.Equal(acks.Messages[0].WaitingFor, []string{"BlueLake"}) {
		t.Fatalf("awaiting acks: %+v", acks.Messages)
	}
	if _, err := f.svc.RequestContact(ctx, as("GreenCastle"), ContactRequest{To: "BlueLake", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RequestContact(ctx, as("RedFox"), ContactRequest{To: "GreenCastle", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	cs, err := f.svc.ProjectContacts(ctx, as(""))
	if err != nil || len(cs.Contacts) != 2 {
		t.Fatalf("project contacts: %+v, %v", cs, err)
	}

	head, err := f.svc.ArchiveHead(ctx, as(""))
	if err != nil || len(head) != 40 {
		t.Fatalf("head %q, %v", head, err)
	}
	b, err := f.svc.ArchiveFile(ctx, as(""), head, m.Path)
	if err != nil || !strings.Contains(string(b), `subject: "please ack"`) {
		t.Fatalf("archive file %s: %q, %v", m.Path, b, err)
	}
	for _, c := range []struct{ commit, path, code string }{
		{head, "projects/other-12345678/project.json", "INVALID_ARGUMENT"},
		{head, strings.SplitAfterN(m.Path, "/", 3)[0] + strings.SplitAfterN(m.Path, "/", 3)[1] + "../x", "INVALID_ARGUMENT"},
		{"HEAD", m.Path, "INVALID_ARGUMENT"},
		{strings.Repeat("0", 40), m.Path, "NOT_FOUND"},
		{head, m.Path + ".missing", "NOT_FOUND"},
	} {
		_, err := f.svc.ArchiveFile(ctx, as(""), c.commit, c.path)
		wantCode(t, c.commit+":"+c.path, err, c.code)
	}
}

func TestWatchingLeavesPresence(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	seen := func() string {
		t.Helper()
		list, err := f.svc.Agents(ctx, as(""), AgentsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return list.Agents[0].LastSeen.String() // BlueLake, by name
	}
	before := seen()
	f.clock.Add(time.Hour)
	watch := as("BlueLake")
	watch.Watching = true
	if _, err := f.svc.Inbox(ctx, watch, InboxRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := seen(); got != before {
		t.Fatalf("watching BlueLake's inbox moved its last-seen from %s to %s", before, got)
	}
	if _, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := seen(); got == before {
		t.Fatalf("BlueLake reading its inbox left its last-seen at %s", got)
	}
}
