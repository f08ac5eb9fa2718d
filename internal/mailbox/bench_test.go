package mailbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/store"
)

// seeded returns a fixture whose project holds n messages between two
// agents, sent in batches of a thousand, one batch a day: a busy project.
// (A write rewrites the day directories it touches, so its cost grows with
// the messages of that day, not with the archive.)
func seeded(b *testing.B, n int) *fixture {
	f := newFixture(b, "GreenCastle", "BlueLake")
	ctx := context.Background()
	for sent := 0; sent < n; {
		drafts := make([]Draft, 0, 1000)
		for i := 0; i < 1000 && sent+i < n; i++ {
			drafts = append(drafts, Draft{To: []string{"BlueLake"}, Subject: fmt.Sprintf("seed %d", sent+i), Body: "some body text"})
		}
		if _, err := f.as("GreenCastle").SendBatch(ctx, drafts); err != nil {
			b.Fatal(err)
		}
		sent += len(drafts)
		f.advance(24 * time.Hour)
	}
	return f
}

// BenchmarkSend is the in-process cost of one send (one archive commit and
// its index transaction) in a project of 10,000 messages.
func BenchmarkSend(b *testing.B) {
	f := seeded(b, 10000)
	ctx := context.Background()
	mb := f.as("GreenCastle")
	for b.Loop() {
		if _, err := mb.Send(ctx, Draft{To: []string{"BlueLake"}, Subject: "bench", Body: "x"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSendConcurrent is the write path's capacity with eight senders
// at once, each with a store of its own opened on the same directory, as
// separate processes have: they serialize on the store lock and each
// catches up with the others' commits. Process start-up is left out; ns/op
// is the time per message of all eight together.
func BenchmarkSendConcurrent(b *testing.B) {
	const senders = 8
	f := seeded(b, 10000)
	ctx := context.Background()
	mbs := make([]*Mailbox, senders)
	for i := range mbs {
		st, err := store.Open(f.st.Dir(), store.Options{Now: f.now, Projections: testProjections})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if mbs[i], err = Open(ctx, st, f.proj, "GreenCastle"); err != nil {
			b.Fatal(err)
		}
	}
	var next sync.Mutex
	n := 0
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for _, mb := range mbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				more := n < b.N
				n++
				next.Unlock()
				if !more {
					return
				}
				if _, err := mb.Send(ctx, Draft{To: []string{"BlueLake"}, Subject: "bench", Body: "x"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// BenchmarkInbox is the in-process cost of listing the newest 20 messages
// of an inbox of 10,000.
func BenchmarkInbox(b *testing.B) {
	f := seeded(b, 10000)
	ctx := context.Background()
	mb := f.as("BlueLake")
	for b.Loop() {
		if _, err := mb.Inbox(ctx, InboxQuery{Limit: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// bySize runs bench on seeded projects of each of sizes messages, and of
// 100,000 as well when AGENTMAIL_BENCH_LARGE is set (seeding those takes a
// while).
func bySize(b *testing.B, sizes []int, bench func(b *testing.B, f *fixture)) {
	if os.Getenv("AGENTMAIL_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { bench(b, seeded(b, n)) })
	}
}

// BenchmarkRefusedSend is the cost of a send that the recipient's auto
// policy refuses, in projects whose two agents exchanged 1,000 and 10,000
// (AGENTMAIL_BENCH_LARGE: also 100,000) messages more than a day ago. The
// policy check reads the last day of mail between them, the thread and the
// active reservations, never the whole history: the time must not grow
// with the project (it took ~30 ms at 100,000 messages when it did).
func BenchmarkRefusedSend(b *testing.B) {
	bySize(b, []int{1000, 10000}, func(b *testing.B, f *fixture) {
		ctx := context.Background()
		if _, err := f.as("GreenCastle").SetPolicy(ctx, "auto"); err != nil {
			b.Fatal(err)
		}
		f.advance(time.Hour) // the last batch is more than a day old
		mb := f.as("BlueLake")
		for b.Loop() {
			_, err := mb.Send(ctx, Draft{To: []string{"GreenCastle"}, Subject: "hello", Body: "x"})
			if !errors.Is(err, ErrContactRequired) {
				b.Fatalf("send: %v, want ErrContactRequired", err)
			}
		}
	})
}

// BenchmarkShortIDs is the cost of abbreviating a page of 20 inbox ids for
// display, in projects of 10,000 (AGENTMAIL_BENCH_LARGE: also 100,000)
// messages: two index lookups an id, flat as the project grows.
func BenchmarkShortIDs(b *testing.B) {
	bySize(b, []int{10000}, func(b *testing.B, f *fixture) {
		ctx := context.Background()
		mb := f.as("BlueLake")
		page, err := mb.Inbox(ctx, InboxQuery{Limit: 20})
		if err != nil {
			b.Fatal(err)
		}
		list := make([]string, len(page))
		for i, m := range page {
			list[i] = m.ID
		}
		for b.Loop() {
			if _, err := mb.ShortIDs(ctx, list); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkInboxEvents is the cost of polling for inbox events with
// nothing new, and of reading the last 20, in projects of 1,000 and
// 10,000 messages (AGENTMAIL_BENCH_LARGE: 100,000): it must not grow with
// the inbox.
func BenchmarkInboxEvents(b *testing.B) {
	bySize(b, []int{1000, 10000}, func(b *testing.B, f *fixture) {
		ctx := context.Background()
		mb := f.as("BlueLake")
		if _, err := mb.InboxEvents(ctx, EventsQuery{PositionNow: true, Limit: 1}); err != nil {
			b.Fatal(err)
		}
		b.Run("nothing new", func(b *testing.B) {
			for b.Loop() {
				if p, err := mb.InboxEvents(ctx, EventsQuery{Limit: 100}); err != nil || len(p.Events) != 0 {
					b.Fatal(p, err)
				}
			}
		})
	})
}

// BenchmarkRecent is the cost of reading the last hour's mail (none) of a
// project of 1,000 and 10,000 messages, for summarize_recent: it must not
// grow with the project.
func BenchmarkRecent(b *testing.B) {
	bySize(b, []int{1000, 10000}, func(b *testing.B, f *fixture) {
		ctx := context.Background()
		mb := f.as("BlueLake")
		for b.Loop() {
			if msgs, _, err := mb.Recent(ctx, f.now().Add(-time.Hour), 500); err != nil || len(msgs) != 0 {
				b.Fatal(len(msgs), err)
			}
		}
	})
}

// BenchmarkTimeline is the cost of a page (51 messages: a page of 50 and
// the one that tells there is a next) of a project's timeline: the newest,
// one deep in the past by the cursor, and filtered ones, of which the
// rare-value filters (urgent, BLOCKED, a topic: no seeded message has one)
// must not walk the whole project. Run with AGENTMAIL_BENCH_LARGE=1 for
// 100,000 messages (the console's goal: 20 ms at that size).
func BenchmarkTimeline(b *testing.B) {
	bySize(b, []int{10000}, func(b *testing.B, f *fixture) {
		ctx := context.Background()
		mb := f.as("")
		all, err := mb.Timeline(ctx, TimelineQuery{})
		if err != nil {
			b.Fatal(err)
		}
		middle := all[len(all)/2].ID
		for _, c := range []struct {
			name string
			q    TimelineQuery
		}{
			{"newest", TimelineQuery{}},
			{"deep", TimelineQuery{Before: middle}},
			{"agent", TimelineQuery{Agent: "BlueLake"}},
			{"unread", TimelineQuery{Unread: true}},
			{"awaiting-ack", TimelineQuery{AwaitingAck: true}},
			{"urgent", TimelineQuery{Importance: "urgent"}},
			{"blocked", TimelineQuery{Category: "BLOCKED"}},
			{"topic", TimelineQuery{Topic: "builds"}},
		} {
			c.q.Limit = 51
			b.Run(c.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := mb.Timeline(ctx, c.q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
