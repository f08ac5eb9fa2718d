package mcpserver

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listedTool is a registered tool, for the tooling resources.
type listedTool struct {
	tool     *mcp.Tool
	cluster  string
	readOnly bool
	// document is the whole schema of the tool's document, of which the
	// listed output schema is the outline (outline): the tests check
	// every document they see against it.
	document func() *jsonschema.Schema
}

// moreResources are the rest of mcp_agent_mail's resources, under its
// URIs (issue 24 §3).
func (s *Server) moreResources() []resourceKind {
	return []resourceKind{
		{"project", "resource://project/{+slug}", "A project and its agents: resource://project/SLUG_OR_KEY", s.readProject},
		{"product", "resource://product/{+key}", "A product and the projects it groups: resource://product/KEY_OR_NAME", s.readProduct},
		{"views/urgent-unread", "resource://views/urgent-unread/{+agent}", "An agent's unread high and urgent mail, newest first: resource://views/urgent-unread/NAME?project=PATH_OR_KEY&limit=20", s.viewUrgentUnread},
		{"views/ack-required", "resource://views/ack-required/{+agent}", "The messages an agent was asked to acknowledge and has not, oldest first: resource://views/ack-required/NAME?project=PATH_OR_KEY&limit=20", s.viewAckRequired},
		{"views/acks-stale", "resource://views/acks-stale/{+agent}", "Those of ack-required sent at least ttl_seconds ago (default 1800): resource://views/acks-stale/NAME?project=PATH_OR_KEY&ttl_seconds=1800&limit=20", s.viewAcksStale},
		{"views/ack-overdue", "resource://views/ack-overdue/{+agent}", "Those of ack-required sent at least ttl_minutes ago (default 60): resource://views/ack-overdue/NAME?project=PATH_OR_KEY&ttl_minutes=60&limit=50", s.viewAckOverdue},
		{"mailbox", "resource://mailbox/{+agent}", "An agent's received mail, newest first, without bodies: resource://mailbox/NAME?project=PATH_OR_KEY&limit=20", s.readMailbox},
		{"outbox", "resource://outbox/{+agent}", "An agent's sent mail, newest first: resource://outbox/NAME?project=PATH_OR_KEY&limit=20&include_bodies=true&since_ts=T", s.readOutbox},
		{"tooling/directory", "resource://tooling/directory{+rest}", "The tools by cluster, and the usual sequences of calls", s.toolingDirectory},
		{"tooling/schemas", "resource://tooling/schemas{+rest}", "Each tool's required and optional arguments", s.toolingSchemas},
		{"tooling/metrics", "resource://tooling/metrics{+rest}", "Calls and failures per tool in this session", s.toolingMetrics},
		{"tooling/locks", "resource://tooling/locks{+rest}", "The named locks held in the project: resource://tooling/locks?project=PATH_OR_KEY", s.toolingLocks},
		{"tooling/projects", "resource://tooling/projects{+rest}", "Every project of the store", s.toolingProjects},
		{"tooling/capabilities", "resource://tooling/capabilities/{+agent}", "What an agent may call: resource://tooling/capabilities/NAME?project=PATH_OR_KEY", s.toolingCapabilities},
		{"tooling/recent", "resource://tooling/recent/{+window_seconds}", "The tool calls of this session in the last N seconds: resource://tooling/recent/60?agent=NAME", s.toolingRecent},
	}
}

// noPath refuses a path after a resource that takes none.
func noPath(rest, uri string) error {
	if rest != "" {
		return service.Usagef("read "+uri+" with nothing after its name but a query", "%s takes no path, got %q", uri, rest)
	}
	return nil
}

// ProjectDetail is the document of resource://project/{slug}: the
// project, under mcp_agent_mail's names and ours, and its agents.
type ProjectDetail struct {
	Slug     string          `json:"slug"`
	HumanKey string          `json:"human_key"`
	Key      string          `json:"key"`
	Holds    service.Counts  `json:"holds"`
	Agents   []service.Agent `json:"agents"`
}

func (s *Server) readProject(ctx context.Context, c *call, slug string, q url.Values) (any, error) {
	if slug == "" {
		return nil, service.Usagef("read resource://project/SLUG", "name one project after the resource's name")
	}
	sc, err := c.project(projectArgs{ProjectKey: slug}, "")
	if err != nil {
		return nil, err
	}
	p, err := c.svc.Project(ctx, sc)
	if err != nil {
		return nil, err
	}
	agents, err := c.svc.Agents(ctx, sc, service.AgentsRequest{})
	return ProjectDetail{Slug: p.Project.Slug, HumanKey: p.Project.Key, Key: p.Project.Key, Holds: p.Holds, Agents: agents.Agents}, err
}

