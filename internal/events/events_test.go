package events

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/agentmail/agentmail/internal/web"
)

// A send by another process, the agentmail command, reaches a subscribed
// client within a second.
func TestCLISendReachesSubscriber(t *testing.T) {
	bin := testbin.Agentmail(t)
	f := newFixture(t, "GreenCastle", "BlueLake")
	c := connect(t, f.url("agent=BlueLake"), "")

	send := exec.Command(bin, "send", "--store", f.dir, "--project", projectKey, "--agent", "GreenCastle",
		"--to", "BlueLake", "--subject", "deploy done", "--body", "staging is green", "--importance", "high", "--json")
	send.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "AGENTMAIL_") }),
		"AGENTMAIL_NOW="+f.clock.Now().Format(time.RFC3339))
	start := time.Now()
	out, err := send.Output()
	if err != nil {
		t.Fatalf("agentmail send: %v\n%s", err, out)
	}
	sent := time.Now()
	fr := c.next(time.Second)
	latency := time.Since(sent)
	t.Logf("event %s after the send process exited (%s after it started)", latency, time.Since(start))

	var doc struct{ Message service.Message }
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	m := fr.event.Message
	switch {
	case fr.name != TypeMessage, fr.event.Type != TypeMessage, fr.event.Project != f.slug, fr.event.Agent != "BlueLake":
		t.Fatalf("event %s %+v", fr, fr.event)
	case m == nil || m.ID != doc.Message.ID || m.From != "GreenCastle" || m.Subject != "deploy done" ||
		m.Importance != "high" || m.Thread != doc.Message.Thread || m.Path != doc.Message.Path:
		t.Fatalf("message %+v, sent %+v", m, doc.Message)
	case !strings.HasPrefix(fr.id, fr.event.Commit+":") || len(fr.event.Commit) != 40:
		t.Fatalf("id %q, commit %q", fr.id, fr.event.Commit)
	}
}

