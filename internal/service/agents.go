package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/tasks"
)

// AgentResponse is the document of register, whoami, policy and agents
// retire: {"agent": agent}.
type AgentResponse struct {
	Agent Agent `json:"agent"`
	// Rules are the rules of the agent's role (register returns them:
	// the agent has read them), when the project has any.
	Rules *RulesResponse `json:"rules,omitempty"`

	Project string `json:"-"` // the project's slug
	// HooksWarning: git no longer runs the guard's hooks in the repository.
	HooksWarning *HooksWarning `json:"-"`
}

// RegisterRequest is a new identity, or the acting agent's new profile.
type RegisterRequest struct {
	// Name is the name to register; nil for a generated one (or, for an
	// acting agent, its own). A name given must not be blank.
	Name    *string
	Program string
	Model   string
	Task    string
	Policy  string // contact policy; "" keeps the current one (mailbox.DefaultPolicy for a new agent)
	// Role is the role the agent plays (a free word, such as reviewer),
	// which picks its playbook; "" keeps the current one.
	Role string
}

// Register creates an identity, or updates the acting agent's own profile
// when it registers its own name again.
func (s *Service) Register(ctx context.Context, sc Scope, req RegisterRequest) (AgentResponse, error) {
	if req.Name != nil && strings.TrimSpace(*req.Name) == "" {
		return AgentResponse{}, fault.WithField(fmt.Errorf("%w: the name is empty", mailbox.ErrInvalidName), "name", "problem", "empty")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentResponse{}, err
	}
	in := mailbox.RegisterInput{Program: req.Program, Model: req.Model, Task: req.Task, Policy: req.Policy, Role: req.Role}
	if req.Name != nil {
		in.Name = *req.Name
	}
	a, err := x.mb.Register(ctx, in)
	resp, err := x.agentResponse(a, err)
	if err != nil {
		return resp, err
	}
	return resp, s.withRules(ctx, x, &resp)
}

// withRules adds the rules of the role of the agent resp names to resp
// (marked read by it) when the project has any.
func (s *Service) withRules(ctx context.Context, x *session, resp *AgentResponse) error {
	me, err := s.sessionFor(ctx, x.project(), resp.Agent.Name)
	if err != nil {
		return err
	}
	rules, err := agentRules(ctx, me, resp.Agent.Name, true)
	if err == nil && (rules.Version != "" || rules.Role != "") {
		resp.Rules = &rules
	}
	return err
}

// agentResponse is the document of a, unless err.
func (x *session) agentResponse(a mailbox.Agent, err error) (AgentResponse, error) {
	if err != nil {
		return AgentResponse{}, err
	}
	return AgentResponse{Agent: agentDoc(a), Project: x.project().Slug}, nil
}

// Whoami returns the acting agent's profile (and refreshes its last-seen
// time, as every operation that names an agent does).
func (s *Service) Whoami(ctx context.Context, sc Scope) (AgentResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentResponse{}, err
	}
	a, err := x.mb.Whoami(ctx)
	resp, err := x.agentResponse(a, err)
	if err == nil {
		one := []Agent{resp.Agent}
		err = x.attend(ctx, one)
		resp.Agent = one[0]
	}
	return resp, err
}

// SetPolicy sets the acting agent's contact policy (one of
// mailbox.Policies).
func (s *Service) SetPolicy(ctx context.Context, sc Scope, policy string) (AgentResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return AgentResponse{}, err
	}
	a, err := x.mb.SetPolicy(ctx, policy)
	return x.agentResponse(a, err)
}

// RetireRequest names an agent to retire (it then receives no mail and is
// left out of broadcasts and of the agents list) or, with Retired false,
// to bring back.
type RetireRequest struct {
	Name    string
	Retired bool
}

// RetireResponse is the document of agents retire, unretire and
// deregister: the agent, and, with the fields of mcp_agent_mail's
// retire_agent, its status (retired, active or deregistered), its name and
// project; when an agent leaves, the reservations and locks it held, which
// are released.
type RetireResponse struct {
	Agent            Agent         `json:"agent"`
	Status           string        `json:"status"`
	AgentName        string        `json:"agent_name"`
	ProjectKey       string        `json:"project_key"`
	ReleasedLeases   []Reservation `json:"released_reservations"`
	ReleasedLocks    []Lock        `json:"released_locks"`
	ReleasedCount    int           `json:"released_count"`
	ProjectSlug      string        `json:"project_slug"`
	HistoryPreserved bool          `json:"history_preserved"` // always true: its mail stays in the archive
}

// Retire retires an agent, releasing its reservations and locks, or
// brings it back.
func (s *Service) Retire(ctx context.Context, sc Scope, req RetireRequest) (RetireResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return RetireResponse{}, err
	}
	a, err := x.mb.Retire(ctx, req.Name, req.Retired)
	if err != nil {
		return RetireResponse{}, err
	}
	status := "active"
	if req.Retired {
		status = "retired"
	}
	return x.left(ctx, a, status)
}

// Deregister takes an agent off the project's roster, as mcp_agent_mail's
// deregister_agent does: retired, contact policy block_all, its task
// saying when; its reservations and locks are released, its mail kept.
func (s *Service) Deregister(ctx context.Context, sc Scope, name string) (RetireResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return RetireResponse{}, err
	}
	a, err := x.mb.Deregister(ctx, name)
	if err != nil {
		return RetireResponse{}, err
	}
	return x.left(ctx, a, "deregistered")
}

