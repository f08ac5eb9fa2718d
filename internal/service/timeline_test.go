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

// The timeline holds every kind of item the overseer needs (messages,
// posts, leases taken and released, task changes, an agent's last state
// and controls), newest first, filtered by kind, agent or the messages'
// filters, and paged by one cursor across kinds.
func TestTimelineKinds(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	step := func(what string, fn func() error) {
		t.Helper()
		f.clock.Add(time.Minute)
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("send", func() error {
		f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "a", Body: "b"})
		return nil
	})
	step("post", func() error { f.send("RedFox", SendRequest{Topic: "builds", Subject: "green", Body: "b"}); return nil })
	step("reserve", func() error {
		_, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour})
		return err
	})
	var task string
	step("create", func() error {
		r, err := f.svc.CreateTask(ctx, as("GreenCastle"), CreateTaskRequest{Title: "Login page"})
		task = r.Task.ID
		return err
	})
	step("claim", func() error { _, err := f.svc.ClaimTask(ctx, as("RedFox"), ClaimTaskRequest{ID: task}); return err })
	step("state", func() error {
		_, err := f.svc.SetState(ctx, as("BlueLake"), "stuck", "waiting on the schema")
		return err
	})
	step("release", func() error { _, err := f.svc.Release(ctx, as("BlueLake"), Selection{All: true}); return err })
	step("close", func() error {
		_, err := f.svc.CloseTask(ctx, as("RedFox"), CloseTaskRequest{ID: task, Reason: "shipped"})
		return err
	})
	step("pause", func() error {
		_, err := f.svc.Control(ctx, as(HumanSender), ControlRequest{Agent: "RedFox", Action: "pause", Reason: "hold on"})
		return err
	})
	step("interrupt", func() error {
		_, err := f.svc.Control(ctx, as(HumanSender), ControlRequest{Agent: "BlueLake", Action: "interrupt"})
		return err
	})
	said := func(items []TimelineItem) []string {
		out := []string{}
		for _, it := range items {
			s := it.Kind + " " + it.Event + " " + it.Agent
			switch {
			case it.Message != nil:
				s = it.Kind + " " + it.Message.Subject
			case it.Task != nil:
				s += " " + it.Task.Title
			case it.Reservation != nil:
				s += " " + it.Reservation.Pattern
			}
			out = append(out, s)
		}
		return out
	}
	all := []string{
		"control interrupted BlueLake",
		"control paused RedFox",
		"task closed RedFox Login page",
		"lease released BlueLake src/**",
		"state stuck BlueLake",
		"task claimed RedFox Login page",
		"task created GreenCastle Login page",
		"lease taken BlueLake src/**",
		"post green",
		"message a",
	}
	tests := []struct {
		name string
		req  TimelineRequest
		want []string
		code string
	}{
		{name: "everything", req: TimelineRequest{}, want: all},
		{name: "leases", req: TimelineRequest{Kinds: []string{KindLease}}, want: []string{all[3], all[7]}},
		{name: "tasks and states", req: TimelineRequest{Kinds: []string{KindTask, KindState}}, want: []string{all[2], all[4], all[5], all[6]}},
		{name: "controls", req: TimelineRequest{Kinds: []string{KindControl}}, want: []string{all[0], all[1]}},
		{name: "posts", req: TimelineRequest{Kinds: []string{KindPost}}, want: []string{all[8]}},
		{name: "BlueLake's", req: TimelineRequest{Agent: "BlueLake"}, want: []string{all[0], all[3], all[4], all[7], all[9]}},
		{name: "RedFox's", req: TimelineRequest{Agent: "redfox"}, want: []string{all[1], all[2], all[5], all[8]}},
		{name: "a message filter keeps messages only", req: TimelineRequest{Importance: "normal"}, want: []string{all[8], all[9]}},
		{name: "a message filter and a kind", req: TimelineRequest{Importance: "normal", Kinds: []string{KindLease}}, want: []string{}},
		{name: "the newest task change", req: TimelineRequest{Kinds: []string{KindTask}, Limit: 1}, want: []string{all[2]}},
		{name: "unknown kind", req: TimelineRequest{Kinds: []string{"lock"}}, code: "USAGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Timeline(ctx, as(""), tt.req)
			wantCode(t, "timeline", err, tt.code)
			if err != nil {
				return
			}
			if got := said(resp.Items); !slices.Equal(got, tt.want) {
				t.Errorf("timeline %+v =\n%q\nwant\n%q", tt.req, got, tt.want)
			}
			for _, it := range resp.Items {
				if it.Key == "" || it.At.IsZero() {
					t.Errorf("item %+v has no key or time", it)
				}
			}
		})
	}

	// A cursor that is no message's id: the key of a release.
	everything, err := f.svc.Timeline(ctx, as(""), TimelineRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := f.svc.Timeline(ctx, as(""), TimelineRequest{Before: everything.Items[3].Key}); err != nil || !slices.Equal(said(resp.Items), all[4:]) {
		t.Errorf("after the release: %q, %v; want %q", said(resp.Items), err, all[4:])
	}

	// A task's items: its changes and the messages filed under it.
	f.clock.Add(time.Minute)
	f.send("GreenCastle", SendRequest{To: []string{"RedFox"}, Subject: "about the login page", Body: "b", Task: task})
	resp, err := f.svc.Timeline(ctx, as(""), TimelineRequest{Task: task[:10]})
	if want := []string{"message about the login page", all[2], all[5], all[6]}; err != nil || !slices.Equal(said(resp.Items), want) {
		t.Errorf("the task's timeline: %q, %v; want %q", said(resp.Items), err, want)
	}
	_, err = f.svc.Timeline(ctx, as(""), TimelineRequest{Task: "01ZZZZZZZZZZZZZZZZZZZZZZZZ"})
	wantCode(t, "the timeline of no task", err, "NOT_FOUND")
	all = append([]string{"message about the login page"}, all...)

	// One cursor pages every kind: pages of 3 walk the eleven items once,
	// newest first; the messages of a page are its messages and posts.
	var got []string
	req := TimelineRequest{Limit: 3}
	pages := 0
	for {
		resp, err := f.svc.Timeline(ctx, as(""), req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, said(resp.Items)...)
		for _, m := range resp.Messages {
			if !slices.ContainsFunc(resp.Items, func(it TimelineItem) bool { return it.Message != nil && it.Message.ID == m.ID }) {
				t.Errorf("page %d lists message %s among its messages, not its items", pages, m.ID)
			}
		}
		if resp.Next == "" {
			break
		}
		req.Before = resp.Next
	}
	if !slices.Equal(got, all) || pages != 4 {
		t.Errorf("paged in %d pages:\n%q\nwant\n%q", pages, got, all)
	}
}
