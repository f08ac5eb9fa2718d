package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

func (s *Server) addAgentTools() {
	addTool(s, tool{name: "health_check", desc: "Whether the server works: the store, its archive, the project (of project_key, else the server's directory) and the agent this session acts as.", readOnly: true},
		textHealth, s.healthCheck)
	addTool(s, tool{name: "ensure_project", desc: "Make sure the store and the project exist: human_key is the absolute path of your repository (or a project key). Returns the project's key and slug."},
		textProject, s.ensureProjectTool)
	addTool(s, tool{name: "register_agent", desc: "Create your agent identity in the project, or update your profile. Leave name out for a free generated name (adjective+noun, like GreenCastle); " +
		"names with digits, user, program or model names are refused with a free suggestion. The session then acts as this agent."},
		func(r RegisteredProfile) string { return textProfile("registered")(r.Profile) }, s.registerProfile)
	addTool(s, tool{name: "whois", desc: "An agent's profile: program, model, task, presence, contact policy, active reservations. Default: your own.", readOnly: true},
		textProfile("agent"), whoisDoc(s.whois))
	addTool(s, tool{name: "list_agents", desc: "The project's agents with their presence (active, idle, stale), last-seen time, active reservations, role, the branch each last worked in and the tasks each holds.", readOnly: true},
		textAgents, s.listAgents)
	addTool(s, tool{name: "request_contact", desc: "Ask an agent whose contact policy requires it for permission to write to it (send_message fails with CONTACT_REQUIRED until it approves)."},
		textContacted, s.requestContactTool)
	addTool(s, tool{name: "respond_contact", desc: "Approve (for 30 days) or deny another agent's request to write to you."},
		textContacted, s.respondContactTool)
	addTool(s, tool{name: "list_contacts", desc: "Contact requests to and from you, with their state.", readOnly: true},
		func(r ContactList) string { return textContacts(r.ContactsResponse) }, s.listContacts)
	addTool(s, tool{name: "set_contact_policy", desc: "Who may write to you: open (anyone in the project), auto (agents you work with: same thread, overlapping reservations, recent correspondents, approved contacts), contacts_only, or block_all."},
		textProfile("policy set"), profiled(s.setContactPolicy))
}

// Health is the document of health_check: init's document, the server's
// version and the session's agent.
type Health struct {
	service.InitResponse
	Status   string  `json:"status"` // ok
	Version  string  `json:"version"`
	Agent    *string `json:"agent"`    // the agent this session acts as; null for none yet
	Overseer bool    `json:"overseer"` // whether the session may act as any agent
}

type healthArgs struct {
	projectArgs
}

func (s *Server) healthCheck(ctx context.Context, c *call, in healthArgs) (Health, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return Health{}, err
	}
	st, err := c.svc.Init(ctx, sc)
	if err != nil {
		return Health{}, err
	}
	h := Health{InitResponse: st, Status: "ok", Version: s.cfg.Version, Overseer: s.cfg.Overseer}
	if me := s.sessionAgent(); me != "" {
		h.Agent = &me
	}
	return h, nil
}

func textHealth(h Health) string {
	agent := "no agent yet (register_agent)"
	if h.Agent != nil {
		agent = "acting as " + *h.Agent
	}
	if h.Overseer {
		agent = "overseer: acting as any agent"
	}
	return fmt.Sprintf("ok: agentmail %s, store %s, %s, %s", h.Version, h.Store, projectLine(h.Project), agent)
}

