package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
)

// HumanSender is the human overseer's mailbox: the sender of AsHuman mail,
// and a recipient every agent may write to (always delivered), which the
// overseer reads without being registered (Inbox, Outbox with Agent set
// to it).
const HumanSender = mailbox.HumanSender

// MaxSubject is the longest subject a message may have, in characters.
const MaxSubject = mailbox.MaxSubject

// IsHuman reports whether name stands for HumanSender, in any case.
func IsHuman(name string) bool { return mailbox.IsHuman(name) }

// Broadcast, as the only recipient, sends to every agent of the project
// but the sender (and those whose policy refuses broadcasts).
const Broadcast = mailbox.Broadcast

// DefaultReplyWait is how long SendAndWait waits for a reply when the
// request names no time.
const DefaultReplyWait = 2 * time.Minute

// pollInterval is how often waits look at the archive's head.
const pollInterval = 200 * time.Millisecond

// SendRequest is a message to send from the acting agent (or, AsHuman,
// from the human overseer).
type SendRequest struct {
	To, Cc, Bcc []string // agent names, or mailbox.Broadcast
	Subject     string
	Body        string // markdown, stored byte for byte
	Thread      string // a thread name, or a message id (or unique prefix) whose thread to join; "" starts one
	Importance  string // low, normal (""), high or urgent
	Ack         bool   // ask the recipients to acknowledge
	Category    string // HANDOFF, BLOCKED (both imply Ack), DECISION or INFO
	AsHuman     bool   // from mailbox.HumanSender: needs no agent, passes every contact policy
	// Topic is the channel the message is posted to; with a topic the
	// recipients may be left out (a post every agent of the project reads).
	Topic string
	// AttachmentPaths are files of the project's working tree to attach,
	// relative to Scope.Project.Dir (or absolute, inside the tree).
	AttachmentPaths []string
	// Attachments are files to attach sent by content (the HTTP API).
	Attachments []Upload
	// IdempotencyKey, when set, makes a retry (the same key from the same
	// sender within 24 hours) return the message the first call sent, and
	// send nothing.
	IdempotencyKey string
	// Task files the message under a task (its id or a prefix): in the
	// task's thread, TaskThread(id), which a Thread given too must not
	// contradict.
	Task string
}

// draft is the mailbox's draft of r, its attachments read (see
// attachments): the body and the attachments together within MaxBody.
func (s *Service) draft(ctx context.Context, x *session, r SendRequest) (mailbox.Draft, error) {
	if r.Task != "" {
		t, err := tasks.New(x.st, x.project().Slug, "").Get(ctx, r.Task)
		if err != nil {
			return mailbox.Draft{}, err
		}
		if r.Thread != "" && r.Thread != TaskThread(t.ID) {
			return mailbox.Draft{}, Usagef("give the task alone: its messages are filed in its thread", "a message about a task is filed in the task's thread %s, not %s", TaskThread(t.ID), r.Thread)
		}
		r.Thread = TaskThread(t.ID)
	}
	atts, err := s.attachments(x, r)
	if err != nil {
		return mailbox.Draft{}, err
	}
	return mailbox.Draft{To: r.To, Cc: r.Cc, Bcc: r.Bcc, Subject: r.Subject, Body: r.Body, Thread: r.Thread,
		Importance: r.Importance, AckRequired: r.Ack, Category: r.Category, AsHuman: r.AsHuman,
		Topic: r.Topic, Attachments: atts, IdempotencyKey: r.IdempotencyKey}, nil
}

// SendResponse is the document of send and reply: {"message": message}.
type SendResponse struct {
	Message Message `json:"message"`
	// SuggestedState: the sender said BLOCKED (the message's category)
	// and does not say it is stuck: the state it may set, so that the team
	// sees it (agents, check), with the subject as its note.
	SuggestedState *SuggestedState `json:"suggested_state,omitempty"`
}

// SuggestedState is a state an operation offers the acting agent to set.
type SuggestedState struct {
	State string `json:"state"`
	Note  string `json:"note"`
}

// blockedSuggestion offers the sender of m the state stuck when m says
// BLOCKED and the sender does not say it is stuck already.
func blockedSuggestion(ctx context.Context, x *session, m Message) (*SuggestedState, error) {
	if m.Category == nil || !strings.EqualFold(*m.Category, "BLOCKED") || mailbox.IsHuman(m.From) {
		return nil, nil
	}
	states, err := x.mb.States(ctx)
	if err != nil || states[m.From].State == "stuck" {
		return nil, err
	}
	return &SuggestedState{State: "stuck", Note: m.Subject}, nil
}

