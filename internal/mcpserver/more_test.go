package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
)

func TestSummarizeRecent(t *testing.T) {
	g, b := twoAgents(t)
	g.ok("send_message", args{"to": "BlueLake", "subject": "Plan", "body_md": "Steps:\n- [ ] wire `src/api/auth.go`\n- [x] write the schema\n1. ship it\nTODO: ask @RedFox about tokens"})
	b.ok("send_message", args{"to": "GreenCastle", "subject": "Other", "body_md": "NEXT: deploy"})

	r := g.ok("summarize_recent", args{"since_hours": 2, "llm_mode": true})
	g.want(r, "source_message_count", 2)
	g.want(r, "summary.total_messages", 2)
	g.want(r, "summary.total_threads", 2)
	g.want(r, "summary.participants", []any{"BlueLake", "GreenCastle"})
	g.want(r, "summary.key_points", []any{"wire `src/api/auth.go`", "write the schema", "ship it"})
	g.want(r, "summary.open_actions", 1)
	g.want(r, "summary.done_actions", 1)
	g.want(r, "summary.code_references", []any{"src/api/auth.go"})
	g.want(r, "summary.mentions.0.name", "RedFox")
	g.want(r, "llm_model", nil)
	g.want(r, "cached", false)
	if items := r.list("summary.action_items"); len(items) != 4 || items[3] != "NEXT: deploy" {
		t.Errorf("action items: %v", items)
	}
	if !strings.Contains(r.str("summary_text"), `"key_points":["wire`) || len(r.list("source_thread_ids")) != 2 {
		t.Errorf("summary_text or thread ids: %v", r)
	}
	// The same mail gives the same digest.
	if again := g.ok("summarize_recent", args{"since_hours": 2}); again.str("summary_text") != r.str("summary_text") {
		t.Errorf("two digests of the same mail differ:\n%s\n%s", r.str("summary_text"), again.str("summary_text"))
	}
	g.clock.Add(3 * time.Hour)
	g.want(g.ok("summarize_recent", args{}), "source_message_count", 0)
	g.fail("summarize_recent", args{"since_hours": -1}, "USAGE")

	f := g.ok("fetch_summary", args{})
	g.want(f, "result.0.source_message_count", 2)
	g.fail("fetch_summary", args{"limit": 0}, "USAGE")

	// summarize_thread carries the same digest.
	th := g.ok("summarize_thread", args{"thread_id": r.str("source_thread_ids.0")})
	if th.get("summary") == nil || th.str("thread_id") == "" {
		t.Errorf("summarize_thread without thread_id or summary: %v", th)
	}
}

