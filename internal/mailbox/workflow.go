package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// ErrTimeout: Wait saw no matching mail in time.
var ErrTimeout = fault.ErrTimeout

// StaleAfter is how long an agent must have run no command to count as
// stale by default; after ActiveWindow it is idle.
const StaleAfter = 30 * time.Minute

// PresenceRules are the thresholds of an agent's presence: no command for
// Idle makes it idle, for Stale stale.
type PresenceRules struct {
	Idle, Stale time.Duration
}

// DefaultPresence is ActiveWindow and StaleAfter.
var DefaultPresence = PresenceRules{Idle: ActiveWindow, Stale: StaleAfter}

// State returns an agent's presence at now: "active", "idle" or "stale".
func (p PresenceRules) State(lastSeen, now time.Time) string {
	switch d := now.Sub(lastSeen); {
	case d < p.Idle:
		return "active"
	case d < p.Stale:
		return "idle"
	}
	return "stale"
}

// Refresh is how old a stored last-seen time may be before a command
// rewrites it: a sixtieth of Idle (5s by default), so that the presence
// heartbeat is not a write per command yet lags by too little to matter.
func (p PresenceRules) Refresh() time.Duration { return p.Idle / 60 }

// SetPresence changes the presence thresholds the mailbox reports with.
func (m *Mailbox) SetPresence(p PresenceRules) { m.presence = p }

// Watch makes the mailbox an overseer's view of the acting agent's mail:
// what it reads leaves the agent's last-seen time alone, so that looking
// at an agent does not make it look active.
func (m *Mailbox) Watch() { m.watching = true }

// Summary is what Check reports.
type Summary struct {
	Agent       string // whose: the acting agent's name as registered
	Unread      int
	Urgent      int // unread and high or urgent
	AwaitingAck int // received, ack requested, not acknowledged
	// ContactRequests counts requests to write to the agent that it has
	// neither approved nor denied.
	ContactRequests int
	Newest          []Message
}

// checkQuery counts an agent's (?1, ?2) unread and urgent unread mail in one
// pass over the covering partial index of unread receipts, its unacknowledged
// mail over the other one, and the contact requests waiting for it over a
// third: time in proportion to what is waiting, not to all mail received
// (TestCheckPlan).
const checkQuery = `SELECT u.n, u.urgent,
	(SELECT count(*) FROM recipients WHERE project_id = ?1 AND agent = ?2 AND ack_required AND acked_at IS NULL),
	(SELECT count(*) FROM contacts WHERE project_id = ?1 AND target = ?2 AND state = 'requested')
	FROM (SELECT count(*) AS n, coalesce(sum(urgent), 0) AS urgent FROM recipients
		WHERE project_id = ?1 AND agent = ?2 AND read_at IS NULL) u`

// Check is the cheap "anything for me?" of an agent's per-step hook: counts
// of unread, urgent and unacknowledged mail and of open contact requests,
// and the newest unread subjects.
func (m *Mailbox) Check(ctx context.Context, newest int) (Summary, error) {
	var s Summary
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return s, err
	}
	s.Agent = me.Name
	err = m.st.Index().QueryRowContext(ctx, checkQuery, m.pid, me.Name).Scan(&s.Unread, &s.Urgent, &s.AwaitingAck, &s.ContactRequests)
	if err != nil || s.Unread == 0 {
		return s, err
	}
	s.Newest, err = m.inbox(ctx, m.st.Index(), me.Name, InboxQuery{Unread: true, Limit: newest})
	return s, err
}

// MailCounts are what waits in an agent's mailbox, each counted up to
// MailCountCap.
type MailCounts struct {
	Unread      int
	Urgent      int // unread and high or urgent
	AwaitingAck int // received, ack requested, not acknowledged
	AcksOwed    int // its messages' recipients asked to acknowledge that have not
}

// MailCountCap bounds each of MailCounts: past it, "that many or more" is
// all an overseer's page needs, and counting stays cheap at any size.
const MailCountCap = 1000

// mailCountsQuery counts, for each agent of project ?1, its unread and
// urgent unread receipts over the partial index of unread receipts, its
// unacknowledged ones over the other, and the acknowledgements owed to
// it over the same (joined to their messages' sender), each up to ?2.
const mailCountsQuery = `SELECT a.name,
	(SELECT count(*) FROM (SELECT 1 FROM recipients WHERE project_id = ?1 AND agent = a.name AND read_at IS NULL LIMIT ?2)),
	(SELECT count(*) FROM (SELECT 1 FROM recipients WHERE project_id = ?1 AND agent = a.name AND read_at IS NULL AND urgent LIMIT ?2)),
	(SELECT count(*) FROM (SELECT 1 FROM recipients WHERE project_id = ?1 AND agent = a.name AND ack_required AND acked_at IS NULL LIMIT ?2)),
	(SELECT count(*) FROM (SELECT 1 FROM recipients r JOIN messages m ON m.id = r.message_id
		WHERE r.project_id = ?1 AND r.ack_required AND r.acked_at IS NULL AND m.sender = a.name LIMIT ?2))
	FROM agents a WHERE a.project_id = ?1`

