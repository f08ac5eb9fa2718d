package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

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
	want := "resource://inbox/{+agent} resource://thread/{+thread_id} resource://message/{+message_id} resource://agents{+project} resource://file_reservations{+project}"
	for _, w := range strings.Fields(want) {
		if !strings.Contains(strings.Join(got, " "), w) {
			t.Errorf("template %s not listed: %v", w, got)
		}
	}
}
