package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient connects the Go SDK's client to url at protocol version
// ("" for the SDK's latest).
func (h *harness) mcpClient(url, version string) *mcp.ClientSession {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		h.t.Fatalf("connect to %s at %q: %v", url, version, err)
	}
	h.t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its structured content; a tool error
// fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %s", name, res.Content[0].(*mcp.TextContent).Text)
	}
	m, _ := res.StructuredContent.(map[string]any)
	return m
}

// Every protocol version the server advertises is accepted, at /mcp and
// at /mcp/: the SDK's client at its latest (2026-07-28, which has no
// sessions and starts with server/discover) and at the versions with
// sessions.
func TestMCPProtocolVersions(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"BlueLake"})
	// What server/discover advertises at 2026-07-28 includes it.
	r := h.do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", statelessProtocol, "Mcp-Method", "server/discover")
	var discovered struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	body := string(r.body)
	for _, line := range strings.Split(body, "\n") { // an event stream's data
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			body = d
		}
	}
	if err := json.Unmarshal([]byte(body), &discovered); err != nil || r.status != 200 || !slices.Contains(discovered.Result.SupportedVersions, statelessProtocol) {
		t.Fatalf("server/discover: %d %s", r.status, r.body)
	}
	// Every version advertised is accepted, and the SDK's latest ("").
	for _, path := range []string{"/mcp", "/mcp/"} {
		for _, version := range append([]string{""}, discovered.Result.SupportedVersions...) {
			cs := h.mcpClient(h.base+path, version)
			got := cs.InitializeResult().ProtocolVersion
			if version != "" && got != version || version == "" && got != statelessProtocol {
				t.Errorf("%s at %q: negotiated %q", path, version, got)
			}
			doc := callTool(t, cs, "fetch_inbox", map[string]any{"agent_name": "BlueLake"})
			if _, ok := doc["messages"]; !ok {
				t.Errorf("%s at %q: fetch_inbox answered %v", path, version, doc)
			}
		}
	}
}

// The legacy HTTP+SSE transport's handshake gets a clear error, not a 404
// or a hanging stream.
func TestMCPLegacySSEHandshake(t *testing.T) {
	h := startServer(t, Config{})
	for _, path := range []string{"/mcp", "/mcp/"} {
		r := h.do("GET", path, nil, "Accept", "text/event-stream")
		if r.status != http.StatusMethodNotAllowed || !strings.Contains(string(r.body), "streamable HTTP") {
			t.Errorf("GET %s for an event stream: %d %s", path, r.status, r.body)
		}
	}
}

// rawMCP is a session over HTTP spoken request by request, so that a test
// can walk away from one without telling the server.
type rawMCP struct {
	h       *harness
	session string
}

// post sends one JSON-RPC message in the session and returns the answer's
// first message (nil for a notification's empty answer).
func (m *rawMCP) post(ctx context.Context, body string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", m.h.base+"/mcp", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if m.session != "" {
		req.Header.Set("Mcp-Session-Id", m.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		m.session = id
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil, nil
	}
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
				break
			}
		}
	} else if data, err = io.ReadAll(resp.Body); err != nil {
		return nil, err
	}
	var msg map[string]any
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, errors.New(resp.Status + ": " + string(data))
	}
	return msg, nil
}

// openRaw initializes a raw session acting as agent (registered).
func (h *harness) openRaw(agent string) *rawMCP {
	h.t.Helper()
	m := &rawMCP{h: h}
	ctx := context.Background()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"register_agent","arguments":{"name":"` + agent + `"}}}`,
	} {
		msg, err := m.post(ctx, body)
		if err != nil || msg != nil && (msg["error"] != nil || msg["result"].(map[string]any)["isError"] == true) {
			h.t.Fatalf("%s: %v %v", body, msg, err)
		}
	}
	return m
}

// A call whose client went away ends: an acquire_lock waiting for a lock
// does not take it, later, for nobody.
func TestMCPAbandonedCallGrantsNothing(t *testing.T) {
	h := startServer(t, Config{})
	holder, waiter := h.openRaw("BlueLake"), h.openRaw("GreenCastle")
	ctx := context.Background()
	if msg, err := holder.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"acquire_lock","arguments":{"key":"deploy","ttl_seconds":300}}}`); err != nil || msg["result"].(map[string]any)["isError"] == true {
		t.Fatalf("acquire_lock: %v %v", msg, err)
	}
	gone, leave := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.post(gone, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"acquire_lock","arguments":{"key":"deploy","wait_seconds":20}}}`)
		done <- err
	}()
	time.Sleep(time.Second) // the waiter waits
	leave()
	<-done
	time.Sleep(500 * time.Millisecond)
	if msg, err := holder.post(ctx, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"release_lock","arguments":{"key":"deploy"}}}`); err != nil || msg["result"].(map[string]any)["isError"] == true {
		t.Fatalf("release_lock: %v %v", msg, err)
	}
	time.Sleep(3 * time.Second) // the waiter's poll would have taken it by now
	msg, err := holder.post(ctx, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_locks","arguments":{}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if locks := msg["result"].(map[string]any)["structuredContent"].(map[string]any)["locks"].([]any); len(locks) != 0 {
		t.Errorf("the abandoned call took the lock: %v", locks)
	}
}

