package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// The macros are mcp_agent_mail's: several operations in one call, each
// answering with its own document under a member of the macro's.

func (s *Server) addMacroTools() {
	addTool(s, tool{name: "macro_start_session", desc: "Start a session in one call: make sure the project exists, register (or re-register) your agent, reserve file_reservation_paths if given, and list your inbox. " +
		"The session then acts as that agent. A reservation conflict does not fail the call: nothing is reserved and file_reservations lists the conflicts."},
		textSession, s.startSession)
	addTool(s, tool{name: "macro_prepare_thread", desc: "Join a thread in one call: register your agent if it is not yet, then the thread's participants and messages and your inbox."},
		textPrepared, s.prepareThread)
	addTool(s, tool{name: "macro_file_reservation_cycle", desc: "Reserve paths (as file_reservation_paths, failing with RESERVATION_CONFLICT when others hold them) and, with auto_release, release them again at once: a check that the paths are free."},
		textCycle, s.reservationCycle)
	addTool(s, tool{name: "macro_contact_handshake", desc: "Ask target for contact as requester, and optionally, once allowed, send a welcome message. auto_accept approves for the target, which only an overseer's session may do (else response_error says so)."},
		textHandshake, s.contactHandshake)
}

type startSessionArgs struct {
	HumanKey                  string   `json:"human_key,omitempty" jsonschema:"the absolute path of your repository (or of any directory in it), or a project key; default: the directory the server runs in"`
	Program                   string   `json:"program,omitempty" jsonschema:"the coding agent you run in, such as claude-code or codex"`
	Model                     string   `json:"model,omitempty" jsonschema:"your model, such as opus-4"`
	TaskDescription           string   `json:"task_description,omitempty" jsonschema:"what you are working on, for the other agents"`
	AgentName                 string   `json:"agent_name,omitempty" jsonschema:"the name to register or take up again (adjective+noun, like GreenCastle); leave it out for a free generated one, or the agent this session acts as"`
	Role                      string   `json:"role,omitempty" jsonschema:"the role you play, a free word such as reviewer: it picks your playbook (the result's rules)"`
	FileReservationPaths      []string `json:"file_reservation_paths,omitempty" jsonschema:"glob patterns to reserve exclusively, relative to human_key's directory"`
	FileReservationReason     string   `json:"file_reservation_reason,omitempty" jsonschema:"the reservations' reason; default macro-session"`
	FileReservationTTLSeconds *int     `json:"file_reservation_ttl_seconds,omitempty" jsonschema:"how long the reservations last"`
	InboxLimit                *int     `json:"inbox_limit,omitempty" jsonschema:"at most this many inbox messages, newest first; default 10"`
	RegistrationToken         string   `json:"registration_token,omitempty" jsonschema:"the registration token of agent_name (register_agent returned it): to take up an agent another session registered"`
	Format                    string   `json:"format,omitempty" jsonschema:"json, the only format there is (accepted for mcp_agent_mail clients)"`
	offlineArgs
}

func (startSessionArgs) argDefaults() map[string]any {
	return map[string]any{"file_reservation_ttl_seconds": secondsOf(service.DefaultReserveTTL)}
}

// Session is the document of macro_start_session.
type Session struct {
	Project          *service.ProjectKey   `json:"project"`
	Agent            service.Agent         `json:"agent"`
	FileReservations Reserved              `json:"file_reservations"`
	Inbox            service.InboxResponse `json:"inbox"`
	// RegistrationToken is the agent's registration token, as
	// register_agent returns it.
	RegistrationToken string `json:"registration_token"`
	// Rules are the project's rules for the agent's role, when it has any:
	// keep them (check_mail says when they change).
	Rules *service.RulesResponse `json:"rules,omitempty"`
}

