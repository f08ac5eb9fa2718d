package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
)

// PublishRequest is a post to a channel: a message with a topic and no
// recipients, which every agent of the project may read and which reaches
// the channel's subscribers' check, inbox, wait and poll.
type PublishRequest struct {
	Topic   string
	Subject string // "" takes the body's first line (a payload's: "post to TOPIC")
	Body    string // markdown, stored byte for byte
	// Payload is a JSON document to post as the body instead (checked to
	// be JSON, stored as given).
	Payload    string
	Importance string
	Thread     string
	// IdempotencyKey: as SendRequest's.
	IdempotencyKey string
	AsHuman        bool // from HumanSender, the overseer: needs no agent
}

// postPollInterval is how often Poll looks at the archive's head (a read
// of its refs) for a new post: a post reaches a waiting poll within it.
const postPollInterval = 20 * time.Millisecond

// maxDerivedSubject is how much of a post's first line becomes its
// subject when it is given none.
const maxDerivedSubject = 80

// Publish posts to a channel.
func (s *Service) Publish(ctx context.Context, sc Scope, req PublishRequest) (SendResponse, error) {
	body := req.Body
	if req.Payload != "" {
		if body != "" {
			return SendResponse{}, Usagef("give the post a body or a JSON payload, not both", "both a body and a payload were given")
		}
		if !json.Valid([]byte(req.Payload)) {
			return SendResponse{}, Usagef("give a JSON document as the payload, such as {\"job\": 1}", "the payload is not valid JSON")
		}
		body = req.Payload
	}
	subject := strings.TrimSpace(req.Subject)
	if subject == "" {
		subject = "post to " + strings.TrimSpace(req.Topic)
		if req.Payload == "" {
			line, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
			if line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); line != "" {
				subject = truncateRunes(line, maxDerivedSubject)
			}
		}
	}
	if strings.TrimSpace(req.Topic) == "" {
		return SendResponse{}, Usagef("name the channel to post to", "no channel given")
	}
	return s.Send(ctx, sc, SendRequest{Topic: req.Topic, Subject: subject, Body: body, Importance: req.Importance,
		Thread: req.Thread, IdempotencyKey: req.IdempotencyKey, AsHuman: req.AsHuman})
}

// truncateRunes cuts s to at most n runes, marking a cut with "…".
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Channel is a channel an agent subscribes to: {"topic","since","unread"}.
type Channel struct {
	Topic  string `json:"topic"`
	Since  Time   `json:"since"`
	Unread int    `json:"unread"` // posts by others since it subscribed, after its reading position
}

// SubscriptionsResponse is the document of subscribe, unsubscribe and
// subscriptions: {"subscriptions": [channel...]}, and for the first two
// the topic and whether anything changed.
type SubscriptionsResponse struct {
	Topic         string    `json:"topic,omitempty"`
	Changed       *bool     `json:"changed,omitempty"`
	Subscriptions []Channel `json:"subscriptions"`
}

// Subscribe makes the acting agent follow a channel (on) or stop
// following it. Remembered in the archive: it syncs with the project.
func (s *Service) Subscribe(ctx context.Context, sc Scope, topic string, on bool) (SubscriptionsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return SubscriptionsResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return SubscriptionsResponse{}, err
	}
	t, changed, err := x.mb.Subscribe(ctx, topic, on)
	if err != nil {
		return SubscriptionsResponse{}, err
	}
	resp, err := channels(ctx, x)
	resp.Topic, resp.Changed = t, &changed
	return resp, err
}

// Subscriptions lists the channels the acting agent follows.
func (s *Service) Subscriptions(ctx context.Context, sc Scope) (SubscriptionsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return SubscriptionsResponse{}, err
	}
	return channels(ctx, x)
}

func channels(ctx context.Context, x *session) (SubscriptionsResponse, error) {
	list, err := x.mb.Channels(ctx)
	return SubscriptionsResponse{Subscriptions: mapSlice(list, func(c mailbox.Channel) Channel {
		return Channel{Topic: c.Topic, Since: Time{Time: c.Since}, Unread: c.Unread}
	})}, err
}

// PollRequest says which channel to wait on, and how long.
type PollRequest struct {
	Topic   string
	Timeout time.Duration // 0 looks once
}

// PollResponse is the document of poll: {"message": message + body or
// null, "timeout": bool}.
type PollResponse struct {
	Message *FullMessage `json:"message"`
	Timeout bool         `json:"timeout"`
}

// Poll blocks until a post to the channel the acting agent has not read
// arrives (the first after its reading position in the channel, else
// after it subscribed, else after the call began), returns it and marks
// it read. On timeout the error wraps ErrTimeout and the response says
// so.
func (s *Service) Poll(ctx context.Context, sc Scope, req PollRequest) (PollResponse, error) {
	if req.Timeout < 0 {
		return PollResponse{}, Usagef("pass a duration such as 30s (0 looks once)", "the timeout must not be negative, got %s", req.Timeout)
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return PollResponse{}, err
	}
	m, err := x.mb.Poll(ctx, req.Topic, req.Timeout, postPollInterval)
	if errors.Is(err, mailbox.ErrTimeout) {
		return PollResponse{Timeout: true}, err
	}
	if err != nil {
		return PollResponse{}, err
	}
	full := fullDoc(m)
	return PollResponse{Message: &full}, nil
}

// newPosts is what check and inbox add of the agent's channels: how many
// posts wait and the oldest few.
func newPosts(ctx context.Context, x *session, limit int) (int, []Message, error) {
	n, list, err := x.mb.NewPosts(ctx, limit)
	if err != nil {
		return 0, nil, fmt.Errorf("new posts: %w", err)
	}
	return n, mapSlice(list, messageDoc), nil
}