func (s *Server) readProduct(ctx context.Context, c *call, key string, q url.Values) (any, error) {
	if key == "" {
		return nil, service.Usagef("read resource://product/KEY", "name one product after the resource's name")
	}
	p, err := c.svc.GetProduct(ctx, key)
	return p, err
}

// View is the document of the views and of the mailbox and outbox
// resources, as mcp_agent_mail's: the project, the agent, how many
// messages, and the messages.
type View struct {
	Project    string `json:"project"`
	Agent      string `json:"agent"`
	Count      int    `json:"count"`
	TTLSeconds *int   `json:"ttl_seconds,omitempty"`
	Messages   any    `json:"messages"`
}

// viewScope is the scope of a view of an agent's mail.
func (s *Server) viewScope(c *call, agent string, q url.Values, example string) (service.Scope, error) {
	if err := needOne(agent, "agent", example); err != nil {
		return service.Scope{}, err
	}
	return c.scope(projectOf("", q), agent)
}

// view returns msgs (at most limit) as agent's view in sc.
func view[T any](c *call, ctx context.Context, sc service.Scope, msgs []T, limit int) (View, error) {
	p, err := service.ResolveProject(sc.Project)
	if err != nil {
		return View{}, err
	}
	msgs = first(msgs, limit)
	return View{Project: p.Key, Agent: sc.Agent, Count: len(msgs), Messages: msgs}, nil
}

func (s *Server) viewUrgentUnread(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	sc, err := s.viewScope(c, agent, q, "resource://views/urgent-unread/NAME?project=PATH")
	if err != nil {
		return nil, err
	}
	limit, err := limitOf(q, defaultLimit)
	if err != nil {
		return nil, err
	}
	r, err := c.svc.Inbox(ctx, sc, service.InboxRequest{Unread: true, Urgent: true, Limit: limit})
	if err != nil {
		return nil, err
	}
	return view(c, ctx, sc, r.Messages, limit)
}

// StaleAck is a message waiting for the agent's acknowledgement, with its
// age.
type StaleAck struct {
	service.Received
	AgeSeconds int `json:"age_seconds"`
}

// pendingAcks returns the messages agent was asked to acknowledge and has
// not, sent at least older ago, oldest first, each with its age.
func (s *Server) pendingAcks(ctx context.Context, c *call, sc service.Scope, older time.Duration) ([]StaleAck, error) {
	r, err := c.svc.PendingAcks(ctx, sc, false)
	if err != nil {
		return nil, err
	}
	now := c.svc.Now()
	out := []StaleAck{}
	for _, m := range r.Messages {
		if age := now.Sub(m.Created.Time); age >= older {
			out = append(out, StaleAck{m, int(age / time.Second)})
		}
	}
	return out, nil
}

func (s *Server) viewAckRequired(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	return s.ackView(ctx, c, agent, q, "ack-required", "", 0, defaultLimit)
}

func (s *Server) viewAcksStale(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	return s.ackView(ctx, c, agent, q, "acks-stale", "ttl_seconds", time.Second, defaultLimit)
}

func (s *Server) viewAckOverdue(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	return s.ackView(ctx, c, agent, q, "ack-overdue", "ttl_minutes", time.Minute, 50)
}

// Default ages of the stale and overdue views, as mcp_agent_mail's.
const (
	defaultStaleSeconds  = 1800
	defaultOverdueMinute = 60
)

// ackView is the view of the messages agent must acknowledge, sent at
// least the ttl parameter (in unit) ago.
func (s *Server) ackView(ctx context.Context, c *call, agent string, q url.Values, name, ttlParam string, unit time.Duration, defLimit int) (any, error) {
	sc, err := s.viewScope(c, agent, q, "resource://views/"+name+"/NAME?project=PATH")
	if err != nil {
		return nil, err
	}
	limit, err := limitOf(q, defLimit)
	if err != nil {
		return nil, err
	}
	var older time.Duration
	var ttlSeconds *int
	if ttlParam != "" {
		n := map[string]int{"ttl_seconds": defaultStaleSeconds, "ttl_minutes": defaultOverdueMinute}[ttlParam]
		if v := q.Get(ttlParam); v != "" {
			if n, err = strconv.Atoi(v); err != nil || n < 0 {
				return nil, service.Usagef("pass "+ttlParam+"=N, a number of 0 or more", "%s=%q is not a number of 0 or more", ttlParam, v)
			}
		}
		older = time.Duration(n) * unit
		secs := int(older / time.Second)
		ttlSeconds = &secs
	}
	list, err := s.pendingAcks(ctx, c, sc, older)
	if err != nil {
		return nil, err
	}
	v, err := view(c, ctx, sc, list, limit)
	v.TTLSeconds = ttlSeconds
	return v, err
}

