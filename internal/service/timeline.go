package service

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/tasks"
)

// TimelinePage is how many items a timeline page holds when the request
// does not say, and TimelineMaxPage the most it may ask for: the timeline
// has no cap, it is paged with Next.
const (
	TimelinePage    = 50
	TimelineMaxPage = 500
)

// The kinds of a timeline's items.
const (
	KindMessage = "message" // a message sent
	KindPost    = "post"    // a post to a channel: a message with a topic and no recipients
	KindLease   = "lease"   // a reservation taken or released
	KindTask    = "task"    // a task created, claimed, unclaimed, started, closed or reopened
	KindState   = "state"   // an agent said what state it is in (its last word)
	KindControl = "control" // an agent paused, resumed or interrupted (the last of each)
)

// TimelineKinds are the kinds of a timeline's items, as its kinds filter
// names them.
var TimelineKinds = []string{KindMessage, KindPost, KindLease, KindTask, KindState, KindControl}

// TimelineRequest filters a project's timeline (the overseer's view of
// what happened: messages, posts, leases, task changes, agents' states
// and controls, newest first).
type TimelineRequest struct {
	Agent string `json:"agent,omitempty"` // items of this agent: messages it sent or received, its leases, claims, state, controls
	// Kinds keeps the items of these kinds (TimelineKinds); none: all.
	Kinds []string `json:"kinds,omitempty"`
	// Task keeps a task's items: its changes and the messages filed
	// under it (its thread); an id or a unique prefix of one.
	Task string `json:"task,omitempty"`
	// The filters below are messages' (and posts'): set, the timeline
	// holds only messages and posts.
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

// messagesOnly reports whether a filter of messages is set.
func (r TimelineRequest) messagesOnly() bool {
	return r.Category != "" || r.Importance != "" || r.Topic != "" || r.Unread || r.AwaitingAck
}

// TimelineItem is one thing that happened: Kind says what, and which of
// the documents it carries (a message or post: Message; a lease:
// Reservation; a task change: Task). Key is its place in the timeline,
// what a cursor names.
type TimelineItem struct {
	Kind  string `json:"kind"`
	Key   string `json:"key"`
	At    Time   `json:"at"`
	Agent string `json:"agent"` // the sender, the holder, the claimer, the agent whose state or control it is
	// Event says what happened to a lease (taken, released), a task
	// (created, claimed, unclaimed, started, closed, reopened), an agent
	// (its state: running, idle, stuck, done; a control: paused,
	// resumed, interrupted); "" for a message.
	Event string `json:"event,omitempty"`
	By    string `json:"by,omitempty"`   // who made a task change or a control ("" for the overseer's task change)
	Note  string `json:"note,omitempty"` // a state's note, a control's or a close's reason
	// The document of the item, by its kind.
	Message     *Message     `json:"message,omitempty"`
	Reservation *Reservation `json:"reservation,omitempty"`
	Task        *TaskRef     `json:"task,omitempty"`
}

// TaskRef names a task: its id and title.
type TaskRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// TimelineResponse is the timeline document: {"items": [...], "messages":
// [...], "next": cursor}. Messages are the messages and posts among the
// items, in the same order. Next is "" on the last page.
type TimelineResponse struct {
	Items    []TimelineItem `json:"items"`
	Messages []Message      `json:"messages"`
	Next     string         `json:"next"`
}

// Timeline lists what happened in a project, newest first, filtered and
// paged by req, as the overseer sees it: messages and posts, leases taken
// and released, task changes (from the index's records of each), and the
// last state and controls of each agent. An Agent that is not one of the
// project's is NOT_FOUND.
func (s *Service) Timeline(ctx context.Context, sc Scope, req TimelineRequest) (TimelineResponse, error) {
	switch {
	case req.Limit < 0:
		return TimelineResponse{}, UsageField("limit", "the limit must not be negative").With("max", TimelineMaxPage)
	case req.Limit > TimelineMaxPage:
		return TimelineResponse{}, UsageField("limit", "the limit is at most %d; page on with the response's next", TimelineMaxPage).With("max", TimelineMaxPage)
	case req.Limit == 0:
		req.Limit = TimelinePage
	}
	want := map[string]bool{}
	for _, k := range req.Kinds {
		if !slices.Contains(TimelineKinds, k) {
			return TimelineResponse{}, UsageField("kinds", "no kind %q: the kinds are %s", k, strings.Join(TimelineKinds, ", "))
		}
		want[k] = true
	}
	if len(want) == 0 {
		for _, k := range TimelineKinds {
			want[k] = true
		}
	}
	if req.messagesOnly() {
		want = map[string]bool{KindMessage: want[KindMessage], KindPost: want[KindPost]}
	}
	sc.Agent, sc.Watching = "", false // the overseer's view
	x, err := s.session(ctx, sc)
	if err != nil {
		return TimelineResponse{}, err
	}
	if req.Task != "" {
		t, err := tasks.New(x.st, x.project().Slug, "").Get(ctx, req.Task)
		if err != nil {
			return TimelineResponse{}, fault.WithField(err, "task")
		}
		req.Task = t.ID
		want = map[string]bool{KindMessage: want[KindMessage], KindPost: want[KindPost], KindTask: want[KindTask]}
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
	t := timeline{req: req, n: req.Limit + 1}
	for _, src := range []struct {
		kinds []string
		read  func(context.Context, *session, *timeline) error
	}{
		{[]string{KindMessage, KindPost}, timelineMessages},
		{[]string{KindLease}, timelineLeases},
		{[]string{KindTask}, timelineTasks},
		{[]string{KindState, KindControl}, timelineAgents},
	} {
		if slices.ContainsFunc(src.kinds, func(k string) bool { return want[k] }) {
			if err := src.read(ctx, x, &t); err != nil {
				return TimelineResponse{}, err
			}
		}
	}
	items := slices.DeleteFunc(t.items, func(it TimelineItem) bool { return !want[it.Kind] })
	slices.SortFunc(items, func(a, b TimelineItem) int { return cmp.Compare(b.Key, a.Key) })
	resp := TimelineResponse{Messages: []Message{}}
	if len(items) > req.Limit {
		items = items[:req.Limit]
		resp.Next = items[len(items)-1].Key
	}
	resp.Items = items
	for _, it := range items {
		if it.Message != nil {
			resp.Messages = append(resp.Messages, *it.Message)
		}
	}
	return resp, nil
}

// timeline gathers a page's items: each source adds at most n of those
// before the cursor, newest first, of which the page keeps the newest.
type timeline struct {
	req   TimelineRequest
	n     int
	items []TimelineItem
}

// before reports whether an item with key belongs after the cursor.
func (t *timeline) before(key string) bool { return t.req.Before == "" || key < t.req.Before }

// mine reports whether an item concerning these agents passes the agent
// filter.
func (t *timeline) mine(agents ...string) bool {
	return t.req.Agent == "" || slices.ContainsFunc(agents, func(a string) bool { return strings.EqualFold(a, t.req.Agent) })
}

// until is the latest time (in whole seconds, as records keep time) an
// item after the cursor may have: the cursor's own second, or the far
// future without one.
func (t *timeline) until() time.Time {
	if u, err := ulid.ParseStrict(t.req.Before); err == nil {
		return ulid.Time(u.Time()).Add(time.Second)
	}
	return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
}

// itemKey is the key of an item that is no message: a ULID of its time
// (sorting with the messages' ids, which are ULIDs of theirs) whose other
// bytes are drawn from what the item is, so that a page's cursor is
// stable.
func itemKey(at time.Time, what string) string {
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(at))
	sum := sha256.Sum256([]byte(what))
	copy(u[6:], sum[:10])
	return u.String()
}

// paged calls read with a growing limit until it gives n kept items or
// all there are: read returns how many rows it read and how many of them
// it kept (those its filters drop, or the cursor's second holds, do not
// count).
func paged(n int, read func(limit int) (rows, kept int, err error)) error {
	for limit := n; ; limit *= 4 {
		rows, kept, err := read(limit)
		if err != nil || kept >= n || rows < limit {
			return err
		}
	}
}

func timelineMessages(ctx context.Context, x *session, t *timeline) error {
	r := t.req
	q := mailbox.TimelineQuery{
		Agent: r.Agent, Category: r.Category, Importance: r.Importance, Topic: r.Topic,
		Unread: r.Unread, AwaitingAck: r.AwaitingAck, Before: r.Before, Limit: t.n,
	}
	if r.Task != "" {
		q.Thread = TaskThread(r.Task)
	}
	msgs, err := x.mb.Timeline(ctx, q)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		doc := messageDoc(m)
		kind := KindMessage
		if doc.Topic != "" && len(doc.To)+len(doc.Cc)+len(doc.Bcc) == 0 {
			kind = KindPost
		}
		t.items = append(t.items, TimelineItem{Kind: kind, Key: doc.ID, At: doc.Created, Agent: doc.From, Message: &doc})
	}
	return nil
}