func (s *Server) startSession(ctx context.Context, c *call, in startSessionArgs) (Session, error) {
	p := projectArgs{ProjectKey: in.HumanKey, Format: in.Format}
	ttl, err := lasting(in.FileReservationTTLSeconds, service.DefaultReserveTTL, "file_reservation_ttl_seconds")
	if err != nil {
		return Session{}, err
	}
	proj, err := s.ensureProject(ctx, c, ensureArgs{HumanKey: in.HumanKey, Format: in.Format})
	if err != nil {
		return Session{}, err
	}
	reg, err := s.register(ctx, c, p, in.AgentName, service.RegisterRequest{Program: in.Program, Model: in.Model, Task: in.TaskDescription, Role: in.Role})
	if err != nil {
		return Session{}, err
	}
	me := reg.Agent.Name
	out := Session{Project: proj.Project, Agent: reg.Agent, RegistrationToken: reg.RegistrationToken, Rules: reg.Rules,
		FileReservations: reserved(service.ReserveResponse{Conflicts: []service.Conflict{}, Granted: []service.Reservation{}})}
	if len(in.FileReservationPaths) > 0 {
		var r service.ReserveResponse
		r, err = s.reserve(ctx, c, p, me, service.ReserveRequest{Patterns: in.FileReservationPaths, TTL: ttl,
			Reason: cmp.Or(in.FileReservationReason, "macro-session"), Offline: in.Offline})
		if err != nil && !errors.Is(err, service.ErrConflict) {
			return Session{}, err
		}
		out.FileReservations = reserved(r)
	}
	out.Inbox, err = s.inbox(ctx, c, p, me, service.InboxRequest{Limit: intOr(in.InboxLimit, 10)})
	return out, err
}

func textSession(r Session) string {
	return strings.Join([]string{projectLine(r.Project), "you are " + agentLine(r.Agent),
		textReserved(r.FileReservations), textInbox(r.Inbox)}, "\n")
}

