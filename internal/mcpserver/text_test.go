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

// An inbox's text: each message's header with its receipt, its body
// indented under it when asked for, written in one buffer.
func TestTextInbox(t *testing.T) {
	created := service.Time{Time: time.Date(2026, 11, 25, 5, 48, 38, 0, time.FixedZone("CET", 3600))}
	body, empty, trailing := "line one\n\nline \"three\"\ttab", "", "kept\n\n\n"
	r := service.InboxResponse{Messages: []service.InboxMessage{
		{Body: &body, Received: service.Received{Message: service.Message{ID: "01A", Thread: "01A", From: "AmberFox",
			To: []string{"BlueLake", "RedFox"}, Cc: []string{"GreenCastle"}, Bcc: []string{"BlueLake"},
			Subject: "日本 \"q\" \\ \x01 \u2028", Importance: "normal", Created: created}}},
		{Body: &empty, Received: service.Received{Message: service.Message{ID: "01B", Thread: "t", From: "AmberFox",
			Subject: "no one", Importance: "low"}, ReadAt: created}},
		{Body: &trailing, Received: service.Received{Message: service.Message{ID: "01C", Thread: "01C", From: "AmberFox", To: []string{"BlueLake"},
			Subject: "", Importance: "urgent", AckRequired: true, Created: created}, ReadAt: created, AckedAt: created}},
		{Received: service.Received{Message: service.Message{ID: "01D", Thread: "01D", From: "AmberFox", Topic: "builds", Subject: "post", Created: created}}},
	}}
	const want = "4 messages, newest first:\n" +
		"01A 2026-11-25T04:48:38Z from AmberFox to BlueLake, RedFox cc GreenCastle bcc BlueLake: \"日本 \\\"q\\\" \\\\ \\x01 \\u2028\" [unread]\n" +
		"    line one\n    \n    line \"three\"\ttab\n" +
		"01B never from AmberFox to nobody: \"no one\" (thread t, low) [read]\n" +
		"01C 2026-11-25T04:48:38Z from AmberFox to BlueLake: \"\" (urgent, ack required) [acknowledged]\n" +
		"    kept\n" +
		"01D 2026-11-25T04:48:38Z from AmberFox to #builds (a post): \"post\" [unread]"
	if got := textInbox(r); got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
	r.Messages = r.Messages[3:]
	if got, want := textInbox(r), "1 message, newest first:\n01D 2026-11-25T04:48:38Z from AmberFox to #builds (a post): \"post\" [unread]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := textInbox(service.InboxResponse{}), "0 messages, newest first: none"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