type ensureArgs struct {
	HumanKey     string `json:"human_key" jsonschema:"the absolute path of your repository (or of any directory in it), or a project key such as github.com/acme/shop"`
	IdentityMode string `json:"identity_mode,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	Format       string `json:"format,omitempty" jsonschema:"json, the only format there is (accepted for mcp_agent_mail clients)"`
}

func (s *Server) ensureProject(ctx context.Context, c *call, in ensureArgs) (service.InitResponse, error) {
	if err := (projectArgs{Format: in.Format}).check(); err != nil {
		return service.InitResponse{}, err
	}
	ref, err := c.projectRef(in.HumanKey, true)
	if err != nil {
		return service.InitResponse{}, err
	}
	sc := service.Scope{Project: ref}
	return c.svc.EnsureProject(ctx, sc)
}

// ensureProjectTool is ensure_project: the project, with
// mcp_agent_mail's fields.
func (s *Server) ensureProjectTool(ctx context.Context, c *call, in ensureArgs) (Project, error) {
	r, err := s.ensureProject(ctx, c, in)
	return projectDoc(r), err
}

func textProject(r Project) string { return textInit(r.InitResponse) }

func textInit(r service.InitResponse) string {
	return fmt.Sprintf("%s in store %s", projectLine(r.Project), r.Store)
}

type registerArgs struct {
	projectArgs
	Program           string `json:"program,omitempty" jsonschema:"the coding agent you run in, such as claude-code or codex"`
	Model             string `json:"model,omitempty" jsonschema:"your model, such as opus-4"`
	Name              string `json:"name,omitempty" jsonschema:"the name to register: an adjective and a noun, like GreenCastle; leave it out for a free generated one, or to update your own profile"`
	TaskDescription   string `json:"task_description,omitempty" jsonschema:"what you are working on, for the other agents"`
	Policy            string `json:"policy,omitempty" jsonschema:"your contact policy: open (the default), auto, contacts_only or block_all; see set_contact_policy"`
	Role              string `json:"role,omitempty" jsonschema:"your role in the team, one word such as reviewer or implementer: list_agents shows it, and it picks your playbook (the result's rules are the project's invariants and that playbook)"`
	AttachmentsPolicy string `json:"attachments_policy,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returned it): lets this session act as an agent it did not register"`
}

// Registered is the document of register_agent: register's, and the
// agent's registration token, which lets another session (or a stateless
// call) act as it (mcp_agent_mail's registration_token).
type Registered struct {
	service.AgentResponse
	RegistrationToken string `json:"registration_token"`
}

// register registers name ("" for a generated one, or the session's own)
// and makes it the call's agent, which the session then acts as too. A
// name the session does not act as is registered as a new agent next to
// the session's; an agent registered already, by another session, needs
// its registration token.
func (s *Server) register(ctx context.Context, c *call, p projectArgs, name string, req service.RegisterRequest) (Registered, error) {
	sc, err := c.project(p, "")
	if err != nil {
		return Registered{}, err
	}
	name = strings.TrimSpace(name)
	agent, err := c.act(name, sc)
	other := errors.Is(err, service.ErrAuthenticationRequired) && c.token == ""
	if err != nil && !other {
		return Registered{}, err
	}
	sc.Agent = agent // "" for a new agent beside the session's: its name must be free
	if name != "" {
		req.Name = &name
	}
	resp, err := c.svc.Register(ctx, sc, req)
	if other && errors.Is(err, service.ErrNameTaken) {
		return Registered{}, c.notOwned(name)
	}
	return s.registered(c, sc, resp, err)
}

// registered is the document of an agent just registered (unless err),
// which the call then acts as.
func (s *Server) registered(c *call, sc service.Scope, resp service.AgentResponse, err error) (Registered, error) {
	if err != nil {
		return Registered{}, err
	}
	c.agent, c.viaToken = resp.Agent.Name, false // a generated name, or the name as registered
	s.recordPane(c, sc, resp.Agent.Name)
	tok, err := c.svc.RegistrationToken(sc, resp.Agent.Name)
	return Registered{AgentResponse: resp, RegistrationToken: tok}, err
}

func (s *Server) registerAgent(ctx context.Context, c *call, in registerArgs) (Registered, error) {
	return s.register(ctx, c, in.projectArgs, in.Name, service.RegisterRequest{Program: in.Program, Model: in.Model, Task: in.TaskDescription, Policy: in.Policy, Role: in.Role})
}

// RegisteredProfile is the document of register_agent: the agent's, with
// mcp_agent_mail's flat fields (Profile), and its registration token.
type RegisteredProfile struct {
	Profile
	RegistrationToken string `json:"registration_token"`
}

func (s *Server) registerProfile(ctx context.Context, c *call, in registerArgs) (RegisteredProfile, error) {
	r, err := s.registerAgent(ctx, c, in)
	if err != nil {
		return RegisteredProfile{}, err
	}
	return RegisteredProfile{Profile: profile(r.AgentResponse), RegistrationToken: r.RegistrationToken}, nil
}

// profiled makes a tool answering with an agent's document answer with
// its profile (ours and mcp_agent_mail's).
func profiled[In any](h func(context.Context, *call, In) (service.AgentResponse, error)) func(context.Context, *call, In) (Profile, error) {
	return func(ctx context.Context, c *call, in In) (Profile, error) {
		r, err := h(ctx, c, in)
		return profile(r), err
	}
}

// whoisDoc is profiled, with mcp_agent_mail's recent_commits (none: no
// agent's commits are known here).
func whoisDoc[In any](h func(context.Context, *call, In) (service.AgentResponse, error)) func(context.Context, *call, In) (Profile, error) {
	return func(ctx context.Context, c *call, in In) (Profile, error) {
		r, err := h(ctx, c, in)
		p := profile(r)
		p.RecentCommits = &[]string{}
		return p, err
	}
}

func textProfile(verb string) func(Profile) string {
	return func(r Profile) string { return textAgent(verb)(r.AgentResponse) }
}

func textAgent(verb string) func(service.AgentResponse) string {
	return func(r service.AgentResponse) string { return verb + " " + agentLine(r.Agent) }
}

type whoisArgs struct {
	projectArgs
	AgentName            string `json:"agent_name,omitempty" jsonschema:"the agent to look up; default: the agent this session acts as"`
	IncludeRecentCommits *bool  `json:"include_recent_commits,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	CommitLimit          *int   `json:"commit_limit,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RegistrationToken    string `json:"registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: whois looks any agent up"`
}

