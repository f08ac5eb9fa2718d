package events

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/service"
)

// The event types, which are the SSE event names.
const (
	TypeMessage     = "message"
	TypeReceipt     = "receipt"
	TypeReservation = "reservation"
	TypeLock        = "lock"
	TypeContact     = "contact"
	TypeAgent       = "agent"
	// TypePost is a post to a channel: a message with a topic and no
	// recipients, one event for the channel (its Agent is the sender).
	TypePost = "post"
	// TypeState is an agent saying what state its work is in; TypeControl
	// an agent paused, resumed or interrupted (its Agent is the target).
	TypeState   = "state"
	TypeControl = "control"
	// TypeTask is a task changed (created, updated, claimed, unclaimed,
	// started, closed, reopened); TypeWork a task that became ready.
	TypeTask = "task"
	TypeWork = "work"
)

// Types lists every event type.
var Types = []string{TypeMessage, TypeReceipt, TypeReservation, TypeLock, TypeContact, TypeAgent, TypePost, TypeState, TypeControl, TypeTask, TypeWork}

// The states of leases (reservations and locks).
const (
	StateTaken    = "taken"
	StateRenewed  = "renewed"
	StateReleased = "released"
	StateExpired  = "expired"
)

// The states of tasks (TypeTask), and of work (TypeWork).
const (
	StateCreated   = "created"
	StateUpdated   = "updated" // its fields or dependencies changed
	StateClaimed   = "claimed"
	StateUnclaimed = "unclaimed"
	StateStarted   = "started"  // moved to in_progress
	StateClosed    = "closed"   // closed, with its reason
	StateReopened  = "reopened" // moved back to open
	StateAvailable = "available"
)

// Event is one change in a project's archive; its JSON form is the data of
// the SSE event. Exactly one of the documents is set, the one its Type
// names.
type Event struct {
	// ID is the SSE id: "<commit>:<n>", the n-th event (from 0) of the
	// commit; "" for an expiry, which no commit makes.
	ID      string `json:"-"`
	Type    string `json:"type"`
	Project string `json:"project"`
	// Agent is whom the event concerns: the recipient of a message, the
	// reader of a receipt, the holder of a reservation or lock, the agent
	// asked by a contact request, the agent whose profile changed, the
	// agent that claimed or unclaimed a task or changed it otherwise (""
	// for the human overseer); "" for work, which concerns every agent.
	Agent string `json:"agent"`
	// State: taken, renewed, released or expired (leases); read or acked
	// (receipts); requested, approved or denied (contacts); registered or
	// updated (agents); created, updated, claimed, unclaimed, started,
	// closed or reopened (tasks); available (work); absent for messages.
	State string `json:"state,omitempty"`
	// Topic is the topic of a message or post that has one.
	Topic string `json:"topic,omitempty"`
	// Commit is the archive commit that made the change; for an expiry,
	// the project's head when it expired.
	Commit string `json:"commit"`
	// Time is when the change was committed, or when the lease expired.
	Time string `json:"time"`

	Message     *service.Message     `json:"message,omitempty"`
	Receipt     *Receipt             `json:"receipt,omitempty"`
	Reservation *service.Reservation `json:"reservation,omitempty"`
	Lock        *service.Lock        `json:"lock,omitempty"`
	Contact     *service.Contact     `json:"contact,omitempty"`
	Profile     *service.Agent       `json:"profile,omitempty"`
	Work        *service.WorkState   `json:"work,omitempty"`
	Control     *service.Control     `json:"control,omitempty"`
	// Task: a task event's task as its commit leaves it; work's task,
	// which just became ready.
	Task *service.Task `json:"task,omitempty"`
}

// Receipt is the document of a receipt event: one agent's read and ack
// times of one message.
type Receipt struct {
	Message string       `json:"message"`
	Agent   string       `json:"agent"`
	ReadAt  service.Time `json:"read_at"`
	AckedAt service.Time `json:"acked_at"`
}