// MailCounts returns what waits in each agent's mailbox, by agent name:
// an overseer's view of the whole team in one query.
func (m *Mailbox) MailCounts(ctx context.Context) (map[string]MailCounts, error) {
	out := map[string]MailCounts{}
	if m.pid == 0 {
		return out, nil
	}
	rows, err := m.st.Index().QueryContext(ctx, mailCountsQuery, m.pid, MailCountCap)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var c MailCounts
		if err := rows.Scan(&name, &c.Unread, &c.Urgent, &c.AwaitingAck, &c.AcksOwed); err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, rows.Err()
}

// PendingAcks lists messages the acting agent was asked to acknowledge and
// has not, oldest first.
func (m *Mailbox) PendingAcks(ctx context.Context) ([]Message, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	return m.pendingAcks(ctx, m.st.Index(), me.Name)
}

// pendingAcks lists the messages agent was asked to acknowledge and has
// not, oldest first, over the partial index of such receipts.
func (m *Mailbox) pendingAcks(ctx context.Context, q queryer, agent string) ([]Message, error) {
	return m.list(ctx, q, agent, pendingAckRows, m.pid, agent)
}

// pendingAckRows are the messages of project ? that agent ? was asked to
// acknowledge and has not, oldest first.
const pendingAckRows = `SELECT ` + messageColumns + ` FROM recipients r JOIN messages m ON m.id = r.message_id
	WHERE r.project_id = ` + joinParam + ` AND r.agent = ` + joinParam + ` AND r.ack_required AND r.acked_at IS NULL ORDER BY r.message_id`

// Overdue is a sent message still waiting for acknowledgements.
type Overdue struct {
	Message
	Waiting []string // recipients who have not acknowledged
}

// OverdueAcks lists messages the acting agent sent, asking for an
// acknowledgement, more than older ago, that some recipient has not
// acknowledged, oldest first.
func (m *Mailbox) OverdueAcks(ctx context.Context, older time.Duration) ([]Overdue, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	return m.awaiting(ctx, me.Name, m.st.Now().Add(-older))
}

// AwaitingAcks lists the messages of the project, whoever sent them, that
// asked for an acknowledgement some recipient has not given, oldest
// first: what an overseer looks at.
func (m *Mailbox) AwaitingAcks(ctx context.Context) ([]Overdue, error) {
	if m.pid == 0 {
		return []Overdue{}, nil
	}
	return m.awaiting(ctx, "", m.st.Now())
}

