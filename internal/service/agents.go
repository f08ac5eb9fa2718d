package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/mailbox"
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
		return AgentResponse{}, fault.WithHint(fmt.Errorf("%w: --name is empty", mailbox.ErrInvalidName),
			"omit --name for a generated name, or pass one such as --name GreenCastle")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentResponse{}, err
	}
	role, err := checkRole(req.Role)
	if err != nil {
		return AgentResponse{}, err
	}
	in := mailbox.RegisterInput{Program: req.Program, Model: req.Model, Task: req.Task, Policy: req.Policy}
	if req.Name != nil {
		in.Name = *req.Name
	}
	a, err := x.mb.Register(ctx, in)
	resp, err := x.agentResponse(a, err)
	if err != nil {
		return resp, err
	}
	return resp, s.withRules(ctx, x, &resp, role)
}

// withRules sets the role of the agent resp names when role is given, and
// adds the rules of its role to resp (marked read by it) when the project
// has any.
func (s *Service) withRules(ctx context.Context, x *session, resp *AgentResponse, role string) error {
	me, err := s.sessionFor(ctx, x.project(), resp.Agent.Name)
	if err != nil {
		return err
	}
	if role != "" {
		if _, err := me.mb.SetRole(ctx, role); err != nil {
			return err
		}
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
	return x.agentResponse(a, err)
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
// left out of broadcasts) or, with Retired false, to bring back.
type RetireRequest struct {
	Name    string
	Retired bool
}

// Retire retires an agent or brings it back.
func (s *Service) Retire(ctx context.Context, sc Scope, req RetireRequest) (AgentResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return AgentResponse{}, err
	}
	a, err := x.mb.Retire(ctx, req.Name, req.Retired)
	return x.agentResponse(a, err)
}

// AgentsRequest filters the list of agents.
type AgentsRequest struct {
	Active bool // only agents seen within the idle threshold
}

// AgentsResponse is the document of agents: {"agents": [agent...]}, each
// with its presence and active reservations.
type AgentsResponse struct {
	Agents []Agent `json:"agents"`

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
	list, err := x.mb.Agents(ctx, req.Active)
	if err != nil {
		return AgentsResponse{}, err
	}
	resp := AgentsResponse{Agents: mapSlice(list, listedAgentDoc), Project: x.project().Slug, HooksWarning: GuardHooksWarning(x.project())}
	states, err := x.mb.States(ctx)
	if err != nil {
		return resp, err
	}
	controls, err := x.mb.Controls(ctx)
	if err != nil {
		return resp, err
	}
	for i, a := range resp.Agents {
		if st, ok := states[a.Name]; ok {
			w := workDoc(st)
			resp.Agents[i].Work = &w
		}
		if c, ok := controls[a.Name]; ok && c.Paused {
			doc := controlDoc(c)
			resp.Agents[i].Paused = &doc
		}
	}
	return resp, nil
}
