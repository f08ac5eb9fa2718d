package mailbox

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// fixture is a store with a fake clock and a project with agents.
type fixture struct {
	t     testing.TB
	st    *store.Store
	proj  project.Project
	mu    sync.Mutex
	clock time.Time
}

// newFixture opens a store with a fake clock and registers agents with the
// open contact policy: the tests that use it are about mail, and
// TestContactPolicy covers the policies.
func newFixture(t testing.TB, agents ...string) *fixture {
	t.Helper()
	return newFixtureWith(t, store.Options{}, agents...)
}

// testProjections are the projections of the tests' stores: the
// mailbox's, and the reservations' that the contact policy asks.
var testProjections = []store.Projection{Projection(), reservations.Projection(), CursorProjection(), AttentionProjection()}

// newFixtureWith is newFixture with store options other than the clock
// (and the projections, by default testProjections).
func newFixtureWith(t testing.TB, opts store.Options, agents ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	opts.Now = f.now
	if opts.Projections == nil {
		opts.Projections = testProjections
	}
	st, err := store.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.st = st
	if f.proj, err = project.ProjectFromKey("example.com/acme/shop"); err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if _, err := f.as("").Register(context.Background(), RegisterInput{Name: a, Policy: "open"}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.clock = f.clock.Add(d)
	f.mu.Unlock()
}

func (f *fixture) as(agent string) *Mailbox {
	f.t.Helper()
	mb, err := Open(context.Background(), f.st, f.proj, agent)
	if err != nil {
		f.t.Fatal(err)
	}
	return mb
}

func (f *fixture) send(from string, d Draft) Message {
	f.t.Helper()
	m, err := f.as(from).Send(context.Background(), d)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func TestAmbiguousAndShortIDs(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	// Same clock reading: the ids share their 10-character time prefix.
	a := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "a"})
	b := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "b"})
	if a.ID[:10] != b.ID[:10] {
		t.Fatalf("ids %s and %s do not share a time prefix", a.ID, b.ID)
	}
	ctx := context.Background()
	mb := f.as("BlueLake")
	tests := []struct {
		prefix string
		want   error
	}{
		{a.ID[:8], ErrAmbiguousID},
		{a.ID[:5], ErrInvalidArgument},
		{"01ZZZZZZZZ", ErrNotFound},
		{"not-an-id", ErrInvalidArgument},
	}
	for _, tt := range tests {
		if _, err := mb.Show(ctx, tt.prefix); !errors.Is(err, tt.want) {
			t.Errorf("Show(%q) = %v, want %v", tt.prefix, err, tt.want)
		}
	}
	for _, m := range []Message{a, b} {
		got, err := mb.Show(ctx, m.ID)
		if err != nil || got.ID != m.ID {
			t.Errorf("Show(full id %s) = %v, %v", m.ID, got.ID, err)
		}
	}
	// A message sent hours later has a unique 8-character prefix.
	f.advance(10 * time.Hour)
	c := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "c"})
	if got, err := mb.Show(ctx, c.ID[:8]); err != nil || got.ID != c.ID {
		t.Errorf("Show(unique prefix of %s) = %v, %v", c.ID, got.ID, err)
	}
}

func TestMarkKeepsFirstTimestamps(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	m := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hi", AckRequired: true})
	ctx := context.Background()
	read, err := f.as("BlueLake").Mark(ctx, []string{m.ID}, false, false)
	if err != nil || read[0].ReadAt == nil || read[0].AckedAt != nil {
		t.Fatalf("read: %+v, %v", read, err)
	}
	first := *read[0].ReadAt
	f.advance(time.Hour)
	acked, err := f.as("BlueLake").Mark(ctx, []string{m.ID[:12]}, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if !acked[0].ReadAt.Equal(first) || acked[0].AckedAt == nil || !acked[0].AckedAt.Equal(first.Add(time.Hour)) {
		t.Fatalf("ack changed read time or did not set ack time: %+v", acked[0])
	}
	f.advance(time.Hour)
	again, err := f.as("BlueLake").Mark(ctx, []string{m.ID}, false, true)
	if err != nil || !again[0].AckedAt.Equal(*acked[0].AckedAt) {
		t.Fatalf("second ack moved the timestamp: %+v, %v", again, err)
	}
	// The sender is not a recipient: it cannot ack its own message.
	if _, err := f.as("GreenCastle").Mark(ctx, []string{m.ID}, false, true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("sender ack: %v, want ErrNotFound", err)
	}
}

// TestMarkAll: read --all marks the unread messages; ack --all
// acknowledges every message that asks for it and has not had it, read or
// not, and nothing else.
func TestMarkAll(t *testing.T) {
	tests := []struct {
		name      string
		ack       bool
		want      []string // subjects marked, in order
		stillOpen []string // what acks pending lists afterwards
	}{
		{"read --all", false, []string{"plain, unread", "handoff, unread"}, []string{"handoff, read", "handoff, unread"}},
		{"ack --all", true, []string{"handoff, read", "handoff, unread"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "GreenCastle", "BlueLake")
			ctx := context.Background()
			read := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "handoff, read", Category: "HANDOFF"})
			acked := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "handoff, acked", AckRequired: true})
			f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "handoff, unread", Category: "HANDOFF"})
			f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "plain, unread"})
			mb := f.as("BlueLake")
			if _, err := mb.Mark(ctx, []string{read.ID}, false, false); err != nil {
				t.Fatal(err)
			}
			if _, err := mb.Mark(ctx, []string{acked.ID}, false, true); err != nil {
				t.Fatal(err)
			}
			marked, err := mb.Mark(ctx, nil, true, tt.ack)
			if err != nil {
				t.Fatal(err)
			}
			if got := subjects(marked); !slices.Equal(got, tt.want) {
				t.Errorf("marked %q, want %q", got, tt.want)
			}
			for _, m := range marked {
				if m.ReadAt == nil || tt.ack && m.AckedAt == nil {
					t.Errorf("%q after marking: read %v, acked %v", m.Subject, m.ReadAt, m.AckedAt)
				}
			}
			pending, err := mb.PendingAcks(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := subjects(pending); !slices.Equal(got, tt.stillOpen) {
				t.Errorf("acks pending %q, want %q", got, tt.stillOpen)
			}
		})
	}
}

