package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// TopicQuery names a topic and filters its messages. Results are newest
// first.
type TopicQuery struct {
	Topic  string
	Since  time.Time // keep the messages created at or after it
	Limit  int       // 0 means no limit
	Bodies bool      // read each message's body; without it Body is ""
}

// visibleRows are the messages of project ? a viewer ? may see: those it
// sent or received, and posts; "" sees every message. Its arguments are
// visibleArgs'.
const visibleRows = ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.project_id = ` + joinParam + ` AND (? = '' OR m.sender = ` + joinParam + ` OR r.agent IS NOT NULL OR ` + isPost + `)`

func (m *Mailbox) visibleArgs(viewer string) []any { return []any{viewer, m.pid, viewer, viewer} }

// Topic returns the messages of a topic that the viewer (see Viewer) may
// see, newest first: those it sent or received, and every post to the
// topic. It returns the topic as messages carry it (lowercase).
func (m *Mailbox) Topic(ctx context.Context, q TopicQuery) (string, []Message, error) {
	topic, ok := record.NormalTopic(q.Topic)
	if !ok {
		return "", nil, invalidTopic(q.Topic)
	}
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return "", nil, err
	}
	if m.pid == 0 {
		return topic, []Message{}, nil
	}
	columns := headerColumns
	if q.Bodies {
		columns = messageColumns
	}
	query := `SELECT ` + columns + visibleRows + ` AND m.topic = ` + joinParam
	args := append(m.visibleArgs(viewer), topic)
	if !q.Since.IsZero() {
		query += ` AND m.created >= ?`
		args = append(args, record.FormatTime(q.Since))
	}
	query += ` ORDER BY m.id DESC`
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	msgs, err := m.list(ctx, m.st.Index(), viewer, query, args...)
	return topic, msgs, err
}

// TopicSummary is a topic with the number of its messages the viewer may
// see and when the last of them was sent.
type TopicSummary struct {
	Name     string
	Messages int
	Last     time.Time
}

// Topics lists the topics of the project's messages that the viewer (see
// Viewer) may see, most recently active first.
func (m *Mailbox) Topics(ctx context.Context) ([]TopicSummary, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return nil, err
	}
	out := []TopicSummary{}
	if m.pid == 0 {
		return out, nil
	}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT m.topic, count(*), max(m.created)`+visibleRows+
		` AND m.topic != '' GROUP BY m.topic ORDER BY max(m.id) DESC`, m.visibleArgs(viewer)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t TopicSummary
		var last string
		if err := rows.Scan(&t.Name, &t.Messages, &last); err != nil {
			return nil, err
		}
		t.Last, _ = record.ParseTime(last)
		out = append(out, t)
	}
	return out, rows.Err()
}