// whois looks anyone up: profiles are not secret (list_agents shows them
// all), so it acts as nobody.
func (s *Server) whois(ctx context.Context, c *call, in whoisArgs) (service.AgentResponse, error) {
	name := strings.TrimSpace(in.AgentName)
	if name == "" {
		if name = s.sessionAgent(); name == "" {
			return service.AgentResponse{}, fault.WithHint(fmt.Errorf("%w: no agent named, and this session has none yet", service.ErrNotRegistered),
				"pass agent_name, or call register_agent first")
		}
	}
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.AgentResponse{}, err
	}
	list, err := c.svc.Agents(ctx, sc, service.AgentsRequest{All: true})
	if err != nil {
		return service.AgentResponse{}, err
	}
	known := make([]string, len(list.Agents))
	for i, a := range list.Agents {
		if strings.EqualFold(a.Name, name) {
			return service.AgentResponse{Agent: a, Project: list.Project}, nil
		}
		known[i] = a.Name
	}
	return service.AgentResponse{}, fault.WithHint(fmt.Errorf("%w: no agent %s in this project", service.ErrNotFound, name),
		"the project's agents: "+names(known))
}

type agentsArgs struct {
	projectArgs
	ActiveOnly     bool `json:"active_only,omitempty" jsonschema:"only agents seen in the last 5 minutes"`
	IncludeRetired bool `json:"include_retired,omitempty" jsonschema:"retired and deregistered agents too"`
}

func (s *Server) listAgents(ctx context.Context, c *call, in agentsArgs) (service.AgentsResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.AgentsResponse{}, err
	}
	return c.svc.Agents(ctx, sc, service.AgentsRequest{Active: in.ActiveOnly, All: in.IncludeRetired})
}

func textAgents(r service.AgentsResponse) string {
	return listing(count(len(r.Agents), "agent", "agents"), lines(r.Agents, agentLine))
}