// concerns reports whether the event is about agent (names compare
// ignoring case, as agent names are unique): its Agent, or either side of
// a contact request; work concerns every agent.
func (e *Event) concerns(agent string) bool {
	if e.Type == TypeWork || strings.EqualFold(e.Agent, agent) {
		return true
	}
	return e.Contact != nil && (strings.EqualFold(e.Contact.From, agent) || strings.EqualFold(e.Contact.To, agent))
}

// position is an event's place in a project's history: the event n of
// commit.
type position struct {
	commit string
	n      int
}

// errBadID reports a Last-Event-ID that names no event of the project.
var errBadID = errors.New("not an event of this project")

// parseID reads an event id, "<commit>:<n>", or a commit alone, which
// stands after the last event of that commit.
func parseID(id string) (position, error) {
	commit, num, ok := strings.Cut(id, ":")
	n, err := strconv.Atoi(num)
	if !ok {
		n, err = math.MaxInt32, nil // a commit alone: after all its events
	}
	if err != nil || n < 0 || len(commit) != 40 || strings.Trim(strings.ToLower(commit), "0123456789abcdef") != "" {
		return position{}, fmt.Errorf("%q: %w", id, errBadID)
	}
	return position{strings.ToLower(commit), n}, nil
}

// reader reads what the events of a commit are made of from the archive.
type reader interface {
	ReadCommit(rev string) (archive.CommitInfo, error)
	Changes(from, to string, skip archive.Skip, fn func(path string, data []byte) error) error
	ReadFile(rev, p string) ([]byte, error)
}

// commitEvents returns the events of commit c of the project slug, in the
// order of the changed paths. A commit is compared with its parent; a
// merge with each of its parents, and only the files that differ from all
// of them count: the rest came in by the commits the merge joined, which
// have events of their own.
func commitEvents(arc reader, slug string, c archive.CommitInfo) ([]Event, error) {
	changed, err := changedFiles(arc, slug, c)
	if err != nil {
		return nil, err
	}
	before, log := parentFiles(arc, c), taskLog(arc, slug, c)
	var out []Event
	for _, f := range changed {
		evs, err := fileEvents(slug, f, before, log)
		if err != nil {
			return nil, fmt.Errorf("events of %s: %w", c.Hash, err)
		}
		out = append(out, evs...)
	}
	return numbered(slug, c, out), nil
}

// writtenEvents is commitEvents of a commit this process wrote, made of
// the files it wrote (see Feed.Written): in path order, each path once,
// inbox and outbox copies left out. They stand for the comparison with
// the parent: a message's file is new (its name holds the message's id,
// and a message is written once), and any other file counts if it differs
// from the parent's, which is read (a record written again unchanged, such
// as a lease renewed twice in a second, changes nothing in git).
func writtenEvents(arc reader, slug string, c archive.CommitInfo, files []record.File) ([]Event, error) {
	before, log := parentFiles(arc, c), taskLog(arc, slug, c)
	var out []Event
	for _, f := range files {
		rec, err := record.Decode(record.ProjectDir(slug)+"/"+f.Path, f.Data)
		if err != nil || rec == nil {
			continue // as fileEvents
		}
		prev := before
		if _, isMessage := rec.(*record.Message); !isMessage {
			old, err := before(f.Path)
			if err != nil {
				return nil, fmt.Errorf("events of %s: %w", c.Hash, err)
			}
			if old != nil && bytes.Equal(old, f.Data) {
				continue
			}
			prev = func(string) ([]byte, error) { return old, nil }
		}
		evs, err := recordEvents(slug, f.Path, rec, prev, log)
		if err != nil {
			return nil, fmt.Errorf("events of %s: %w", c.Hash, err)
		}
		out = append(out, evs...)
	}
	return numbered(slug, c, out), nil
}

