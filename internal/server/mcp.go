package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/service"

	"github.com/agentmail/agentmail/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSessionTimeout closes an MCP session its client left without saying
// so.
const mcpSessionTimeout = time.Hour

// statelessProtocol is the first MCP protocol version without sessions
// (SEP-2575): every request carries its version and stands alone.
const statelessProtocol = "2026-07-28"

// mcpHandler is the MCP endpoint: the tools and resources of agentmail
// mcp over streamable HTTP. Each HTTP session is what one agentmail mcp
// process is on stdio: it acts as the first agent a call registers or
// names (docs/mcp-tools.md, "Over HTTP"); every session shares the
// server's gate.
//
// The SDK serves protocol 2026-07-28, which has no sessions, only on a
// stateless handler, and the sessions of the earlier versions only on a
// stateful one: a request is routed by the version its
// MCP-Protocol-Version header names, so that every version the server
// advertises (server/discover, initialize) is accepted. A stateless
// request is a session of its own: each call acts as the agent it names.
//
// The legacy HTTP+SSE transport's handshake (a GET for an event stream
// with no session) is answered with an error that says what to configure.
//
// The query's tools (else Config.MCPTools) names the tool profile served
// (agentmail mcp --tools): /mcp?tools=core. Each profile's handler is made
// when first asked for.
func (s *Server) mcpHandler() http.Handler {
	handlers := map[string]func() http.Handler{}
	for _, p := range mcpserver.Profiles {
		handlers[p] = sync.OnceValue(func() http.Handler { return s.mcpProfileHandler(p) })
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := cmp.Or(r.URL.Query().Get("tools"), s.cfg.MCPTools, "full")
		h, ok := handlers[p]
		if !ok {
			http.Error(w, fmt.Sprintf("no tool profile %q: pass tools=%s in the URL's query, or leave it out", p, strings.Join(mcpserver.Profiles, ", tools=")), http.StatusBadRequest)
			return
		}
		h().ServeHTTP(w, r)
	})
}

// mcpProfileHandler is the MCP endpoint of one tool profile.
func (s *Server) mcpProfileHandler(profile string) http.Handler {
	calls := mcpserver.NewHTTPCalls()
	cfg := mcpserver.Config{Gate: s.gate, Project: s.cfg.Project, Version: s.cfg.Version, HTTP: calls, Tools: profile}
	// The SDK asks for a server on every request (to check the protocol
	// version); only a request without a session starts one.
	shared := mcpserver.New(cfg).MCP()
	limit := service.RequestLimit(s.maxBody())
	stateful := calls.Handler(mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return shared
		}
		return mcpserver.New(cfg).MCP()
	}, &mcp.StreamableHTTPOptions{SessionTimeout: mcpSessionTimeout, MaxRequestBodyBytes: limit + 1}))
	aloneCfg := cfg
	aloneCfg.Stateless = true
	alone := mcpserver.New(aloneCfg).MCP()
	stateless := calls.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return alone
	}, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true, MaxRequestBodyBytes: limit + 1}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !s.bodyFits(w, r, limit) {
			return
		}
		switch {
		case r.Header.Get("Mcp-Protocol-Version") >= statelessProtocol:
			stateless.ServeHTTP(w, r)
		case r.Method == http.MethodGet && r.Header.Get("Mcp-Session-Id") == "" && strings.Contains(r.Header.Get("Accept"), "text/event-stream"):
			w.Header().Set("Allow", "POST, GET, DELETE")
			http.Error(w, "agentmail serves MCP over streamable HTTP (protocol 2025-03-26 and later), not the older HTTP+SSE transport: "+
				"configure the client for streamable HTTP (\"type\": \"http\") at this URL, /mcp", http.StatusMethodNotAllowed)
		default:
			stateful.ServeHTTP(w, r)
		}
	})
}

// bodyFits reads r's body, if it is no longer than limit, for the MCP
// handler to read again, and reports true; else it answers as stdio does,
// MESSAGE_TOO_LARGE as a JSON-RPC error (with HTTP status 413), having
// read no more than limit bytes of it.
func (s *Server) bodyFits(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if r.ContentLength <= limit {
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err == nil && int64(len(b)) <= limit {
			r.Body = io.NopCloser(bytes.NewReader(b))
			return true
		}
		if err != nil {
			http.Error(w, "read the request: "+err.Error(), http.StatusBadRequest)
			return false
		}
	}
	f := service.Describe(service.RequestTooLarge(max(r.ContentLength, limit+1), s.maxBody(), r.ContentLength <= limit))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
		"code": -32600, "message": f.Message,
		"data": f.Doc(f.Hint)}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close") // the rest of the body is not read
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	w.Write(append(b, '\n'))
	return false
}
