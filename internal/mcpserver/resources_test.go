package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// read reads a resource, which must exist, as a JSON document.
func (h *harness) read(uri string) doc {
	h.t.Helper()
	res, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		h.t.Fatalf("%s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		h.t.Fatalf("%s: contents %+v", uri, res.Contents)
	}
	var d doc
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &d); err != nil {
		h.t.Fatalf("%s: %v", uri, err)
	}
	return d
}

// readFails reads a resource that must fail with a JSON-RPC error of code,
// and returns the error document in its data (if any).
func (h *harness) readFails(uri string, code int64) ErrorDoc {
	h.t.Helper()
	_, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != code {
		h.t.Fatalf("%s: %v, want a JSON-RPC error %d", uri, err, code)
	}
	var data struct{ Error ErrorDoc }
	_ = json.Unmarshal(we.Data, &data)
	return data.Error
}

func TestResources(t *testing.T) {
	g, b := twoAgents(t)
	id := g.ok("send_message", args{"to": "BlueLake", "subject": "one", "body_md": "first", "thread_id": "t1"}).str("message.id")
	g.ok("send_message", args{"to": "BlueLake", "subject": "two", "body_md": "second", "thread_id": "t1"})
	g.ok("file_reservation_paths", args{"paths": []string{"src/**"}})

	// mcp_agent_mail's clients send the project as a raw path, and
	// parameters in any order.
	box := b.read("resource://inbox/BlueLake?project=" + g.repo + "&limit=1&include_bodies=true&agent_token=x")
	b.want(box, "messages.0.subject", "two")
	b.want(box, "messages.0.body", "second")
	if n := len(box.list("messages")); n != 1 {
		t.Errorf("limit=1: %d messages", n)
	}
	b.want(b.read("resource://inbox/BlueLake?limit=5&project="+url.QueryEscape(g.repo)), "messages.1.subject", "one")
	b.want(b.read("resource://inbox/BlueLake"), "messages.0.subject", "two")

	th := b.read("resource://thread/t1?project=" + g.repo + "&limit=1")
	b.want(th, "thread", "t1")
	b.want(th, "messages.0.body", "first")
	if n := len(th.list("messages")); n != 1 {
		t.Errorf("thread limit=1: %d messages", n)
	}
	b.want(b.read("resource://message/"+id+"?project="+g.repo), "message.body", "first")

	agents := g.read("resource://agents?project=" + g.repo)
	g.want(agents, "agents.1.name", "GreenCastle")
	g.want(g.read("resource://agents/"+url.PathEscape(g.repo)), "agents.0.name", "BlueLake") // mcp_agent_mail's form
	g.want(g.read("resource://agents?limit=1"), "agents.1", nil)

	res := g.read("resource://file_reservations?project=" + g.repo)
	g.want(res, "reservations.0.pattern", "src/**")
	g.ok("release_file_reservations", args{})
	g.want(g.read("resource://file_reservations"), "reservations", []any{})
	g.want(g.read("resource://file_reservations?active_only=false"), "reservations.0.pattern", "src/**")

	// Failures: another agent's inbox, an unknown message, a bad
	// parameter, a resource that is not there.
	e := b.readFails("resource://inbox/GreenCastle", jsonrpc.CodeInvalidParams)
	if e.Code != "AUTHENTICATION_REQUIRED" {
		t.Errorf("another's inbox: %+v", e)
	}
	b.readFails("resource://message/01ZZZZZZZZZZ", mcp.CodeResourceNotFound)
	if e := b.readFails("resource://inbox/BlueLake?limit=many", jsonrpc.CodeInvalidParams); !strings.Contains(e.Hint, "limit") {
		t.Errorf("bad limit: %+v", e)
	}
	b.readFails("resource://agentsfoo", mcp.CodeResourceNotFound)
	b.readFails("resource://nothing/here", mcp.CodeResourceNotFound)
}

func TestResourceTemplatesListed(t *testing.T) {
	g := newHarness(t)
	var got []string
	for rt, err := range g.cs.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rt.URITemplate)
	}
	want := "resource://inbox/{+agent} resource://thread/{+thread_id} resource://message/{+message_id} resource://agents{+project} resource://file_reservations{+project} " +
		"resource://project/{+slug} resource://product/{+key} resource://views/urgent-unread/{+agent} resource://views/ack-required/{+agent} resource://views/acks-stale/{+agent} " +
		"resource://views/ack-overdue/{+agent} resource://mailbox/{+agent} resource://outbox/{+agent} resource://tooling/directory{+rest} resource://tooling/schemas{+rest} " +
		"resource://tooling/metrics{+rest} resource://tooling/locks{+rest} resource://tooling/projects{+rest} resource://tooling/capabilities/{+agent} resource://tooling/recent/{+window_seconds}"
	for _, w := range strings.Fields(want) {
		if !strings.Contains(strings.Join(got, " "), w) {
			t.Errorf("template %s not listed: %v", w, got)
		}
	}
}

