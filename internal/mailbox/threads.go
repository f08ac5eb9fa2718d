package mailbox

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// ThreadSummary is a thread as the list of a project's threads shows it:
// its first subject, how many messages it has, who took part (senders
// and recipients, bcc left out) and its last activity.
type ThreadSummary struct {
	Thread       string
	Subject      string // its first message's
	Messages     int
	Participants []string // by name
	LastID       string   // its newest message
	LastFrom     string
	Last         time.Time
}

// Threads lists at most limit threads of the project, those most recently
// active first, whose newest message is older than before (a message id;
// "" for no bound): the next page after the one whose last thread's
// newest message is before. It walks the project's messages newest first
// (messages_project) keeping those that are the newest of their thread (a
// lookup in messages_thread), so a page costs the messages it passes
// over, then sums up each thread found.
func (m *Mailbox) Threads(ctx context.Context, before string, limit int) ([]ThreadSummary, error) {
	out := []ThreadSummary{}
	if m.pid == 0 || limit <= 0 {
		return out, nil
	}
	q := m.st.Index()
	where, args := `m.project_id = `+joinParam, []any{m.pid}
	if before != "" {
		where, args = where+` AND m.id < ?`, append(args, before)
	}
	rows, err := q.QueryContext(ctx, `SELECT m.thread, m.id, m.sender, m.created FROM messages m WHERE `+where+`
		AND NOT EXISTS (SELECT 1 FROM messages n WHERE n.project_id = m.project_id AND n.thread = m.thread AND n.id > m.id)
		ORDER BY m.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t ThreadSummary
		var created string
		if err := rows.Scan(&t.Thread, &t.LastID, &t.LastFrom, &created); err != nil {
			rows.Close()
			return nil, err
		}
		t.Last, _ = record.ParseTime(created)
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		t := &out[i]
		var first string
		var senders sql.NullString
		if err := q.QueryRowContext(ctx, `SELECT count(*), min(id), group_concat(DISTINCT sender) FROM messages WHERE project_id = ? AND thread = ?`,
			m.pid, t.Thread).Scan(&t.Messages, &first, &senders); err != nil {
			return nil, err
		}
		if err := q.QueryRowContext(ctx, `SELECT subject FROM messages WHERE id = ?`, first).Scan(&t.Subject); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, s := range strings.Split(senders.String, ",") {
			if s != "" {
				seen[s] = true
			}
		}
		rs, err := q.QueryContext(ctx, `SELECT DISTINCT r.agent FROM messages x JOIN recipients r ON r.project_id = x.project_id AND r.message_id = x.id
			WHERE x.project_id = ? AND x.thread = ? AND r.kind != 'bcc' AND r.agent != ''`, m.pid, t.Thread)
		if err != nil {
			return nil, err
		}
		for rs.Next() {
			var a string
			if err := rs.Scan(&a); err != nil {
				rs.Close()
				return nil, err
			}
			seen[a] = true
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, err
		}
		for a := range seen {
			t.Participants = append(t.Participants, a)
		}
		sort.Strings(t.Participants)
	}
	return out, nil
}
