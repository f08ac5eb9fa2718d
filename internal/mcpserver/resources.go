package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources are read-only views, in mcp_agent_mail's URIs, each
// answering with the document of the tool that reads the same thing.
// Their templates are broad ({+rest} matches raw slashes and query
// parameters in any order, as mcp_agent_mail's clients send them:
// ?project=/abs/path), and the handlers parse the URI themselves.

// resourceKind is one kind of resource: resource://NAME...
type resourceKind struct {
	name, template, desc string
	// read returns the document of the resource: rest is what follows
	// the name (path unescaped, without the query), q the query.
	read func(ctx context.Context, c *call, rest string, q url.Values) (any, error)
}

func (s *Server) addResources() {
	for _, k := range append([]resourceKind{
		{"inbox", "resource://inbox/{+agent}", "An agent's inbox, as fetch_inbox: resource://inbox/NAME?project=PATH_OR_KEY&limit=20&since_ts=T&urgent_only=true&include_bodies=true&unread_only=true", s.readInbox},
		{"thread", "resource://thread/{+thread_id}", "A thread with bodies, oldest first, as get_thread: resource://thread/ID?project=PATH_OR_KEY&agent=NAME&limit=N (the first N messages)", s.readThread},
		{"message", "resource://message/{+message_id}", "One message with its body: resource://message/ID?project=PATH_OR_KEY&agent=NAME", s.readMessage},
		{"agents", "resource://agents{+project}", "The project's agents, as list_agents: resource://agents?project=PATH_OR_KEY&limit=N (or resource://agents/PERCENT_ENCODED_PATH_OR_KEY)", s.readAgents},
		{"file_reservations", "resource://file_reservations{+project}", "The project's reservations: resource://file_reservations?project=PATH_OR_KEY&limit=N&active_only=false (default true; or resource://file_reservations/PERCENT_ENCODED_PATH_OR_KEY)", s.readReservations},
	}, s.moreResources()...) {
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: k.name, URITemplate: k.template, Description: k.desc, MIMEType: "application/json"},
			s.resourceHandler(k))
	}
}

// resourceHandler reads a resource of kind k, on the server's service (see
// Server.do).
func (s *Server) resourceHandler(k resourceKind) mcp.ResourceHandler {
	prefix := "resource://" + k.name
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		rest, ok := strings.CutPrefix(uri, prefix)
		if !ok || (rest != "" && rest[0] != '/' && rest[0] != '?') { // resource://agentsfoo
			return nil, mcp.ResourceNotFoundError(uri)
		}
		path, query, _ := strings.Cut(rest, "?")
		q, err := url.ParseQuery(query)
		if err != nil {
			return nil, resourceError(uri, service.Usagef("percent-encode the parameters' values", "cannot read the query of %s: %v", uri, err))
		}
		if path, err = url.PathUnescape(strings.TrimPrefix(path, "/")); err != nil {
			return nil, resourceError(uri, service.Usagef("percent-encode the path", "cannot read %s: %v", uri, err))
		}
		var doc any
		err = s.do(func(svc *service.Service) (err error) {
			c := &call{s: s, svc: svc, token: q.Get("agent_token")}
			if doc, err = k.read(ctx, c, path, q); err == nil {
				s.bind(c.bindable())
			}
			return err
		})
		if err != nil {
			return nil, resourceError(uri, err)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	}
}

// resourceError is a failed read, as a JSON-RPC error: what was not found
// is the protocol's "resource not found", anything else invalid params,
// each with the error document as data.
func resourceError(uri string, err error) error {
	doc := errorDoc(err)
	data, _ := json.Marshal(map[string]any{"uri": uri, "error": doc})
	if doc.Code == "NOT_FOUND" {
		return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found: " + doc.Message, Data: data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: doc.Message + " (" + doc.Hint + ")", Data: data}
}

// projectOf is the project a resource names: the project parameter, else
// the path segment of mcp_agent_mail's resource://agents/{project_key}.
func projectOf(segment string, q url.Values) projectArgs {
	if p := q.Get("project"); p != "" {
		return projectArgs{ProjectKey: p}
	}
	return projectArgs{ProjectKey: segment}
}

// limitOf reads the limit parameter; def when absent.
func limitOf(q url.Values, def int) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, service.Usagef("pass limit=N, a number of 0 or more (0 for all)", "limit=%q is not a number of 0 or more", v)
	}
	return n, nil
}

