package mcpserver

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callHeader carries, from HTTPCalls.Handler to the tool handler, the
// number of the HTTP request a call came in; the handler sets it, so a
// client cannot.
const callHeader = "X-Agentmail-Call"

// HTTPCalls ties the tool calls of MCP over HTTP to the HTTP requests that
// carry them: a call ends when the client goes away from its request (the
// answer can no longer reach anyone) or deletes its session. The SDK runs
// a call on its session's context, which neither ends.
type HTTPCalls struct {
	next atomic.Uint64

	mu       sync.Mutex
	requests map[string]context.Context              // by callHeader
	sessions map[string]map[*context.CancelFunc]bool // the calls under way, by session id
}

// NewHTTPCalls returns an HTTPCalls with no request.
func NewHTTPCalls() *HTTPCalls {
	return &HTTPCalls{requests: map[string]context.Context{}, sessions: map[string]map[*context.CancelFunc]bool{}}
}

// Handler serves next, the SDK's streamable HTTP handler, with each
// request's context known to the calls it carries; a DELETE of a session
// first ends the calls under way in it, so that it does not wait for them.
func (c *HTTPCalls) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			c.endSession(r.Header.Get("Mcp-Session-Id"))
		}
		n := strconv.FormatUint(c.next.Add(1), 36)
		r.Header.Set(callHeader, n)
		c.mu.Lock()
		c.requests[n] = r.Context()
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.requests, n)
			c.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// endSession ends the calls under way in session id.
func (c *HTTPCalls) endSession(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for cancel := range c.sessions[id] {
		(*cancel)()
	}
}

// context returns the context of a call: ctx, ended also when the HTTP
// request that carries the call ends or its session is deleted. A call
// whose request already ended gets an ended context.
func (c *HTTPCalls) context(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if req.Extra == nil || req.Extra.Header == nil {
		return ctx, cancel
	}
	n := req.Extra.Header.Get(callHeader)
	session := ""
	if req.Session != nil {
		session = req.Session.ID()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	httpCtx, ok := c.requests[n]
	if !ok {
		cancel()
		return ctx, cancel
	}
	stop := context.AfterFunc(httpCtx, cancel)
	key := &cancel
	if session != "" {
		if c.sessions[session] == nil {
			c.sessions[session] = map[*context.CancelFunc]bool{}
		}
		c.sessions[session][key] = true
	}
	return ctx, func() {
		stop()
		cancel()
		c.mu.Lock()
		defer c.mu.Unlock()
		if calls := c.sessions[session]; calls != nil {
			delete(calls, key)
			if len(calls) == 0 {
				delete(c.sessions, session)
			}
		}
	}
}

// callContext returns the context a tool call runs in: over HTTP, ended
// with its HTTP request too (see HTTPCalls).
func (s *Server) callContext(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc) {
	if s.cfg.HTTP == nil {
		return ctx, func() {}
	}
	return s.cfg.HTTP.context(ctx, req)
}