// awaitingRows are the messages of project ? sent by ? ("": anyone, given
// twice) by a time that wait for an acknowledgement, oldest first, with
// the sender's recipients row; waitingAgents are the recipients of
// message ? other than its sender ? that have not acknowledged it.
const (
	awaitingRows = `SELECT ` + messageColumns + ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = m.sender
	WHERE m.project_id = ` + joinParam + ` AND (? = '' OR m.sender = ` + joinParam + `) AND m.ack_required AND m.created <= ` + joinParam + `
	AND EXISTS (SELECT 1 FROM recipients w WHERE w.message_id = m.id AND w.acked_at IS NULL AND w.agent != m.sender)
	ORDER BY m.id`
	waitingAgents = `SELECT agent FROM recipients WHERE message_id = ` + joinParam + ` AND acked_at IS NULL AND agent != ` + joinParam + ` ORDER BY agent`
)

// awaiting lists the messages sent by sender ("": anyone) by cutoff that
// wait for an acknowledgement, each with who has not given it, as their
// sender sees them.
func (m *Mailbox) awaiting(ctx context.Context, sender string, cutoff time.Time) ([]Overdue, error) {
	msgs, err := m.list(ctx, m.st.Index(), sender, awaitingRows, m.pid, sender, sender, record.FormatTime(cutoff))
	if err != nil {
		return nil, err
	}
	out := make([]Overdue, 0, len(msgs))
	for _, msg := range msgs {
		waiting, err := store.Strings(ctx, m.st.Index(), waitingAgents, msg.ID, msg.From)
		if err != nil {
			return nil, err
		}
		out = append(out, Overdue{Message: msg, Waiting: append([]string{}, waiting...)})
	}
	return out, nil
}

// WaitFilter narrows what Wait waits for.
type WaitFilter struct {
	Thread string // a thread name, or a message id (or unique prefix) of the thread
	From   string
	Urgent bool
	// Steered also ends the wait when the agent is paused, resumed or
	// interrupted after the call began (its control record changed):
	// Wait returns a *SteeredError.
	Steered bool
}

// ErrSteered: a wait ended because the agent was paused, resumed or
// interrupted.
var ErrSteered = errors.New("steered")

// SteeredError is the control that ended a wait.
type SteeredError struct{ Control record.Control }

func (e *SteeredError) Error() string {
	return fmt.Sprintf("%s: %s's control changed", ErrSteered, e.Control.Agent)
}

func (e *SteeredError) Unwrap() error { return ErrSteered }

// Wait blocks until unread mail matching f arrives for the acting agent
// after the call began, and returns it; ErrTimeout after timeout. It checks
// the archive's head every poll interval (a file read) and queries only
// when the head moved.
func (m *Mailbox) Wait(ctx context.Context, f WaitFilter, timeout, poll time.Duration) ([]Message, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	var from string
	if f.From != "" {
		a, ok, err := m.lookupAgent(ctx, m.st.Index(), f.From)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, m.unknownRecipient(ctx, m.st.Index(), f.From)
		}
		from = a.Name
	}
	thread := f.Thread
	if thread != "" {
		if thread, err = m.threadOf(ctx, m.st.Index(), thread, me.Name); err != nil {
			return nil, fmt.Errorf("thread: %w", err)
		}
	}
	since := firstIDAt(m.st.Clock())
	var before record.Control // the control as it was when the wait began
	if f.Steered {
		if before, _, err = m.controlOf(ctx, m.st.Index(), me.Name); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(timeout)
	var msgs []Message
	found, err := m.st.Watch(ctx, poll, func() time.Time { return deadline }, func() (bool, error) {
		if m.pid == 0 {
			if err := m.loadProjectID(ctx, m.st.Index()); err != nil {
				return false, err
			}
		}
		if f.Steered {
			c, ok, err := m.controlOf(ctx, m.st.Index(), me.Name)
			if err != nil {
				return false, err
			}
			if ok && c != before {
				return false, &SteeredError{Control: c}
			}
		}
		where := []string{"r.project_id = ?", "r.agent = ?", "r.read_at IS NULL", "r.message_id >= ?"}
		args := []any{m.pid, me.Name, since}
		if thread != "" {
			where = append(where, "m.thread = ?")
			args = append(args, thread)
		}
		if from != "" {
			where = append(where, "m.sender = ?")
			args = append(args, from)
		}
		if f.Urgent {
			where = append(where, "m.importance IN ('high', 'urgent')")
		}
		var err error
		msgs, err = m.list(ctx, m.st.Index(), me.Name, `SELECT `+messageColumns+` FROM recipients r JOIN messages m ON m.id = r.message_id
			WHERE `+strings.Join(where, " AND ")+` ORDER BY m.id`, args...)
		return len(msgs) > 0, err
	})
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%w: no matching mail for %s within %s", ErrTimeout, me.Name, timeout)
	}
	return msgs, nil
}

// replyRows are the messages of project ?2 in thread ?3 after message ?4
// not sent by agent ?1 (=?5), oldest first, with ?1's recipients row.
const replyRows = `SELECT ` + messageColumns + ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.project_id = ` + joinParam + ` AND m.thread = ` + joinParam + ` AND m.id > ` + joinParam + ` AND m.sender != ` + joinParam + ` ORDER BY m.id`

// WaitReply waits for the first reply to sent, in its thread, from one of
// its recipients. A reply that asks to hold (reply --hold) extends the
// deadline by its hold, is reported to onHold, and the wait goes on for a
// real answer. On timeout the error wraps ErrTimeout.
func (m *Mailbox) WaitReply(ctx context.Context, sent Message, timeout, poll time.Duration, onHold func(Message)) (Message, error) {
	recipients := map[string]bool{}
	for _, n := range append(append(append([]string{}, sent.To...), sent.Cc...), sent.Bcc...) {
		recipients[n] = true
	}
	deadline := time.Now().Add(timeout)
	after := sent.ID
	var reply Message
	found, err := m.st.Watch(ctx, poll, func() time.Time { return deadline }, func() (bool, error) {
		msgs, err := m.list(ctx, m.st.Index(), sent.From, replyRows, sent.From, m.pid, sent.Thread, after, sent.From)
		if err != nil {
			return false, err
		}
		for _, msg := range msgs {
			after = msg.ID
			if !recipients[msg.From] {
				continue
			}
			if msg.Hold > 0 {
				deadline = deadline.Add(msg.Hold)
				if onHold != nil {
					onHold(msg)
				}
				continue
			}
			reply = msg
			return true, nil
		}
		return false, nil
	})
	switch {
	case err != nil:
		return Message{}, err
	case !found:
		return Message{}, fault.WithField(fmt.Errorf("%w: no reply to %s in thread %s", ErrTimeout, sent.ID, sent.Thread), "", "thread", sent.Thread)
	}
	return reply, nil
}
