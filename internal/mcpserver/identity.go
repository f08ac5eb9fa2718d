package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// call is one tool call's view of the server: it resolves the project and
// the acting agent of the call, and remembers the agent, which the session
// takes on when the call succeeds and the session has none yet. Its methods
// run inside Server.do.
type call struct {
	s     *Server
	svc   *service.Service // the service the call runs on
	agent string           // the agent the call acted as
}

// sessionAgent returns the agent the session acts as: the one the server
// was started as, else the one it took on; "" for none yet.
func (s *Server) sessionAgent() string {
	if s.cfg.Agent != "" {
		return s.cfg.Agent
	}
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	return s.bound
}

// bind makes agent the session's agent, if the session has none and the
// server is not an overseer's.
func (s *Server) bind(agent string) {
	if agent == "" || s.cfg.Overseer || s.cfg.Stateless || s.cfg.Agent != "" {
		return
	}
	s.boundMu.Lock()
	defer s.boundMu.Unlock()
	if s.bound == "" {
		s.bound = agent
	}
}

// act returns the agent a call naming given (its agent_name, sender_name,
// …; "" for none) acts as. Without an overseer, that is the session's
// agent, and naming another is ErrAuthenticationRequired; a session without
// one acts as the name given.
func (c *call) act(given string) (string, error) {
	given = strings.TrimSpace(given)
	if c.s.cfg.Overseer {
		c.agent = given
		return given, nil
	}
	me := c.s.sessionAgent()
	switch {
	case me == "":
		c.agent = given
	case given == "" || strings.EqualFold(given, me):
		c.agent = me
	default:
		return "", fault.WithHint(fmt.Errorf("%w: this session acts as %s and cannot act as %s", service.ErrAuthenticationRequired, me, given),
			fmt.Sprintf("leave the agent name out (you are %s): a session acts as its own agent only, and only an overseer's server acts for any agent", me))
	}
	return c.agent, nil
}

// scope returns the scope of a call acting as an agent: given, or the
// session's. Only an overseer may act as nobody.
func (c *call) scope(p projectArgs, given string) (service.Scope, error) {
	agent, err := c.act(given)
	if err != nil {
		return service.Scope{}, err
	}
	if agent == "" && !c.s.cfg.Overseer {
		return service.Scope{}, fault.WithHint(fmt.Errorf("%w: no agent named, and this session has none yet", service.ErrNotRegistered),
			"call register_agent (or macro_start_session) first, or pass your agent name; a server started with AGENTMAIL_AGENT set acts as that agent")
	}
	return c.project(p, agent)
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
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: agentmail has no tokens"`
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