type requestContactArgs struct {
	projectArgs
	FromAgent         string `json:"from_agent,omitempty" jsonschema:"your agent name; leave it out to ask as the agent this session acts as"`
	ToAgent           string `json:"to_agent" jsonschema:"the agent you want to write to"`
	Reason            string `json:"reason,omitempty" jsonschema:"why, for the agent asked"`
	ToProject         string `json:"to_project,omitempty" jsonschema:"must be this project when given: contacts across projects do not exist here"`
	TTLSeconds        *int   `json:"ttl_seconds,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: an approval lasts 30 days"`
	RegisterIfMissing *bool  `json:"register_if_missing,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: the agent must be registered"`
	Program           string `json:"program,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	Model             string `json:"model,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	TaskDescription   string `json:"task_description,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returned it): lets this session act as an agent it did not register"`
}

// sameProject refuses a to_project that is not the call's project.
func (s *Server) sameProject(c *call, sc service.Scope, other string) error {
	if strings.TrimSpace(other) == "" {
		return nil
	}
	ref, err := c.projectRef(other, false)
	if err != nil {
		return err
	}
	here, err := service.ResolveProject(sc.Project)
	if err != nil {
		return err
	}
	there, err := service.ResolveProject(ref)
	if err != nil {
		return err
	}
	if here.Key != there.Key {
		return fault.WithHint(fmt.Errorf("%w: %s is another project: contacts across projects do not exist", service.ErrInvalidArgument, there.Key),
			"leave to_project out: agents can contact agents of their own project")
	}
	return nil
}

func (s *Server) requestContactTool(ctx context.Context, c *call, in requestContactArgs) (Contacted, error) {
	r, err := s.requestContact(ctx, c, in)
	return contacted(r, false), err
}

func (s *Server) respondContactTool(ctx context.Context, c *call, in respondContactArgs) (Contacted, error) {
	r, err := s.respondContact(ctx, c, in)
	return contacted(r, true), err
}

func textContacted(r Contacted) string { return textContact(r.ContactResponse) }

func (s *Server) requestContact(ctx context.Context, c *call, in requestContactArgs) (service.ContactResponse, error) {
	sc, err := c.scope(in.projectArgs, in.FromAgent)
	if err != nil {
		return service.ContactResponse{}, err
	}
	if err := s.sameProject(c, sc, in.ToProject); err != nil {
		return service.ContactResponse{}, err
	}
	return c.svc.RequestContact(ctx, sc, service.ContactRequest{To: in.ToAgent, Reason: in.Reason})
}

func textContact(r service.ContactResponse) string { return "contact " + contactLine(r.Contact) }

type respondContactArgs struct {
	projectArgs
	ToAgent           string `json:"to_agent,omitempty" jsonschema:"your agent name (the one asked); leave it out to answer as the agent this session acts as"`
	FromAgent         string `json:"from_agent" jsonschema:"the agent who asked"`
	Accept            bool   `json:"accept" jsonschema:"true approves for 30 days, false denies"`
	TTLSeconds        *int   `json:"ttl_seconds,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: an approval lasts 30 days"`
	FromProject       string `json:"from_project,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returned it): lets this session act as an agent it did not register"`
}

func (s *Server) respondContact(ctx context.Context, c *call, in respondContactArgs) (service.ContactResponse, error) {
	sc, err := c.scope(in.projectArgs, in.ToAgent)
	if err != nil {
		return service.ContactResponse{}, err
	}
	return c.svc.DecideContact(ctx, sc, in.FromAgent, in.Accept)
}

func (s *Server) listContacts(ctx context.Context, c *call, in agentArgs) (ContactList, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return ContactList{}, err
	}
	r, err := c.svc.Contacts(ctx, sc)
	return contactList(r, sc.Agent), err
}

func textContacts(r service.ContactsResponse) string {
	return listing(count(len(r.Contacts), "contact", "contacts"), lines(r.Contacts, contactLine))
}

type policyArgs struct {
	agentArgs
	Policy string `json:"policy" jsonschema:"open, auto, contacts_only or block_all"`
}

func (s *Server) setContactPolicy(ctx context.Context, c *call, in policyArgs) (service.AgentResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.AgentResponse{}, err
	}
	return c.svc.SetPolicy(ctx, sc, in.Policy)
}
