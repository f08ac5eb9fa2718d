package web

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// The pages' rendering alone, without the store: the budgets for
// whole requests at 100,000 messages are 20 ms for an inbox page, 10 ms for
// a message and 30 ms for a search page.

func benchmarkPage(b *testing.B, v View) {
	p, err := NewPages(NewMarkdown(gfmParser()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Render(io.Discard, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInboxPage renders an inbox page of 50 messages.
func BenchmarkInboxPage(b *testing.B) {
	v := fixtureViews()["inbox"].(MailboxView)
	var msgs []Received
	for i := 0; len(msgs) < 50; i++ {
		m := fixtureInbox[i%len(fixtureInbox)]
		m.ID = fmt.Sprintf("01JD3Y%020d", i)
		m.Created = m.Created.Add(-time.Duration(i) * time.Minute)
		msgs = append(msgs, m)
	}
	v.Messages = msgs
	benchmarkPage(b, v)
}

// BenchmarkMessagePage renders a message of about 8 KB of markdown with a
// thread of 20.
func BenchmarkMessagePage(b *testing.B) {
	v := fixtureViews()["message"].(MessageView)
	v.Message.Body = strings.Repeat(v.Message.Body, 12)
	for len(v.Thread) < 20 {
		v.Thread = append(v.Thread, v.Thread[len(v.Thread)%3])
	}
	benchmarkPage(b, v)
}

// BenchmarkSearchPage renders 50 results.
func BenchmarkSearchPage(b *testing.B) {
	v := fixtureViews()["search"].(SearchView)
	for len(v.Results) < 50 {
		v.Results = append(v.Results, v.Results[len(v.Results)%3])
	}
	benchmarkPage(b, v)
}
