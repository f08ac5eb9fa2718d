package service

import (
	"context"
	"errors"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/tasks"
)

// CheckRequest is the cheap "anything for me?" of an agent's per-step
// hook.
type CheckRequest struct {
	Newest     int  // how many of the newest unread messages to list
	Abbreviate bool // fill the response's Short, for display
}

// CheckResponse is the document of check.
type CheckResponse struct {
	AwaitingAck     int `json:"awaiting_ack"`     // received, ack requested, not acknowledged
	ContactRequests int `json:"contact_requests"` // requests to write to the agent it has not answered
	// HoldsTask: the agent holds a task that is not closed.
	HoldsTask bool      `json:"holds_task"`
	Messages  []Message `json:"messages"` // the newest unread
	// ReadyTasks counts the ready tasks (at most 100) when the agent holds
	// none, else 0.
	ReadyTasks int `json:"ready_tasks"`
	Unread     int `json:"unread"`
	Urgent     int `json:"urgent"` // unread and high or urgent
	// Posts counts the unread posts of the channels the agent subscribes
	// to; NewPosts lists the oldest of them.
	Posts    int       `json:"posts"`
	NewPosts []Message `json:"new_posts"`
	// Paused and Interrupt steer the agent (shown first); Stuck are the
	// team's agents that say they are stuck.
	Steering
	Stuck []WorkState `json:"stuck"`
	// RulesChanged: the agent's rules (invariants and playbook) changed
	// since it last read them.
	RulesChanged *RulesChange `json:"rules_changed,omitempty"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
	// HooksWarning: git no longer runs the guard's hooks in the repository.
	HooksWarning *HooksWarning `json:"-"`
}

// Waiting reports whether unread mail, a contact request, a post of a
// subscribed channel, a pause, an interrupt, a stuck teammate or, for an
// agent that holds no task, ready work waits.
func (r CheckResponse) Waiting() bool {
	return r.Unread+r.ContactRequests+r.Posts+len(r.Stuck)+r.ReadyTasks > 0 || r.Paused != nil || r.Interrupt != nil || r.RulesChanged != nil
}

// Check counts the acting agent's unread, urgent and unacknowledged mail
// and open contact requests, lists the newest unread messages, and, when
// the agent holds no task, counts the ready ones.
func (s *Service) Check(ctx context.Context, sc Scope, req CheckRequest) (CheckResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return CheckResponse{}, err
	}
	sum, err := x.mb.Check(ctx, req.Newest)
	if err != nil {
		return CheckResponse{}, err
	}
	resp := CheckResponse{AwaitingAck: sum.AwaitingAck, ContactRequests: sum.ContactRequests,
		Messages: mapSlice(sum.Newest, messageDoc), Unread: sum.Unread, Urgent: sum.Urgent, HooksWarning: GuardHooksWarning(x.project())}
	if resp.HoldsTask, resp.ReadyTasks, err = tasks.New(x.st, x.project().Slug, sum.Agent).Waiting(ctx); err != nil {
		return CheckResponse{}, err
	}
	if resp.Posts, resp.NewPosts, err = newPosts(ctx, x, req.Newest); err != nil {
		return resp, err
	}
	if resp.Steering, err = steering(ctx, x, true); err != nil {
		return resp, err
	}
	if resp.Stuck, err = stuckAgents(ctx, x, sc.Agent); err != nil {
		return resp, err
	}
	if resp.RulesChanged, err = rulesChanged(ctx, x, sc.Agent); err != nil {
		return resp, err
	}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, append(mapSlice(sum.Newest, messageID), mapSlice(resp.NewPosts, docID)...))
	return resp, err
}

// docID is a message document's id, for mapSlice.
func docID(m Message) string { return m.ID }

// WaitRequest says what new mail to wait for, and how long.
type WaitRequest struct {
	Timeout time.Duration // 0 checks once
	Thread  string        // only mail in this thread (a name, or a message id or prefix)
	From    string        // only mail from this agent
	Urgent  bool          // only high and urgent mail
	// Topic waits for the next post to this channel instead (as Poll,
	// which marks it read).
	Topic string
}

// WaitResponse is the document of wait: {"messages": [message + receipt +
// body...], "timeout": bool}.
type WaitResponse struct {
	Messages []FullMessage `json:"messages"`
	Timeout  bool          `json:"timeout"` // nothing arrived in time
	// Control is set when the wait ended because the agent was paused,
	// resumed or interrupted meanwhile.
	Control *Control `json:"control,omitempty"`
}

// Wait blocks until unread mail matching req arrives for the acting agent
// after the call began, and returns it; or until the agent is paused,
// resumed or interrupted (the response's Control). On timeout the error wraps
// mailbox.ErrTimeout and the response says so.
func (s *Service) Wait(ctx context.Context, sc Scope, req WaitRequest) (WaitResponse, error) {
	if req.Timeout < 0 {
		return WaitResponse{}, UsageField("timeout", "the timeout must not be negative, got %s", req.Timeout).With("example", "5m")
	}
	if req.Topic != "" {
		if req.Thread != "" || req.From != "" || req.Urgent {
			return WaitResponse{}, Usagef("wait for a channel's post alone, or for mail by thread, sender or urgency", "a topic cannot be combined with the mail filters")
		}
		p, err := s.Poll(ctx, sc, PollRequest{Topic: req.Topic, Timeout: req.Timeout})
		resp := WaitResponse{Messages: []FullMessage{}, Timeout: p.Timeout}
		if p.Message != nil {
			resp.Messages = append(resp.Messages, *p.Message)
		}
		return resp, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return WaitResponse{}, err
	}
	msgs, err := x.mb.Wait(ctx, mailbox.WaitFilter{Thread: req.Thread, From: req.From, Urgent: req.Urgent, Steered: true}, req.Timeout, pollInterval)
	if c, ok := steered(err); ok {
		return WaitResponse{Messages: []FullMessage{}, Control: c}, nil
	}
	timedOut := errors.Is(err, mailbox.ErrTimeout)
	if err != nil && !timedOut {
		return WaitResponse{}, err
	}
	return WaitResponse{Messages: mapSlice(msgs, fullDoc), Timeout: timedOut}, err
}

// WaitWorkResponse is the document of wait --work: work's {"mine":
// [task...], "ready": [task...]} and "timeout" (true, with no tasks, when
// no task became ready in time).
type WaitWorkResponse struct {
	WorkResponse
	Timeout bool `json:"timeout"`
}

// WaitWork blocks until a task is ready in sc's project, or returns at
// once when one is, and returns what Work returns then (limit: as Work's).
// On timeout the error wraps ErrTimeout and the response says so.
func (s *Service) WaitWork(ctx context.Context, sc Scope, timeout time.Duration, limit int) (WaitWorkResponse, error) {
	if timeout < 0 {
		return WaitWorkResponse{}, UsageField("timeout", "the timeout must not be negative, got %s", timeout).With("example", "5m")
	}
	if limit < 0 {
		return WaitWorkResponse{}, Usagef("", "the limit must be positive, got %d", limit)
	}
	_, ts, _, err := s.tasks(ctx, sc, sc.Agent != "")
	if err != nil {
		return WaitWorkResponse{}, err
	}
	mine, ready, err := ts.WaitReady(ctx, limit, timeout, pollInterval)
	if errors.Is(err, tasks.ErrTimeout) {
		return WaitWorkResponse{WorkResponse: WorkResponse{Mine: []Task{}, Ready: []Task{}}, Timeout: true}, err
	}
	if err != nil {
		return WaitWorkResponse{}, err
	}
	r := WaitWorkResponse{WorkResponse: workResponse(mine, ready)}
	return r, nil
}

// ReceivedResponse is the document of acks pending: {"messages": [message
// + receipt...]}.
type ReceivedResponse struct {
	Messages []Received `json:"messages"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// PendingAcks lists the messages the acting agent was asked to acknowledge
// and has not, oldest first; abbreviate fills the response's Short.
func (s *Service) PendingAcks(ctx context.Context, sc Scope, abbreviate bool) (ReceivedResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ReceivedResponse{}, err
	}
	msgs, err := x.mb.PendingAcks(ctx)
	if err != nil {
		return ReceivedResponse{}, err
	}
	short, err := x.abbreviate(ctx, abbreviate, mapSlice(msgs, messageID))
	return ReceivedResponse{Messages: mapSlice(msgs, receivedDoc), Short: short}, err
}

