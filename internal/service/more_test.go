package service

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	msg := func(from string, to []string, body string) FullMessage {
		var m FullMessage
		m.From, m.To, m.Body = from, to, body
		return m
	}
	d := Summarize([]FullMessage{
		msg("GreenCastle", []string{"BlueLake"}, "Plan:\n* [ ] wire `src/api/auth.go`\n- [X] schema\n12. ship\n3) test\nnot a list: -x\nFIXME: flaky @BlueLake, @RedFox!\n@BlueLake"),
		msg("BlueLake", []string{"GreenCastle", "RedFox"}, "+ one more `README.md` and `not a path`"),
	})
	want := Digest{
		Participants:   []string{"GreenCastle", "BlueLake", "RedFox"},
		KeyPoints:      []string{"wire `src/api/auth.go`", "schema", "ship", "test", "one more `README.md` and `not a path`"},
		ActionItems:    []string{"* [ ] wire `src/api/auth.go`", "- [X] schema", "FIXME: flaky @BlueLake, @RedFox!"},
		TotalMessages:  2,
		OpenActions:    1,
		DoneActions:    1,
		Mentions:       []Mention{{"BlueLake", 2}, {"RedFox", 1}},
		CodeReferences: []string{"README.md", "src/api/auth.go"},
	}
	if got := fmt.Sprintf("%+v", d); got != fmt.Sprintf("%+v", want) {
		t.Errorf("digest\n got %s\nwant %+v", got, want)
	}
	if e := Summarize(nil); e.KeyPoints == nil || e.Participants == nil || e.Mentions == nil || e.CodeReferences == nil {
		t.Errorf("an empty digest has null lists: %+v", e)
	}
}

func TestSummarizeRecent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "a", Body: "- point"})
	f.clock.Add(2 * time.Hour)
	f.send("GreenCastle", SendRequest{To: []string{"RedFox"}, Subject: "b", Body: "TODO later"})
	f.send("RedFox", SendRequest{To: []string{"GreenCastle"}, Subject: "c", Body: "- done"})

	r, err := f.svc.SummarizeRecent(ctx, as("GreenCastle"), RecentRequest{Since: time.Hour, Max: 500})
	if err != nil || r.MessageCount != 2 || r.Summary.TotalThreads != 2 || !slices.Equal(r.Summary.ActionItems, []string{"TODO later"}) || len(r.Threads) != 2 {
		t.Errorf("last hour: %+v %v", r, err)
	}
	// BlueLake sees its own mail only: one message, 2 hours old.
	if r, err := f.svc.SummarizeRecent(ctx, as("BlueLake"), RecentRequest{Since: 3 * time.Hour, Max: 500}); err != nil || r.MessageCount != 1 {
		t.Errorf("BlueLake: %d messages, %v", r.MessageCount, err)
	}
	// Nobody (an overseer): the whole project; Max keeps the newest.
	r, err = f.svc.SummarizeRecent(ctx, as(""), RecentRequest{Since: 3 * time.Hour, Max: 2})
	if err != nil || r.MessageCount != 2 || !r.Summary.Truncated || r.Summary.TruncationNote == "" {
		t.Errorf("whole project, at most 2: %+v %v", r.Summary, err)
	}
	_, err = f.svc.SummarizeRecent(ctx, as("GreenCastle"), RecentRequest{Since: 0, Max: 5})
	wantCode(t, "no window", err, "USAGE")
	_, err = f.svc.SummarizeRecent(ctx, as("GreenCastle"), RecentRequest{Since: time.Hour, Max: 501})
	wantCode(t, "too many", err, "USAGE")
}

