package service

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
)

func TestCheck(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")

	quiet, err := f.svc.Check(ctx, as("BlueLake"), CheckRequest{Newest: 3})
	if err != nil || quiet.Waiting() || quiet.Messages == nil || len(quiet.Messages) != 0 {
		t.Errorf("nothing waits: %+v, %v", quiet, err)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "a", Body: "b", Importance: "urgent"})
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "b", Body: "b", Category: "BLOCKED"})
	if _, err := f.svc.SetPolicy(ctx, as("BlueLake"), "contacts_only"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RequestContact(ctx, as("RedFox"), ContactRequest{To: "BlueLake", Reason: "hi"}); err != nil {
		t.Fatal(err)
	}
	sum, err := f.svc.Check(ctx, as("BlueLake"), CheckRequest{Newest: 1, Abbreviate: true})
	if err != nil || !sum.Waiting() || sum.Unread != 2 || sum.Urgent != 1 || sum.AwaitingAck != 1 || sum.ContactRequests != 1 || len(sum.Messages) != 1 || sum.Messages[0].Subject != "b" {
		t.Errorf("check: %+v, %v", sum, err)
	}
	if sum.Short.Of(sum.Messages[0].ID) == sum.Messages[0].ID {
		t.Errorf("no short id for display: %v", sum.Short)
	}
	// The short ids, asked for, are in the document.
	if got := keys(t, sum); !slices.Equal(got, []string{"awaiting_ack", "contact_requests", "holds_task", "messages", "ready_tasks", "unread", "urgent", "posts", "new_posts", "stuck", "short_ids"}) {
		t.Errorf("document keys %q", got)
	}
	_, err = f.svc.Check(ctx, as(""), CheckRequest{})
	wantCode(t, "check without an agent", err, "NOT_REGISTERED")
}

func TestWait(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")

	_, err := f.svc.Wait(ctx, as("BlueLake"), WaitRequest{Timeout: -time.Second})
	wantCode(t, "negative timeout", err, "USAGE")

	resp, err := f.svc.Wait(ctx, as("BlueLake"), WaitRequest{Timeout: 0})
	if !errors.Is(err, mailbox.ErrTimeout) || !resp.Timeout || resp.Messages == nil || len(resp.Messages) != 0 {
		t.Errorf("timeout: %+v, %v", resp, err)
	}
	wantCode(t, "timeout", err, "TIMEOUT")

	go func() {
		time.Sleep(100 * time.Millisecond)
		f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "news", Body: "b"})
	}()
	resp, err = f.svc.Wait(ctx, as("BlueLake"), WaitRequest{Timeout: 10 * time.Second, From: "GreenCastle"})
	if err != nil || resp.Timeout || len(resp.Messages) != 1 || resp.Messages[0].Body != "b" {
		t.Errorf("arrival: %+v, %v", resp, err)
	}
}

func TestAcks(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	asked := f.send("GreenCastle", SendRequest{To: []string{"BlueLake", "RedFox"}, Subject: "handoff", Body: "b", Ack: true})
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "fyi", Body: "b"})

	pending, err := f.svc.PendingAcks(ctx, as("BlueLake"), false)
	if err != nil || len(pending.Messages) != 1 || pending.Messages[0].ID != asked.ID || pending.Short != nil {
		t.Errorf("pending: %+v, %v", pending, err)
	}
	if _, err := f.svc.Mark(ctx, as("BlueLake"), MarkRequest{IDs: []string{asked.ID}, Ack: true}); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(2 * time.Hour)
	tests := []struct {
		older time.Duration
		want  []string // who still owes an ack, per message
	}{
		{older: time.Hour, want: []string{"RedFox"}},
		{older: 3 * time.Hour},
	}
	for _, tt := range tests {
		resp, err := f.svc.OverdueAcks(ctx, as("GreenCastle"), OverdueRequest{Older: tt.older, Abbreviate: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range resp.Messages {
			got = append(got, o.WaitingFor...)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("older %s: waiting for %q, want %q", tt.older, got, tt.want)
		}
	}
}

func TestContacts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	if _, err := f.svc.SetPolicy(ctx, as("BlueLake"), "contacts_only"); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Send(ctx, as("GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"})
	wantCode(t, "before the contact", err, "CONTACT_REQUIRED")

	req, err := f.svc.RequestContact(ctx, as("GreenCastle"), ContactRequest{To: "BlueLake", Reason: "API"})
	if err != nil || req.Contact.State != "requested" || req.Contact.Reason != "API" || req.Contact.Requested.IsZero() {
		t.Errorf("request: %+v, %v", req, err)
	}
	_, err = f.svc.RequestContact(ctx, as("GreenCastle"), ContactRequest{To: "GreenCastle"})
	wantCode(t, "contact with oneself", err, "INVALID_ARGUMENT")
	if _, err := f.svc.RequestContact(ctx, as("RedFox"), ContactRequest{To: "BlueLake"}); err != nil {
		t.Fatal(err)
	}

	ok, err := f.svc.DecideContact(ctx, as("BlueLake"), "GreenCastle", true)
	if err != nil || ok.Contact.State != "approved" || ok.Contact.Expires.IsZero() {
		t.Errorf("approve: %+v, %v", ok, err)
	}
	no, err := f.svc.DecideContact(ctx, as("BlueLake"), "RedFox", false)
	if err != nil || no.Contact.State != "denied" {
		t.Errorf("deny: %+v, %v", no, err)
	}
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"})
	_, err = f.svc.Send(ctx, as("RedFox"), SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"})
	wantCode(t, "denied", err, "CONTACT_REQUIRED")

	list, err := f.svc.Contacts(ctx, as("BlueLake"))
	if err != nil || len(list.Contacts) != 2 {
		t.Errorf("contacts: %+v, %v", list, err)
	}
	if empty, err := f.svc.Contacts(ctx, as("GreenCastle")); err != nil || len(empty.Contacts) != 1 {
		t.Errorf("the requester's list: %+v, %v", empty, err)
	}
}
