package mailbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// TimelineQuery filters the project's timeline: every message and post of
// the project, newest first, as the overseer sees them.
type TimelineQuery struct {
	// Agent keeps the messages an agent sent or received.
	Agent      string
	Category   string // HANDOFF, BLOCKED, DECISION or INFO
	Importance string // low, normal, high or urgent
	Topic      string // the messages of one topic
	Thread     string // the messages of one thread
	// Unread keeps the messages some recipient (Agent's, with Agent) has
	// not read; AwaitingAck those asking for an ack that some recipient
	// (Agent, with Agent) has not given.
	Unread      bool
	AwaitingAck bool
	// Before, a message id, keeps the messages older than it: the next
	// page after the one that ended there.
	Before string
	Limit  int // at most this many; 0 is all
}

// Normalize checks the query's values and puts them in their canonical
// form (category upper case, importance lower case, topic normal).
func (q *TimelineQuery) Normalize() error {
	d := Draft{Category: q.Category, Topic: q.Topic}
	if err := d.validateCategory(); err != nil {
		return err
	}
	if err := d.validateTopic(); err != nil {
		return err
	}
	q.Category, q.Topic = d.Category, d.Topic
	q.Importance = strings.ToLower(strings.TrimSpace(q.Importance))
	if q.Importance != "" && !slices.Contains(Importances, q.Importance) {
		return invalid(fmt.Sprintf("unknown importance %q", q.Importance), "use one of: "+strings.Join(Importances, ", "))
	}
	q.Agent = strings.TrimSpace(q.Agent)
	q.Before = strings.TrimSpace(q.Before)
	if q.Limit < 0 {
		return invalidField("limit", "the limit must not be negative")
	}
	return nil
}

// Timeline lists the project's messages (posts to a topic among them),
// newest first, as the overseer sees them (every bcc list whole, no
// receipts). The query walks an index of the project's messages (messages_project,
// or messages_topic for a topic) backwards from Before and
// tests each message's filters with lookups by key, so a page costs in
// proportion to the messages it passes over, not to the project's mail.
func (m *Mailbox) Timeline(ctx context.Context, q TimelineQuery) ([]Message, error) {
	if err := q.Normalize(); err != nil {
		return nil, err
	}
	if m.pid == 0 {
		return []Message{}, nil
	}
	query, args := timelineQuery(m.pid, q)
	return m.list(ctx, m.st.Index(), "", query, args...)
}

// timelineQuery is the query of a project's timeline and its arguments.
func timelineQuery(pid int64, q TimelineQuery) (string, []any) {
	where := []string{"m.project_id = " + joinParam}
	args := []any{pid}
	// The messages some recipient (Agent, when set) has not acknowledged:
	// a set drawn from the partial index recipients_unacked, whose literal
	// conditions it repeats (few messages, as a rule).
	recipient := func(cond string) {
		s := `m.id IN (SELECT x.message_id FROM recipients x WHERE x.project_id = ? AND ` + cond
		args = append(args, pid)
		if q.Agent != "" {
			s += ` AND x.agent = ?`
			args = append(args, q.Agent)
		}
		where = append(where, s+`)`)
	}
	if q.Agent != "" {
		where = append(where, `(m.sender = ? OR EXISTS (SELECT 1 FROM recipients a WHERE a.project_id = m.project_id AND a.agent = ? AND a.message_id = m.id))`)
		args = append(args, q.Agent, q.Agent)
	}
	if q.Category != "" {
		where = append(where, "m.category = ?") // messages_category
		args = append(args, q.Category)
	}
	if q.Importance != "" {
		where = append(where, "m.importance = ?") // messages_importance
		args = append(args, q.Importance)
	}
	if q.Topic != "" {
		// topic != '' lets the partial index messages_topic serve.
		where = append(where, "m.topic = ? AND m.topic != ''")
		args = append(args, q.Topic)
	}
	if q.Thread != "" {
		where = append(where, "m.thread = ?") // messages_thread
		args = append(args, q.Thread)
	}
	if q.Unread {
		// Unread mail is most of the mail, as a rule: tested message by
		// message (the recipients' primary key, or recipients_message)
		// rather than drawn as a set.
		s := `EXISTS (SELECT 1 FROM recipients u WHERE u.project_id = m.project_id AND u.message_id = m.id AND u.read_at IS NULL`
		if q.Agent != "" {
			s += ` AND u.agent = ?`
			args = append(args, q.Agent)
		}
		where = append(where, s+`)`)
	}
	if q.AwaitingAck {
		recipient("x.ack_required AND x.acked_at IS NULL")
	}
	if q.Before != "" {
		where = append(where, "m.id < ?")
		args = append(args, q.Before)
	}
	// No viewer: the recipients row joined is none (r.* NULL), found so by
	// the primary key (LEFT JOIN ... ON 0 walked every recipient row for
	// each message).
	query := `SELECT ` + headerColumns + ` FROM messages m
		LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ''
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY m.id DESC`
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return query, args
}
