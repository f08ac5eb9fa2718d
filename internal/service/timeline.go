package service

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
)

// TimelinePage is how many items a timeline page holds when the request
// does not say, and TimelineMaxPage the most it may ask for: the timeline
// has no cap, it is paged with Next.
const (
	TimelinePage    = 50
	TimelineMaxPage = 500
)

// TimelineRequest filters a project's timeline (the overseer's view of
// its mail: every message and post, newest first).
type TimelineRequest struct {
	Agent       string `json:"agent,omitempty"`      // messages it sent or received
	Category    string `json:"category,omitempty"`   // HANDOFF, BLOCKED, DECISION or INFO
	Importance  string `json:"importance,omitempty"` // low, normal, high or urgent
	Topic       string `json:"topic,omitempty"`      // messages of one topic
	Unread      bool   `json:"unread,omitempty"`     // some recipient (Agent) has not read it
	AwaitingAck bool   `json:"awaiting_ack,omitempty"`
	// Before is the cursor: the Next of the page before ("" starts at
	// the newest).
	Before string `json:"before,omitempty"`
	Limit  int    `json:"limit,omitempty"` // 0 is TimelinePage
}

// TimelineResponse is the timeline document: {"messages": [...], "next":
// cursor}. Next is "" on the last page.
type TimelineResponse struct {
	Messages []Message `json:"messages"`
	Next     string    `json:"next"`
}

// Timeline lists a project's messages and posts, newest first, filtered
// and paged by req, as the overseer sees them. An Agent that is not one
// of the project's is NOT_FOUND.
func (s *Service) Timeline(ctx context.Context, sc Scope, req TimelineRequest) (TimelineResponse, error) {
	switch {
	case req.Limit < 0:
		return TimelineResponse{}, UsageField("limit", "the limit must not be negative").With("max", TimelineMaxPage)
	case req.Limit > TimelineMaxPage:
		return TimelineResponse{}, UsageField("limit", "the limit is at most %d; page on with the response's next", TimelineMaxPage).With("max", TimelineMaxPage)
	case req.Limit == 0:
		req.Limit = TimelinePage
	}
	sc.Agent, sc.Watching = "", false // the overseer's view
	x, err := s.session(ctx, sc)
	if err != nil {
		return TimelineResponse{}, err
	}
	if req.Agent != "" && !IsHuman(req.Agent) {
		a, ok, err := x.mb.Lookup(ctx, req.Agent)
		if err != nil {
			return TimelineResponse{}, err
		}
		if !ok {
			return TimelineResponse{}, fault.WithField(fmt.Errorf("%w: no agent %s in project %s", ErrNotFound, req.Agent, x.project().Slug), "agent")
		}
		req.Agent = a.Name
	}
	msgs, err := x.mb.Timeline(ctx, mailbox.TimelineQuery{
		Agent: req.Agent, Category: req.Category, Importance: req.Importance, Topic: req.Topic,
		Unread: req.Unread, AwaitingAck: req.AwaitingAck, Before: req.Before, Limit: req.Limit + 1,
	})
	if err != nil {
		return TimelineResponse{}, err
	}
	resp := TimelineResponse{}
	if len(msgs) > req.Limit {
		msgs = msgs[:req.Limit]
		resp.Next = msgs[len(msgs)-1].ID
	}
	resp.Messages = mapSlice(msgs, messageDoc)
	return resp, nil
}