func TestProducts(t *testing.T) {
	g := newHarness(t)
	other := t.TempDir()
	gittest.Run(t, other, "init", "-q")
	other, _ = filepath.EvalSymlinks(other)
	g.ok("register_agent", args{"name": "GreenCastle", "program": "claude-code", "model": "opus"})
	g.ok("register_agent", args{"project_key": other, "name": "GreenCastle", "program": "claude-code", "model": "opus"})
	b := g.peer("BlueLake")
	b.ok("register_agent", args{"program": "codex", "model": "gpt"})
	b.ok("register_agent", args{"project_key": other, "program": "codex", "model": "gpt"})

	if e := g.fail("products_link", args{"product_key": "shop"}, "NOT_FOUND"); !strings.Contains(e.Hint, "ensure_product") || !strings.Contains(e.Message, "no product exists yet") {
		t.Errorf("products_link of no product: %+v", e)
	}
	e := g.ok("ensure_product", args{"name": "Shop Platform"})
	g.want(e, "key", "shop-platform")
	g.want(e, "id", "shop-platform")
	g.want(e, "name", "Shop Platform")
	g.want(e, "created", true)
	if len(e.str("product_uid")) != 20 || len(e.list("projects")) != 1 {
		t.Errorf("ensure_product: %v", e)
	}
	g.want(g.ok("ensure_product", args{"product_key": "shop-platform"}), "created", false)
	l := g.ok("products_link", args{"product_key": "Shop Platform", "project_key": other})
	g.want(l, "linked", true)
	g.want(l, "newly_linked", true)
	g.want(l, "product.product_uid", e.str("product_uid"))
	if len(l.list("projects")) != 2 || l.str("project.human_key") == "" {
		t.Errorf("products_link: %v", l)
	}
	g.want(g.ok("products_link", args{"product_key": "shop-platform", "project_key": other}), "newly_linked", false)
	g.fail("ensure_product", args{}, "USAGE")

	b.ok("send_message", args{"to": "GreenCastle", "subject": "Checkout flow", "body_md": "the pelican service is up"})
	b.ok("send_message", args{"project_key": other, "to": "GreenCastle", "subject": "Billing flow", "body_md": "the pelican queue drains", "thread_id": "pelican"})

	s := g.ok("search_messages_product", args{"product_key": "shop-platform", "query": "pelican"})
	if res := s.list("result"); len(res) != 2 || s.str("result.0.project") == s.str("result.1.project") {
		t.Errorf("product search: a hit in each project wanted: %v", s)
	}
	// mcp_agent_mail's fields of a hit.
	for _, f := range []string{"id", "subject", "importance", "ack_required", "created_ts", "thread_id", "project_id", "from"} {
		if s.get("result.0."+f) == nil {
			t.Errorf("a product search hit without %s: %v", f, s.get("result.0"))
		}
	}
	g.fail("search_messages_product", args{"product_key": "nope", "query": "pelican"}, "NOT_FOUND")

	in := g.ok("fetch_inbox_product", args{"product_key": "shop-platform", "include_bodies": true})
	g.want(in, "messages.0.subject", "Billing flow") // newest first
	g.want(in, "result.1.subject", "Checkout flow")
	g.want(in, "result.0.thread_id", "pelican")
	g.want(in, "result.0.body_md", "the pelican queue drains")
	if in.str("result.0.created_ts") == "" || in.str("result.0.project_id") == "" {
		t.Errorf("fetch_inbox_product without mcp_agent_mail's fields: %v", in.get("result.0"))
	}
	g.fail("fetch_inbox_product", args{"product_key": "shop-platform", "agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")

	th := g.ok("summarize_thread_product", args{"product_key": "shop-platform", "thread_id": "pelican", "include_examples": true})
	g.want(th, "thread_id", "pelican")
	g.want(th, "summary.total_messages", 1)
	g.want(th, "examples.0.subject", "Billing flow")
	g.fail("summarize_thread_product", args{"product_key": "shop-platform", "thread_id": "no-such-thread"}, "NOT_FOUND")
}

func TestInboxEvents(t *testing.T) {
	g, b := twoAgents(t)
	var ids []string
	for _, s := range []string{"one", "two", "three"} {
		ids = append(ids, g.ok("send_message", args{"to": "BlueLake", "subject": s, "body_md": "x"}).str("message.id"))
	}
	p := b.ok("fetch_inbox_events", args{"limit": 2})
	b.want(p, "events.0.message_id", ids[0])
	b.want(p, "events.1.subject", "two")
	b.want(p, "has_more", true)
	b.want(p, "next_cursor", ids[1])
	b.want(p, "tail_cursor", ids[2])
	if p.get("events.0.body") != nil {
		t.Errorf("an event with a body: %v", p)
	}

	// A new server on the same store (a restart) resumes after the cursor.
	r := g.peer("BlueLake")
	q := r.ok("fetch_inbox_events", args{})
	r.want(q, "resumed_from", ids[1])
	r.want(q, "events.0.message_id", ids[2])
	r.want(q, "has_more", false)
	r.want(r.ok("fetch_inbox_events", args{}), "events", []any{})
	// after re-reads from a cursor the agent gives.
	r.want(r.ok("fetch_inbox_events", args{"after": ids[0]}), "events.0.message_id", ids[1])
	// Reading events marks nothing read.
	if n := len(b.ok("fetch_inbox", args{"unread_only": true}).list("messages")); n != 3 {
		t.Errorf("%d unread after reading events, want 3", n)
	}
	g.ok("send_message", args{"to": "BlueLake", "subject": "four", "body_md": "x"})
	now := r.ok("fetch_inbox_events", args{"position_now": true})
	r.want(now, "events", []any{})
	r.want(r.ok("fetch_inbox_events", args{}), "events", []any{})
	r.fail("fetch_inbox_events", args{"limit": 0}, "USAGE")
	r.fail("fetch_inbox_events", args{"after": ids[0], "position_now": true}, "USAGE")
}

func TestDeliveryReceipt(t *testing.T) {
	g, b := twoAgents(t)
	c := g.peer("RedFox")
	c.ok("register_agent", args{"program": "codex", "model": "gpt"})
	id := g.ok("send_message", args{"to": "BlueLake", "bcc": "RedFox", "subject": "s", "body_md": "x", "ack_required": true}).str("message.id")
	b.ok("acknowledge_message", args{"message_id": id})

	r := g.ok("get_message_delivery_receipt", args{"message_id": id})
	g.want(r, "message_id", id)
	g.want(r, "persisted", true)
	g.want(r, "recipients.0.recipient", "BlueLake")
	g.want(r, "recipients.0.acknowledged", true)
	g.want(r, "recipients.0.read", true)
	g.want(r, "recipients.1.recipient", "RedFox")
	g.want(r, "recipients.1.kind", "bcc")
	g.want(r, "recipients.1.read_at", nil)
	if r.get("recipients.0.acknowledged_at") == nil || r.get("recipients.0.delivered_at") == nil {
		t.Errorf("receipt times: %v", r)
	}
	// A to recipient does not see the bcc one.
	if n := len(b.ok("get_message_delivery_receipt", args{"message_id": id}).list("recipients")); n != 1 {
		t.Errorf("BlueLake sees %d recipients, want 1", n)
	}
	g.fail("get_message_delivery_receipt", args{"message_id": "01ZZZZZZZZZZ"}, "NOT_FOUND")
}

func TestCheckFileReservationConflicts(t *testing.T) {
	g, b := twoAgents(t)
	g.ok("file_reservation_paths", args{"paths": []string{"src/api/**"}})
	b.ok("file_reservation_paths", args{"paths": []string{"docs/*.md"}, "exclusive": false})

	r := b.ok("check_file_reservation_conflicts", args{"paths": []string{"src/api/auth.go", "src/web/**", "docs/*.md"}})
	b.want(r, "conflict_free", false)
	b.want(r, "conflicts.0.holder", "GreenCastle")
	b.want(r, "conflicts.0.pattern", "src/api/auth.go")
	b.want(r, "clear_paths", []any{"src/web/**", "docs/*.md"})
	b.want(r, "own_active.0.pattern", "docs/*.md")
	b.want(r, "total_conflicting_reservations", 1)
	b.want(r, "read_only", true)
	b.want(r, "authoritative_source", "index")
	// Nothing was reserved.
	if n := len(b.ok("check_file_reservations", args{"paths": []string{"src/web/x.go"}}).list("paths.0.holders")); n != 0 {
		t.Errorf("the check reserved: %d holders", n)
	}
	g.want(g.ok("check_file_reservation_conflicts", args{"paths": []string{"src/api/**"}}), "conflict_free", true)
	b.fail("check_file_reservation_conflicts", args{"paths": []string{}}, "USAGE")
}
