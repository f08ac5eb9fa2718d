package service

import (
	"context"
	"slices"
	"testing"
	"time"
)

// The list of threads: the most recently active first, each with its
// first subject, size, participants (bcc left out) and last message, paged
// by a cursor that walks every thread once.
func TestThreads(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox", "SilverLake")
	send := func(from string, req SendRequest) Message {
		f.clock.Add(time.Minute)
		req.Body = "b"
		return f.send(from, req)
	}
	auth := send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "Auth", Bcc: []string{"SilverLake"}})
	schema := send("RedFox", SendRequest{To: []string{"GreenCastle"}, Subject: "Schema"})
	post := send("RedFox", SendRequest{Topic: "builds", Subject: "green"})
	f.clock.Add(time.Minute)
	reply, err := f.svc.Reply(ctx, as("BlueLake"), ReplyRequest{ID: auth.ID, Body: "done"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		subject  string
		messages int
		people   []string
		last     string
	}
	rows := func(r ThreadsResponse) []row {
		out := []row{}
		for _, th := range r.Threads {
			out = append(out, row{th.Subject, th.Messages, th.Participants, th.LastID})
		}
		return out
	}
	all := []row{
		{"Auth", 2, []string{"BlueLake", "GreenCastle"}, reply.Message.ID},
		{"green", 1, []string{"RedFox"}, post.ID},
		{"Schema", 1, []string{"GreenCastle", "RedFox"}, schema.ID},
	}
	tests := []struct {
		name string
		req  ThreadsRequest
		want []row
		next string
		code string
	}{
		{name: "all", req: ThreadsRequest{}, want: all},
		{name: "one page", req: ThreadsRequest{Limit: 1}, want: all[:1], next: reply.Message.ID},
		{name: "after the first", req: ThreadsRequest{Before: reply.Message.ID}, want: all[1:]},
		{name: "after the last", req: ThreadsRequest{Before: schema.ID}, want: []row{}},
		{name: "negative limit", req: ThreadsRequest{Limit: -1}, code: "USAGE"},
		{name: "limit too large", req: ThreadsRequest{Limit: ThreadsMaxPage + 1}, code: "USAGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Threads(ctx, as(""), tt.req)
			wantCode(t, "threads", err, tt.code)
			if err != nil {
				return
			}
			if got := rows(resp); !slices.EqualFunc(got, tt.want, func(a, b row) bool {
				return a.subject == b.subject && a.messages == b.messages && slices.Equal(a.people, b.people) && a.last == b.last
			}) || resp.Next != tt.next {
				t.Errorf("threads %+v = %+v next %q, want %+v next %q", tt.req, got, resp.Next, tt.want, tt.next)
			}
		})
	}
	// Paging by ones walks every thread once.
	var got []string
	req := ThreadsRequest{Limit: 1}
	for {
		resp, err := f.svc.Threads(ctx, as(""), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range resp.Threads {
			got = append(got, th.Subject)
		}
		if resp.Next == "" {
			break
		}
		req.Before = resp.Next
	}
	if want := []string{"Auth", "green", "Schema"}; !slices.Equal(got, want) {
		t.Errorf("paged %v, want %v", got, want)
	}
}
