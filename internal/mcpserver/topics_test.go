package mcpserver

import (
	"context"

	"encoding/base64"
	"fmt"
	"github.com/agentmail/agentmail/internal/service"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTopicsAndAttachments(t *testing.T) {
	g, b := twoAgents(t)
	png := "\x89PNG\r\n\x1a\n\x00\x01"
	if err := os.MkdirAll(filepath.Join(g.repo, "shots"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"shots/a.png": png, "notes.md": "# notes\n"} {
		if err := os.WriteFile(filepath.Join(g.repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	sent := g.ok("send_message", args{"to": "BlueLake", "subject": "Layout", "body_md": "see", "topic": "UI-Bugs",
		"attachment_paths": []string{"shots/a.png", "notes.md"}, "convert_images": true})
	id := sent.str("message.id")
	g.want(sent, "message.topic", "ui-bugs")
	g.want(sent, "message.attachments.0.name", "a.png")
	g.want(sent, "message.attachments.0.media_type", "image/png")
	g.want(sent, "message.attachments.0.type", "file")
	g.want(sent, "message.attachments.0.bytes", float64(len(png)))
	g.want(sent, "message.attachments.1.name", "notes.md")
	// A post: a topic and no recipients.
	post := g.ok("send_message", args{"to": []string{}, "subject": "release cut", "body_md": "v1.2", "topic": "ui-bugs"})
	g.want(post, "message.to", []any{})

	checkNoCLI(t, "send_message", g.fail("send_message", args{"to": []string{}, "subject": "x", "body_md": ""}, "INVALID_ARGUMENT"))
	e := g.fail("send_message", args{"to": "BlueLake", "subject": "x", "body_md": "", "topic": "ui bugs"}, "INVALID_TOPIC")
	checkNoCLI(t, "send_message", e)
	e = g.fail("send_message", args{"to": "BlueLake", "subject": "x", "body_md": "", "attachment_paths": []string{"../outside.png"}}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, "outside the repository") {
		t.Errorf("outside: %+v", e)
	}
	checkNoCLI(t, "send_message", e)

	// fetch_inbox(topic) filters; the post is in no inbox.
	box := b.ok("fetch_inbox", args{"topic": "ui-bugs"})
	if n := len(box.list("messages")); n != 1 {
		t.Errorf("fetch_inbox topic: %d messages, want 1", n)
	}
	b.want(box, "messages.0.attachments.1.name", "notes.md")
	if n := len(b.ok("fetch_inbox", args{"topic": "other"}).list("messages")); n != 0 {
		t.Errorf("fetch_inbox other topic: %d messages", n)
	}
	// fetch_topic: mcp_agent_mail's fields in result, ours in messages;
	// bodies by default.
	topic := b.ok("fetch_topic", args{"topic_name": "UI-BUGS"})
	b.want(topic, "topic", "ui-bugs")
	b.want(topic, "result.0.id", post.str("message.id"))
	b.want(topic, "result.0.body_md", "v1.2")
	b.want(topic, "result.0.topic", "ui-bugs")
	b.want(topic, "result.1.id", id)
	b.want(topic, "result.1.from", "GreenCastle")
	b.want(topic, "messages.1.attachments.0.name", "a.png")
	if topic.str("result.1.created_ts") == "" || topic.str("result.1.thread_id") == "" {
		t.Errorf("fetch_topic result: %v", topic.get("result.1"))
	}
	if n := len(b.ok("fetch_topic", args{"topic_name": "ui-bugs", "limit": 1, "include_bodies": false}).list("result")); n != 1 {
		t.Errorf("limit 1: %d", n)
	}
	b.fail("fetch_topic", args{"topic_name": ""}, "USAGE")
	b.fail("fetch_topic", args{"topic_name": "a/b"}, "INVALID_TOPIC")

	// get_attachment: byte for byte, text when it is text.
	att := b.ok("get_attachment", args{"message_id": id, "name": "a.png"})
	raw, err := base64.StdEncoding.DecodeString(att.str("content_base64"))
	if err != nil || string(raw) != png || att.get("text") != nil {
		t.Errorf("a.png: %q %v text %v", raw, err, att.get("text"))
	}
	b.want(att, "attachment.media_type", "image/png")
	md := b.ok("get_attachment", args{"message_id": id, "name": "notes.md"})
	b.want(md, "text", "# notes\n")
	b.fail("get_attachment", args{"message_id": id, "name": "nope"}, "NOT_FOUND")
	b.fail("get_attachment", args{"message_id": id, "name": ""}, "USAGE")
}

// subscribe_topic makes a channel's posts show in check_mail (count, list,
// text); wait_for_mail with the topic returns the next one and marks it
// read; unsubscribe_topic stops it. Its errors speak no command line.
func TestSubscribeTopic(t *testing.T) {
	g, b := twoAgents(t)
	b.want(b.ok("subscribe_topic", args{"topic": "Builds"}), "topic", "builds")
	if txt := text(b.call("subscribe_topic", args{"topic": "builds"})); !strings.HasPrefix(txt, "subscribed to builds (already so)") {
		t.Fatalf("subscribe_topic: %s", txt)
	}
	g.ok("send_message", args{"to": []string{}, "topic": "builds", "subject": "main is green", "body_md": "ci 4411"})
	chk := b.ok("check_mail", args{})
	b.want(chk, "posts", float64(1))
	b.want(chk, "new_posts.0.subject", "main is green")
	if txt := text(b.call("check_mail", args{})); !strings.Contains(txt, "1 new post in your channels") {
		t.Errorf("check_mail text: %s", txt)
	}
	w := b.ok("wait_for_mail", args{"topic": "builds", "timeout_seconds": 0})
	b.want(w, "messages.0.body", "ci 4411")
	b.want(b.ok("check_mail", args{}), "posts", float64(0))
	checkNoCLI(t, "wait_for_mail", b.fail("wait_for_mail", args{"topic": "builds", "from": "GreenCastle", "timeout_seconds": 0}, "USAGE"))
	checkNoCLI(t, "subscribe_topic", b.fail("subscribe_topic", args{"topic": "no good"}, "INVALID_TOPIC"))
	un := b.ok("unsubscribe_topic", args{"topic": "builds"})
	if n := len(un.list("subscriptions")); n != 0 {
		t.Errorf("after unsubscribe_topic: %d subscriptions", n)
	}
}

// set_agent_state is shown by list_agents and by another agent's
// check_mail while stuck; control_agent pauses an agent, whose writes then
// fail with PAUSED (in the tools' words) and whose check_mail says so
// first; an interrupt is shown once; resumed, it writes again.
func TestStateAndControl(t *testing.T) {
	g, b := twoAgents(t)
	st := g.ok("set_agent_state", args{"state": "stuck", "note": "need the DB password"})
	g.want(st, "state.state", "stuck")
	list := b.ok("list_agents", args{})
	found := false
	for i := range list.list("agents") {
		if list.str(fmt.Sprintf("agents.%d.name", i)) == "GreenCastle" {
			found = list.str(fmt.Sprintf("agents.%d.work.state", i)) == "stuck"
		}
	}
	if !found {
		t.Errorf("list_agents: no stuck GreenCastle: %v", list.get("agents"))
	}
	if txt := text(b.call("check_mail", args{})); !strings.Contains(txt, "GreenCastle is stuck: need the DB password") {
		t.Errorf("check_mail: %s", txt)
	}
	checkNoCLI(t, "set_agent_state", g.fail("set_agent_state", args{"state": "sleepy"}, "INVALID_ARGUMENT"))

	g.ok("control_agent", args{"target": "BlueLake", "action": "pause", "reason": "schema first"})
	e := b.fail("send_message", args{"to": "GreenCastle", "subject": "x", "body_md": ""}, "PAUSED")
	checkNoCLI(t, "send_message", e)
	if !strings.Contains(e.Message, "schema first") {
		t.Errorf("PAUSED: %+v", e)
	}
	checkNoCLI(t, "subscribe_topic", b.fail("subscribe_topic", args{"topic": "builds"}, "PAUSED"))
	b.ok("set_agent_state", args{"state": "idle"})
	g.ok("control_agent", args{"target": "BlueLake", "action": "interrupt", "reason": "main is red"})
	chk := b.call("check_mail", args{})
	if txt := text(chk); !strings.HasPrefix(txt, "INTERRUPTED by GreenCastle: main is red\nPAUSED by GreenCastle: schema first") {
		t.Errorf("check_mail: %s", txt)
	}
	if txt := text(b.call("check_mail", args{})); strings.Contains(txt, "INTERRUPTED") || !strings.HasPrefix(txt, "PAUSED") {
		t.Errorf("second check_mail: %s", txt)
	}
	g.ok("control_agent", args{"target": "BlueLake", "action": "resume"})
	b.ok("send_message", args{"to": "GreenCastle", "subject": "resumed", "body_md": ""})
	checkNoCLI(t, "control_agent", g.fail("control_agent", args{"target": "BlueLake", "action": "freeze"}, "INVALID_ARGUMENT"))
}

// The rules: register_agent and macro_start_session return the invariants
// and the playbook of the agent's role; check_mail says when they changed;
// get_rules returns them and marks them read.
func TestRules(t *testing.T) {
	g := newHarness(t)
	svc := service.New(g.config().Store)
	defer svc.Close()
	sc := service.Scope{Project: service.ProjectRef{Dir: g.repo}}
	if _, err := svc.SetRules(context.Background(), sc, "", "Never push to main.\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetRules(context.Background(), sc, "reviewer", "Read every diff twice.\n"); err != nil {
		t.Fatal(err)
	}
	reg := g.ok("register_agent", args{"name": "GreenCastle", "role": "reviewer"})
	g.want(reg, "rules.role", "reviewer")
	g.want(reg, "rules.invariants.body", "Never push to main.\n")
	g.want(reg, "rules.playbook.body", "Read every diff twice.\n")
	b := g.peer("BlueLake")
	ses := b.ok("macro_start_session", args{"agent_name": "BlueLake", "role": "reviewer"})
	b.want(ses, "rules.playbook.body", "Read every diff twice.\n")
	if txt := text(g.call("check_mail", args{})); strings.Contains(txt, "rules") {
		t.Errorf("check_mail after register: %s", txt)
	}
	if _, err := svc.SetRules(context.Background(), sc, "reviewer", "Ask for a test.\n"); err != nil {
		t.Fatal(err)
	}
	chk := g.ok("check_mail", args{})
	g.want(chk, "rules_changed.role", "reviewer")
	if txt := text(g.call("check_mail", args{})); !strings.Contains(txt, "get_rules returns them") {
		t.Errorf("check_mail: %s", txt)
	}
	r := g.ok("get_rules", args{})
	g.want(r, "playbook.body", "Ask for a test.\n")
	if got := g.ok("check_mail", args{}).get("rules_changed"); got != nil {
		t.Errorf("rules_changed after get_rules: %v", got)
	}
	checkNoCLI(t, "get_rules", g.fail("get_rules", args{"role": "two words"}, "INVALID_ARGUMENT"))
}

// A BLOCKED message offers its sender set_agent_state stuck, until it is.
func TestBlockedSuggestsStuck(t *testing.T) {
	g, _ := twoAgents(t)
	sent := g.ok("send_message", args{"to": "BlueLake", "subject": "need the DB password", "body_md": "x", "category": "BLOCKED"})
	g.want(sent, "suggested_state.state", "stuck")
	g.want(sent, "suggested_state.note", "need the DB password")
	if txt := text(g.call("send_message", args{"to": "BlueLake", "subject": "again", "body_md": "x", "category": "BLOCKED"})); !strings.Contains(txt, "set_agent_state with state stuck") {
		t.Errorf("send_message text: %s", txt)
	}
	g.ok("set_agent_state", args{"state": "stuck"})
	if got := g.ok("send_message", args{"to": "BlueLake", "subject": "still", "body_md": "x", "category": "BLOCKED"}).get("suggested_state"); got != nil {
		t.Errorf("suggested_state while stuck: %v", got)
	}
}
