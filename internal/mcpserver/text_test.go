package mcpserver

import (
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

func TestHeader(t *testing.T) {
	const id, first = "01M88KZEECNVW6QVZ95GVQC240", "01M88KZEE2602PQB0TF6Y0DBTZ"
	created := service.Time{Time: time.Date(2026, 11, 25, 5, 48, 38, 0, time.UTC)}
	handoff := "HANDOFF"
	msg := func(thread, importance string, ack bool, category *string) service.Message {
		return service.Message{ID: id, Thread: thread, From: "AmberFox", To: []string{"BlueLake"}, Subject: `Say "hi"`,
			Importance: importance, AckRequired: ack, Category: category, Created: created}
	}
	const head = id + ` 2026-11-25T05:48:38Z from AmberFox to BlueLake: "Say \"hi\""`
	for _, tt := range []struct {
		name string
		m    service.Message
		want string
	}{
		{"starts its thread", msg(id, "normal", false, nil), head},
		{"in another's thread", msg(first, "normal", false, nil), head + " (thread " + first + ")"},
		{"in a named thread", msg("release-2", "", false, nil), head + " (thread release-2)"},
		{"starts its thread, stands out", msg(id, "urgent", true, &handoff), head + " (urgent, HANDOFF, ack required)"},
		{"in another's thread, stands out", msg(first, "high", false, nil), head + " (thread " + first + ", high)"},
		{"a post with a file", func() service.Message {
			m := msg(id, "normal", false, nil)
			m.To, m.Topic = []string{}, "builds"
			m.Attachments = []service.Attachment{{Name: "log.txt", MediaType: "text/plain", Size: 12}}
			return m
		}(), id + ` 2026-11-25T05:48:38Z from AmberFox to #builds (a post): "Say \"hi\"" (attached log.txt (text/plain, 12 bytes))`},
		{"mail under a topic", func() service.Message {
			m := msg(id, "normal", false, nil)
			m.Topic = "builds"
			return m
		}(), head + " (topic builds)"},
	} {
		if got := header(tt.m); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestReceivedEntry holds the one-buffer entry of a listing equal to its
// header and its indented body written apart.
func TestReceivedEntry(t *testing.T) {
	created := service.Time{Time: time.Date(2026, 11, 25, 5, 48, 38, 0, time.UTC)}
	m := service.Received{Message: service.Message{ID: "01M88KZEECNVW6QVZ95GVQC240", Thread: "01M88KZEECNVW6QVZ95GVQC240", From: "AmberFox",
		To: []string{"BlueLake"}, Cc: []string{"RedFox"}, Subject: "é \"x\"\n", Importance: "high", Created: created}, ReadAt: created}
	for _, body := range []string{"", "\n", "one line", "a\nb\n\n", "a\r\nb", "\n\nlead", "x\n    y"} {
		want := withBody(header(m.Message)+" [read]", body)
		if got := receivedEntry(m, body); got != want {
			t.Errorf("body %q:\n got %q\nwant %q", body, got, want)
		}
	}
}