// OverdueRequest chooses the overdue acknowledgements to list.
type OverdueRequest struct {
	Older      time.Duration // only messages sent longer ago than this
	Abbreviate bool          // fill the response's Short, for display
}

// Overdue is a sent message still waiting for acknowledgements.
type Overdue struct {
	Message
	WaitingFor []string `json:"waiting_for"` // recipients who have not acknowledged
}

// OverdueResponse is the document of acks overdue: {"messages": [message
// + "waiting_for"...]}.
type OverdueResponse struct {
	Messages []Overdue `json:"messages"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// OverdueAcks lists the messages the acting agent sent, asking for an
// acknowledgement, longer ago than req.Older, that some recipient has not
// acknowledged, oldest first.
func (s *Service) OverdueAcks(ctx context.Context, sc Scope, req OverdueRequest) (OverdueResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return OverdueResponse{}, err
	}
	list, err := x.mb.OverdueAcks(ctx, req.Older)
	if err != nil {
		return OverdueResponse{}, err
	}
	resp := OverdueResponse{Messages: mapSlice(list, func(o mailbox.Overdue) Overdue { return Overdue{messageDoc(o.Message), o.Waiting} })}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, mapSlice(list, func(o mailbox.Overdue) string { return o.ID }))
	return resp, err
}