func TestMoreResources(t *testing.T) {
	g, b := twoAgents(t)
	p := "?project=" + g.repo
	urgent := g.ok("send_message", args{"to": "BlueLake", "subject": "fire", "body_md": "x", "importance": "urgent", "ack_required": true}).str("message.id")
	g.ok("send_message", args{"to": "BlueLake", "subject": "calm", "body_md": "y"})
	g.ok("file_reservation_paths", args{"paths": []string{"src/**"}})
	g.ok("acquire_lock", args{"key": "deploy/staging", "ttl_seconds": 86400})

	proj := b.read("resource://project/" + url.PathEscape(g.repo))
	if proj.str("slug") == "" || proj.str("human_key") == "" || len(proj.list("agents")) != 2 {
		t.Errorf("project: %v", proj)
	}
	b.want(b.read("resource://project/"+proj.str("slug")), "human_key", proj.str("human_key"))
	b.readFails("resource://project/no-such-project", mcp.CodeResourceNotFound)

	v := b.read("resource://views/urgent-unread/BlueLake" + p)
	b.want(v, "count", 1)
	b.want(v, "agent", "BlueLake")
	b.want(v, "messages.0.id", urgent)
	b.want(b.read("resource://views/ack-required/BlueLake"+p), "messages.0.id", urgent)
	b.want(b.read("resource://views/acks-stale/BlueLake"+p), "count", 0) // sent just now
	g.clock.Add(2 * time.Hour)
	stale := b.read("resource://views/acks-stale/BlueLake" + p + "&ttl_seconds=60")
	b.want(stale, "count", 1)
	b.want(stale, "ttl_seconds", 60)
	b.want(stale, "messages.0.age_seconds", 7200)
	b.want(b.read("resource://views/ack-overdue/BlueLake"+p), "count", 1)
	b.want(b.read("resource://views/ack-overdue/BlueLake"+p+"&ttl_minutes=180"), "count", 0)
	b.readFails("resource://views/acks-stale/BlueLake"+p+"&ttl_seconds=soon", jsonrpc.CodeInvalidParams)
	// A session acts as its own agent only.
	if e := b.readFails("resource://views/urgent-unread/GreenCastle"+p, jsonrpc.CodeInvalidParams); e.Code != "AUTHENTICATION_REQUIRED" {
		t.Errorf("another agent's view: %+v", e)
	}

	mb := b.read("resource://mailbox/BlueLake" + p + "&limit=1")
	b.want(mb, "count", 1)
	b.want(mb, "messages.0.subject", "calm")
	out := g.read("resource://outbox/GreenCastle" + p + "&include_bodies=true")
	g.want(out, "count", 2)
	g.want(out, "messages.0.body", "y")
	g.want(g.read("resource://outbox/GreenCastle"+p+"&since_ts=1h"), "count", 0)

	dir := g.read("resource://tooling/directory")
	if len(dir.list("clusters")) < 5 || len(dir.list("playbooks")) == 0 {
		t.Errorf("directory: %v", dir)
	}
	g.want(g.read("resource://tooling/schemas"), "tools.send_message.required", []any{"body_md", "subject", "to"})
	metrics := g.read("resource://tooling/metrics")
	if len(metrics.list("tools")) == 0 {
		t.Errorf("metrics: %v", metrics)
	}
	g.want(g.read("resource://tooling/locks"+p), "locks.0.key", "deploy/staging")
	// mcp_agent_mail's list of projects is a JSON array.
	res, err := g.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "resource://tooling/projects"})
	var projects []doc
	if err != nil || json.Unmarshal([]byte(res.Contents[0].Text), &projects) != nil || len(projects) != 1 || projects[0].str("human_key") != proj.str("human_key") {
		t.Errorf("tooling/projects: %v %v", err, projects)
	}
	g.want(g.read("resource://tooling/capabilities/GreenCastle"+p), "agent", "GreenCastle")
	recent := g.read("resource://tooling/recent/3600?agent=GreenCastle")
	if recent.num("count") < 4 || recent.str("entries.0.tool") != "register_agent" {
		t.Errorf("recent: %v", recent)
	}
	g.readFails("resource://tooling/recent/soon", jsonrpc.CodeInvalidParams)
	g.readFails("resource://tooling/schemas/extra", jsonrpc.CodeInvalidParams)

	g.ok("ensure_product", args{"name": "shop"})
	g.want(g.read("resource://product/shop"), "product_uid", g.read("resource://product/shop").str("product_uid"))
	if n := len(g.read("resource://product/shop").list("projects")); n != 1 {
		t.Errorf("product resource: %d projects", n)
	}
	g.readFails("resource://product/nope", mcp.CodeResourceNotFound)
}
