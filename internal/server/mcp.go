package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/agentmail/agentmail/internal/service"

	"github.com/agentmail/agentmail/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSessionTimeout closes an MCP session its client left without saying
// so.
const mcpSessionTimeout = time.Hour

// mcpHandler is the MCP endpoint: the tools and resources of agentmail
// mcp over streamable HTTP. Each HTTP session is what one agentmail mcp
// process is on stdio: it acts as the first agent a call registers or
// names (docs/mcp-tools.md, "Over HTTP"); every session shares the
// server's gate.
func (s *Server) mcpHandler() http.Handler {
	cfg := mcpserver.Config{Gate: s.gate, Project: s.cfg.Project, Version: s.cfg.Version}
	// The SDK asks for a server on every request (to check the protocol
	// version); only a request without a session starts one.
	shared := mcpserver.New(cfg).MCP()
	limit := service.RequestLimit(s.maxBody())
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return shared
		}
		return mcpserver.New(cfg).MCP()
	}, &mcp.StreamableHTTPOptions{SessionTimeout: mcpSessionTimeout, MaxRequestBodyBytes: limit + 1})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !s.bodyFits(w, r, limit) {
			return
		}
		h.ServeHTTP(w, r)
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
		"data": map[string]string{"code": f.Code, "message": f.Message, "hint": f.Hint}}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close") // the rest of the body is not read
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	w.Write(append(b, '\n'))
	return false
}
