package service

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
)

// ErrPaused: the acting agent is paused (PAUSED, exit 5).
var ErrPaused = mailbox.ErrPaused

// WorkState is what an agent says of its work: {"agent","state","note",
// "updated"}, state running, idle, stuck or done.
type WorkState struct {
	Agent   string `json:"agent"`
	State   string `json:"state"`
	Note    string `json:"note"`
	Updated Time   `json:"updated"`
}

func workDoc(s record.AgentState) WorkState {
	return WorkState{Agent: s.Agent, State: s.State, Note: s.Note, Updated: Time{s.Updated}}
}

// WorkRecordDoc is the document of a state record, as the live events
// carry it.
func WorkRecordDoc(s *record.AgentState) WorkState { return workDoc(*s) }

// ControlRecordDoc is the document of a control record, as the live
// events carry it.
func ControlRecordDoc(c *record.Control) Control { return controlDoc(*c) }

// StateResponse is the document of state: {"state": work state}.
type StateResponse struct {
	State WorkState `json:"state"`
}

// SetState records the state the acting agent says it is in: running,
// idle, stuck or done, with a note. A paused agent may say it.
func (s *Service) SetState(ctx context.Context, sc Scope, state, note string) (StateResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return StateResponse{}, err
	}
	st, err := x.mb.SetState(ctx, state, note)
	return StateResponse{State: workDoc(st)}, err
}

// Control is how an agent is steered: {"agent","paused","pause_by",
// "pause_reason","pause_at","interrupt_by","interrupt_reason",
// "interrupt_at"}.
type Control struct {
	Agent           string `json:"agent"`
	Paused          bool   `json:"paused"`
	PauseBy         string `json:"pause_by"`
	PauseReason     string `json:"pause_reason"`
	PauseAt         Time   `json:"pause_at"`
	InterruptBy     string `json:"interrupt_by"`
	InterruptReason string `json:"interrupt_reason"`
	InterruptAt     Time   `json:"interrupt_at"`
}

func controlDoc(c record.Control) Control {
	return Control{Agent: c.Agent, Paused: c.Paused, PauseBy: c.PauseBy, PauseReason: c.PauseReason, PauseAt: Time{c.PauseAt},
		InterruptBy: c.InterruptBy, InterruptReason: c.InterruptReason, InterruptAt: Time{c.InterruptAt}}
}

// ControlRequest steers an agent: Action pause, resume or interrupt.
type ControlRequest struct {
	Agent  string
	Action string
	Reason string
}

// ControlResponse is the document of control: {"action", "control":
// control}.
type ControlResponse struct {
	Action  string  `json:"action"`
	Control Control `json:"control"`
}

// Control pauses, resumes or interrupts an agent, as the acting agent or
// the human overseer; recorded in the archive. The target sees it first
// in check and the prompt hook, and a wait of its returns on it; while
// paused, its writes are refused (PAUSED) but for state, its reads, check,
// wait and releasing what it holds.
func (s *Service) Control(ctx context.Context, sc Scope, req ControlRequest) (ControlResponse, error) {
	if req.Agent == "" {
		return ControlResponse{}, Usagef("name the agent to pause, resume or interrupt", "no agent to steer given")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return ControlResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return ControlResponse{}, err
	}
	c, err := x.mb.Control(ctx, req.Agent, req.Action, req.Reason)
	return ControlResponse{Action: req.Action, Control: controlDoc(c)}, err
}

// writable refuses a write of a paused acting agent (PAUSED).
func (x *session) writable(ctx context.Context) error { return x.mb.Writable(ctx) }

// Steering is what check puts first: the agent's pause and a new
// interrupt.
type Steering struct {
	// Paused is set while the agent is paused.
	Paused *Control `json:"paused,omitempty"`
	// Interrupt is set the first time check sees an interrupt.
	Interrupt *Control `json:"interrupt,omitempty"`
}

// steering reads the acting agent's control, marking a new interrupt
// shown when mark is set.
func steering(ctx context.Context, x *session, mark bool) (Steering, error) {
	a, err := x.mb.Attention(ctx, mark)
	if err != nil {
		return Steering{}, err
	}
	var out Steering
	doc := controlDoc(a.Control)
	if a.Control.Paused {
		out.Paused = &doc
	}
	if a.Fresh {
		out.Interrupt = &doc
	}
	return out, nil
}

// stuckAgents lists the project's agents that say they are stuck, but
// the acting one.
func stuckAgents(ctx context.Context, x *session, me string) ([]WorkState, error) {
	states, err := x.mb.States(ctx)
	if err != nil {
		return nil, err
	}
	out := []WorkState{}
	for _, st := range states {
		if st.State == "stuck" && !strings.EqualFold(st.Agent, me) {
			out = append(out, workDoc(st))
		}
	}
	slices.SortFunc(out, func(a, b WorkState) int { return a.Updated.Compare(b.Updated.Time) })
	return out, nil
}

// steered turns the end of a wait by a control into the wait's document.
func steered(err error) (*Control, bool) {
	var se *mailbox.SteeredError
	if !errors.As(err, &se) {
		return nil, false
	}
	doc := controlDoc(se.Control)
	return &doc, true
}
