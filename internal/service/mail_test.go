package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
)

func TestSendReply(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	tests := []struct {
		name string
		from string
		req  SendRequest
		code string
	}{
		{name: "plain", from: "GreenCastle", req: SendRequest{To: []string{"BlueLake"}, Cc: []string{"RedFox"}, Subject: "Auth API", Body: "routes", Ack: true}},
		{name: "as human", from: "", req: SendRequest{To: []string{"BlueLake"}, Subject: "from above", Body: "b", AsHuman: true}},
		{name: "no agent", from: "", req: SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"}, code: "NOT_REGISTERED"},
		{name: "unknown recipient", from: "GreenCastle", req: SendRequest{To: []string{"Nobody"}, Subject: "s", Body: "b"}, code: "UNKNOWN_RECIPIENT"},
		{name: "blank subject", from: "GreenCastle", req: SendRequest{To: []string{"BlueLake"}, Subject: " ", Body: "b"}, code: "INVALID_ARGUMENT"},
		{name: "bad importance", from: "GreenCastle", req: SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b", Importance: "critical"}, code: "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Send(ctx, as(tt.from), tt.req)
			wantCode(t, "send", err, tt.code)
			if err != nil {
				return
			}
			m := resp.Message
			if len(m.ID) != 26 || m.Thread != m.ID || m.Subject != tt.req.Subject || !slices.Equal(m.To, tt.req.To) || m.AckRequired != tt.req.Ack || m.Created.IsZero() || !strings.HasPrefix(m.Path, "projects/") {
				t.Errorf("message %+v", m)
			}
		})
	}

	f.clock.Add(time.Hour) // a time of its own: an id prefix of 10 characters names it
	orig := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Cc: []string{"RedFox"}, Subject: "Plan", Body: "b", Importance: "high", Ack: true})
	tests2 := []struct {
		name string
		req  ReplyRequest
		code string
		to   []string
		cc   []string
	}{
		{name: "to the sender", req: ReplyRequest{ID: orig.ID[:10], Body: "ok"}, to: []string{"GreenCastle"}, cc: []string{}},
		{name: "to all", req: ReplyRequest{ID: orig.ID, All: true, Body: "ok"}, to: []string{"GreenCastle"}, cc: []string{"RedFox"}},
		{name: "negative hold", req: ReplyRequest{ID: orig.ID, Body: "ok", Hold: -time.Second}, code: "USAGE"},
		{name: "unknown id", req: ReplyRequest{ID: "01ZZZZZZZZ", Body: "ok"}, code: "NOT_FOUND"},
		{name: "short prefix", req: ReplyRequest{ID: "01ABC", Body: "ok"}, code: "INVALID_ARGUMENT"},
	}
	for _, tt := range tests2 {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Reply(ctx, as("BlueLake"), tt.req)
			wantCode(t, "reply", err, tt.code)
			if err != nil {
				return
			}
			m := resp.Message
			if m.Thread != orig.Thread || m.Subject != "Re: Plan" || m.Importance != "high" || m.AckRequired || m.ReplyTo == nil || *m.ReplyTo != orig.ID ||
				!slices.Equal(m.To, tt.to) || !slices.Equal(m.Cc, tt.cc) {
				t.Errorf("reply %+v", m)
			}
		})
	}
}

