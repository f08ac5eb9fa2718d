package service

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestTimeline(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	send := func(from string, req SendRequest) string {
		f.clock.Add(time.Minute) // ids in the order sent
		return f.send(from, req).ID
	}
	a := send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "a", Body: "b"})
	b := send("BlueLake", SendRequest{To: []string{"RedFox"}, Subject: "b", Body: "b", Importance: "urgent", Category: "BLOCKED"})
	c := send("RedFox", SendRequest{Topic: "builds", Subject: "c", Body: "b"}) // a post
	d := send("GreenCastle", SendRequest{To: []string{"RedFox"}, Subject: "d", Body: "b", Ack: true})
	if _, err := f.svc.Mark(ctx, as("RedFox"), MarkRequest{IDs: []string{d}}); err != nil {
		t.Fatal(err)
	}
	scope := as("")
	ids := func(r TimelineResponse) []string {
		out := []string{}
		for _, m := range r.Messages {
			out = append(out, m.ID)
		}
		return out
	}
	tests := []struct {
		name string
		req  TimelineRequest
		want []string
		code string
	}{
		{name: "all", req: TimelineRequest{}, want: []string{d, c, b, a}},
		{name: "agent sent or received", req: TimelineRequest{Agent: "bluelake"}, want: []string{b, a}},
		{name: "category", req: TimelineRequest{Category: "blocked"}, want: []string{b}},
		{name: "importance", req: TimelineRequest{Importance: "URGENT"}, want: []string{b}},
		{name: "topic", req: TimelineRequest{Topic: "builds"}, want: []string{c}},
		{name: "unread", req: TimelineRequest{Unread: true}, want: []string{b, a}},
		{name: "unread by RedFox", req: TimelineRequest{Unread: true, Agent: "RedFox"}, want: []string{b}},
		{name: "awaiting ack", req: TimelineRequest{AwaitingAck: true}, want: []string{d, b}},
		{name: "before", req: TimelineRequest{Before: c}, want: []string{b, a}},
		{name: "negative limit", req: TimelineRequest{Limit: -1}, code: "USAGE"},
		{name: "limit over the page", req: TimelineRequest{Limit: TimelineMaxPage + 1}, code: "USAGE"},
		{name: "bad importance", req: TimelineRequest{Importance: "critical"}, code: "INVALID_ARGUMENT"},
		{name: "bad category", req: TimelineRequest{Category: "NOISE"}, code: "INVALID_ARGUMENT"},
		{name: "bad topic", req: TimelineRequest{Topic: "no spaces"}, code: "INVALID_TOPIC"},
		{name: "unknown agent", req: TimelineRequest{Agent: "Nobody"}, code: "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Timeline(ctx, scope, tt.req)
			wantCode(t, "timeline", err, tt.code)
			if err != nil {
				return
			}
			if got := ids(resp); !slices.Equal(got, tt.want) || resp.Next != "" {
				t.Errorf("timeline %+v = %v next %q, want %v", tt.req, got, resp.Next, tt.want)
			}
		})
	}

	// Paging with the cursor walks every message once, newest first.
	var got []string
	req := TimelineRequest{Limit: 3}
	for pages := 0; ; pages++ {
		resp, err := f.svc.Timeline(ctx, scope, req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(resp)...)
		if resp.Next == "" {
			if pages != 1 {
				t.Errorf("%d pages of 3 for 4 messages", pages+1)
			}
			break
		}
		req.Before = resp.Next
	}
	if want := []string{d, c, b, a}; !slices.Equal(got, want) {
		t.Errorf("paged %v, want %v", got, want)
	}
	// An agent's scope does not narrow the overseer's timeline.
	if resp, err := f.svc.Timeline(ctx, as("BlueLake"), TimelineRequest{}); err != nil || len(resp.Messages) != 4 {
		t.Errorf("timeline in an agent's scope: %d messages, %v", len(resp.Messages), err)
	}
}