// Send delivers a message.
func (s *Service) Send(ctx context.Context, sc Scope, req SendRequest) (SendResponse, error) {
	if err := s.checkBody(req.Body); err != nil {
		return SendResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return SendResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return SendResponse{}, err
	}
	d, err := s.draft(ctx, x, req)
	if err != nil {
		return SendResponse{}, err
	}
	m, err := x.mb.Send(ctx, d)
	if err != nil {
		return SendResponse{}, err
	}
	resp := SendResponse{Message: messageDoc(m)}
	// The message is sent: a suggestion that cannot be made is left out,
	// not reported as a failure that would invite a second send.
	resp.SuggestedState, _ = blockedSuggestion(ctx, x, resp.Message)
	return resp, nil
}

// SendAndWaitRequest is a message to send, then how long to wait for the
// first reply in its thread from one of its recipients.
type SendAndWaitRequest struct {
	SendRequest
	Wait time.Duration // 0 means DefaultReplyWait
	// OnSent, when set, is told of the message once it is sent, before
	// the wait.
	OnSent func(Message) `json:"-"`
	// OnHold, when set, is told of each reply that asks for more time
	// (reply --hold); each extends the wait by its hold.
	OnHold func(Hold) `json:"-"`
}

// Hold is a reply that asks a waiting sender for more time.
type Hold struct {
	From string
	Hold time.Duration
	Body string
}

// SendAndWaitResponse is the document of send --wait: {"message":
// message, "reply": message + receipt + body or null, "timeout": bool},
// and on timeout "thread", the thread as it stands.
type SendAndWaitResponse struct {
	Message Message       `json:"message"`
	Reply   *FullMessage  `json:"reply"`
	Thread  []FullMessage `json:"thread,omitempty"`
	Timeout bool          `json:"timeout"` // no reply came in time, as in wait's document

	Waited time.Duration `json:"-"` // how long it was to wait, holds aside
}

// SendAndWait delivers a message and waits for the first reply in its
// thread from one of its recipients. On timeout the error wraps
// mailbox.ErrTimeout and the response holds the thread as it stands.
func (s *Service) SendAndWait(ctx context.Context, sc Scope, req SendAndWaitRequest) (SendAndWaitResponse, error) {
	wait := req.Wait
	if wait <= 0 {
		wait = DefaultReplyWait
	}
	if err := s.checkBody(req.Body); err != nil {
		return SendAndWaitResponse{}, err
	}
	if len(req.To)+len(req.Cc)+len(req.Bcc) == 0 && req.Topic != "" {
		return SendAndWaitResponse{}, Usagef("name the agents whose reply to wait for as recipients, or send the post without waiting",
			"a post to a topic has no recipients to wait for a reply from")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return SendAndWaitResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return SendAndWaitResponse{}, err
	}
	d, err := s.draft(ctx, x, req.SendRequest)
	if err != nil {
		return SendAndWaitResponse{}, err
	}
	sent, err := x.mb.Send(ctx, d)
	if err != nil {
		return SendAndWaitResponse{}, err
	}
	resp := SendAndWaitResponse{Message: messageDoc(sent), Waited: wait}
	if req.OnSent != nil {
		req.OnSent(resp.Message)
	}
	var onHold func(mailbox.Message)
	if req.OnHold != nil {
		onHold = func(m mailbox.Message) { req.OnHold(Hold{From: m.From, Hold: m.Hold, Body: m.Body}) }
	}
	reply, err := x.mb.WaitReply(ctx, sent, wait, pollInterval, onHold)
	if errors.Is(err, mailbox.ErrTimeout) {
		resp.Timeout = true
		if _, msgs, terr := x.mb.Thread(ctx, sent.Thread); terr == nil {
			resp.Thread = mapSlice(msgs, fullDoc)
		}
		return resp, err
	}
	if err != nil {
		return resp, err
	}
	full := fullDoc(reply)
	resp.Reply = &full
	return resp, nil
}