func TestInboxOutboxShowThread(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	first := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "one", Body: "first body"})
	f.clock.Add(3 * time.Hour)
	second := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "two", Body: "second", Importance: "urgent", Thread: first.ID[:10]})

	tests := []struct {
		name string
		req  InboxRequest
		want []string // subjects, newest first
		code string
	}{
		{name: "all", req: InboxRequest{}, want: []string{"two", "one"}},
		{name: "urgent", req: InboxRequest{Urgent: true}, want: []string{"two"}},
		{name: "since a duration", req: InboxRequest{Since: "2h"}, want: []string{"two"}},
		{name: "since days", req: InboxRequest{Since: "1d"}, want: []string{"two", "one"}},
		{name: "limit", req: InboxRequest{Limit: 1}, want: []string{"two"}},
		{name: "bad since", req: InboxRequest{Since: "yesterday"}, code: "USAGE"},
		{name: "negative limit", req: InboxRequest{Limit: -1}, code: "USAGE"},
		{name: "bad category", req: InboxRequest{Category: "nope"}, code: "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Inbox(ctx, as("BlueLake"), tt.req)
			wantCode(t, "inbox", err, tt.code)
			if err != nil {
				return
			}
			got := mapSlice(resp.Messages, func(m InboxMessage) string { return m.Subject })
			if !slices.Equal(got, tt.want) {
				t.Errorf("subjects %q, want %q", got, tt.want)
			}
		})
	}

	// Bodies and display ids only when asked for.
	plain, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{})
	if err != nil || plain.Messages[0].Body != nil || plain.Short != nil {
		t.Errorf("inbox: %+v, %v: want no bodies, no short ids", plain, err)
	}
	full, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{Bodies: true, Abbreviate: true})
	if err != nil || full.Messages[1].Body == nil || *full.Messages[1].Body != "first body" || len(full.Short.Of(first.ID)) < 8 || !strings.HasPrefix(first.ID, full.Short.Of(first.ID)) {
		t.Errorf("inbox --bodies: %+v, %v", full, err)
	}

	out, err := f.svc.Outbox(ctx, as("GreenCastle"), OutboxRequest{Limit: 1})
	if err != nil || len(out.Messages) != 1 || out.Messages[0].ID != second.ID || len(out.Received) != 1 {
		t.Errorf("outbox: %+v, %v", out, err)
	}
	_, err = f.svc.Outbox(ctx, as(""), OutboxRequest{})
	wantCode(t, "outbox of nobody", err, "NOT_REGISTERED")

	shown, err := f.svc.Show(ctx, as("BlueLake"), second.ID[:10])
	if err != nil || shown.Message.Body != "second" || shown.Message.Thread != first.ID || !shown.Message.ReadAt.IsZero() {
		t.Errorf("show: %+v, %v", shown, err)
	}
	if _, err := f.svc.Show(ctx, as(""), second.ID); err != nil {
		t.Errorf("a human sees any message: %v", err)
	}

	th, err := f.svc.Thread(ctx, as("BlueLake"), second.ID)
	if err != nil || th.Thread != first.ID || len(th.Messages) != 2 || th.Messages[0].ID != first.ID {
		t.Errorf("thread: %+v, %v", th, err)
	}
	_, err = f.svc.Thread(ctx, as("BlueLake"), "01ZZZZZZZZ")
	if err == nil {
		// An unknown id is a thread name: an empty thread is not found.
		t.Errorf("thread of nothing: no error")
	}
}

func TestMark(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	plain := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "fyi", Body: "b"})
	f.clock.Add(time.Hour)
	ack := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "handoff", Body: "b", Category: "HANDOFF"})
	tests := []struct {
		name string
		req  MarkRequest
		want []string // ids marked
		code string
	}{
		{name: "nothing named", req: MarkRequest{}, code: "USAGE"},
		{name: "ids and all", req: MarkRequest{IDs: []string{plain.ID}, All: true}, code: "USAGE"},
		{name: "read one", req: MarkRequest{IDs: []string{plain.ID[:10]}}, want: []string{plain.ID}},
		{name: "ack all that ask", req: MarkRequest{All: true, Ack: true}, want: []string{ack.ID}},
		{name: "read all: none left", req: MarkRequest{All: true}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Mark(ctx, as("BlueLake"), tt.req)
			wantCode(t, "mark", err, tt.code)
			if err != nil {
				return
			}
			got := mapSlice(resp.Messages, func(m FullMessage) string { return m.ID })
			if !slices.Equal(got, tt.want) {
				t.Fatalf("marked %q, want %q", got, tt.want)
			}
			if len(got) == 0 && resp.Message != nil || len(got) > 0 && (resp.Message == nil || resp.Message.ID != got[0] || resp.Message.ReadAt.IsZero()) {
				t.Errorf("first message %+v", resp.Message)
			}
			if tt.req.Ack && resp.Messages[0].AckedAt.IsZero() {
				t.Errorf("not acknowledged: %+v", resp.Messages[0])
			}
		})
	}
}