// Every kind of write made while a client was away reaches it, in order
// and once, when it reconnects with Last-Event-ID; live events follow.
func TestResumeAfterDisconnect(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	c := connect(t, f.url(""), "")
	f.send("GreenCastle", []string{"BlueLake"}, "before")
	last := c.next(5 * time.Second)
	wantSummary(t, []frame{last}, "message BlueLake")
	c.cancel()

	f.register("RedFox")
	m := f.send("GreenCastle", []string{"BlueLake", "RedFox"}, "plan")
	must(t)(f.svc.Mark(ctx, as("BlueLake"), service.MarkRequest{IDs: []string{m.ID}}))
	must(t)(f.svc.Mark(ctx, as("BlueLake"), service.MarkRequest{IDs: []string{m.ID}, Ack: true}))
	must(t)(f.svc.Reserve(ctx, as("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}))
	must(t)(f.svc.Renew(ctx, as("GreenCastle"), service.RenewRequest{Selection: service.Selection{All: true}, Extend: time.Hour}))
	must(t)(f.svc.Release(ctx, as("GreenCastle"), service.Selection{All: true}))
	must(t)(f.svc.AcquireLock(ctx, as("GreenCastle"), service.LockRequest{Key: "deploy/staging", TTL: time.Hour}))
	f.clock.Add(time.Minute) // a renewal at the same second would change nothing
	must(t)(f.svc.RenewLock(ctx, as("GreenCastle"), service.LockRequest{Key: "deploy/staging", TTL: time.Hour}))
	must(t)(f.svc.ReleaseLock(ctx, as("GreenCastle"), "deploy/staging"))
	must(t)(f.svc.RequestContact(ctx, as("RedFox"), service.ContactRequest{To: "BlueLake", Reason: "review"}))

	c = connect(t, f.url(""), last.id)
	missed := c.until(func(fr frame) bool { return fr.name == TypeContact })
	wantSummary(t, missed,
		"agent RedFox registered",
		"message BlueLake",
		"message RedFox",
		"receipt BlueLake read",
		"receipt BlueLake acked",
		"reservation GreenCastle taken",
		"reservation GreenCastle renewed",
		"reservation GreenCastle released",
		"lock GreenCastle taken",
		"lock GreenCastle renewed",
		"lock GreenCastle released",
		"contact BlueLake requested")
	ids := map[string]bool{last.id: true}
	for _, fr := range missed {
		if ids[fr.id] {
			t.Errorf("id %s twice", fr.id)
		}
		ids[fr.id] = true
	}
	if r := missed[4].event.Receipt; r == nil || r.Message != m.ID || r.ReadAt.IsZero() || r.AckedAt.IsZero() {
		t.Errorf("ack receipt %+v", r)
	}
	if k := missed[11].event.Contact; k == nil || k.From != "RedFox" || k.Reason != "review" {
		t.Errorf("contact %+v", k)
	}
	c.quiet(100 * time.Millisecond)

	f.send("BlueLake", []string{"GreenCastle"}, "live")
	wantSummary(t, []frame{c.next(5 * time.Second)}, "message GreenCastle")

	// Resuming in the middle of a commit's events gives the rest of them.
	c.cancel()
	c = connect(t, f.url(""), missed[1].id)
	wantSummary(t, c.until(func(fr frame) bool { return fr.event.Agent == "GreenCastle" && fr.name == TypeMessage })[:2],
		"message RedFox", "receipt BlueLake read")
}

func must(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A Last-Event-ID that is not ours, or names no commit of the project,
// starts from now, saying so.
func TestResumeUnknownID(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	elsewhere := service.Scope{Project: service.ProjectRef{Key: "github.com/acme/other"}}
	name := "QuietOwl"
	must(t)(f.svc.Register(ctx, elsewhere, service.RegisterRequest{Name: &name}))
	other, err := f.svc.Project(ctx, elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	otherHead := gittest.Run(t, ".", "--git-dir", filepath.Join(f.dir, "archive.git"), "rev-parse", "refs/heads/projects/"+other.Project.Slug)
	for _, id := range []string{"garbage", "0123456789012345678901234567890123456789:0", "deadbeef:x", otherHead + ":0"} {
		c := connect(t, f.url(""), id)
		fr := <-c.frames
		if !strings.Contains(fr.comment, "agentmail events") {
			t.Fatalf("first frame %s", fr)
		}
		if fr = <-c.frames; !strings.Contains(fr.comment, "events from now on") {
			t.Errorf("Last-Event-ID %q: %s", id, fr)
		}
		f.send("GreenCastle", []string{"BlueLake"}, "after "+id)
		if fr := c.next(5 * time.Second); fr.event.Message.Subject != "after "+id {
			t.Errorf("Last-Event-ID %q: first event %s %q", id, fr, fr.event.Message.Subject)
		}
		c.cancel()
	}
}

// A sync that merges another machine's history brings its events, and
// none of this side's again.
func TestSyncMergeBringsTheirEvents(t *testing.T) {
	f := newFixture(t, "RedFox")
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, t.TempDir(), "init", "-q", "--bare", remote)

	other := service.New(service.Config{Dir: filepath.Join(t.TempDir(), "other"), Now: f.clock.Now})
	defer other.Close()
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		must(t)(other.Register(ctx, as(""), service.RegisterRequest{Name: &n, Policy: "open"}))
	}
	must(t)(other.Send(ctx, as("GreenCastle"), service.SendRequest{To: []string{"BlueLake"}, Subject: "from afar", Body: "hi"}))
	must(t)(other.Sync(ctx, as(""), service.SyncRequest{Remote: remote}))

	c := connect(t, f.url(""), "")
	f.send("RedFox", []string{"RedFox"}, "here")
	here := c.next(5 * time.Second)
	must(t)(f.svc.Sync(ctx, as(""), service.SyncRequest{Remote: remote}))
	theirs := []string{"agent GreenCastle registered", "agent BlueLake registered", "message BlueLake"}
	wantSummary(t, c.until(subject("BlueLake", "from afar")), theirs...)
	c.quiet(200 * time.Millisecond)
	if !strings.HasPrefix(gittest.Run(t, ".", "--git-dir", filepath.Join(f.dir, "archive.git"), "log", "-1", "--format=%s",
		"refs/heads/projects/"+f.slug), "merge:") {
		t.Fatal("the sync made no merge commit")
	}

	// A client resuming from before the merge gets the same events.
	c.cancel()
	c = connect(t, f.url(""), here.id)
	wantSummary(t, c.until(subject("BlueLake", "from afar")), theirs...)
	c.quiet(200 * time.Millisecond)
}

// A lease reaching its expiry is an event at that time: one held when the
// feed started, and one taken since; a released one does not expire.
func TestExpiry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.feed.Close()
	f.register("GreenCastle")
	must(t)(f.svc.Reserve(ctx, as("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}))
	must(t)(f.svc.Reserve(ctx, as("GreenCastle"), service.ReserveRequest{Patterns: []string{"gone/**"}, TTL: time.Minute}))
	f.clock.Add(2 * time.Minute) // expired before the feed starts: no event
	f.start(0)

	c := connect(t, f.url("types=reservation,lock"), "")
	must(t)(f.svc.AcquireLock(ctx, as("GreenCastle"), service.LockRequest{Key: "deploy", TTL: 10 * time.Minute}))
	must(t)(f.svc.AcquireLock(ctx, as("GreenCastle"), service.LockRequest{Key: "released", TTL: 5 * time.Minute}))
	must(t)(f.svc.ReleaseLock(ctx, as("GreenCastle"), "released"))
	wantSummary(t, c.until(func(fr frame) bool { return fr.event.State == StateReleased }),
		"lock GreenCastle taken", "lock GreenCastle taken", "lock GreenCastle released")
	c.quiet(100 * time.Millisecond)

	f.clock.Add(10 * time.Minute)
	fr := c.next(5 * time.Second)
	wantSummary(t, []frame{fr}, "lock GreenCastle expired")
	if fr.id != "" || fr.event.Lock.Key != "deploy" || fr.event.Time != fr.event.Lock.Expires.Format("2006-01-02T15:04:05Z") {
		t.Errorf("expiry %s %+v %+v", fr, fr.event, fr.event.Lock)
	}
	c.quiet(100 * time.Millisecond)

	f.clock.Add(time.Hour)
	fr = c.next(5 * time.Second)
	wantSummary(t, []frame{fr}, "reservation GreenCastle expired")
	if fr.event.Reservation.Pattern != "src/**" {
		t.Errorf("expired %+v", fr.event.Reservation)
	}
	c.quiet(100 * time.Millisecond)
}

// agent keeps the events that concern the agent, types those of the types.
func TestFilters(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	mine := connect(t, f.url("agent=bluelake&types=message,contact"), "")
	all := connect(t, f.url(""), "")
	f.send("GreenCastle", []string{"RedFox"}, "not for blue")
	must(t)(f.svc.Reserve(ctx, as("BlueLake"), service.ReserveRequest{Patterns: []string{"a/**"}, TTL: time.Hour}))
	must(t)(f.svc.RequestContact(ctx, as("BlueLake"), service.ContactRequest{To: "RedFox"}))
	f.send("GreenCastle", []string{"BlueLake"}, "for blue")

	wantSummary(t, mine.until(subject("BlueLake", "for blue")), "contact RedFox requested", "message BlueLake")
	wantSummary(t, all.until(subject("BlueLake", "for blue")),
		"message RedFox", "reservation BlueLake taken", "contact RedFox requested", "message BlueLake")
}

// An idle stream gets a comment at every heartbeat.
func TestHeartbeat(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	srv := httptest.NewServer(&Handler{Feed: f.feed, Heartbeat: 30 * time.Millisecond})
	defer srv.Close()
	c := connect(t, srv.URL+"/api/events?project="+f.slug, "")
	defer c.cancel() // before srv.Close, which waits for the stream to end
	beats := 0
	timeout := time.After(5 * time.Second)
	for beats < 2 {
		select {
		case fr := <-c.frames:
			if fr.comment == "heartbeat" {
				beats++
			}
		case <-timeout:
			t.Fatalf("%d heartbeats in 5s", beats)
		}
	}
}

// A client that goes is unsubscribed and its handler returns; closing the
// feed ends every stream, and no stream starts after.
func TestDisconnectAndShutdown(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	before := runtime.NumGoroutine()
	var clients []*client
	for range 5 {
		clients = append(clients, connect(t, f.url(""), ""))
	}
	waitFor(t, func() bool { return f.feed.subscribers() == 5 })
	for _, c := range clients {
		c.cancel()
	}
	waitFor(t, func() bool { return f.feed.subscribers() == 0 })
	http.DefaultClient.CloseIdleConnections()
	waitFor(t, func() bool { return runtime.NumGoroutine() <= before })

	c := connect(t, f.url(""), "")
	f.feed.Close()
	select {
	case _, ok := <-c.frames:
		for ok {
			_, ok = <-c.frames
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream went on after the feed closed")
	}
	resp, err := http.Get(f.url(""))
	if err != nil {
		t.Fatal(err)
	}
	var doc web.ErrorDocument
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || doc.Error.Code != "SHUTTING_DOWN" || doc.Error.Hint == "" {
		t.Errorf("after close: %s %+v %v", resp.Status, doc, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Requests the stream cannot serve get a JSON error with the status of
// service.Describe.
func TestErrors(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"", http.StatusBadRequest, "INVALID_ARGUMENT"},
		{"project=nosuch-01234567", http.StatusNotFound, "NOT_FOUND"},
		{"project=" + f.slug + "&types=message,mail", http.StatusBadRequest, "INVALID_ARGUMENT"},
	} {
		resp, err := http.Get(f.srv.URL + "/api/events?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var doc web.ErrorDocument
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tc.status || doc.Error.Code != tc.code || doc.Error.Hint == "" {
			t.Errorf("?%s: %s %+v %v", tc.query, resp.Status, doc, err)
		}
	}
}

// A branch the feed cannot read is noted once while it lasts, and again
// when it reads; the events of the commits made meanwhile still come.
func TestUnreadableBranchNotedOnce(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	c := connect(t, f.url(""), "")
	ref := filepath.Join(f.dir, "archive.git", "refs", "heads", "projects", f.slug)
	good, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	// Replaced whole, as git replaces a ref: a poll must not see the
	// file half written (empty), which is another note.
	// The new value is written outside refs/heads/projects, where a file
	// being written would be read as another project's branch.
	tmp := filepath.Join(f.dir, "ref.tmp")
	replace := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, ref); err != nil {
			t.Fatal(err)
		}
	}
	replace([]byte("garbage\n"))
	time.Sleep(300 * time.Millisecond) // 15 polls
	replace(good)
	f.send("GreenCastle", []string{"BlueLake"}, "after")
	wantSummary(t, []frame{c.next(5 * time.Second)}, "message BlueLake")
	// The event may come from the write itself (store.OnCommit) before the
	// next poll reads the branch again and says so.
	notes := f.noted()
	for deadline := time.Now().Add(5 * time.Second); len(notes) < 2 && time.Now().Before(deadline); notes = f.noted() {
		time.Sleep(10 * time.Millisecond)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "garbage") || !strings.Contains(notes[1], "reads again") {
		t.Fatalf("notes %q", notes)
	}
}

// The feed serve runs takes the events of the service's own writes from
// the files they wrote, reading none of their trees back, and they are
// the very events a feed reading every commit back gives: the same ids,
// order and data.
func TestOwnWritesAsReadBack(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	arc, err := f.svc.ArchivePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	polled, err := NewFeed(arc.Path, Options{Poll: 20 * time.Millisecond, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer polled.Close()
	own, _, err := f.feed.subscribe(f.slug)
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, err := polled.subscribe(f.slug)
	if err != nil {
		t.Fatal(err)
	}
	readBack := f.feed.readBack.Load()

	m := f.send("GreenCastle", []string{"BlueLake"}, "plan")
	must(t)(f.svc.Send(ctx, as("BlueLake"), service.SendRequest{To: []string{"GreenCastle"}, Cc: []string{"RedFox"},
		Bcc: []string{"BlueLake"}, Subject: "copies", Body: "x", Topic: "ops", Attachments: []service.Upload{{Name: "a.txt", Data: []byte("a")}}}))
	var wg sync.WaitGroup // at once: commits of several writes each
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.send("RedFox", []string{"GreenCastle", "BlueLake"}, fmt.Sprint("together ", i))
		}()
	}
	wg.Wait()
	must(t)(f.svc.Mark(ctx, as("BlueLake"), service.MarkRequest{IDs: []string{m.ID}}))
	must(t)(f.svc.Mark(ctx, as("BlueLake"), service.MarkRequest{IDs: []string{m.ID}, Ack: true}))
	must(t)(f.svc.Reserve(ctx, as("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}))
	for range 2 { // the second in the same second changes nothing
		must(t)(f.svc.Renew(ctx, as("GreenCastle"), service.RenewRequest{Selection: service.Selection{All: true}, Extend: time.Hour}))
	}
	must(t)(f.svc.Release(ctx, as("GreenCastle"), service.Selection{All: true}))
	must(t)(f.svc.AcquireLock(ctx, as("GreenCastle"), service.LockRequest{Key: "deploy/staging", TTL: time.Hour}))
	must(t)(f.svc.ReleaseLock(ctx, as("GreenCastle"), "deploy/staging"))
	task := "GreenCastle"
	must(t)(f.svc.Register(ctx, as("GreenCastle"), service.RegisterRequest{Name: &task, Task: "review"}))
	must(t)(f.svc.RequestContact(ctx, as("RedFox"), service.ContactRequest{To: "BlueLake", Reason: "last"}))

	got, want := untilContact(t, own), untilContact(t, theirs)
	if len(got) < 20 {
		t.Fatalf("%d events", len(got))
	}
	if g, w := eventsJSON(t, got), eventsJSON(t, want); g != w {
		t.Errorf("from the files written:\n%s\nread back:\n%s", g, w)
	} else if !regexp.MustCompile(`"topic": ?"ops"`).MatchString(g) || !regexp.MustCompile(`"name": ?"a.txt"`).MatchString(g) {
		t.Errorf("no message event carries the topic and the attachment:\n%s", g)
	}
	if n := f.feed.readBack.Load() - readBack; n != 0 {
		t.Errorf("%d commits of the service read back", n)
	}
	if polled.readBack.Load() == 0 {
		t.Error("the feed of its own handle read no commit back")
	}
}

// untilContact returns the events of s up to and including the first
// contact event.
func untilContact(t *testing.T, s *subscription) []Event {
	t.Helper()
	var out []Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-s.ch:
			if !ok {
				t.Fatal("the subscription ended")
			}
			out = append(out, e)
			if e.Type == TypeContact {
				return out
			}
		case <-timeout:
			t.Fatalf("no contact event within 10s, after %d events", len(out))
		}
	}
}

// A post to a channel is one post event, which the topic filter lets
// through to any agent's stream, past the agent filter; other topics'
// posts and mail without the topic stay out.
func TestPostEventsByTopic(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	builds := connect(t, f.url("agent=BlueLake&topic=Builds"), "")
	all := connect(t, f.url(""), "")
	must(t)(f.svc.Publish(ctx, as("GreenCastle"), service.PublishRequest{Topic: "deploys", Body: "not builds"}))
	f.send("GreenCastle", []string{"RedFox"}, "no topic")
	must(t)(f.svc.Publish(ctx, as("GreenCastle"), service.PublishRequest{Topic: "builds", Body: "main is green"}))

	got := builds.until(func(fr frame) bool { return fr.event.Type == TypePost })
	if len(got) != 1 || got[0].name != TypePost || got[0].event.Topic != "builds" || got[0].event.Agent != "GreenCastle" ||
		got[0].event.Message == nil || got[0].event.Message.Subject != "main is green" || len(got[0].event.Message.To) != 0 {
		t.Fatalf("builds stream: %v", got)
	}
	wantSummary(t, all.until(func(fr frame) bool { return fr.event.Topic == "builds" }),
		"post GreenCastle", "message RedFox", "post GreenCastle")
	resp, err := http.Get(f.url("topic=no%20good"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad topic: status %d", resp.StatusCode)
	}
}

// An agent's state and its control are events about that agent: stuck,
// paused, interrupted, resumed.
func TestStateAndControlEvents(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	ctx := context.Background()
	c := connect(t, f.url("agent=BlueLake&types=state,control"), "")
	must(t)(f.svc.SetState(ctx, as("BlueLake"), "stuck", "db"))
	for _, action := range []string{"pause", "interrupt", "resume"} {
		must(t)(f.svc.Control(ctx, as("GreenCastle"), service.ControlRequest{Agent: "BlueLake", Action: action, Reason: action + " now"}))
	}
	got := c.until(func(fr frame) bool { return fr.event.Type == TypeControl && fr.event.State == "resumed" })
	wantSummary(t, got, "state BlueLake stuck", "control BlueLake paused", "control BlueLake interrupted", "control BlueLake resumed")
	if got[0].event.Work == nil || got[0].event.Work.Note != "db" || got[2].event.Control == nil || got[2].event.Control.InterruptReason != "interrupt now" {
		t.Errorf("documents: %+v %+v", got[0].event.Work, got[2].event.Control)
	}
}
