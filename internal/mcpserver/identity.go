package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call is one tool call's view of the server: it resolves the project and
// the acting agent of the call, and remembers the agent, which the session
// takes on when the call succeeds (see bindable). Its methods run inside
// Server.do.
type call struct {
	s     *Server
	svc   *service.Service // the service the call runs on
	agent string           // the agent the call acted as
	// token is the registration token the call carries (registration_token,
	// sender_token, …): it lets the call act as its agent whatever the
	// session.
	token string
	// viaToken: the call acted as its agent by its token alone; the
	// session does not take the agent on.
	viaToken bool
}

// bindable returns the agent the session takes on once the call
// succeeded: the one it acted as, unless it did so by a token alone.
func (c *call) bindable() string {
	if c.viaToken {
		return ""
	}
	return c.agent
}

// sessionAgent returns the agent a call of the session that names none
// acts as: the one the server was started as, else the first one the
// session took on; "" for none yet.
func (s *Server) sessionAgent() string {
	if s.cfg.Agent != "" {
		return s.cfg.Agent
	}
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	if len(s.bound) == 0 {
		return ""
	}
	return s.bound[0]
}

// sessionAgents returns every agent the session acts as: the one it was
// started as and those it took on, in that order.
func (s *Server) sessionAgents() []string {
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	var out []string
	if s.cfg.Agent != "" {
		out = append(out, s.cfg.Agent)
	}
	return append(out, s.bound...)
}

// owns returns the session's spelling of agent name, if the session acts
// as it.
func (s *Server) owns(name string) (string, bool) {
	for _, a := range s.sessionAgents() {
		if strings.EqualFold(a, name) {
			return a, true
		}
	}
	return "", false
}

// bind makes the session act as agent too, unless the server is an
// overseer's or stateless. The first agent bound is the one a call that
// names none acts as; the others act when a call names them.
func (s *Server) bind(agent string) {
	if agent == "" || s.cfg.Overseer || s.cfg.Stateless {
		return
	}
	if _, ok := s.owns(agent); ok {
		return
	}
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	s.bound = append(s.bound, agent)
}

// unbind makes the session no longer act as agent (hard-deleted).
func (s *Server) unbind(agent string) {
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	s.bound = slices.DeleteFunc(s.bound, func(a string) bool { return strings.EqualFold(a, agent) })
}

// act returns the agent a call in sc's project naming given (its
// agent_name, sender_name, …; "" for none) acts as. Without an overseer,
// that is one of the session's agents (the first when none is named), or
// the agent the call's registration token belongs to; a session with no
// agent yet acts as the name given (and takes it on). Naming another is
// ErrAuthenticationRequired.
func (c *call) act(given string, sc service.Scope) (string, error) {
	given = strings.TrimSpace(given)
	c.viaToken = false
	if c.s.cfg.Overseer {
		c.agent = given
		return given, nil
	}
	me := c.s.sessionAgent()
	if given == "" {
		c.agent = me
		return me, nil
	}
	if own, ok := c.s.owns(given); ok {
		c.agent = own
		return own, nil
	}
	if c.token != "" {
		ok, err := c.svc.CheckRegistrationToken(sc, given, c.token)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fault.WithHint(fmt.Errorf("%w: the registration token given is not %s's", service.ErrAuthenticationRequired, given),
				fmt.Sprintf("pass the registration_token that register_agent (or create_agent_identity) returned for %s, in its project", given))
		}
		c.agent, c.viaToken = given, true
		return given, nil
	}
	if me == "" {
		c.agent = given
		return given, nil
	}
	return "", c.notOwned(given)
}

// notOwned is the error of a call naming an agent the session does not
// act as, without its token.
func (c *call) notOwned(given string) error {
	mine := c.s.sessionAgents()
	if len(mine) == 0 {
		return fault.WithHint(fmt.Errorf("%w: this session has not registered %s", service.ErrAuthenticationRequired, given),
			fmt.Sprintf("pass %s's registration_token (register_agent returned it to whoever registered %s)", given, given))
	}
	return fault.WithHint(fmt.Errorf("%w: this session acts as %s and cannot act as %s without its registration token", service.ErrAuthenticationRequired, strings.Join(mine, ", "), given),
		fmt.Sprintf("leave the agent name out (you are %s), name an agent this session registered (%s), or pass %s's registration_token (register_agent returned it to whoever registered %s)",
			mine[0], strings.Join(mine, ", "), given, given))
}

// scope returns the scope of a call acting as an agent: given, or the
// session's. Only an overseer may act as nobody.
func (c *call) scope(p projectArgs, given string) (service.Scope, error) {
	sc, err := c.project(p, "")
	if err != nil {
		return service.Scope{}, err
	}
	agent, err := c.act(given, sc)
	if err != nil {
		return service.Scope{}, err
	}
	if agent == "" && !c.s.cfg.Overseer {
		return service.Scope{}, fault.WithHint(fmt.Errorf("%w: no agent named, and this session has none yet", service.ErrNotRegistered),
			"call register_agent (or macro_start_session) first, or pass your agent name; a server started with AGENTMAIL_AGENT set acts as that agent")
	}
	sc.Agent = agent
	return sc, nil
}

// viewer returns the scope of a call that reads as an agent (given, or the
// session's), or, for an overseer naming none, as nobody: the whole
// project.
func (c *call) viewer(p projectArgs, given string) (service.Scope, error) {
	if c.s.cfg.Overseer && strings.TrimSpace(given) == "" {
		return c.project(p, "")
	}
	return c.scope(p, given)
}