func TestSearch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "Deploy failed", Body: "the deploy of POL-358 failed"})
	f.send("GreenCastle", SendRequest{To: []string{"RedFox"}, Subject: "Deploy plan", Body: "tomorrow"})
	tests := []struct {
		name  string
		agent string
		req   SearchRequest
		want  int
		notes bool
		code  string
	}{
		{name: "own mail", agent: "BlueLake", req: SearchRequest{Query: "deploy"}, want: 1},
		{name: "whole project", agent: "BlueLake", req: SearchRequest{Query: "deploy", All: true}, want: 2},
		{name: "a human sees all", agent: "", req: SearchRequest{Query: "deploy"}, want: 2},
		{name: "identifier", agent: "BlueLake", req: SearchRequest{Query: "POL-358"}, want: 1},
		{name: "stray quote is a note", agent: "BlueLake", req: SearchRequest{Query: `deploy "`}, want: 1, notes: true},
		{name: "negative limit", agent: "BlueLake", req: SearchRequest{Query: "deploy", Limit: -1}, code: "USAGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Search(ctx, as(tt.agent), tt.req)
			wantCode(t, "search", err, tt.code)
			if err != nil {
				return
			}
			if len(resp.Results) != tt.want || (len(resp.Notes) > 0) != tt.notes || resp.Notes == nil {
				t.Errorf("%d results, notes %q; want %d, notes %v", len(resp.Results), resp.Notes, tt.want, tt.notes)
			}
		})
	}
	resp, err := f.svc.Search(ctx, as("BlueLake"), SearchRequest{Query: "failed"})
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("search: %+v, %v", resp, err)
	}
	h := resp.Results[0]
	same := func(s string) string { return s }
	if !strings.Contains(h.Snippet, "[failed]") || h.Highlight(same, false) != h.Snippet {
		t.Errorf("snippet %q, highlighted %q", h.Snippet, h.Highlight(same, false))
	}
	if escaped := h.Highlight(strings.ToUpper, false); !strings.Contains(escaped, "[FAILED]") {
		t.Errorf("escaped before highlighting: %q", escaped)
	}
	if bold := h.Highlight(same, true); !strings.Contains(bold, "\x1b[1mfailed\x1b[22m") {
		t.Errorf("terminal highlight %q", bold)
	}
}

// TestSearchPages: Offset pages through the ranked results, the pages
// joined are the results of one search, and an offset past the end is no
// result.
func TestSearchPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	for i := range 7 {
		f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: fmt.Sprintf("deploy %d", i), Body: strings.Repeat("deploy ", i+1)})
	}
	for _, query := range []string{"deploy", "from:GreenCastle"} { // ranked, and filtered only
		all, err := f.svc.Search(ctx, as(""), SearchRequest{Query: query})
		if err != nil || len(all.Results) != 7 {
			t.Fatalf("search %q: %+v, %v", query, all, err)
		}
		var paged []string
		for off := 0; off < 9; off += 3 {
			page, err := f.svc.Search(ctx, as(""), SearchRequest{Query: query, Limit: 3, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, mapSlice(page.Results, func(h SearchHit) string { return h.ID })...)
		}
		if want := mapSlice(all.Results, func(h SearchHit) string { return h.ID }); !slices.Equal(paged, want) {
			t.Errorf("search %q in pages of 3: %q, want %q", query, paged, want)
		}
		if past, err := f.svc.Search(ctx, as(""), SearchRequest{Query: query, Limit: 3, Offset: 30}); err != nil || len(past.Results) != 0 {
			t.Errorf("search %q past the end: %+v, %v", query, past, err)
		}
	}
}