// Deleting a session does not wait for its calls under way: they end.
func TestMCPDeleteSessionEndsItsCalls(t *testing.T) {
	h := startServer(t, Config{})
	m := h.openRaw("BlueLake")
	waited := make(chan error, 1)
	go func() {
		_, err := m.post(context.Background(), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_for_mail","arguments":{"timeout_seconds":600}}}`)
		waited <- err
	}()
	time.Sleep(time.Second)
	start := time.Now()
	req, err := http.NewRequest("DELETE", h.base+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", m.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("DELETE of the session: %v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	if d := time.Since(start); d > 5*time.Second || resp.StatusCode >= 300 {
		t.Errorf("DELETE of the session: %s after %v", resp.Status, d)
	}
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Error("the call under way did not end")
	}
}

// /mcp serves the tool profile the URL's query names (else the server's,
// else full), at every protocol version; an unknown one is refused with
// what to pass.
func TestMCPToolProfiles(t *testing.T) {
	h := startServer(t, Config{MCPTools: "messaging"})
	count := func(url, version string) int {
		cs := h.mcpClient(url, version)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", url, err)
		}
		return len(res.Tools)
	}
	for _, version := range []string{"2025-06-18", statelessProtocol} {
		if n := count(h.base+"/mcp?tools=minimal", version); n != 6 {
			t.Errorf("?tools=minimal at %s: %d tools, want 6", version, n)
		}
		full := count(h.base+"/mcp/?tools=full", version)
		if full < 41 {
			t.Errorf("?tools=full at %s: %d tools", version, full)
		}
		// The messaging profile (17 tools today) holds what its clusters
		// hold, and fewer than all.
		if n := count(h.base+"/mcp", version); n < 17 || n >= full {
			t.Errorf("the server's messaging profile at %s: %d tools of %d", version, n, full)
		}
	}
	r := h.do("POST", "/mcp?tools=tiny", `{}`, "Content-Type", "application/json")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `no tool profile "tiny": pass tools=full, tools=core`) {
		t.Errorf("?tools=tiny: %d %s", r.status, r.body)
	}
}

// callToolError calls a tool that must fail and returns its error text.
func callToolError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: succeeded, want an error", name, args)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// Over HTTP, each session acts as the agents it registered, several of
// them; another session (or a call of the stateless protocol) acts as one
// only with its registration token.
func TestMCPSeveralAgentsPerSession(t *testing.T) {
	h := startServer(t, Config{})
	one := h.mcpClient(h.base+"/mcp", "2025-06-18")
	green := callTool(t, one, "register_agent", map[string]any{"name": "GreenCastle"})["registration_token"].(string)
	blue := callTool(t, one, "register_agent", map[string]any{"name": "BlueLake"})["registration_token"].(string)
	sent := callTool(t, one, "send_message", map[string]any{"sender_name": "BlueLake", "to": []string{"GreenCastle"}, "subject": "from blue", "body_md": "x"})
	if sent["message"].(map[string]any)["from"] != "BlueLake" {
		t.Errorf("send as the session's second agent: %v", sent)
	}

	two := h.mcpClient(h.base+"/mcp", "2025-06-18")
	callTool(t, two, "register_agent", map[string]any{"name": "RedFox"})
	for _, call := range []map[string]any{
		{"agent_name": "GreenCastle"},
		{"agent_name": "GreenCastle", "registration_token": blue},
	} {
		if e := callToolError(t, two, "fetch_inbox", call); !strings.Contains(e, "AUTHENTICATION_REQUIRED") {
			t.Errorf("fetch_inbox %v from another session: %s", call, e)
		}
	}
	if e := callToolError(t, two, "register_agent", map[string]any{"name": "BlueLake"}); !strings.Contains(e, "AUTHENTICATION_REQUIRED") {
		t.Errorf("register another session's agent: %s", e)
	}
	inbox := callTool(t, two, "fetch_inbox", map[string]any{"agent_name": "GreenCastle", "registration_token": green})
	if msgs := inbox["messages"].([]any); len(msgs) != 1 {
		t.Errorf("GreenCastle's inbox by token: %v", inbox)
	}

	// The stateless protocol has no sessions: a token given must be the
	// agent's.
	st := h.mcpClient(h.base+"/mcp", statelessProtocol)
	if e := callToolError(t, st, "fetch_inbox", map[string]any{"agent_name": "GreenCastle", "registration_token": blue}); !strings.Contains(e, "AUTHENTICATION_REQUIRED") {
		t.Errorf("a stateless call with another's token: %s", e)
	}
	callTool(t, st, "fetch_inbox", map[string]any{"agent_name": "GreenCastle", "registration_token": green})
}