// left is the document of agent a whose status changed; an agent that
// left (retired or deregistered) has its reservations and locks released.
func (x *session) left(ctx context.Context, a mailbox.Agent, status string) (RetireResponse, error) {
	p := x.project()
	resp := RetireResponse{Agent: agentDoc(a), Status: status, AgentName: a.Name, ProjectKey: p.Key, ProjectSlug: p.Slug,
		ReleasedLeases: []Reservation{}, ReleasedLocks: []Lock{}, HistoryPreserved: true}
	if !a.Retired {
		return resp, nil
	}
	rs := reservations.New(x.st, p.Slug, a.Name, nil)
	released, err := rs.Release(ctx, reservations.Selector{All: true})
	if err != nil {
		return resp, fmt.Errorf("%s is %s, but its reservations could not be released: %w", a.Name, status, err)
	}
	resp.ReleasedLeases = reservationDocs(released)
	locks, err := rs.Locks(ctx, "")
	if err != nil {
		return resp, fmt.Errorf("%s is %s, but its locks could not be listed: %w", a.Name, status, err)
	}
	for _, l := range locks {
		if names.Fold(l.Holder) != names.Fold(a.Name) {
			continue
		}
		done, err := rs.ReleaseLock(ctx, l.Key)
		if err != nil {
			return resp, fmt.Errorf("%s is %s, but its lock %s could not be released: %w", a.Name, status, l.Key, err)
		}
		resp.ReleasedLocks = append(resp.ReleasedLocks, lockDoc(done))
	}
	resp.ReleasedCount = len(resp.ReleasedLeases) + len(resp.ReleasedLocks)
	return resp, nil
}

// CreateIdentity creates a new agent, always: with a fresh generated name,
// or with req.Name, which must be free (mcp_agent_mail's
// create_agent_identity; Register would update an agent of that name that
// is the caller's own).
func (s *Service) CreateIdentity(ctx context.Context, sc Scope, req RegisterRequest) (AgentResponse, error) {
	sc.Agent = "" // nobody's own name: a name given must be free
	return s.Register(ctx, sc, req)
}

// AgentsRequest filters the list of agents.
type AgentsRequest struct {
	Active bool // only agents seen within the idle threshold
	All    bool // retired agents too
	Mail   bool // what waits in each one's mailbox (AgentsResponse.Mail)
}

// AgentsResponse is the document of agents: {"agents": [agent...]}, each
// with its presence and active reservations.
type AgentsResponse struct {
	Agents []Agent `json:"agents"`
	// Mail is what waits in each agent's mailbox, by name, when asked
	// for (AgentsRequest.Mail).
	Mail map[string]AgentMail `json:"mail,omitempty"`

	Project string `json:"-"` // the project's slug
	// HooksWarning: git no longer runs the guard's hooks in the repository.
	HooksWarning *HooksWarning `json:"-"`
}

// Agents lists the project's agents by name, with their presence.
func (s *Service) Agents(ctx context.Context, sc Scope, req AgentsRequest) (AgentsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentsResponse{}, err
	}
	list, err := x.mb.Agents(ctx, req.Active, req.All)
	if err != nil {
		return AgentsResponse{}, err
	}
	held, err := tasks.New(x.st, x.project().Slug, "").List(ctx, tasks.Filter{Claimed: true})
	if err != nil {
		return AgentsResponse{}, err
	}
	claims := map[string][]AgentClaim{}
	for _, t := range held {
		f := names.Fold(t.Claim)
		claims[f] = append(claims[f], AgentClaim{t.ID, t.Title, t.Status})
	}
	docs := mapSlice(list, func(a mailbox.Agent) Agent {
		d := listedAgentDoc(a)
		c := append([]AgentClaim{}, claims[names.Fold(a.Name)]...)
		d.Claims = &c
		return d
	})
	resp := AgentsResponse{Agents: docs, Project: x.project().Slug, HooksWarning: GuardHooksWarning(x.project())}
	if req.Mail {
		counts, err := x.mb.MailCounts(ctx)
		if err != nil {
			return AgentsResponse{}, err
		}
		resp.Mail = map[string]AgentMail{}
		for _, d := range docs {
			c := counts[d.Name]
			resp.Mail[d.Name] = AgentMail{Unread: c.Unread, Urgent: c.Urgent, AwaitingAck: c.AwaitingAck, AcksOwed: c.AcksOwed}
		}
	}
	return resp, x.attend(ctx, resp.Agents)
}

// attend fills in the state each of agents says it is in, and its pause.
func (x *session) attend(ctx context.Context, agents []Agent) error {
	states, err := x.mb.States(ctx)
	if err != nil {
		return err
	}
	controls, err := x.mb.Controls(ctx)
	if err != nil {
		return err
	}
	for i, a := range agents {
		if st, ok := states[a.Name]; ok {
			w := workDoc(st)
			agents[i].Work = &w
		}
		if c, ok := controls[a.Name]; ok && c.Paused {
			doc := controlDoc(c)
			agents[i].Paused = &doc
		}
	}
	return nil
}