func TestSendAndWait(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")

	// A reply that asks to hold, then the answer, from another agent while
	// the sender waits.
	var sent Message
	var holds []Hold
	done := make(chan error, 1)
	req := SendAndWaitRequest{SendRequest: SendRequest{To: []string{"BlueLake"}, Subject: "q?", Body: "?"}, Wait: 10 * time.Second,
		OnSent: func(m Message) {
			sent = m
			go func() {
				_, err := f.svc.Reply(ctx, as("BlueLake"), ReplyRequest{ID: m.ID, Body: "checking", Hold: time.Minute})
				if err == nil {
					_, err = f.svc.Reply(ctx, as("BlueLake"), ReplyRequest{ID: m.ID, Body: "yes"})
				}
				done <- err
			}()
		},
		OnHold: func(h Hold) { holds = append(holds, h) }}
	resp, err := f.svc.SendAndWait(ctx, as("GreenCastle"), req)
	if rerr := <-done; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil || resp.Reply == nil || resp.Reply.Body != "yes" || resp.Message.ID != sent.ID || resp.Thread != nil || resp.Timeout {
		t.Fatalf("send --wait: %+v, %v", resp, err)
	}
	if len(holds) != 1 || holds[0].From != "BlueLake" || holds[0].Hold != time.Minute || holds[0].Body != "checking" {
		t.Errorf("holds %+v", holds)
	}
	if got := keys(t, resp); !slices.Equal(got, []string{"message", "reply", "timeout"}) {
		t.Errorf("document keys %q", got)
	}

	// No answer: a timeout, with the thread as it stands.
	resp, err = f.svc.SendAndWait(ctx, as("GreenCastle"), SendAndWaitRequest{SendRequest: SendRequest{To: []string{"BlueLake"}, Subject: "hello?", Body: "?"}, Wait: 50 * time.Millisecond})
	if !errors.Is(err, mailbox.ErrTimeout) || resp.Reply != nil || len(resp.Thread) != 1 || resp.Waited != 50*time.Millisecond || !resp.Timeout {
		t.Fatalf("timeout: %+v, %v", resp, err)
	}
	if got := keys(t, resp); !slices.Equal(got, []string{"message", "reply", "thread", "timeout"}) {
		t.Errorf("document keys on timeout %q", got)
	}
	_, err = f.svc.SendAndWait(ctx, as("GreenCastle"), SendAndWaitRequest{SendRequest: SendRequest{To: []string{"Nobody"}, Subject: "s", Body: "b"}})
	wantCode(t, "send --wait to nobody", err, "UNKNOWN_RECIPIENT")
}

// ThreadAround gives, of a message's thread, the messages around it that
// the viewer sees, and how many the viewer sees in all.
func TestThreadAround(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	var ids []string // the thread's messages BlueLake sees, oldest first
	for i := range 10 {
		f.clock.Add(time.Second)
		ids = append(ids, f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Thread: "plan", Subject: fmt.Sprint(i), Body: "b"}).ID)
		f.clock.Add(time.Second)
		f.send("GreenCastle", SendRequest{To: []string{"RedFox"}, Thread: "plan", Subject: "not for BlueLake", Body: "b"})
	}
	for _, tc := range []struct {
		at, n      int
		first, end int // the messages expected: ids[first:end]
	}{
		{5, 2, 3, 7},
		{0, 3, 0, 3},
		{9, 3, 6, 10},
		{4, 20, 0, 10},
	} {
		got, err := f.svc.ThreadAround(ctx, as("BlueLake"), ids[tc.at], tc.n)
		var gotIDs []string
		for _, m := range got.Messages {
			gotIDs = append(gotIDs, m.ID)
		}
		if err != nil || got.Thread != "plan" || got.Total != len(ids) || !slices.Equal(gotIDs, ids[tc.first:tc.end]) {
			t.Errorf("around message %d, %d each side: %s %d %v, %v; want messages %d to %d of %d",
				tc.at, tc.n, got.Thread, got.Total, gotIDs, err, tc.first, tc.end-1, len(ids))
		}
	}
	if all, err := f.svc.ThreadAround(ctx, as(""), ids[0], 1); err != nil || all.Total != 2*len(ids) || len(all.Messages) != 1 {
		t.Errorf("the whole project's view: %d of %d messages, %v", len(all.Messages), all.Total, err)
	}
}

// FuzzParseSince: no --since (or since_ts) panics, whatever the clock
// between 1970 and 9999, and every time it accepts lies in that range, as
// the ids it is compared with do; one outside is INVALID_ARGUMENT.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"", "2h", "3d", "2026-11-01", "2026-11-22T10:00:00Z", "0001-01-01", "99999999999d",
		"9223372036854775807d", "2562047h", "9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z", "-1d"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, at int64) {
		now := record.Earliest.Add(time.Duration(at%int64(250*365*24*time.Hour)).Abs() * 32)
		if !record.InRange(now) {
			return
		}
		since, err := ParseSince(s, now)
		switch {
		case err != nil:
			if Describe(err).Code != "USAGE" && Describe(err).Code != "INVALID_ARGUMENT" {
				t.Fatalf("ParseSince(%q) at %s: %v is %s", s, now, err, Describe(err).Code)
			}
		case strings.TrimSpace(s) == "":
		case !record.InRange(since):
			t.Fatalf("ParseSince(%q) at %s = %s, outside the range", s, now, since)
		}
	})
}
