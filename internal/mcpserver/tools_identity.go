package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// addIdentityTools registers the identity and lifecycle tools of
// mcp_agent_mail that register_agent does not cover (issue 24).
func (s *Server) addIdentityTools() {
	addTool(s, tool{name: "create_agent_identity", desc: "Create a new agent, always (register_agent updates your own): a free generated name (adjective+noun), or name_hint when it is a valid free name. " +
		"The session then acts as it too; the result carries its registration_token."},
		textIdentity, s.createAgentIdentity)
	addTool(s, tool{name: "retire_agent", desc: "Retire an agent (yours, or one whose registration_token you pass): it takes no new mail (senders get AGENT_RETIRED), is left out of broadcasts and of list_agents (but include_retired), and its file reservations and locks are released. Its mail stays; unretire_agent brings it back."},
		textLeft, s.retireAgent)
	addTool(s, tool{name: "unretire_agent", desc: "Bring a retired (or deregistered) agent back: it takes mail again."},
		textLeft, s.unretireAgent)
	addTool(s, tool{name: "deregister_agent", desc: "Take an agent off the project's roster, as mcp_agent_mail does: retired (no new mail, leases released), contact policy block_all, its task marked with when. Its mail and history stay; unretire_agent and set_contact_policy bring it back."},
		textLeft, s.deregisterAgent)
}

type createIdentityArgs struct {
	projectArgs
	Program           string `json:"program,omitempty" jsonschema:"the coding agent the new agent runs in, such as claude-code or codex"`
	Model             string `json:"model,omitempty" jsonschema:"its model, such as opus-4"`
	NameHint          string `json:"name_hint,omitempty" jsonschema:"the name to give it: an adjective and a noun, like GreenCastle, not registered yet; leave it out for a free generated one (recommended)"`
	TaskDescription   string `json:"task_description,omitempty" jsonschema:"what it works on, for the other agents"`
	AttachmentsPolicy string `json:"attachments_policy,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
}

// Identity is the document of create_agent_identity: register_agent's,
// with mcp_agent_mail's flat fields of the agent beside it (its id is the
// name: agentmail's agents have no number).
type Identity struct {
	Registered
	ID              string       `json:"id"`
	Name            string       `json:"name"`
	Program         string       `json:"program"`
	Model           string       `json:"model"`
	TaskDescription string       `json:"task_description"`
	InceptionTS     service.Time `json:"inception_ts"`
	LastActiveTS    service.Time `json:"last_active_ts"`
	ProjectID       string       `json:"project_id"` // the project's slug
}

func (s *Server) createAgentIdentity(ctx context.Context, c *call, in createIdentityArgs) (Identity, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return Identity{}, err
	}
	req := service.RegisterRequest{Program: in.Program, Model: in.Model, Task: in.TaskDescription}
	if hint := strings.TrimSpace(in.NameHint); hint != "" {
		req.Name = &hint
	}
	resp, err := c.svc.CreateIdentity(ctx, sc, req)
	reg, err := s.registered(c, sc, resp, err)
	if err != nil {
		return Identity{}, err
	}
	a := reg.Agent
	return Identity{Registered: reg, ID: a.Name, Name: a.Name, Program: a.Program, Model: a.Model, TaskDescription: a.Task,
		InceptionTS: a.Registered, LastActiveTS: a.LastSeen, ProjectID: reg.Project}, nil
}

func textIdentity(r Identity) string { return "created " + agentLine(r.Agent) }

// lifecycleArgs name the agent a lifecycle tool changes, which the call
// acts as: one of the session's, or one whose token it carries.
type lifecycleArgs struct {
	projectArgs
	AgentName         string `json:"agent_name" jsonschema:"the agent: one this session registered (or acts as), or one whose registration_token you pass"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returned it): for an agent this session did not register"`
}

// lifecycle runs op on the agent in's call acts as.
func (s *Server) lifecycle(ctx context.Context, c *call, in lifecycleArgs, op func(context.Context, service.Scope, string) (service.RetireResponse, error)) (service.RetireResponse, error) {
	name := strings.TrimSpace(in.AgentName)
	if name == "" {
		return service.RetireResponse{}, service.Usagef("pass agent_name: the agent to change", "agent_name is empty")
	}
	sc, err := c.scope(in.projectArgs, name)
	if err != nil {
		return service.RetireResponse{}, err
	}
	// Stricter than other calls: a session that has no agent yet does not
	// take up the one named here, nor change it, without its token.
	if _, own := s.owns(sc.Agent); !own && !c.viaToken && !s.cfg.Overseer {
		return service.RetireResponse{}, c.notOwned(sc.Agent)
	}
	c.viaToken = true // the session does not take on an agent it changes here
	return op(ctx, sc, sc.Agent)
}