func subjects(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Subject)
	}
	return out
}

func TestReplyAddressing(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox", "SilverOtter")
	ctx := context.Background()
	orig := f.send("GreenCastle", Draft{To: []string{"BlueLake", "RedFox"}, Cc: []string{"SilverOtter"},
		Subject: "Plan", Importance: "urgent", AckRequired: true, Category: "DECISION"})
	tests := []struct {
		name, from string
		all        bool
		to, cc     []string
	}{
		{"reply goes to the sender", "BlueLake", false, []string{"GreenCastle"}, []string{}},
		{"reply all copies everyone else", "BlueLake", true, []string{"GreenCastle"}, []string{"RedFox", "SilverOtter"}},
		{"the sender replying reaches the recipients", "GreenCastle", false, []string{"BlueLake", "RedFox"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := f.as(tt.from).Reply(ctx, orig.ID, ReplyDraft{All: tt.all, Body: "ok"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.To, tt.to) || !slices.Equal(r.Cc, tt.cc) {
				t.Errorf("to %v cc %v, want to %v cc %v", r.To, r.Cc, tt.to, tt.cc)
			}
			if r.Subject != "Re: Plan" || r.Thread != orig.ID || r.ReplyTo != orig.ID || r.Importance != "urgent" {
				t.Errorf("reply %+v does not inherit from %+v", r, orig)
			}
			if r.AckRequired || r.Category != "" {
				t.Errorf("reply %+v inherits the ack request or category of %+v", r, orig)
			}
			rr, err := f.as("GreenCastle").Reply(ctx, r.ID, ReplyDraft{Body: "again"})
			if err != nil || rr.Subject != "Re: Plan" {
				t.Errorf("reply to reply: subject %q, %v", rr.Subject, err)
			}
		})
	}
	// Someone outside the conversation cannot reply to it.
	if _, err := f.as("").Register(ctx, RegisterInput{Name: "AmberFox"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("AmberFox").Reply(ctx, orig.ID, ReplyDraft{Body: "me too"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("outsider reply: %v, want ErrNotFound", err)
	}
}

func TestBccVisibility(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox", "SilverOtter")
	ctx := context.Background()
	m := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Bcc: []string{"RedFox"}, Subject: "secret"})
	views := map[string][]string{"GreenCastle": {"RedFox"}, "BlueLake": {}, "RedFox": {"RedFox"}, "": {"RedFox"}}
	for viewer, want := range views {
		got, err := f.as(viewer).Show(ctx, m.ID)
		if err != nil {
			t.Fatalf("%s: %v", viewer, err)
		}
		if !slices.Equal(got.Bcc, want) {
			t.Errorf("%q sees bcc %v, want %v", viewer, got.Bcc, want)
		}
	}
	if _, err := f.as("SilverOtter").Show(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("an outsider sees the message: %v", err)
	}
	inbox, err := f.as("RedFox").Inbox(ctx, InboxQuery{})
	if err != nil || len(inbox) != 1 || inbox[0].ID != m.ID {
		t.Fatalf("bcc recipient's inbox: %+v, %v", inbox, err)
	}
}

func TestSendBatchIsAllOrNothing(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	_, err := f.as("GreenCastle").SendBatch(ctx, []Draft{
		{To: []string{"BlueLake"}, Subject: "one"},
		{To: []string{"BlueLak"}, Subject: "two"},
	})
	if !errors.Is(err, ErrUnknownRecipient) {
		t.Fatalf("err = %v, want ErrUnknownRecipient", err)
	}
	inbox, err := f.as("BlueLake").Inbox(ctx, InboxQuery{})
	if err != nil || len(inbox) != 0 {
		t.Fatalf("a failed batch delivered %d messages (%v)", len(inbox), err)
	}
}

func TestInboxFilters(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "old", Importance: "low"})
	f.advance(48 * time.Hour)
	urgent := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "urgent", Importance: "urgent"})
	blocked := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "blocked", Category: "blocked"})
	if _, err := f.as("BlueLake").Mark(ctx, []string{urgent.ID}, false, false); err != nil {
		t.Fatal(err)
	}
	ids := func(ms []Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Subject)
		}
		return out
	}
	tests := []struct {
		name string
		q    InboxQuery
		want []string
	}{
		{"all, newest first", InboxQuery{}, []string{"blocked", "urgent", "old"}},
		{"unread", InboxQuery{Unread: true}, []string{"blocked", "old"}},
		{"urgent", InboxQuery{Urgent: true}, []string{"urgent"}},
		{"category", InboxQuery{Category: "BLOCKED"}, []string{"blocked"}},
		{"since", InboxQuery{Since: f.now().Add(-time.Hour)}, []string{"blocked", "urgent"}},
		{"limit", InboxQuery{Limit: 1}, []string{"blocked"}},
	}
	for _, tt := range tests {
		got, err := f.as("BlueLake").Inbox(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, ids(got), tt.want)
		}
	}
	if !blocked.AckRequired {
		t.Error("BLOCKED did not imply ack-required")
	}
}