// ReplyRequest answers a message in its thread.
type ReplyRequest struct {
	ID   string // the message, or a unique prefix of 6+ characters
	All  bool   // to the sender and every other recipient
	Body string
	Hold time.Duration // ask a sender waiting with send --wait to wait this much longer
	// AsHuman replies as the human overseer (HumanSender): no agent
	// needed, any message of the project may be answered.
	AsHuman bool
	// IdempotencyKey: as SendRequest's.
	IdempotencyKey string
}

// Reply answers message req.ID in its thread: to its sender (or, with All,
// everyone but the acting agent), with "Re: " added once and the original's
// importance.
func (s *Service) Reply(ctx context.Context, sc Scope, req ReplyRequest) (SendResponse, error) {
	if req.Hold < 0 {
		return SendResponse{}, UsageField("hold", "the hold must not be negative").With("example", "10m")
	}
	if err := s.checkBody(req.Body); err != nil {
		return SendResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return SendResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return SendResponse{}, err
	}
	m, err := x.mb.Reply(ctx, req.ID, mailbox.ReplyDraft{All: req.All, Body: req.Body, Hold: req.Hold, AsHuman: req.AsHuman,
		IdempotencyKey: req.IdempotencyKey})
	if err != nil {
		return SendResponse{}, err
	}
	return SendResponse{Message: messageDoc(m)}, nil
}

// InboxRequest filters the acting agent's received messages.
type InboxRequest struct {
	Unread   bool
	Urgent   bool   // high and urgent only
	Category string // only this category
	// Since keeps messages since a date (2026-11-01), an RFC 3339 time,
	// or a duration ago (2h, 3d); "" keeps all.
	Since  string
	Limit  int  // at most this many, newest first; 0 is all
	Bodies bool // include each message's body
	// Before, a message id, lists the messages older than it: the page
	// after the one that ended there ("" starts at the newest).
	Before string
	// Abbreviate fills the response's Short, for display.
	Abbreviate bool
	// Topic keeps the messages of one topic.
	Topic string
}

// InboxMessage is a received message, with its body when asked for.
type InboxMessage struct {
	Received
	Body *string `json:"body,omitempty"`
}

// InboxResponse is the document of inbox: {"messages": [message +
// receipt...]}, each with "body" when bodies were asked for.
type InboxResponse struct {
	Messages []InboxMessage `json:"messages"`
	// Posts are the unread posts of the channels the agent subscribes to,
	// oldest first (on the first page of an unfiltered inbox).
	Posts []Message `json:"posts,omitempty"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// Inbox lists the acting agent's received messages, newest first, without
// changing their state.
func (s *Service) Inbox(ctx context.Context, sc Scope, req InboxRequest) (InboxResponse, error) {
	since, err := s.listWindow(req.Since, req.Limit)
	if err != nil {
		return InboxResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return InboxResponse{}, err
	}
	msgs, err := x.mb.Inbox(ctx, mailbox.InboxQuery{
		Unread: req.Unread, Urgent: req.Urgent, Category: req.Category, Since: since, Limit: req.Limit, Before: req.Before,
		Bodies: req.Bodies, Topic: req.Topic,
	})
	if err != nil {
		return InboxResponse{}, err
	}
	resp := InboxResponse{Messages: inboxMessages(msgs, req.Bodies)}
	if req.Before == "" && req.Topic == "" && req.Category == "" && !req.Urgent {
		if _, resp.Posts, err = newPosts(ctx, x, 0); err != nil {
			return resp, err
		}
	}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, append(mapSlice(msgs, messageID), mapSlice(resp.Posts, docID)...))
	return resp, err
}

// inboxMessages are msgs as a listing shows them, with their bodies when
// asked for.
func inboxMessages(msgs []mailbox.Message, bodies bool) []InboxMessage {
	out := make([]InboxMessage, len(msgs))
	for i, m := range msgs {
		out[i].Received = receivedDoc(m)
		if bodies {
			out[i].Body = &m.Body
		}
	}
	return out
}

// listWindow is a message listing's lower time bound from since, after
// checking since and then the limit (0 is all).
func (s *Service) listWindow(since string, limit int) (time.Time, error) {
	t, err := ParseSince(since, s.Now())
	if err != nil {
		return time.Time{}, err
	}
	if limit < 0 {
		return time.Time{}, UsageField("limit", "the limit must not be negative").With("all", "messages")
	}
	return t, nil
}

// messageID is a message's id, for mapSlice.
func messageID(m mailbox.Message) string { return m.ID }

// abbreviate returns the shortest unique prefixes of message ids, when
// asked for.
func (x *session) abbreviate(ctx context.Context, asked bool, list []string) (ids.Short, error) {
	if !asked {
		return nil, nil
	}
	return x.mb.ShortIDs(ctx, list)
}

// ParseSince reads a Since value: a date, an RFC 3339 time, or a
// duration back from now (with d for days).
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := parseSince(s, now)
	if err == nil && !record.InRange(t) {
		return time.Time{}, fault.WithHint(fault.WithField(fmt.Errorf("%w: since %q is %s, outside %d to %d", ErrInvalidArgument, s, t.Format(time.RFC3339),
			record.Earliest.Year(), record.Latest.Year()), "since"), "give a later date, or a shorter duration ago")
	}
	return t, err
}

func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := record.ParseTime(s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == days {
			return now.AddDate(0, 0, -n), nil // no Duration: 3000000d would overflow one
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	ue := UsageField("since", "cannot read since %q", s)
	ue.Hint = "use a date (2026-11-01), an RFC 3339 time, or a duration like 2h or 3d"
	return time.Time{}, ue
}

// OutboxRequest limits the list of sent messages.
type OutboxRequest struct {
	Limit      int    // at most this many, newest first; 0 is all
	Before     string // a message id: list the messages older than it ("" starts at the newest)
	Abbreviate bool   // fill the response's Short, for display
}

// OutboxResponse is the document of outbox: {"messages": [message...]}.
type OutboxResponse struct {
	Messages []Message `json:"messages"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
	// Received are the messages with the sender's own receipts (mail
	// to oneself has them), for display.
	Received []Received `json:"-"`
}