func (s *Server) retireAgent(ctx context.Context, c *call, in lifecycleArgs) (service.RetireResponse, error) {
	return s.lifecycle(ctx, c, in, func(ctx context.Context, sc service.Scope, name string) (service.RetireResponse, error) {
		return c.svc.Retire(ctx, sc, service.RetireRequest{Name: name, Retired: true})
	})
}

func (s *Server) unretireAgent(ctx context.Context, c *call, in lifecycleArgs) (service.RetireResponse, error) {
	return s.lifecycle(ctx, c, in, func(ctx context.Context, sc service.Scope, name string) (service.RetireResponse, error) {
		return c.svc.Retire(ctx, sc, service.RetireRequest{Name: name, Retired: false})
	})
}

func (s *Server) deregisterAgent(ctx context.Context, c *call, in lifecycleArgs) (service.RetireResponse, error) {
	return s.lifecycle(ctx, c, in, func(ctx context.Context, sc service.Scope, name string) (service.RetireResponse, error) {
		return c.svc.Deregister(ctx, sc, name)
	})
}

func textLeft(r service.RetireResponse) string {
	lines := []string{fmt.Sprintf("%s is %s", r.AgentName, r.Status)}
	for _, l := range r.ReleasedLeases {
		lines = append(lines, "released reservation "+l.ID+" "+l.Pattern)
	}
	for _, l := range r.ReleasedLocks {
		lines = append(lines, "released lock "+l.Key)
	}
	return strings.Join(lines, "\n")
}

// addProjectTools registers archive_project and unarchive_project.
func (s *Server) addProjectTools() {
	addTool(s, tool{name: "archive_project", desc: "Archive a project: it then refuses every write (PROJECT_ARCHIVED) and is left out of the project lists; reads go on and nothing in it is lost. " +
		"Needs an agent of the project: this session's, or the one whose registration_token you pass. unarchive_project brings it back."},
		textArchive, s.archiveProject)
	addTool(s, tool{name: "unarchive_project", desc: "Bring an archived project back: it takes writes again."},
		textArchive, s.unarchiveProject)
}

type archiveArgs struct {
	projectArgs
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the registration token of an agent of the project, when this session acts as none of them"`
}

func (s *Server) archiveProject(ctx context.Context, c *call, in archiveArgs) (service.ArchiveResponse, error) {
	return s.setArchived(ctx, c, in, true)
}

func (s *Server) unarchiveProject(ctx context.Context, c *call, in archiveArgs) (service.ArchiveResponse, error) {
	return s.setArchived(ctx, c, in, false)
}

// setArchived archives or unarchives the project in names, as an agent of
// it: the session's, or the one whose token the call carries.
func (s *Server) setArchived(ctx context.Context, c *call, in archiveArgs, archived bool) (service.ArchiveResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.ArchiveResponse{}, err
	}
	if sc.Agent, err = s.projectAgent(ctx, c, sc); err != nil {
		return service.ArchiveResponse{}, err
	}
	return c.svc.ArchiveProject(ctx, sc, archived)
}

// projectAgent returns the agent of sc's project a call that names none
// acts as for the whole project: the one whose registration token it
// carries, else the session's ("" for an overseer's).
func (s *Server) projectAgent(ctx context.Context, c *call, sc service.Scope) (string, error) {
	if c.token == "" {
		if s.cfg.Overseer {
			return "", nil
		}
		if me := s.sessionAgent(); me != "" {
			return me, nil
		}
		return "", fault.WithHint(fmt.Errorf("%w: this session acts as no agent of the project", service.ErrAuthenticationRequired),
			"register an agent first (register_agent), or pass the registration_token of an agent of the project")
	}
	list, err := c.svc.Agents(ctx, sc, service.AgentsRequest{All: true})
	if err != nil {
		return "", err
	}
	for _, a := range list.Agents {
		if ok, err := c.svc.CheckRegistrationToken(sc, a.Name, c.token); err != nil || ok {
			c.viaToken = true
			return a.Name, err
		}
	}
	return "", fault.WithHint(fmt.Errorf("%w: the registration token given is no agent's of project %s", service.ErrAuthenticationRequired, list.Project),
		"pass the registration_token that register_agent returned for an agent of this project")
}

func textArchive(r service.ArchiveResponse) string {
	if !r.Changed {
		return fmt.Sprintf("project %s (%s) was %s already", r.Slug, r.ProjectKey, r.Status)
	}
	if r.Status == "archived" {
		return fmt.Sprintf("archived project %s (%s): it takes no writes until unarchive_project", r.Slug, r.ProjectKey)
	}
	return fmt.Sprintf("unarchived project %s (%s)", r.Slug, r.ProjectKey)
}