// project returns the scope of the project p names, acting as agent.
func (c *call) project(p projectArgs, agent string) (service.Scope, error) {
	if err := p.check(); err != nil {
		return service.Scope{}, err
	}
	ref, err := c.projectRef(p.ProjectKey, false)
	return service.Scope{Project: ref, Agent: agent}, err
}

// projectArgs are the arguments of every tool that works in a project.
type projectArgs struct {
	ProjectKey string `json:"project_key,omitempty" jsonschema:"the absolute path of your repository (or of any directory in it), or a project key such as github.com/acme/shop; default: the directory the server runs in"`
	Format     string `json:"format,omitempty" jsonschema:"json, the only format there is (accepted for mcp_agent_mail clients)"`
}

// agentArgs are the arguments of a tool that acts as an agent named
// agent_name.
type agentArgs struct {
	projectArgs
	AgentName         string `json:"agent_name,omitempty" jsonschema:"your agent name; leave it out to act as the agent this session acts as"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returns it): lets a session act as an agent it did not register"`
}

// check refuses a format other than JSON.
func (p projectArgs) check() error { return checkFormat(p.Format) }

// checkFormat refuses a format argument other than JSON, before anything
// else of a call is looked at: every tool takes format, as every one of
// mcp_agent_mail's does, and answers "toon" (its compact encoding) with
// this tool error, never a schema error.
func checkFormat(v any) error {
	if v == nil {
		return nil
	}
	f, ok := v.(string)
	if !ok {
		return fault.WithHint(fmt.Errorf("%w: format must be a string, got %v", service.ErrInvalidArgument, v), "leave format out, or pass \"json\"")
	}
	switch f = strings.TrimSpace(f); {
	case f == "" || strings.EqualFold(f, "json"):
		return nil
	case strings.EqualFold(f, "toon"):
		return fault.WithHint(fmt.Errorf("%w: format \"toon\" is not supported: this server answers in JSON only (structuredContent, and the same JSON as the first text)", service.ErrInvalidArgument),
			"leave format out, or pass \"json\"")
	}
	return fault.WithHint(fmt.Errorf("%w: format %q is not supported", service.ErrInvalidArgument, f), "leave format out, or pass \"json\"")
}

// projectRef resolves a project_key argument: "" for the server's
// project; an absolute path of a directory in a git repository (the
// project of that repository, as the command line would resolve it
// there); else the key, slug or slug prefix of a project the store knows
// (service.FindProject), or of the server's own project. Anything else
// (a placeholder copied from an example, a bare word, a path outside any
// repository) is refused with the known projects: a team that mistyped
// its key would otherwise split across two projects without knowing.
// With create (ensure_project), a key that is no placeholder names a new
// project.
func (c *call) projectRef(key string, create bool) (service.ProjectRef, error) {
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return c.s.cfg.Project, nil
	case key == "." || key == ".." || strings.HasPrefix(key, "./") || strings.HasPrefix(key, "../") || strings.HasPrefix(key, "~"):
		return service.ProjectRef{}, fault.WithHint(fmt.Errorf("%w: project_key %q is a relative path", service.ErrInvalidArgument, key),
			"pass the absolute path of your repository (or of any directory in it), or a project key such as github.com/acme/shop")
	case filepath.IsAbs(key):
		fi, err := os.Stat(key)
		if err == nil && fi.IsDir() {
			dir := service.ProjectRef{Dir: filepath.Clean(key)}
			if _, err := service.ResolveProject(dir); err == nil {
				return dir, nil
			}
		} else if create {
			return service.ProjectRef{}, fault.WithHint(fmt.Errorf("%w: no directory %s", service.ErrNoProject, key),
				"pass the absolute path of your repository as it is on this machine, or a project key such as github.com/acme/shop")
		}
	}
	if placeholder(key) {
		_, err := c.svc.FindProject(context.Background(), key)
		return service.ProjectRef{}, fault.WithHint(fmt.Errorf("project_key %q is a placeholder from an example: %w", key, err),
			"pass the absolute path of your repository, or the key or slug of a known project (the message lists them); ensure_project with human_key creates a new one")
	}
	if create {
		return service.ProjectRef{Key: key, KeySource: service.SourceFlag}, nil
	}
	if own, err := service.ResolveProject(c.s.cfg.Project); err == nil && (own.Key == key || own.Slug == key) {
		return c.s.cfg.Project, nil
	}
	found, err := c.svc.FindProject(context.Background(), key)
	if err != nil {
		return service.ProjectRef{}, err
	}
	return service.ProjectRef{Key: found.Key, KeySource: service.SourceFlag}, nil
}

// placeholders are what the examples of mcp_agent_mail's documentation
// and of tutorials put where a project's key goes.
var placeholders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(your[-_ ]?(project|repo)\w*|project[-_ ]?key|my[-_ ]?project|<.*>|\{.*\}|\$\w+)$|/path/to/|(^|/)abs(olute)?/path`)
})

// placeholder reports whether key is a placeholder from an example.
func placeholder(key string) bool { return placeholders().MatchString(key) }

// callToken returns the registration token a tool call carries, under
// any of the names mcp_agent_mail gives it: registration_token,
// sender_token (send_message, reply_message), agent_token, or
// requester_registration_token (macro_contact_handshake, which acts as
// the requester). "" for none.
func callToken(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 || !bytes.Contains(req.Params.Arguments, []byte("_token")) {
		return ""
	}
	var t struct {
		Registration string `json:"registration_token"`
		Sender       string `json:"sender_token"`
		Agent        string `json:"agent_token"`
		Requester    string `json:"requester_registration_token"`
	}
	if json.Unmarshal(req.Params.Arguments, &t) != nil {
		return "" // the arguments were decoded before: not reached
	}
	return strings.TrimSpace(cmp.Or(t.Registration, t.Sender, t.Agent, t.Requester))
}