// Outbox lists the acting agent's sent messages, newest first.
func (s *Service) Outbox(ctx context.Context, sc Scope, req OutboxRequest) (OutboxResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return OutboxResponse{}, err
	}
	msgs, err := x.mb.Outbox(ctx, req.Limit, req.Before)
	if err != nil {
		return OutboxResponse{}, err
	}
	short, err := x.abbreviate(ctx, req.Abbreviate, mapSlice(msgs, messageID))
	return OutboxResponse{Messages: mapSlice(msgs, messageDoc), Short: short, Received: mapSlice(msgs, receivedDoc)}, err
}

// ShowResponse is the document of show: {"message": message + receipt +
// body}.
type ShowResponse struct {
	Message FullMessage `json:"message"`
}

// Show returns one message (id, or a unique prefix of 6+ characters) with
// its body, without marking it read. An agent sees only its own mail; a
// scope without one (a human), any message of the project.
func (s *Service) Show(ctx context.Context, sc Scope, id string) (ShowResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ShowResponse{}, err
	}
	m, err := x.mb.Show(ctx, id)
	if err != nil {
		return ShowResponse{}, err
	}
	return ShowResponse{Message: fullDoc(m)}, nil
}

// MarkRequest names messages to mark read, or acknowledged (and read).
type MarkRequest struct {
	IDs []string // ids or unique prefixes of 6+ characters
	// All marks every unread message of the inbox, or, with Ack, every
	// one asking for an acknowledgement not given yet.
	All        bool
	Ack        bool
	Abbreviate bool // fill the response's Short, for display
	// IdempotencyKey is checked and otherwise needs nothing: marking the
	// messages named again changes nothing and writes nothing (times
	// already set are kept).
	IdempotencyKey string
}