// addDeletionTools registers purge_old_messages, hard_delete_agent and
// hard_delete_project.
func (s *Server) addDeletionTools() {
	addTool(s, tool{name: "purge_old_messages", desc: "Take the project's messages older than max_age_days (default 180) out of every mailbox, search and index; a dry run (the default) only lists them. " +
		"In agentmail's git archive a tombstone replaces each message file: the archive's history keeps the text."},
		textPurge, s.purgeOldMessages)
	addTool(s, tool{name: "hard_delete_agent", desc: "Take an agent out of the index and every view: its file reservations and locks released, the messages it sent purged, its profile gone (the name can be registered again). " +
		"confirmation must be exactly I UNDERSTAND. The archive's git history keeps it all."},
		textHardDelete, s.hardDeleteAgent)
	addTool(s, tool{name: "hard_delete_project", desc: "Take every agent and message of a project out of the index and every view (as hard_delete_agent, for all of them); the project stays, empty. " +
		"confirmation must be exactly I UNDERSTAND. The archive's git history keeps it all."},
		textHardDelete, s.hardDeleteProject)
}

type purgeArgs struct {
	projectArgs
	MaxAgeDays        *int   `json:"max_age_days,omitempty" jsonschema:"purge messages older than this many days; default 180"`
	OlderThanDays     *int   `json:"older_than_days,omitempty" jsonschema:"another name for max_age_days"`
	DryRun            *bool  `json:"dry_run,omitempty" jsonschema:"only list what would be purged; default true: pass false to purge"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"the registration token of an agent of the project, when this session acts as none of them (needed to purge, not for a dry run)"`
}

func (s *Server) purgeOldMessages(ctx context.Context, c *call, in purgeArgs) (service.PurgeResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.PurgeResponse{}, err
	}
	dry := boolOr(in.DryRun, true)
	if !dry || c.token != "" || s.sessionAgent() != "" {
		if sc.Agent, err = s.projectAgent(ctx, c, sc); err != nil {
			return service.PurgeResponse{}, err
		}
	}
	days := in.MaxAgeDays
	if days == nil {
		days = in.OlderThanDays
	}
	return c.svc.Purge(ctx, sc, service.PurgeRequest{MaxAgeDays: intOr(days, service.DefaultPurgeAge), DryRun: dry})
}

func textPurge(r service.PurgeResponse) string {
	verb := "purged"
	if r.DryRun {
		verb = "would purge (dry run; pass dry_run false to purge)"
	}
	lines := []string{fmt.Sprintf("%s %s older than %d days (before %s); the archive's history keeps them",
		verb, count(r.MessagesAffected, "message", "messages"), r.MaxAgeDays, r.CutoffDate.Format("2006-01-02T15:04:05Z"))}
	for _, m := range r.Messages {
		lines = append(lines, m.ID+" "+m.From+": "+m.Subject)
	}
	return strings.Join(lines, "\n")
}

type hardDeleteAgentArgs struct {
	lifecycleArgs
	Confirmation string `json:"confirmation" jsonschema:"exactly I UNDERSTAND"`
}

func (s *Server) hardDeleteAgent(ctx context.Context, c *call, in hardDeleteAgentArgs) (service.HardDeleteResponse, error) {
	var resp service.HardDeleteResponse
	_, err := s.lifecycle(ctx, c, in.lifecycleArgs, func(ctx context.Context, sc service.Scope, name string) (service.RetireResponse, error) {
		var err error
		if resp, err = c.svc.HardDeleteAgent(ctx, sc, name, in.Confirmation); err == nil {
			s.unbind(name)
		}
		return service.RetireResponse{}, err
	})
	return resp, err
}

type hardDeleteProjectArgs struct {
	archiveArgs
	Confirmation string `json:"confirmation" jsonschema:"exactly I UNDERSTAND"`
}

func (s *Server) hardDeleteProject(ctx context.Context, c *call, in hardDeleteProjectArgs) (service.HardDeleteResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.HardDeleteResponse{}, err
	}
	if sc.Agent, err = s.projectAgent(ctx, c, sc); err != nil {
		return service.HardDeleteResponse{}, err
	}
	c.viaToken = true // the session's agents are gone with the project
	return c.svc.HardDeleteProject(ctx, sc, in.Confirmation)
}

func textHardDelete(r service.HardDeleteResponse) string {
	what := "project " + r.Slug
	if r.AgentName != "" {
		what = "agent " + r.AgentName
	}
	d := r.DeletedCounts
	return fmt.Sprintf("hard-deleted %s: %s, %s, %s and %s out of the index and every view; the archive's git history keeps them",
		what, count(d.Agents, "agent", "agents"), count(d.Messages, "message", "messages"), count(d.FileReservations, "file reservation", "file reservations"), count(d.Locks, "lock", "locks"))
}
