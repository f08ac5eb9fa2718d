// Package mcpserver is agentmail's Model Context Protocol server: every
// operation of internal/service offered as an MCP tool, under the names and
// argument names of the Python mcp_agent_mail server wherever that server
// has the tool (docs/mcp-tools.md), and the mailbox as read-only resources.
//
// Each tool calls the same service operation as the command line and
// answers with the same document its --json prints (as structured content,
// beside a short text for the model); a failure is a tool error whose text
// is the command line's JSON error document. No operation is written here a
// second time.
//
// One Server serves one store for the life of its process. Identity: a
// server acts as one agent, the one it was started as, or else the first
// one a call registers or names; naming another fails with
// AUTHENTICATION_REQUIRED, unless the server was started as an overseer.
package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config says what a Server serves and as whom.
type Config struct {
	// Store configures the service of the store the server serves. The
	// server opens it once, and opens more of it for calls that block
	// (wait_for_mail, a lock acquired with a wait), so that they hold up
	// no other call.
	Store service.Config
	// Gate, when set, is the gate of the store shared with other servers
	// of the same process (agentmail serve's web pages, API and MCP
	// sessions); Store is then unused, and the gate's owner closes it.
	Gate *service.Gate
	// Project is the project of a call that names none (no project_key):
	// what the command line would use where the server started.
	Project service.ProjectRef
	// Agent is the agent the server acts as ("" to take the first one a
	// call registers or names).
	Agent string
	// Overseer lets calls act as any agent, and as nobody: a message
	// without a sender is from the human overseer, a search without an
	// agent searches the whole project.
	Overseer bool
	// Version is the agentmail version the server reports.
	Version string
	// Stateless serves calls that stand alone (MCP over HTTP from protocol
	// 2026-07-28 on, which has no sessions): each acts as the agent it
	// names, and none binds the server to an agent.
	Stateless bool
	// Tools is the tool profile served (Profiles): "" or "full" for every
	// tool; a face checks it with CheckProfile first.
	Tools string
	// Pane is the terminal pane the server runs in ($TMUX_PANE of agentmail
	// mcp), "" for none: registering an agent records that it works there
	// (see list_window_identities).
	Pane string
	// HTTP, over HTTP, ties each call to the HTTP request carrying it: the
	// call ends when its client goes away.
	HTTP *HTTPCalls
}

// Server is the MCP server of one store.
type Server struct {
	cfg  Config
	mcp  *mcp.Server
	gate *service.Gate // the store's service, shared with other servers or not
	own  bool          // the server made gate, and closes it

	boundMu sync.Mutex
	bound   []string // the agents the session took on (registered or named), besides cfg.Agent

	// binding serializes the calls of a session that has no agent yet
	// (see do).
	binding sync.Mutex

	// usage counts the session's tool calls, for resource://tooling/metrics
	// and resource://tooling/recent.
	usage usage
	// tools are the tools registered, in order, each with its cluster
	// (the group it was registered in: cluster while registering).
	tools   []listedTool
	cluster string

	// progressEvery is how often a client that asked for progress hears
	// from a call that blocks.
	progressEvery time.Duration

	// stopped ends when the client's input ended (interrupt): calls that
	// block end with it.
	stopped   context.Context
	interrupt context.CancelFunc
}

// New returns the server cfg describes, with every tool and resource
// registered. It opens nothing until a call needs the store.
func New(cfg Config) *Server {
	gate, own := cfg.Gate, false
	if gate == nil {
		gate, own = service.NewGate(cfg.Store), true
	}
	s := &Server{cfg: cfg, gate: gate, own: own, progressEvery: 15 * time.Second}
	s.stopped, s.interrupt = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "agentmail", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{}, // no logging: nothing but JSON-RPC may reach stdout
	})
	s.mcp.AddReceivingMiddleware(recoverPanics, encodeResults)
	s.addTools()
	s.addResources()
	return s
}