func timelineLeases(ctx context.Context, x *session, t *timeline) error {
	res := x.overview()
	taken, err := res.Taken(ctx, t.req.Agent, t.req.Before, t.n)
	if err != nil {
		return err
	}
	for _, r := range taken {
		doc := reservationDoc(r)
		t.items = append(t.items, TimelineItem{Kind: KindLease, Key: r.ID, At: doc.Created, Agent: r.Agent, Event: "taken", Reservation: &doc})
	}
	until := t.until()
	var released []TimelineItem
	err = paged(t.n, func(limit int) (int, int, error) {
		rs, err := res.Released(ctx, t.req.Agent, until, limit)
		released = released[:0]
		for _, r := range rs {
			doc := reservationDoc(r)
			if key := itemKey(r.Released, "released "+r.ID); t.before(key) {
				released = append(released, TimelineItem{Kind: KindLease, Key: key, At: Time{r.Released}, Agent: r.Agent, Event: "released",
					By: r.ReleasedBy, Note: r.ReleaseReason, Reservation: &doc})
			}
		}
		return len(rs), len(released), err
	})
	t.items = append(t.items, released...)
	return err
}

// taskEvent says the task changes the timeline shows in words; the
// others (fields set, dependencies) are the task page's.
func taskEvent(o *record.TaskOp) string {
	switch o.Op {
	case record.TaskCreate:
		return "created"
	case record.TaskClaim:
		return "claimed"
	case record.TaskUnclaim:
		return "unclaimed"
	case record.TaskStatus:
		return map[string]string{"in_progress": "started", "closed": "closed", "open": "reopened"}[o.Status]
	}
	return ""
}

