// Package server is agentmail serve: one long-lived HTTP server for the
// humans overseeing a team of agents and for the agents themselves. It
// composes internal/web (the guard in front of every route, the pages,
// the safe markdown, the embedded assets) with internal/service (every
// operation, written once) and internal/mcpserver (the MCP tools, here
// over streamable HTTP): the web UI under /mail/, the JSON API under
// /api/, MCP at /mcp (and /mcp/).
//
// One Server serves one store. Its handlers share one service.Gate, whose
// Service serves them all at once.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/events"
	"github.com/agentmail/agentmail/internal/markdown"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// Config says where a Server listens, who may use it, and which store it
// serves.
type Config struct {
	// Addr is the address to listen on, host:port (port 0 picks one).
	Addr string
	// Token, when set, is the bearer token of the API and MCP routes and
	// logs browsers in (web.Options); required beyond loopback.
	Token string
	// RequireToken requires the token on loopback too.
	RequireToken bool
	// Store configures the service of the store the server serves.
	Store service.Config
	// Project is the project of an MCP call that names none (no
	// project_key), as for agentmail mcp.
	Project service.ProjectRef
	// MCPTools is the tool profile /mcp serves when its query names none
	// (mcpserver.Profiles; "" for full).
	MCPTools string
	// Version is the agentmail version the MCP endpoint reports.
	Version string
	// SyncEvery, when positive, is how often the server syncs each
	// project that has synced before with its remote (see agentmail
	// sync); what the rounds bring, and their failures, go to Store.Note.
	SyncEvery time.Duration
	// Webhooks tune the delivery of the store's webhooks (their queue is
	// delivered while the server runs); the zero value is the default.
	Webhooks service.WebhookOptions
}

// Server is agentmail serve's HTTP server.
type Server struct {
	cfg   Config
	ln    net.Listener
	gate  *service.Gate
	guard *web.Guard
	pages *web.Pages
	http  *http.Server
	feed  *events.Feed // the live events of /api/events

	stopHooks func() // ends the webhooks' queueing and deliveries

	stopSync context.CancelFunc // ends the sync loops, if any
	synced   chan struct{}      // closed once they have ended
}

// Listen checks that the server may listen where cfg says (a token is
// required beyond loopback), listens, and returns the server, ready to
// Serve.
func Listen(cfg Config) (*Server, error) {
	if err := web.CheckListen(cfg.Addr, cfg.Token); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	s, err := newServer(cfg, ln)
	if err != nil {
		ln.Close()
		return nil, err
	}
	return s, nil
}

func newServer(cfg Config, ln net.Listener) (*Server, error) {
	guard, err := web.NewGuard(web.Options{Addr: ln.Addr().String(), Token: cfg.Token, RequireToken: cfg.RequireToken})
	if err != nil {
		return nil, err
	}
	pages, err := web.NewPages(web.NewMarkdown(markdown.Parser()))
	if err != nil {
		return nil, err
	}
	guard.ErrorPage = pages.ErrorPage
	s := &Server{cfg: cfg, ln: ln, gate: service.NewGate(cfg.Store), guard: guard, pages: pages}
	if s.feed, err = s.openFeed(); err != nil {
		s.gate.Close()
		return nil, err
	}
	s.stopHooks = s.startWebhooks()
	s.http = &http.Server{Handler: s.recoverPanics(gzipResponses(guard.Handler(s.routes()))), ReadHeaderTimeout: 10 * time.Second}
	if cfg.SyncEvery > 0 {
		s.startSync()
	}
	return s, nil
}

// startSync starts syncing the projects that have synced before, every
// Config.SyncEvery, until Shutdown.
func (s *Server) startSync() {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopSync, s.synced = cancel, make(chan struct{})
	note := s.cfg.Store.Note
	if note == nil {
		note = func(string) {}
	}
	go func() {
		defer close(s.synced)
		s.syncProjects(ctx, s.cfg.SyncEvery, note)
	}()
}

// openFeed starts following the store's archive for /api/events, creating
// the store if need be. The feed reads through the store's own archive
// handle (one object cache serves both), and takes the events of the
// server's own writes from the files they wrote: it reads back from the
// archive only the commits of other processes.
func (s *Server) openFeed() (*events.Feed, error) {
	var feed *events.Feed
	err := s.gate.Do(func(svc *service.Service) (err error) {
		feed, err = events.FollowService(svc, events.Options{Now: s.cfg.Store.Now, Note: s.cfg.Store.Note})
		return err
	})
	return feed, err
}

// Addr returns the address the server listens on, host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns the address of the web UI's first page, with the token
// that logs a browser in when there is one: what to open.
func (s *Server) URL() string {
	return web.TokenURL("http://"+s.Addr()+"/mail/", s.cfg.Token)
}

// Serve answers requests until Shutdown; it returns nil once shut down.
func (s *Server) Serve() error {
	if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown ends the event streams, stops listening, lets the requests
// and the sync rounds under way finish (until ctx ends), and closes the
// store.
func (s *Server) Shutdown(ctx context.Context) error {
	feedErr := s.feed.Close() // streams never go idle by themselves
	s.stopHooks()
	err := s.http.Shutdown(ctx)
	if s.stopSync != nil {
		s.stopSync()
		select {
		case <-s.synced:
		case <-ctx.Done():
			err = errors.Join(err, ctx.Err())
		}
	}
	return errors.Join(feedErr, err, s.gate.Close())
}

// panicHook, when set (by a test), is called with each request before it
// is served: a test makes a request panic with it.
var panicHook func(*http.Request)

// recoverPanics answers a request whose handler panicked with an error
// (ERROR, 500: a JSON document under /api/ and /mcp, else a page), logged,
// rather than dropping the connection; the server goes on serving. A
// handler that aborts on purpose (http.ErrAbortHandler) still does.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			f := service.Describe(service.Recovered(r.Method+" "+r.URL.Path, v))
			if strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/mcp" || strings.HasPrefix(r.URL.Path, "/mcp/") {
				web.WriteJSONError(w, http.StatusInternalServerError, f.Doc(apiHint(f)))
				return
			}
			s.pages.ErrorPage(w, r, http.StatusInternalServerError, f.Code, f.Message, pageHint(f))
		}()
		if panicHook != nil {
			panicHook(r)
		}
		next.ServeHTTP(w, r)
	})
}

// routes is every route of the server, behind the guard. One line here
// mounts a handler.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(web.RouteStatic, web.StaticHandler())
	mux.Handle("GET /{$}", http.RedirectHandler("/mail/", http.StatusSeeOther))
	s.webRoutes(mux)
	s.apiRoutes(mux)
	mux.Handle("GET /api/events", &events.Handler{Feed: s.feed})
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /api/health", s.health)
	mcp := s.mcpHandler()
	mux.Handle("/mcp/", mcp)
	mux.Handle("/mcp", mcp)
	return mux
}

// healthDoc is the document of /health: the store's state and the
// server's version.
type healthDoc struct {
	service.HealthResponse
	Version string `json:"version"`
}

// health answers GET /health and /api/health, what an operator's tools
// poll: 200 {"status": "ok", ...the store's state} while the store can be
// opened and read, else 503 {"status": "error", "error": {...}}.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	var doc service.HealthResponse
	err := s.gate.Do(func(svc *service.Service) (err error) {
		doc, err = svc.Health(r.Context())
		return err
	})
	if err != nil {
		f := service.Describe(err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "error",
			"error": f.Doc(apiHint(f))})
		return
	}
	writeJSON(w, http.StatusOK, healthDoc{doc, s.cfg.Version})
}
