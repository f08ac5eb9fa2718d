package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMessageSizeLimit: a body over the limit is MESSAGE_TOO_LARGE (413) on
// the HTTP API and over MCP on HTTP, as on the command line and MCP on
// stdio; a request too long to carry a body within the limit is refused
// the same way before it is read.
func TestMessageSizeLimit(t *testing.T) {
	const limit = 100
	h := startServer(t, Config{Store: service.Config{MaxBody: limit}})
	h.seed([]string{"GreenCastle", "BlueLake"})
	send := "/api/projects/" + h.slug + "/messages"
	msg := func(body string) map[string]any {
		return map[string]any{"agent": "GreenCastle", "to": []string{"BlueLake"}, "subject": "s", "body": body}
	}
	if r := h.do("POST", send, msg(strings.Repeat("a", limit))); r.status != http.StatusOK {
		t.Fatalf("a body at the limit: %d %s", r.status, r.body)
	}
	r := h.do("POST", send, msg(strings.Repeat("a", limit+1)))
	if r.status != http.StatusRequestEntityTooLarge || r.code(t) != "MESSAGE_TOO_LARGE" || !strings.Contains(string(r.body), "the limit is 100 bytes") {
		t.Errorf("a body over the limit: %d %s", r.status, r.body)
	}
	huge := strings.Repeat("a", int(service.RequestLimit(limit))+1)
	r = h.do("POST", send, msg(huge))
	if r.status != http.StatusRequestEntityTooLarge || r.code(t) != "MESSAGE_TOO_LARGE" || !strings.Contains(string(r.body), "the request is") {
		t.Errorf("a request over the limit: %d %.300s", r.status, r.body)
	}

	// MCP over HTTP: the tool error of stdio.
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(body string) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_message", Arguments: map[string]any{
			"project_key": projectKey, "sender_name": "GreenCastle", "to": "BlueLake", "subject": "s", "body_md": body}})
		if err != nil {
			t.Fatalf("send_message: %v", err)
		}
		return res
	}
	if res := call(strings.Repeat("a", limit)); res.IsError {
		t.Errorf("MCP, a body at the limit: %v", res.Content)
	}
	res := call(strings.Repeat("a", limit+1))
	var e struct {
		Error struct{ Code, Message string }
	}
	if len(res.Content) > 0 {
		json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e)
	}
	if !res.IsError || e.Error.Code != "MESSAGE_TOO_LARGE" {
		t.Errorf("MCP, a body over the limit: %+v", res.Content)
	}
	// A request no message within the limit makes: a JSON-RPC error,
	// HTTP 413, not the SDK's plain text.
	req, _ := http.NewRequest("POST", h.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"body_md":"`+huge+`"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rpc struct {
		Error struct {
			Message string
			Data    struct{ Code string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&rpc); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || rpc.Error.Data.Code != "MESSAGE_TOO_LARGE" {
		t.Errorf("MCP, a request over the limit: %d %+v %v", resp.StatusCode, rpc, err)
	}
}

// TestAPIIdempotencyKey: POST .../messages and .../reservations with the
// same idempotency_key return the first result and write nothing more.
func TestAPIIdempotencyKey(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	p := "/api/projects/" + h.slug
	msg := map[string]any{"agent": "GreenCastle", "to": []string{"BlueLake"}, "subject": "s", "body": "b", "idempotency_key": "k1"}
	first := h.do("POST", p+"/messages", msg)
	again := h.do("POST", p+"/messages", msg)
	id := func(r response) any { m, _ := r.doc(t)["message"].(map[string]any); return m["id"] }
	if first.status != http.StatusOK || again.status != http.StatusOK || id(first) == nil || id(first) != id(again) {
		t.Errorf("the same key twice: %d %s / %d %s", first.status, first.body, again.status, again.body)
	}
	out := h.do("GET", p+"/agents/GreenCastle/outbox", nil)
	if n := len(out.doc(t)["messages"].([]any)); n != 1 {
		t.Errorf("the outbox has %d messages, want 1", n)
	}
	res := map[string]any{"agent": "GreenCastle", "patterns": []string{"src/**"}, "idempotency_key": "k2"}
	r1, r2 := h.do("POST", p+"/reservations", res), h.do("POST", p+"/reservations", res)
	if r1.status != http.StatusOK || string(r1.body) != string(r2.body) {
		t.Errorf("a reservation with the same key twice: %s / %s", r1.body, r2.body)
	}
	if r := h.do("POST", p+"/reservations", map[string]any{"agent": "GreenCastle", "patterns": []string{"docs/**"}, "idempotency_key": "k1"}); r.code(t) != "INVALID_ARGUMENT" {
		t.Errorf("a send's key given to a reservation: %d %s", r.status, r.body)
	}
}