// numbered gives the events of commit c of the project slug their ids,
// project, commit and time.
func numbered(slug string, c archive.CommitInfo, evs []Event) []Event {
	at := record.FormatTime(c.Time)
	for i := range evs {
		evs[i].ID = c.Hash + ":" + strconv.Itoa(i)
		evs[i].Project, evs[i].Commit, evs[i].Time = slug, c.Hash, at
	}
	return evs
}

// skipCopies is the Skip of the project slug's branch that leaves the
// inbox and outbox copies out: the canonical message stands for them.
func skipCopies(slug string) archive.Skip {
	return func(dir string) bool { return record.SkipCopies(record.ProjectDir(slug) + "/" + dir) }
}

// changedFiles returns the files of commit c that differ from its parent,
// or, for a merge, from every parent; inbox and outbox copies are left
// out.
func changedFiles(arc reader, slug string, c archive.CommitInfo) ([]record.File, error) {
	skip := skipCopies(slug)
	parents := c.Parents
	if len(parents) == 0 {
		parents = []string{""}
	}
	var files []record.File
	count := map[string]int{}
	for i, p := range parents {
		err := arc.Changes(p, c.Hash, skip, func(path string, data []byte) error {
			count[path]++
			if i == 0 {
				files = append(files, record.File{Path: path, Data: data})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("events of %s: %w", c.Hash, err)
		}
	}
	kept := files[:0]
	for _, f := range files {
		if count[f.Path] == len(parents) {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// parentFiles returns what a file of the project's branch held in the
// first parent of commit c: nil for a file it did not have, or for a
// commit without parent.
func parentFiles(arc reader, c archive.CommitInfo) func(path string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if len(c.Parents) == 0 {
			return nil, nil
		}
		data, err := arc.ReadFile(c.Parents[0], path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
}

// fileEvents classifies one changed file, at path in the project's branch,
// into events; before reads what a file held before the change (nil:
// nothing), log the changes of a task as the commit holds them. The record
// is decoded by record.Decode, the archive's one parser; files that hold
// no record of interest, or a malformed one, make no event.
func fileEvents(slug string, f record.File, before func(path string) ([]byte, error), log taskReader) ([]Event, error) {
	rec, err := record.Decode(record.ProjectDir(slug)+"/"+f.Path, f.Data)
	if err != nil || rec == nil {
		return nil, nil // a malformed record tells nothing; doctor reports it
	}
	return recordEvents(slug, f.Path, rec, before, log)
}

// recordEvents is fileEvents of the record rec, decoded from the file at
// path.
func recordEvents(slug, path string, rec record.Record, before func(path string) ([]byte, error), log taskReader) ([]Event, error) {
	switch r := rec.(type) {
	case *record.TaskOp:
		return taskEvents(r, log)
	case *record.Message:
		return messageEvents(r), nil
	case *record.Receipt:
		state := "read"
		if !r.AckedAt.IsZero() {
			state = "acked"
		}
		return []Event{{Type: TypeReceipt, Agent: r.Agent, State: state, Receipt: &Receipt{
			Message: r.Message, Agent: r.Agent, ReadAt: service.Time{Time: r.ReadAt}, AckedAt: service.Time{Time: r.AckedAt}}}}, nil
	case *record.Reservation:
		old, err := previous[*record.Reservation](before, slug, path)
		if err == nil && old == nil {
			// Moved from where an earlier release kept it: unchanged, it
			// is no news.
			if old, err = previous[*record.Reservation](before, slug, record.LegacyReservationFile(r.ID)); old != nil && *old == *r {
				return nil, nil
			}
		}
		if err != nil {
			return nil, err
		}
		return []Event{reservationEvent(r, reservationState(old, r))}, nil
	case *record.Lock:
		old, err := previous[*record.Lock](before, slug, path)
		if err != nil {
			return nil, err
		}
		return []Event{lockEvent(r, lockState(old, r))}, nil
	case *record.Contact:
		doc := service.ContactRecordDoc(r)
		return []Event{{Type: TypeContact, Agent: r.To, State: r.State, Contact: &doc}}, nil
	case *record.Agent:
		old, err := previous[*record.Agent](before, slug, path)
		if err != nil {
			return nil, err
		}
		state := "updated"
		if old == nil {
			state = "registered"
		}
		doc := service.ProfileRecordDoc(r)
		return []Event{{Type: TypeAgent, Agent: r.Name, State: state, Profile: &doc}}, nil
	case *record.AgentState:
		doc := service.WorkRecordDoc(r)
		return []Event{{Type: TypeState, Agent: r.Agent, State: r.State, Work: &doc}}, nil
	case *record.Control:
		old, err := previous[*record.Control](before, slug, path)
		if err != nil {
			return nil, err
		}
		state := "resumed"
		switch {
		case old == nil && !r.InterruptAt.IsZero() && r.PauseAt.IsZero(), old != nil && !old.InterruptAt.Equal(r.InterruptAt):
			state = "interrupted"
		case r.Paused:
			state = "paused"
		}
		doc := service.ControlRecordDoc(r)
		return []Event{{Type: TypeControl, Agent: r.Agent, State: state, Control: &doc}}, nil
	}
	return nil, nil
}

// messageEvents is one event per recipient of m, each with the message as
// that recipient sees it; a post (a topic and no recipients) is one post
// event.
func messageEvents(m *record.Message) []Event {
	if m.Topic != "" && len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		doc := service.MessageRecordDoc(m, "")
		return []Event{{Type: TypePost, Agent: m.From, Topic: m.Topic, Message: &doc}}
	}
	var out []Event
	seen := map[string]bool{}
	for _, list := range [][]string{m.To, m.Cc, m.Bcc} {
		for _, name := range list {
			if seen[name] {
				continue
			}
			seen[name] = true
			doc := service.MessageRecordDoc(m, name)
			out = append(out, Event{Type: TypeMessage, Agent: name, Topic: m.Topic, Message: &doc})
		}
	}
	return out
}

func reservationEvent(r *record.Reservation, state string) Event {
	doc := service.ReservationRecordDoc(r)
	return Event{Type: TypeReservation, Agent: r.Agent, State: state, Reservation: &doc}
}

func lockEvent(l *record.Lock, state string) Event {
	doc := service.LockRecordDoc(l)
	return Event{Type: TypeLock, Agent: l.Holder, State: state, Lock: &doc}
}

// reservationState says what the commit did to a reservation, given its
// record before (nil: none) and after.
func reservationState(old, cur *record.Reservation) string {
	switch {
	case !cur.Released.IsZero():
		return StateReleased
	case old == nil:
		return StateTaken
	}
	return StateRenewed
}

// lockState says what the commit did to a lock, given its record before
// (nil: none) and after: a holding that differs from the one before is a
// new one.
func lockState(old, cur *record.Lock) string {
	switch {
	case !cur.Released.IsZero():
		return StateReleased
	case old == nil || !old.Released.IsZero() || old.Holder != cur.Holder || !old.Created.Equal(cur.Created) || old.Run != cur.Run:
		return StateTaken
	}
	return StateRenewed
}

// taskReader returns the changes of a task, by id, as a commit holds
// them.
type taskReader func(task string) ([]*record.TaskOp, error)

// taskLog is the taskReader of commit c of the project slug: it reads the
// task's directory there.
func taskLog(arc reader, slug string, c archive.CommitInfo) taskReader {
	return func(task string) ([]*record.TaskOp, error) {
		dir := strings.TrimPrefix(record.TaskDir(slug, task), record.ProjectDir(slug)+"/") + "/"
		skip := func(d string) bool { d += "/"; return !strings.HasPrefix(dir, d) && !strings.HasPrefix(d, dir) }
		var ops []*record.TaskOp
		err := arc.Changes("", c.Hash, skip, func(_ string, data []byte) error {
			if o, err := record.DecodeTaskOp(slug, data); err == nil {
				ops = append(ops, o)
			}
			return nil // a malformed change is skipped, as the index skips it
		})
		return ops, err
	}
}

// taskEvents returns the event of a change of a task: the change's kind
// as its state, with the task as the commit leaves it. A change its
// commit's log makes moot (a claim of a task another agent holds, which
// two stores can make apart before they sync) makes none, nor one whose
// task's creation has not arrived.
func taskEvents(o *record.TaskOp, log taskReader) ([]Event, error) {
	ops, err := log(o.Task)
	if err != nil {
		return nil, err
	}
	doc, ok := service.TaskRecordDoc(ops)
	if !ok {
		return nil, nil
	}
	agent, state := o.By, StateUpdated
	switch o.Op {
	case record.TaskCreate:
		state = StateCreated
	case record.TaskClaim:
		if doc.Claim == nil || !strings.EqualFold(doc.Claim.Agent, o.Agent) {
			return nil, nil
		}
		agent, state = o.Agent, StateClaimed
	case record.TaskUnclaim:
		agent, state = o.Agent, StateUnclaimed
	case record.TaskStatus:
		state = map[string]string{"in_progress": StateStarted, "closed": StateClosed, "open": StateReopened}[o.Status]
		if state == "" {
			return nil, nil
		}
	}
	return []Event{{Type: TypeTask, Agent: agent, State: state, Task: &doc}}, nil
}

// previous returns the record the file at path held before, as before
// reads it, or nil if there was none.
func previous[R record.Record](before func(path string) ([]byte, error), slug, path string) (R, error) {
	var zero R
	data, err := before(path)
	if err != nil || data == nil {
		return zero, err
	}
	rec, _ := record.Decode(record.ProjectDir(slug)+"/"+path, data) // malformed: as good as none
	r, _ := rec.(R)
	return r, nil
}

// expiry is a lease the feed watches for its end.
type expiry struct {
	at    time.Time
	event Event // the lease as last seen, to be sent with state expired
}

// leaseKey names a lease of a project: a reservation by id, a lock by key.
func leaseKey(e *Event) string {
	if e.Reservation != nil {
		return e.Project + " reservation " + e.Reservation.ID
	}
	return e.Project + " lock " + e.Lock.Key
}

// watch returns the expiry to watch for the lease event e at now, or
// false when the lease does not hold (released, expired already).
func watch(e Event, now time.Time) (expiry, bool) {
	var expires, released time.Time
	switch {
	case e.Reservation != nil:
		expires, released = e.Reservation.Expires.Time, e.Reservation.Released.Time
	case e.Lock != nil:
		expires, released = e.Lock.Expires.Time, e.Lock.Released.Time
	default:
		return expiry{}, false
	}
	if !released.IsZero() || !now.Before(expires) {
		return expiry{}, false
	}
	e.ID, e.State = "", StateExpired
	return expiry{at: expires, event: e}, true
}

// isLease reports whether the event is about a reservation or a lock.
func isLease(e *Event) bool { return e.Reservation != nil || e.Lock != nil }

// leaseEvents returns an event for every reservation and lock in commit
// head of the project slug (the feed's starting point), state unset.
func leaseEvents(arc reader, slug, head string) ([]Event, error) {
	skip := func(dir string) bool {
		top, _, _ := strings.Cut(dir, "/")
		return top != record.ReservationsDir && top != "locks"
	}
	var out []Event
	err := arc.Changes("", head, skip, func(path string, data []byte) error {
		rec, err := record.Decode(record.ProjectDir(slug)+"/"+path, data)
		if err != nil {
			return nil // a malformed record holds nothing; doctor reports it
		}
		switch r := rec.(type) {
		case *record.Reservation:
			out = append(out, reservationEvent(r, ""))
		case *record.Lock:
			out = append(out, lockEvent(r, ""))
		}
		return nil
	})
	for i := range out {
		out[i].Project, out[i].Commit = slug, head
	}
	return out, err
}
