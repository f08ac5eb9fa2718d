package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// twoAgents is a session bound to GreenCastle (it registered) and a peer
// acting as BlueLake, in one project.
func twoAgents(t *testing.T) (g, b *harness) {
	g = newHarness(t)
	g.ok("register_agent", args{"name": "GreenCastle", "program": "claude-code", "model": "opus"})
	b = g.peer("BlueLake")
	b.ok("register_agent", args{"program": "codex", "task_description": "billing"})
	return g, b
}

func TestMessages(t *testing.T) {
	g, b := twoAgents(t)

	sent := g.ok("send_message", args{"to": "BlueLake", "subject": "Auth API ready", "body_md": "Routes are in **src/api**.", "ack_required": true, "importance": "high"})
	id, thread := sent.str("message.id"), sent.str("message.thread")
	g.want(sent, "message.from", "GreenCastle")
	g.want(sent, "message.to", []any{"BlueLake"}) // a bare string is a list of one
	e := g.fail("send_message", args{"to": []string{"BlueLake", "PurpleRain"}, "subject": "x", "body_md": ""}, "UNKNOWN_RECIPIENT")
	if e.Type != "RECIPIENT_NOT_FOUND" || !strings.Contains(e.Message, "PurpleRain") {
		t.Errorf("unknown recipient: %+v", e)
	}
	g.fail("send_message", args{"to": "BlueLake", "subject": "x", "body_md": "", "attachment_paths": []string{"missing.png"}}, "INVALID_ARGUMENT")

	box := b.ok("fetch_inbox", args{"include_bodies": true})
	b.want(box, "messages.0.id", id)
	b.want(box, "messages.0.body", "Routes are in **src/api**.")
	b.want(box, "messages.0.read_at", nil)
	if got := b.ok("fetch_inbox", args{}).get("messages.0.body"); got != nil {
		t.Errorf("a body without include_bodies: %v", got)
	}
	b.fail("fetch_inbox", args{"limit": -1}, "USAGE")

	// since_ts is exclusive, as mcp_agent_mail's: polling with the newest
	// time seen does not return that message again.
	created := box.str("messages.0.created")
	if n := len(b.ok("fetch_inbox", args{"since_ts": created}).list("messages")); n != 0 {
		t.Errorf("since_ts %s (the message's own time): %d messages, want 0", created, n)
	}
	before := strings.TrimSuffix(g.clock.Now().Add(-time.Second).Format(time.RFC3339), "Z") // no zone: UTC
	if n := len(b.ok("fetch_inbox", args{"since_ts": before}).list("messages")); n != 1 {
		t.Errorf("since_ts %s: %d messages, want 1", before, n)
	}
	b.fail("fetch_inbox", args{"since_ts": "yesterday-ish"}, "USAGE")

	hits := b.ok("search_messages", args{"query": "routes"})
	b.want(hits, "results.0.id", id)
	b.fail("search_messages", args{"query": "routes", "all": true}, "AUTHENTICATION_REQUIRED")

	read := b.ok("mark_message_read", args{"message_id": id})
	if read.get("message.read_at") == nil || read.get("message.acked_at") != nil {
		t.Errorf("read: %v", read)
	}
	b.fail("mark_message_read", args{}, "USAGE")
	acked := b.ok("acknowledge_message", args{"message_id": id[:10]})
	if acked.get("message.acked_at") == nil {
		t.Errorf("ack: %v", acked)
	}
	b.fail("acknowledge_message", args{"message_id": "01ZZZZZZZZZZ"}, "NOT_FOUND")

	reply := b.ok("reply_message", args{"message_id": id, "body_md": "Thanks, wiring it up."})
	b.want(reply, "message.reply_to", id)
	b.want(reply, "message.thread", thread)
	b.want(reply, "message.to", []any{"GreenCastle"})
	b.want(reply, "message.subject", "Re: Auth API ready")
	b.fail("reply_message", args{"message_id": "01ZZZZZZZZZZ", "body_md": "x"}, "NOT_FOUND")
	b.fail("reply_message", args{"message_id": id, "body_md": "x", "to": "RedFox"}, "INVALID_ARGUMENT")

	full := g.ok("get_thread", args{"thread_id": id})
	g.want(full, "thread", thread)
	g.want(full, "messages.1.body", "Thanks, wiring it up.")
	g.fail("get_thread", args{"thread_id": "01ZZZZZZZZZZ"}, "NOT_FOUND")

	sum := g.ok("summarize_thread", args{"thread_id": thread})
	g.want(sum, "participants", []any{"GreenCastle", "BlueLake"})
	g.want(sum, "messages.0.id", id)
	g.fail("summarize_thread", args{"thread_id": thread + "," + thread}, "INVALID_ARGUMENT")

	check := g.ok("check_mail", args{})
	g.want(check, "unread", 1)
	g.want(check, "messages.0.id", reply.str("message.id"))
	g.fail("check_mail", args{"newest": -1}, "USAGE")
	if res := b.call("check_mail", args{}); !strings.HasPrefix(text(res), "nothing waits") {
		t.Errorf("check_mail with nothing waiting says %q", text(res))
	}
}

// A result's text carries what the model acts on, for clients that show
// it nothing else.
func TestTextCarriesIDsAndBodies(t *testing.T) {
	g, b := twoAgents(t)
	id := g.ok("send_message", args{"to": "BlueLake", "subject": "Schema", "body_md": "users.email is unique"}).str("message.id")
	res := b.call("fetch_inbox", args{"include_bodies": true})
	for _, want := range []string{id, "GreenCastle", `"Schema"`, "users.email is unique", "unread"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("fetch_inbox text lacks %q:\n%s", want, text(res))
		}
	}
}
