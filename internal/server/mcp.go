package server

import (
	"net/http"
	"time"

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
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") != "" {
			return shared
		}
		return mcpserver.New(cfg).MCP()
	}, &mcp.StreamableHTTPOptions{SessionTimeout: mcpSessionTimeout})
}