type prepareThreadArgs struct {
	projectArgs
	ThreadID           string `json:"thread_id" jsonschema:"a thread name, or the id (or a unique prefix) of a message in the thread"`
	AgentName          string `json:"agent_name,omitempty" jsonschema:"your agent name; leave it out to act as the agent this session acts as (or, with none, to register a generated one)"`
	Program            string `json:"program,omitempty" jsonschema:"the coding agent you run in, when registering"`
	Model              string `json:"model,omitempty" jsonschema:"your model, when registering"`
	TaskDescription    string `json:"task_description,omitempty" jsonschema:"what you are working on, when registering"`
	RegisterIfMissing  *bool  `json:"register_if_missing,omitempty" jsonschema:"register the agent when it is not registered; default true"`
	InboxLimit         *int   `json:"inbox_limit,omitempty" jsonschema:"at most this many inbox messages, newest first; default 10"`
	IncludeInboxBodies bool   `json:"include_inbox_bodies,omitempty" jsonschema:"include the inbox messages' bodies"`
	IncludeExamples    *bool  `json:"include_examples,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: every message is included"`
	LLMMode            *bool  `json:"llm_mode,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: no LLM is involved"`
	LLMModel           string `json:"llm_model,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RegistrationToken  string `json:"registration_token,omitempty" jsonschema:"the agent's registration token (register_agent returned it): lets this session act as an agent it did not register"`
}

// Prepared is the document of macro_prepare_thread.
type Prepared struct {
	Project *service.ProjectKey   `json:"project"`
	Agent   service.Agent         `json:"agent"`
	Thread  Summary               `json:"thread"`
	Inbox   service.InboxResponse `json:"inbox"`
}

// agentOrRegister returns the profile of the agent the call acts as,
// registering it first when it is not registered and register says so.
func (s *Server) agentOrRegister(ctx context.Context, c *call, p projectArgs, name string, register bool, req service.RegisterRequest) (service.AgentResponse, error) {
	sc, err := c.scope(p, name)
	var me service.AgentResponse
	if err == nil {
		me, err = c.svc.Whoami(ctx, sc)
	}
	if errors.Is(err, service.ErrNotRegistered) && register {
		reg, err := s.register(ctx, c, p, name, req)
		return reg.AgentResponse, err
	}
	return me, err
}

func (s *Server) prepareThread(ctx context.Context, c *call, in prepareThreadArgs) (Prepared, error) {
	me, err := s.agentOrRegister(ctx, c, in.projectArgs, in.AgentName, boolOr(in.RegisterIfMissing, true),
		service.RegisterRequest{Program: in.Program, Model: in.Model, Task: in.TaskDescription})
	if err != nil {
		return Prepared{}, err
	}
	name := me.Agent.Name
	t, err := s.thread(ctx, c, in.projectArgs, name, in.ThreadID)
	if err != nil {
		return Prepared{}, err
	}
	box, err := s.inbox(ctx, c, in.projectArgs, name, service.InboxRequest{Limit: intOr(in.InboxLimit, 10), Bodies: in.IncludeInboxBodies})
	if err != nil {
		return Prepared{}, err
	}
	sc, err := c.project(in.projectArgs, name)
	if err != nil {
		return Prepared{}, err
	}
	proj, err := c.svc.Init(ctx, sc)
	return Prepared{Project: proj.Project, Agent: me.Agent, Thread: summarize(t), Inbox: box}, err
}

func textPrepared(r Prepared) string {
	return strings.Join([]string{projectLine(r.Project), "you are " + agentLine(r.Agent), textSummary(r.Thread), textInbox(r.Inbox)}, "\n")
}

type cycleArgs struct {
	reserveArgs
	AutoRelease bool `json:"auto_release,omitempty" jsonschema:"release the paths again at once, once granted"`
}

// Cycle is the document of macro_file_reservation_cycle.
type Cycle struct {
	FileReservations Reserved  `json:"file_reservations"`
	Released         *Released `json:"released"` // null without auto_release
}

func (s *Server) reservationCycle(ctx context.Context, c *call, in cycleArgs) (Cycle, error) {
	req, err := in.request(cmp.Or(in.Reason, "macro-file_reservation"))
	if err != nil {
		return Cycle{}, err
	}
	var out Cycle
	r, err := s.reserve(ctx, c, in.projectArgs, in.AgentName, req)
	if out.FileReservations = reserved(r); err != nil || !in.AutoRelease {
		return out, err
	}
	rel, err := released(s.releaseGranted(ctx, c, in.projectArgs, r.Granted))
	out.Released = &rel
	return out, err
}

// releaseGranted releases the reservations just granted, by id.
func (s *Server) releaseGranted(ctx context.Context, c *call, p projectArgs, granted []service.Reservation) (service.ReleaseResponse, error) {
	ids := make([]string, len(granted))
	for i, r := range granted {
		ids[i] = r.ID
	}
	sc, err := c.scope(p, c.agent)
	if err != nil {
		return service.ReleaseResponse{}, err
	}
	return c.svc.Release(ctx, sc, service.Selection{IDs: ids})
}

func textCycle(r Cycle) string {
	text := textReserved(r.FileReservations)
	if r.Released != nil {
		text += "\n" + textReleased(*r.Released)
	}
	return text
}

type handshakeArgs struct {
	projectArgs
	Requester                  string `json:"requester,omitempty" jsonschema:"the agent asking (you); leave it out to ask as the agent this session acts as"`
	AgentName                  string `json:"agent_name,omitempty" jsonschema:"another name for requester"`
	Target                     string `json:"target,omitempty" jsonschema:"the agent to contact (required, here or as to_agent)"`
	ToAgent                    string `json:"to_agent,omitempty" jsonschema:"another name for target"`
	Reason                     string `json:"reason,omitempty" jsonschema:"why, for the target"`
	AutoAccept                 bool   `json:"auto_accept,omitempty" jsonschema:"approve the request for the target too: only an overseer's session may act for the target"`
	WelcomeSubject             string `json:"welcome_subject,omitempty" jsonschema:"the subject of a first message to send once allowed (with welcome_body)"`
	WelcomeBody                string `json:"welcome_body,omitempty" jsonschema:"its markdown body (with welcome_subject)"`
	ThreadID                   string `json:"thread_id,omitempty" jsonschema:"the welcome message's thread"`
	TTLSeconds                 *int   `json:"ttl_seconds,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: an approval lasts 30 days"`
	ToProject                  string `json:"to_project,omitempty" jsonschema:"must be this project when given: contacts across projects do not exist here"`
	RegisterIfMissing          *bool  `json:"register_if_missing,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: both agents must be registered"`
	Program                    string `json:"program,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	Model                      string `json:"model,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	TaskDescription            string `json:"task_description,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	RequesterRegistrationToken string `json:"requester_registration_token,omitempty" jsonschema:"the requester's registration token (register_agent returned it): lets this session ask as an agent it did not register"`
	TargetRegistrationToken    string `json:"target_registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: approving for the target takes an overseer's session"`
}

// Handshake is the document of macro_contact_handshake: the request, the
// answer given for the target (null when not asked for or not allowed),
// the welcome message (null when none), and why a step after the request
// failed.
type Handshake struct {
	Request        service.ContactResponse  `json:"request"`
	Response       *service.ContactResponse `json:"response"`
	WelcomeMessage *Sent                    `json:"welcome_message"`
	ResponseError  *ErrorDoc                `json:"response_error,omitempty"`
	WelcomeError   *ErrorDoc                `json:"welcome_error,omitempty"`
}

// check refuses a handshake without a target, or with half a welcome.
func (a handshakeArgs) check() (target string, err error) {
	target = strings.TrimSpace(cmp.Or(a.Target, a.ToAgent))
	if target == "" {
		return "", service.Usagef("pass target: the agent to contact", "no target named")
	}
	if (a.WelcomeSubject == "") != (a.WelcomeBody == "") {
		return "", fault.WithHint(fmt.Errorf("%w: a welcome message needs both welcome_subject and welcome_body", service.ErrInvalidArgument),
			"pass both, or neither")
	}
	return target, nil
}

func (s *Server) contactHandshake(ctx context.Context, c *call, in handshakeArgs) (Handshake, error) {
	target, err := in.check()
	if err != nil {
		return Handshake{}, err
	}
	requester := cmp.Or(in.Requester, in.AgentName)
	req, err := s.requestContact(ctx, c, requestContactArgs{projectArgs: in.projectArgs, FromAgent: requester, ToAgent: target, Reason: in.Reason, ToProject: in.ToProject})
	if err != nil {
		return Handshake{}, err
	}
	me := c.agent
	out := Handshake{Request: req}
	if in.AutoAccept {
		resp, err := s.acceptFor(ctx, c, in.projectArgs, target, req.Contact.From)
		if err != nil {
			doc := errorDoc(err)
			out.ResponseError = &doc
		} else {
			out.Response = &resp
		}
	}
	if in.WelcomeSubject != "" {
		sent, err := s.sendMessage(ctx, c, sendArgs{projectArgs: in.projectArgs, SenderName: me, To: Names{target},
			Subject: in.WelcomeSubject, BodyMD: in.WelcomeBody, ThreadID: in.ThreadID})
		if err != nil {
			doc := errorDoc(err)
			out.WelcomeError = &doc
		} else {
			out.WelcomeMessage = &sent
		}
	}
	return out, nil
}

// acceptFor approves from's request as target, which only an overseer may
// do. It uses a call of its own: acting as the target is not acting as the
// session's agent.
func (s *Server) acceptFor(ctx context.Context, c *call, p projectArgs, target, from string) (service.ContactResponse, error) {
	if !s.cfg.Overseer {
		return service.ContactResponse{}, fault.WithHint(fmt.Errorf("%w: approving for %s means acting as %s", service.ErrAuthenticationRequired, target, target),
			fmt.Sprintf("ask %s to call respond_contact, or start agentmail mcp --overseer", target))
	}
	return s.respondContact(ctx, &call{s: s, svc: c.svc}, respondContactArgs{projectArgs: p, ToAgent: target, FromAgent: from, Accept: true})
}

func textHandshake(r Handshake) string {
	out := []string{"requested " + contactLine(r.Request.Contact)}
	switch {
	case r.Response != nil:
		out = append(out, "answered "+contactLine(r.Response.Contact))
	case r.ResponseError != nil:
		out = append(out, "not answered: "+r.ResponseError.Message+" ("+r.ResponseError.Hint+")")
	}
	switch {
	case r.WelcomeMessage != nil:
		out = append(out, textSend(*r.WelcomeMessage))
	case r.WelcomeError != nil:
		out = append(out, "welcome not sent: "+r.WelcomeError.Message+" ("+r.WelcomeError.Hint+")")
	}
	return strings.Join(out, "\n")
}