func timelineTasks(ctx context.Context, x *session, t *timeline) error {
	ts := tasks.New(x.st, x.project().Slug, "")
	var items []TimelineItem
	err := paged(t.n, func(limit int) (int, int, error) {
		log, err := ts.Recent(ctx, t.req.Task, t.req.Before, limit)
		items = items[:0]
		for _, c := range log {
			o := c.Op
			event := taskEvent(o)
			if event == "" || !t.mine(o.Agent, o.By) {
				continue
			}
			items = append(items, TimelineItem{Kind: KindTask, Key: o.ID, At: Time{o.At}, Agent: cmp.Or(o.Agent, o.By), Event: event, By: o.By,
				Note: o.Reason, Task: &TaskRef{ID: o.Task, Title: c.Title}})
		}
		return len(log), len(items), err
	})
	t.items = append(t.items, items...)
	return err
}

func timelineAgents(ctx context.Context, x *session, t *timeline) error {
	states, err := x.mb.States(ctx)
	if err != nil {
		return err
	}
	for _, st := range states {
		if key := itemKey(st.Updated, "state "+st.Agent); t.before(key) && t.mine(st.Agent) {
			t.items = append(t.items, TimelineItem{Kind: KindState, Key: key, At: Time{st.Updated}, Agent: st.Agent, Event: st.State, Note: st.Note})
		}
	}
	controls, err := x.mb.Controls(ctx)
	if err != nil {
		return err
	}
	for _, c := range controls {
		if !c.PauseAt.IsZero() {
			event := "resumed"
			if c.Paused {
				event = "paused"
			}
			if key := itemKey(c.PauseAt, "pause "+c.Agent); t.before(key) && t.mine(c.Agent, c.PauseBy) {
				t.items = append(t.items, TimelineItem{Kind: KindControl, Key: key, At: Time{c.PauseAt}, Agent: c.Agent, Event: event, By: c.PauseBy, Note: c.PauseReason})
			}
		}
		if !c.InterruptAt.IsZero() {
			if key := itemKey(c.InterruptAt, "interrupt "+c.Agent); t.before(key) && t.mine(c.Agent, c.InterruptBy) {
				t.items = append(t.items, TimelineItem{Kind: KindControl, Key: key, At: Time{c.InterruptAt}, Agent: c.Agent, Event: "interrupted",
					By: c.InterruptBy, Note: c.InterruptReason})
			}
		}
	}
	return nil
}