func (s *Server) readMailbox(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	sc, err := s.viewScope(c, agent, q, "resource://mailbox/NAME?project=PATH")
	if err != nil {
		return nil, err
	}
	limit, err := limitOf(q, defaultLimit)
	if err != nil {
		return nil, err
	}
	r, err := c.svc.Inbox(ctx, sc, service.InboxRequest{Limit: limit})
	if err != nil {
		return nil, err
	}
	return view(c, ctx, sc, r.Messages, limit)
}

// SentMessage is a message of an outbox, with its body when asked for.
type SentMessage struct {
	service.Message
	Body *string `json:"body,omitempty"`
}

func (s *Server) readOutbox(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	sc, err := s.viewScope(c, agent, q, "resource://outbox/NAME?project=PATH")
	if err != nil {
		return nil, err
	}
	limit, err := limitOf(q, defaultLimit)
	if err != nil {
		return nil, err
	}
	bodies, err := boolParam(q, "include_bodies", false)
	if err != nil {
		return nil, err
	}
	since, err := after(q.Get("since_ts"), c.svc.Now())
	if err != nil {
		return nil, err
	}
	cutoff, _ := service.ParseSince(since, c.svc.Now())
	r, err := c.svc.Outbox(ctx, sc, service.OutboxRequest{})
	if err != nil {
		return nil, err
	}
	out := []SentMessage{}
	for _, m := range r.Messages {
		if since != "" && m.Created.Before(cutoff) {
			continue
		}
		sm := SentMessage{Message: m}
		if bodies {
			full, err := c.svc.Show(ctx, sc, m.ID)
			if err != nil {
				return nil, err
			}
			sm.Body = &full.Message.Body
		}
		out = append(out, sm)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return view(c, ctx, sc, out, limit)
}

// ToolEntry is a tool in the tooling directory.
type ToolEntry struct {
	Name     string `json:"name"`
	Summary  string `json:"summary"`
	ReadOnly bool   `json:"read_only"`
}

// Cluster is a group of tools in the tooling directory.
type Cluster struct {
	Name  string      `json:"name"`
	Tools []ToolEntry `json:"tools"`
}

// Playbook is a usual sequence of calls.
type Playbook struct {
	Workflow string   `json:"workflow"`
	Sequence []string `json:"sequence"`
}

// outputFormats is what the format argument takes here.
var outputFormats = map[string]any{"default": "json", "tool_param": "format", "resource_query": "format", "values": []string{"json"}}

var playbooks = []Playbook{
	{"Start a session", []string{"health_check", "macro_start_session", "check_mail"}},
	{"Start a session by hand", []string{"ensure_project", "register_agent", "fetch_inbox"}},
	{"Edit files others may touch", []string{"check_file_reservation_conflicts", "file_reservation_paths", "send_message", "release_file_reservations"}},
	{"Join a discussion", []string{"macro_prepare_thread", "reply_message", "acknowledge_message"}},
	{"Watch for mail without missing any", []string{"fetch_inbox_events", "get_message_delivery_receipt"}},
	{"Work across repositories", []string{"ensure_product", "products_link", "fetch_inbox_product", "search_messages_product"}},
}

func (s *Server) toolingDirectory(ctx context.Context, c *call, rest string, q url.Values) (any, error) {
	if err := noPath(rest, "resource://tooling/directory"); err != nil {
		return nil, err
	}
	var clusters []Cluster
	for _, t := range s.tools {
		if n := len(clusters); n == 0 || clusters[n-1].Name != t.cluster {
			clusters = append(clusters, Cluster{Name: t.cluster})
		}
		summary, _, _ := strings.Cut(t.tool.Description, ". ")
		cl := &clusters[len(clusters)-1]
		cl.Tools = append(cl.Tools, ToolEntry{t.tool.Name, summary, t.readOnly})
	}
	return map[string]any{"generated_at": service.Time{Time: c.svc.Now()}, "metrics_uri": "resource://tooling/metrics",
		"output_formats": outputFormats, "clusters": clusters, "playbooks": playbooks}, nil
}

// ToolSchema is a tool's arguments, as resource://tooling/schemas lists
// them.
type ToolSchema struct {
	Required []string `json:"required"`
	Optional []string `json:"optional"`
}

func (s *Server) toolingSchemas(ctx context.Context, c *call, rest string, q url.Values) (any, error) {
	if err := noPath(rest, "resource://tooling/schemas"); err != nil {
		return nil, err
	}
	tools := map[string]ToolSchema{}
	for _, t := range s.tools {
		ts := ToolSchema{Required: []string{}, Optional: []string{}}
		sch, _ := t.tool.InputSchema.(*jsonschema.Schema)
		if sch == nil {
			continue
		}
		for name := range sch.Properties {
			if slices.Contains(sch.Required, name) {
				ts.Required = append(ts.Required, name)
			} else {
				ts.Optional = append(ts.Optional, name)
			}
		}
		slices.Sort(ts.Required)
		slices.Sort(ts.Optional)
		tools[t.tool.Name] = ts
	}
	return map[string]any{"generated_at": service.Time{Time: c.svc.Now()}, "global_optional": []string{"format"},
		"output_formats": outputFormats, "tools": tools}, nil
}

func (s *Server) toolingMetrics(ctx context.Context, c *call, rest string, q url.Values) (any, error) {
	if err := noPath(rest, "resource://tooling/metrics"); err != nil {
		return nil, err
	}
	counts, _ := s.usage.snapshot(time.Now())
	return map[string]any{"generated_at": service.Time{Time: c.svc.Now()}, "tools": counts}, nil
}

func (s *Server) toolingLocks(ctx context.Context, c *call, rest string, q url.Values) (any, error) {
	if err := noPath(rest, "resource://tooling/locks"); err != nil {
		return nil, err
	}
	sc, err := c.project(projectOf("", q), "")
	if err != nil {
		return nil, err
	}
	return c.svc.Locks(ctx, sc, q.Get("prefix"))
}

// ProjectEntry is a project of resource://tooling/projects, under
// mcp_agent_mail's names and ours.
type ProjectEntry struct {
	Slug     string         `json:"slug"`
	HumanKey string         `json:"human_key"`
	Key      string         `json:"key"`
	Holds    service.Counts `json:"holds"`
}

func (s *Server) toolingProjects(ctx context.Context, c *call, rest string, q url.Values) (any, error) {
	if err := noPath(rest, "resource://tooling/projects"); err != nil {
		return nil, err
	}
	r, err := c.svc.Projects(ctx, false)
	if err != nil {
		return nil, err
	}
	out := make([]ProjectEntry, len(r.Projects))
	for i, p := range r.Projects {
		out[i] = ProjectEntry{p.Slug, p.Key, p.Key, p.Holds}
	}
	return out, nil
}

func (s *Server) toolingCapabilities(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	sc, err := s.viewScope(c, agent, q, "resource://tooling/capabilities/NAME?project=PATH")
	if err != nil {
		return nil, err
	}
	a, err := c.svc.Whoami(ctx, sc)
	if err != nil {
		return nil, err
	}
	var caps []string
	for _, t := range s.tools {
		if !slices.Contains(caps, t.cluster) {
			caps = append(caps, t.cluster)
		}
	}
	return map[string]any{"generated_at": service.Time{Time: c.svc.Now()}, "agent": a.Agent.Name, "project": q.Get("project"),
		"capabilities": caps, "note": "every registered agent may call every tool; there are no per-agent capabilities"}, nil
}

func (s *Server) toolingRecent(ctx context.Context, c *call, window string, q url.Values) (any, error) {
	secs, err := strconv.Atoi(window)
	if err != nil || secs < 1 {
		return nil, service.Usagef("read resource://tooling/recent/60 (a number of seconds)", "the window %q is not a number of seconds of 1 or more", window)
	}
	_, calls := s.usage.snapshot(time.Now().Add(-time.Duration(secs) * time.Second))
	if a := q.Get("agent"); a != "" {
		calls = slices.DeleteFunc(calls, func(x toolCall) bool { return !strings.EqualFold(x.Agent, a) })
	}
	return map[string]any{"generated_at": service.Time{Time: c.svc.Now()}, "window_seconds": secs, "count": len(calls), "entries": calls}, nil
}