// An inbox reads the bodies only when asked for them; the rest of each
// message is the same either way.
func TestInboxBodies(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "plan", Body: "Step **one**, then two."})
	with, err := f.as("BlueLake").Inbox(ctx, InboxQuery{Bodies: true})
	if err != nil || len(with) != 1 {
		t.Fatalf("inbox with bodies: %+v, %v", with, err)
	}
	if with[0].Body != "Step **one**, then two." {
		t.Errorf("body %q, want the message's", with[0].Body)
	}
	without, err := f.as("BlueLake").Inbox(ctx, InboxQuery{})
	if err != nil || len(without) != 1 {
		t.Fatalf("inbox without bodies: %+v, %v", without, err)
	}
	if without[0].Body != "" {
		t.Errorf("body %q read without being asked for", without[0].Body)
	}
	with[0].Body = ""
	if !reflect.DeepEqual(without[0], with[0]) {
		t.Errorf("without bodies\n%+v\nwith them\n%+v", without[0], with[0])
	}
}

func TestRegister(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	ctx := context.Background()
	tests := []struct {
		name, agent, req string
		want             error
	}{
		{"taken, other case", "", "greencastle", ErrNameTaken},
		{"taken by someone else", "BlueLake", "GreenCastle", ErrNameTaken},
		{"invalid", "", "claude", ErrInvalidName},
		{"digits", "", "GreenCastle2", ErrInvalidName},
	}
	for _, tt := range tests {
		if _, err := f.as(tt.agent).Register(ctx, RegisterInput{Name: tt.req}); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	f.advance(time.Minute)
	a, err := f.as("greencastle").Register(ctx, RegisterInput{Task: "new task"})
	if err != nil || a.Name != "GreenCastle" || a.Task != "new task" || !a.Registered.Equal(f.now().Add(-time.Minute)) {
		t.Fatalf("update own profile: %+v, %v", a, err)
	}
	gen, err := f.as("").Register(ctx, RegisterInput{})
	if err != nil || gen.Name == "" || gen.Name == "GreenCastle" {
		t.Fatalf("generated: %+v, %v", gen, err)
	}
	list, err := f.as("").Agents(ctx, false, true)
	if err != nil || len(list) != 2 {
		t.Fatalf("agents: %+v, %v", list, err)
	}
}

// TestPresenceRefresh checks that a command rewrites the stored last-seen
// time only once it is PresenceRules.Refresh old, and always reports now.
func TestPresenceRefresh(t *testing.T) {
	f := newFixture(t, "BlueLake")
	ctx := context.Background()
	stored := func() time.Time {
		t.Helper()
		when, ok, err := projection{}.LastSeen(ctx, f.st.Index(), f.proj.Slug, "BlueLake")
		if err != nil || !ok {
			t.Fatalf("last seen: %v, %v", ok, err)
		}
		return when
	}
	refresh := DefaultPresence.Refresh()
	f.advance(time.Hour)
	for _, step := range []struct {
		advance   time.Duration
		rewritten bool
	}{{0, true}, {refresh - time.Second, false}, {time.Second, true}, {0, false}, {time.Second, false}} {
		before := stored()
		f.advance(step.advance)
		a, err := f.as("BlueLake").Whoami(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := before
		if step.rewritten {
			want = f.now()
		}
		if got := stored(); !got.Equal(want) || !a.LastSeen.Equal(f.now()) {
			t.Errorf("after %v: stored %v, reported %v; want stored %v, reported %v", step.advance, got, a.LastSeen, want, f.now())
		}
	}
}
