package service

import (
	"context"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
)

// RulesText is one text of a project's rules: the invariants of every
// agent, or a role's playbook.
type RulesText struct {
	Role    string `json:"role"` // "" for the invariants
	Body    string `json:"body"` // markdown
	By      string `json:"by"`
	Updated Time   `json:"updated"`
}

// RulesResponse is the document of rules show and set: the rules an agent
// of the role keeps, {"role", "version", "invariants": text or null,
// "playbook": text or null}. version names this text of both ("" when
// there is none): check says when it changes.
type RulesResponse struct {
	Role       string     `json:"role"`
	Version    string     `json:"version"`
	Invariants *RulesText `json:"invariants"`
	Playbook   *RulesText `json:"playbook"`
}

// RoleSummary is one role of rules roles: {"role", "agents", "playbook",
// "updated"} (updated: the playbook's, null without one).
type RoleSummary struct {
	Role     string   `json:"role"`
	Agents   []string `json:"agents"`
	Playbook bool     `json:"playbook"`
	Updated  Time     `json:"updated"`
}

// RolesResponse is the document of rules roles: {"roles": [role…]}.
type RolesResponse struct {
	Roles []RoleSummary `json:"roles"`
}

// RulesChange is check's "rules_changed": the agent's rules changed since
// it last read them (or it never has).
type RulesChange struct {
	Role    string `json:"role"`
	Version string `json:"version"`
	Seen    string `json:"seen"` // the version it last read; "" for none
}

func rulesText(r *record.Rules) *RulesText {
	if r == nil || r.Body == "" {
		return nil
	}
	return &RulesText{Role: r.Role, Body: r.Body, By: r.By, Updated: Time{r.Updated}}
}

// checkRole returns role normalized, or INVALID_ARGUMENT.
func checkRole(role string) (string, error) {
	if role == "" {
		return "", nil
	}
	r, ok := record.NormalRole(role)
	if !ok {
		return "", mailbox.InvalidRole(role)
	}
	return r, nil
}

// rulesFor returns the rules of role in x's project.
func rulesFor(ctx context.Context, x *session, role string) (RulesResponse, error) {
	inv, play, err := x.mb.RulesOf(ctx, role)
	if err != nil {
		return RulesResponse{}, err
	}
	return RulesResponse{Role: role, Version: mailbox.RulesVersion(inv, play), Invariants: rulesText(inv), Playbook: rulesText(play)}, nil
}

// agentRules returns the rules of agent's role, and marks them read by it
// when mark is set.
func agentRules(ctx context.Context, x *session, agent string, mark bool) (RulesResponse, error) {
	role, err := x.mb.RoleOf(ctx, agent)
	if err != nil {
		return RulesResponse{}, err
	}
	resp, err := rulesFor(ctx, x, role)
	if err == nil && mark {
		err = x.mb.MarkRulesSeen(ctx, agent, resp.Version)
	}
	return resp, err
}

// Rules returns the project's rules for role: the invariants and the
// role's playbook. With no role, the acting agent's own role's, which it
// has then read (check says so no more).
func (s *Service) Rules(ctx context.Context, sc Scope, role string) (RulesResponse, error) {
	role, err := checkRole(role)
	if err != nil {
		return RulesResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return RulesResponse{}, err
	}
	if role == "" && sc.Agent != "" && !mailbox.IsHuman(sc.Agent) {
		return agentRules(ctx, x, sc.Agent, !sc.Watching)
	}
	resp, err := rulesFor(ctx, x, role)
	if err == nil && sc.Agent != "" && !sc.Watching && !mailbox.IsHuman(sc.Agent) {
		// An agent reading its own role's rules by name has read them too.
		if own, err2 := x.mb.RoleOf(ctx, sc.Agent); err2 == nil && own == role {
			err = x.mb.MarkRulesSeen(ctx, sc.Agent, resp.Version)
		}
	}
	return resp, err
}

// SetRules sets the invariants (role "") or role's playbook to body, as
// the acting agent (the human overseer when none acts), and returns the
// rules of that role.
func (s *Service) SetRules(ctx context.Context, sc Scope, role, body string) (RulesResponse, error) {
	role, err := checkRole(role)
	if err != nil {
		return RulesResponse{}, err
	}
	if err := s.checkBody(body); err != nil {
		return RulesResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return RulesResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return RulesResponse{}, err
	}
	if _, err := x.mb.SetRules(ctx, role, body); err != nil {
		return RulesResponse{}, err
	}
	return rulesFor(ctx, x, role)
}

// RuleRoles lists the project's roles: those with a playbook and those an
// agent plays.
func (s *Service) RuleRoles(ctx context.Context, sc Scope) (RolesResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return RolesResponse{}, err
	}
	roles, err := x.mb.Roles(ctx)
	resp := RolesResponse{Roles: mapSlice(roles, func(r mailbox.Role) RoleSummary {
		out := RoleSummary{Role: r.Role, Agents: r.Agents, Playbook: r.Playbook != nil && r.Playbook.Body != ""}
		if r.Playbook != nil {
			out.Updated = Time{r.Playbook.Updated}
		}
		return out
	})}
	return resp, err
}

// rulesChanged is check's note of the acting agent's rules: set when their
// version is not the one it last read.
func rulesChanged(ctx context.Context, x *session, agent string) (*RulesChange, error) {
	if agent == "" || mailbox.IsHuman(agent) {
		return nil, nil
	}
	resp, err := agentRules(ctx, x, agent, false)
	if err != nil || resp.Version == "" {
		return nil, err
	}
	seen, err := x.mb.RulesSeen(ctx, agent)
	if err != nil || seen == resp.Version {
		return nil, err
	}
	return &RulesChange{Role: resp.Role, Version: resp.Version, Seen: seen}, nil
}