// boolParam reads a boolean parameter; def when absent.
func boolParam(q url.Values, name string, def bool) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, service.Usagef(fmt.Sprintf("pass %s=true or %s=false", name, name), "%s=%q is not true or false", name, v)
	}
	return b, nil
}

// flags reads boolean parameters into the variables given.
func flags(q url.Values, vars map[string]*bool) error {
	for name, v := range vars {
		var err error
		if *v, err = boolParam(q, name, *v); err != nil {
			return err
		}
	}
	return nil
}

// first returns at most n of list; all of it for 0.
func first[T any](list []T, n int) []T {
	if n > 0 && len(list) > n {
		return list[:n]
	}
	return list
}

// needOne refuses an empty path segment, which names the id or agent.
func needOne(rest, what, example string) error {
	if rest == "" || strings.Contains(rest, "/") {
		return service.Usagef("read "+example, "name one %s after the resource's name", what)
	}
	return nil
}

func (s *Server) readInbox(ctx context.Context, c *call, agent string, q url.Values) (any, error) {
	if err := needOne(agent, "agent", "resource://inbox/NAME?project=PATH"); err != nil {
		return nil, err
	}
	in := inboxArgs{agentArgs: agentArgs{projectArgs: projectOf("", q), AgentName: agent}, SinceTS: q.Get("since_ts")}
	limit, err := limitOf(q, defaultLimit)
	if err != nil {
		return nil, err
	}
	in.Limit = &limit
	if err := flags(q, map[string]*bool{"urgent_only": &in.UrgentOnly, "include_bodies": &in.IncludeBodies, "unread_only": &in.UnreadOnly}); err != nil {
		return nil, err
	}
	return s.fetchInbox(ctx, c, in)
}

func (s *Server) readThread(ctx context.Context, c *call, id string, q url.Values) (any, error) {
	if err := needOne(id, "thread", "resource://thread/ID?project=PATH"); err != nil {
		return nil, err
	}
	limit, err := limitOf(q, 0)
	if err != nil {
		return nil, err
	}
	t, err := s.thread(ctx, c, projectOf("", q), q.Get("agent"), id)
	t.Messages = first(t.Messages, limit)
	return t, err
}

func (s *Server) readMessage(ctx context.Context, c *call, id string, q url.Values) (any, error) {
	if err := needOne(id, "message id", "resource://message/ID?project=PATH"); err != nil {
		return nil, err
	}
	sc, err := c.viewer(projectOf("", q), q.Get("agent"))
	if err != nil {
		return nil, err
	}
	return c.svc.Show(ctx, sc, id)
}

func (s *Server) readAgents(ctx context.Context, c *call, segment string, q url.Values) (any, error) {
	limit, err := limitOf(q, 0)
	if err != nil {
		return nil, err
	}
	list, err := s.listAgents(ctx, c, agentsArgs{projectArgs: projectOf(segment, q)})
	list.Agents = first(list.Agents, limit)
	return list, err
}

func (s *Server) readReservations(ctx context.Context, c *call, segment string, q url.Values) (any, error) {
	limit, err := limitOf(q, 0)
	if err != nil {
		return nil, err
	}
	active, err := boolParam(q, "active_only", true)
	if err != nil {
		return nil, err
	}
	sc, err := c.project(projectOf(segment, q), "")
	if err != nil {
		return nil, err
	}
	list, err := c.svc.Reservations(ctx, sc, service.ReservationsRequest{Expired: !active})
	list.Reservations = first(list.Reservations, limit)
	return list, err
}
