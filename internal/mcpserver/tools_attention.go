package mcpserver

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
)

// addAttentionTools adds what draws an agent's attention besides its
// inbox: the channels it subscribes to, the state it says it is in, and
// the control others hold over it.
func (s *Server) addAttentionTools() {
	addTool(s, tool{name: "subscribe_topic", desc: "Follow a channel (a topic): its new posts by other agents (send_message with the topic and no recipients) " +
		"then show in check_mail and fetch_inbox (posts), and wait_for_mail with the topic waits for the next. Remembered with the project. Returns your channels with their unread posts."},
		textSubscribed("subscribed to"), s.subscribeTopic)
	addTool(s, tool{name: "unsubscribe_topic", desc: "Stop following a channel. Returns the channels you still follow."},
		textSubscribed("unsubscribed from"), s.unsubscribeTopic)
	addTool(s, tool{name: "set_agent_state", desc: "Say what state your work is in: running, idle, stuck or done, with a note (what you do, or what you need). " +
		"list_agents shows it (work), and every other agent's check_mail lists the agents that are stuck. Allowed while you are paused."},
		textState, s.setAgentState)
	addTool(s, tool{name: "control_agent", desc: "Pause, resume or interrupt another agent, with a reason; recorded in the archive. " +
		"A paused agent's writes fail with PAUSED until it is resumed (reads, check_mail, wait_for_mail, set_agent_state and releasing what it holds still work), " +
		"and its edits are denied by the edit hook when installed; its check_mail shows the pause first and its wait_for_mail returns on it. " +
		"An interrupt is shown first by its next check_mail, once."},
		textControl, s.controlAgent)
	addTool(s, tool{name: "get_rules", desc: "The project's rules for agents: the invariants every agent keeps and the playbook of your role " +
		"(register_agent's role), or of the role named. Reading your own marks them read: check_mail says when they change again."},
		textRules, s.getRules)
}

type rulesArgs struct {
	agentArgs
	Role string `json:"role,omitempty" jsonschema:"the role whose playbook to return; default: yours"`
}

func (s *Server) getRules(ctx context.Context, c *call, in rulesArgs) (service.RulesResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.RulesResponse{}, err
	}
	return c.svc.Rules(ctx, sc, in.Role)
}

func textRules(r service.RulesResponse) string {
	if r.Version == "" {
		return "no rules"
	}
	out := "rules version " + r.Version
	for _, t := range []*service.RulesText{r.Invariants, r.Playbook} {
		if t == nil {
			continue
		}
		title := "Invariants (every agent)"
		if t.Role != "" {
			title = "Playbook: " + t.Role
		}
		out += "\n\n## " + title + "\n\n" + t.Body
	}
	return out
}

type stateArgs struct {
	agentArgs
	State string `json:"state" jsonschema:"running, idle, stuck or done"`
	Note  string `json:"note,omitempty" jsonschema:"a line on what you are doing or what you need"`
}

func (s *Server) setAgentState(ctx context.Context, c *call, in stateArgs) (service.StateResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.StateResponse{}, err
	}
	return c.svc.SetState(ctx, sc, in.State, in.Note)
}

func textState(r service.StateResponse) string {
	out := r.State.Agent + " is " + r.State.State
	if r.State.Note != "" {
		out += ": " + r.State.Note
	}
	return out
}

type controlArgs struct {
	agentArgs
	Target string `json:"target" jsonschema:"the agent to steer"`
	Action string `json:"action" jsonschema:"pause, resume or interrupt"`
	Reason string `json:"reason,omitempty" jsonschema:"why: shown to the agent"`
}

func (s *Server) controlAgent(ctx context.Context, c *call, in controlArgs) (service.ControlResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.ControlResponse{}, err
	}
	return c.svc.Control(ctx, sc, service.ControlRequest{Agent: in.Target, Action: in.Action, Reason: in.Reason})
}

func textControl(r service.ControlResponse) string {
	verb := map[string]string{"pause": "paused", "resume": "resumed", "interrupt": "interrupted"}[r.Action]
	return verb + " " + r.Control.Agent
}

// steeringText is what check_mail says first: a new interrupt, the pause.
func steeringText(s service.Steering) []string {
	var out []string
	if i := s.Interrupt; i != nil {
		out = append(out, "INTERRUPTED by "+i.InterruptBy+suffix(i.InterruptReason))
	}
	if p := s.Paused; p != nil {
		out = append(out, "PAUSED by "+p.PauseBy+suffix(p.PauseReason)+": your writes fail with PAUSED until you are resumed")
	}
	return out
}

func suffix(note string) string {
	if note == "" {
		return ""
	}
	return ": " + note
}

type channelArgs struct {
	agentArgs
	Topic string `json:"topic" jsonschema:"the channel: 1-64 letters, digits, _ . -; case-insensitive"`
}

func (s *Server) subscribeTopic(ctx context.Context, c *call, in channelArgs) (service.SubscriptionsResponse, error) {
	return subscribe(ctx, c, in, true)
}

func (s *Server) unsubscribeTopic(ctx context.Context, c *call, in channelArgs) (service.SubscriptionsResponse, error) {
	return subscribe(ctx, c, in, false)
}

func subscribe(ctx context.Context, c *call, in channelArgs, on bool) (service.SubscriptionsResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.SubscriptionsResponse{}, err
	}
	return c.svc.Subscribe(ctx, sc, in.Topic, on)
}

func textSubscribed(verb string) func(service.SubscriptionsResponse) string {
	return func(r service.SubscriptionsResponse) string {
		head := verb + " " + r.Topic
		if r.Changed != nil && !*r.Changed {
			head += " (already so)"
		}
		return head + "\n" + listing("channels you follow", lines(r.Subscriptions, func(ch service.Channel) string {
			return fmt.Sprintf("%s: %s", ch.Topic, count(ch.Unread, "unread post", "unread posts"))
		}))
	}
}