// The inbox cursor outlives the service (a restart) and a rebuild of the
// index from the archive.
func TestInboxEventsCursorKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	ctx := context.Background()
	open := func() *Service {
		svc := New(Config{Dir: dir})
		t.Cleanup(func() { svc.Close() })
		return svc
	}
	svc := open()
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := svc.Register(ctx, as(""), RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for i := range 3 {
		m, err := svc.Send(ctx, as("GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: fmt.Sprint("s", i), Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.Message.ID)
	}
	p, err := svc.InboxEvents(ctx, as("BlueLake"), InboxEventsRequest{Limit: 1})
	if err != nil || len(p.Events) != 1 || p.Events[0].MessageID != ids[0] || !p.HasMore || *p.NextCursor != ids[0] || *p.TailCursor != ids[2] {
		t.Fatalf("first page: %+v %v", p, err)
	}
	svc.Close()

	svc = open()
	if _, err := svc.Doctor(ctx, DoctorRequest{Reindex: true}); err != nil {
		t.Fatal(err)
	}
	p, err = svc.InboxEvents(ctx, as("BlueLake"), InboxEventsRequest{Limit: 10})
	if err != nil || len(p.Events) != 2 || p.Events[0].MessageID != ids[1] || p.HasMore || *p.ResumedFrom != ids[0] {
		t.Fatalf("after a restart and a rebuild: %+v %v", p, err)
	}
	// A cursor that names no message is taken as the time its id holds.
	if p, err := svc.InboxEvents(ctx, as("BlueLake"), InboxEventsRequest{After: "00000000000000000000000000", Limit: 10}); err != nil || len(p.Events) != 3 {
		t.Errorf("after the beginning of time: %+v %v", p, err)
	}
	if p, err := svc.InboxEvents(ctx, as("BlueLake"), InboxEventsRequest{After: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", Limit: 10}); err != nil || len(p.Events) != 0 || *p.NextCursor != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Errorf("after the end of time: %+v %v", p, err)
	}
	// Each agent has its own cursor; GreenCastle received nothing.
	if p, err := svc.InboxEvents(ctx, as("GreenCastle"), InboxEventsRequest{Limit: 10}); err != nil || len(p.Events) != 0 || p.NextCursor != nil {
		t.Errorf("GreenCastle: %+v %v", p, err)
	}
	_, err = svc.InboxEvents(ctx, as("BlueLake"), InboxEventsRequest{Limit: MaxEvents + 1})
	wantCode(t, "limit", err, "USAGE")
	_, err = svc.InboxEvents(ctx, as("Nobody"), InboxEventsRequest{Limit: 1})
	wantCode(t, "unregistered", err, "NOT_REGISTERED")
}

func TestDeliveryReceiptAndConflicts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake", "RedFox")
	m := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Cc: []string{"RedFox"}, Subject: "s", Body: "b", Ack: true})
	f.clock.Add(time.Minute)
	if _, err := f.svc.Mark(ctx, as("RedFox"), MarkRequest{IDs: []string{m.ID}}); err != nil {
		t.Fatal(err)
	}
	r, err := f.svc.DeliveryReceipt(ctx, as("GreenCastle"), m.ID[:10])
	if err != nil || len(r.Recipients) != 2 || r.Recipients[0].Recipient != "BlueLake" || r.Recipients[0].Read || !r.Recipients[1].Read ||
		!r.Recipients[1].ReadAt.Equal(f.clock.Now().Truncate(time.Second)) || r.Recipients[1].Acknowledged {
		t.Errorf("receipt: %+v %v", r, err)
	}
	_, err = f.svc.DeliveryReceipt(ctx, as("GreenCastle"), "01ZZZZZZZZZZ")
	wantCode(t, "unknown message", err, "NOT_FOUND")

	if _, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	c, err := f.svc.CheckConflicts(ctx, as("BlueLake"), []string{"src/a.go", "docs/**"}, false)
	if err != nil || c.ConflictFree || len(c.Conflicts) != 1 || c.Conflicts[0].HolderPattern != "src/**" || !slices.Equal(c.ClearPaths, []string{"docs/**"}) {
		t.Errorf("conflicts: %+v %v", c, err)
	}
	// A shared reservation conflicts with an exclusive one too.
	if c, err := f.svc.CheckConflicts(ctx, as("BlueLake"), []string{"src/a.go"}, true); err != nil || c.ConflictFree {
		t.Errorf("shared: %+v %v", c, err)
	}
	if c, err := f.svc.CheckConflicts(ctx, as("GreenCastle"), []string{"src/a.go"}, false); err != nil || !c.ConflictFree || len(c.OwnActive) != 1 {
		t.Errorf("own: %+v %v", c, err)
	}
	_, err = f.svc.CheckConflicts(ctx, as("BlueLake"), nil, false)
	wantCode(t, "no paths", err, "USAGE")
}

func TestProducts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	other := Scope{Project: ProjectRef{Key: "github.com/acme/billing"}}
	f.register("GreenCastle", "BlueLake")
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := f.svc.Register(ctx, other, RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.LinkProduct(ctx, other, "Shop", false)
	wantCode(t, "link before ensure", err, "NOT_FOUND")
	_, err = f.svc.LinkProduct(ctx, as(""), "  ", true)
	wantCode(t, "no name", err, "INVALID_ARGUMENT")
	if r, err := f.svc.LinkProduct(ctx, as("GreenCastle"), "Shop", true); err != nil || !r.New || !r.NewLink || r.Key != "shop" {
		t.Fatalf("ensure: %+v %v", r, err)
	}
	if r, err := f.svc.LinkProduct(ctx, other, "SHOP", false); err != nil || r.New || !r.NewLink || len(r.Projects) != 2 || r.Name != "Shop" {
		t.Fatalf("link: %+v %v", r, err)
	}
	f.send("BlueLake", SendRequest{To: []string{"GreenCastle"}, Subject: "one", Body: "pelican"})
	other.Agent = "BlueLake"
	if _, err := f.svc.Send(ctx, other, SendRequest{To: []string{"GreenCastle"}, Subject: "two", Body: "pelican", Thread: "birds"}); err != nil {
		t.Fatal(err)
	}
	s, err := f.svc.ProductSearch(ctx, "GreenCastle", "shop", SearchRequest{Query: "pelican", Limit: 20})
	if err != nil || len(s.Results) != 2 || s.Results[0].Project == s.Results[1].Project {
		t.Errorf("search: %+v %v", s, err)
	}
	in, err := f.svc.ProductInbox(ctx, "GreenCastle", "shop", InboxRequest{Limit: 1})
	if err != nil || len(in.Messages) != 1 || in.Messages[0].Subject != "two" {
		t.Errorf("inbox: %+v %v", in, err)
	}
	th, err := f.svc.ProductThread(ctx, "GreenCastle", "shop", "birds")
	if err != nil || len(th.Messages) != 1 || th.Summary.TotalMessages != 1 {
		t.Errorf("thread: %+v %v", th, err)
	}
	_, err = f.svc.ProductInbox(ctx, "RedFox", "shop", InboxRequest{})
	wantCode(t, "registered nowhere", err, "NOT_REGISTERED")
	list, err := f.svc.Products(ctx)
	if err != nil || len(list.Products) != 1 || len(list.Products[0].Projects) != 2 {
		t.Errorf("list: %+v %v", list, err)
	}
}