// recoverPanics answers a request whose handler panicked with an error,
// logged, instead of letting the panic take the server down with every
// other request: a tool call with a tool error (ERROR), anything else
// with a JSON-RPC error.
func recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			what := method
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				what = "tool " + p.Name
			}
			err = service.Recovered(what, v)
			if method == "tools/call" {
				var r mcp.CallToolResult
				r.SetError(failure(err))
				res, err = &r, nil
			}
		}()
		return next(ctx, method, req)
	}
}

// instructions tell a client's model how to begin.
const instructions = "agentmail: mail, file reservations and locks for coding agents sharing one repository. " +
	"Start with macro_start_session (or register_agent) to get your agent name, then check_mail or fetch_inbox each step. " +
	"Reserve files with file_reservation_paths before editing them; a conflict is an error listing who holds what. " +
	"project_key is the absolute path of your repository (default: the directory the server runs in). " +
	"Errors are JSON documents {\"error\":{\"code\",\"message\",\"hint\"}}: follow the hint."

// MCP returns the MCP server, to connect to a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client on t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Close closes the store, unless the server was given its gate
// (Config.Gate): then the gate's owner closes it.
func (s *Server) Close() error {
	s.interrupt()
	if !s.own {
		return nil
	}
	return s.gate.Close()
}

// do runs fn on the gate's service. Calls run concurrently once the
// session has an agent (or needs none); before, one at a time, so that
// the first to name an agent binds it before the next is checked against
// it (fn binds it).
func (s *Server) do(fn func(*service.Service) error) error {
	if s.unbound() {
		s.binding.Lock()
		defer s.binding.Unlock()
	}
	return s.gate.Do(fn)
}

// unbound reports whether a call may still bind the session to its first
// agent. Once false it stays so: an agent once bound stays.
func (s *Server) unbound() bool {
	return !s.cfg.Overseer && !s.cfg.Stateless && s.sessionAgent() == ""
}

// unlocked runs a call that may block for long: its scope is resolved as
// do resolves it, then op runs without holding up the calls of a session
// still to bind (other calls go on meanwhile), and the session takes on
// the agent the call acted as once op succeeded. While op runs, a client
// that asked for progress hears of it every progressEvery, so that it does
// not give up on the call. op's context ends with the call's, and, when
// the call blocks, when the client's input ends (ServeStdio).
func (s *Server) unlocked(ctx context.Context, req *mcp.CallToolRequest, blocks bool, prep func(*call) (service.Scope, error), op func(context.Context, *service.Service, service.Scope) error) error {
	c := &call{s: s, token: callToken(req)}
	var sc service.Scope
	if err := s.do(func(svc *service.Service) (err error) {
		c.svc = svc
		sc, err = prep(c)
		return err
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if blocks {
		defer context.AfterFunc(s.stopped, cancel)()
	}
	stop := s.reportProgress(ctx, req)
	err := s.gate.Blocking(func(svc *service.Service) error { return op(ctx, svc, sc) })
	stop()
	if err == nil {
		s.bind(c.bindable())
	}
	return err
}

// reportProgress notifies the client every progressEvery, when its request
// carries a progress token, until stop is called.
func (s *Server) reportProgress(ctx context.Context, req *mcp.CallToolRequest) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.progressEvery)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// A client gone away ends the call's context too.
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: "still waiting"})
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// addTools registers every tool.
func (s *Server) addTools() {
	for _, g := range []struct {
		cluster string
		add     func()
	}{
		{"identity and contacts", s.addAgentTools},
		{"identity lifecycle", s.addIdentityTools},
		{"projects", s.addProjectTools},
		{"deletion", s.addDeletionTools},
		{"panes and windows", s.addPaneTools},
		{"messaging", s.addMailTools},
		{"file reservations, locks and the guard", s.addLeaseTools},
		{"ports", s.addPortTools},
		{"tasks", s.addTaskTools},
		{"channels, agent state and control", s.addAttentionTools},
		{"macros", s.addMacroTools},
		{"summaries, products, events and receipts", s.addMoreTools},
	} {
		s.cluster = g.cluster
		g.add()
	}
}