// MarkResponse is the document of read and ack: {"message": first,
// "messages": [all]}, each message + receipt + body.
type MarkResponse struct {
	Message  *FullMessage  `json:"message"`
	Messages []FullMessage `json:"messages"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// Mark records the time on the acting agent's receipts; marking again
// keeps the first time.
func (s *Service) Mark(ctx context.Context, sc Scope, req MarkRequest) (MarkResponse, error) {
	verb := map[bool]string{false: "read", true: "ack"}[req.Ack]
	switch {
	case len(req.IDs) == 0 && !req.All:
		return MarkResponse{}, UsageField("ids", "no message ids given").With("verb", verb)
	case len(req.IDs) > 0 && req.All:
		return MarkResponse{}, UsageField("ids", "give message ids or all of them, not both").With("verb", verb)
	}
	if err := store.CheckKey(req.IdempotencyKey); err != nil {
		return MarkResponse{}, err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return MarkResponse{}, err
	}
	msgs, err := x.mb.Mark(ctx, req.IDs, req.All, req.Ack)
	if err != nil {
		return MarkResponse{}, err
	}
	resp := MarkResponse{Messages: mapSlice(msgs, fullDoc)}
	if len(resp.Messages) > 0 {
		resp.Message = &resp.Messages[0]
	}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, mapSlice(msgs, messageID))
	return resp, err
}

// ThreadResponse is the document of thread: {"thread": "NAME", "messages":
// [message + receipt + body...]}.
type ThreadResponse struct {
	Messages []FullMessage `json:"messages"`
	Thread   string        `json:"thread"`
}

// Thread returns the thread ref names (a thread name, or a message id or
// prefix whose thread is meant), oldest first, as the viewer may see it.
func (s *Service) Thread(ctx context.Context, sc Scope, ref string) (ThreadResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ThreadResponse{}, err
	}
	thread, msgs, err := x.mb.Thread(ctx, ref)
	if err != nil {
		return ThreadResponse{}, err
	}
	return ThreadResponse{Messages: mapSlice(msgs, fullDoc), Thread: thread}, nil
}

// ThreadAroundResponse is a message's thread around it: {"thread",
// "messages": [message with body...], "total"}, total being how many
// messages the thread has in all.
type ThreadAroundResponse struct {
	Thread   string        `json:"thread"`
	Messages []FullMessage `json:"messages"`
	Total    int           `json:"total"`
}

// ThreadAround returns, of the thread of the message id, at most n
// messages before it and n from it on, oldest first, and how many it has
// (mailbox.Mailbox.ThreadAround): for a page showing the message.
func (s *Service) ThreadAround(ctx context.Context, sc Scope, id string, n int) (ThreadAroundResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ThreadAroundResponse{}, err
	}
	thread, msgs, total, err := x.mb.ThreadAround(ctx, id, n)
	if err != nil {
		return ThreadAroundResponse{}, err
	}
	return ThreadAroundResponse{Thread: thread, Messages: mapSlice(msgs, fullDoc), Total: total}, nil
}

// SearchRequest is a full-text search.
type SearchRequest struct {
	Query      string // the fts query language
	All        bool   // the whole project, not only the acting agent's mail
	Limit      int    // at most this many results; 0 is all
	Offset     int    // skip this many of the best results first (the next page)
	Abbreviate bool   // fill the response's Short, for display
}

// SearchResponse is the document of search: {"results": [...], "notes":
// [...]}, best matches first; notes say which parts of the query were
// ignored or read differently from how they were typed.
type SearchResponse struct {
	Results []SearchHit `json:"results"`
	Notes   []string    `json:"notes"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// Search runs a query. An agent sees the mail it sent or received; with
// All, or with no agent (a human), the whole project.
func (s *Service) Search(ctx context.Context, sc Scope, req SearchRequest) (SearchResponse, error) {
	if req.Limit < 0 {
		return SearchResponse{}, UsageField("limit", "the limit must not be negative").With("all", "results")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return SearchResponse{}, err
	}
	viewer, err := x.mb.Viewer(ctx)
	if err != nil {
		return SearchResponse{}, err
	}
	// fts ranks the project's messages as the viewer may see them; the
	// mailbox shows those found.
	found, err := fts.Search(ctx, x.st, fts.Request{Project: x.mb.ProjectID(), Viewer: viewer, All: req.All, Query: req.Query, Limit: req.Limit, Offset: req.Offset})
	if err != nil {
		return SearchResponse{}, err
	}
	ids := mapSlice(found.Hits, func(h fts.Hit) string { return h.ID })
	msgs, err := x.mb.Messages(ctx, viewer, ids)
	if err != nil {
		return SearchResponse{}, fmt.Errorf("search: %w", err)
	}
	hits := make(map[string]fts.Hit, len(found.Hits))
	for _, h := range found.Hits {
		hits[h.ID] = h
	}
	resp := SearchResponse{Results: make([]SearchHit, len(msgs)), Notes: append([]string{}, found.Notes...)}
	for i, m := range msgs {
		resp.Results[i] = searchHitDoc(m, hits[m.ID])
	}
	resp.Short, err = x.abbreviate(ctx, req.Abbreviate, ids)
	return resp, err
}
