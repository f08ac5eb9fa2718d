package mailbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// AttentionProjection returns the index's tables of what draws an agent's
// attention besides its inbox: the channels it subscribes to (and, kept
// across rebuilds like presence, how far it has read each: one machine's
// reading position), the state it says it is in, and the control others
// hold over it (and the last interrupt it was shown, kept likewise).
func AttentionProjection() store.Projection { return attention{} }

type attention struct{}

func (attention) Name() string { return "attention1" }

func (attention) Tables() []store.Table {
	return []store.Table{
		{Name: "subscriptions", Create: `CREATE TABLE subscriptions(project_id INTEGER NOT NULL, agent TEXT NOT NULL, topic TEXT NOT NULL,
			since TEXT NOT NULL, since_id TEXT NOT NULL, PRIMARY KEY(project_id, agent, topic)) WITHOUT ROWID`},
		{Name: "topic_cursors", Kept: true, Create: `CREATE TABLE topic_cursors(slug TEXT NOT NULL, fold TEXT NOT NULL, topic TEXT NOT NULL,
			message_id TEXT NOT NULL, PRIMARY KEY(slug, fold, topic)) WITHOUT ROWID`},
		{Name: "agent_states", Create: `CREATE TABLE agent_states(project_id INTEGER NOT NULL, agent TEXT NOT NULL, state TEXT NOT NULL,
			note TEXT NOT NULL, updated TEXT NOT NULL, PRIMARY KEY(project_id, agent)) WITHOUT ROWID`},
		{Name: "controls", Create: `CREATE TABLE controls(project_id INTEGER NOT NULL, agent TEXT NOT NULL, paused INTEGER NOT NULL,
			pause_by TEXT NOT NULL, pause_reason TEXT NOT NULL, pause_at TEXT, interrupt_by TEXT NOT NULL, interrupt_reason TEXT NOT NULL,
			interrupt_at TEXT, PRIMARY KEY(project_id, agent)) WITHOUT ROWID`},
		{Name: "interrupts_seen", Kept: true, Create: `CREATE TABLE interrupts_seen(slug TEXT NOT NULL, fold TEXT NOT NULL,
			interrupt_at TEXT NOT NULL, PRIMARY KEY(slug, fold)) WITHOUT ROWID`},
	}
}

func (attention) Prepare(record.Record) any { return nil }

func (attention) Apply(w *store.Writer, rec record.Record, _ any) error {
	var slug string
	switch r := rec.(type) {
	case *record.Subscriptions:
		slug = r.Project
	case *record.AgentState:
		slug = r.Project
	case *record.Control:
		slug = r.Project
	default:
		return nil
	}
	pid, err := w.ProjectID(slug)
	if err != nil {
		return err
	}
	switch r := rec.(type) {
	case *record.Subscriptions:
		if _, err := w.Exec(`DELETE FROM subscriptions WHERE project_id = ? AND agent = ?`, pid, r.Agent); err != nil {
			return err
		}
		for _, t := range r.Topics {
			if _, err := w.Exec(`INSERT OR REPLACE INTO subscriptions(project_id, agent, topic, since, since_id) VALUES (?, ?, ?, ?, ?)`,
				pid, r.Agent, t.Topic, record.FormatTime(t.Since), firstIDAt(t.Since)); err != nil {
				return err
			}
		}
	case *record.AgentState:
		_, err = w.Exec(`INSERT OR REPLACE INTO agent_states(project_id, agent, state, note, updated) VALUES (?, ?, ?, ?, ?)`,
			pid, r.Agent, r.State, r.Note, record.FormatTime(r.Updated))
	case *record.Control:
		_, err = w.Exec(`INSERT OR REPLACE INTO controls(project_id, agent, paused, pause_by, pause_reason, pause_at,
			interrupt_by, interrupt_reason, interrupt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			pid, r.Agent, r.Paused, r.PauseBy, r.PauseReason, store.NullTime(r.PauseAt), r.InterruptBy, r.InterruptReason, store.NullTime(r.InterruptAt))
	}
	return err
}

// Channel is a channel (topic) the acting agent subscribes to, with the
// number of its posts it has not read.
type Channel struct {
	Topic  string
	Since  time.Time
	Unread int
}

// subscriptions reads agent's subscriptions record as the index holds it
// (a new, empty one when it has none).
func (m *Mailbox) subscriptions(ctx context.Context, q queryer, agent string) (*record.Subscriptions, error) {
	out := &record.Subscriptions{Project: m.proj.Slug, Agent: agent}
	rows, err := q.QueryContext(ctx, `SELECT topic, since FROM subscriptions WHERE project_id = ? AND agent = ? ORDER BY topic`, m.pid, agent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, since string
		if err := rows.Scan(&t, &since); err != nil {
			return nil, err
		}
		at, _ := record.ParseTime(since)
		out.Topics = append(out.Topics, record.Subscription{Topic: t, Since: at})
	}
	return out, rows.Err()
}

// Subscribe adds topic to the acting agent's channels (on), or takes it
// out; changed says whether it was not so already. Posts made before a
// subscription are not new to the agent.
func (m *Mailbox) Subscribe(ctx context.Context, topic string, on bool) (string, bool, error) {
	t, ok := record.NormalTopic(topic)
	if !ok {
		return "", false, invalidTopic(topic)
	}
	changed := false
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		if err := m.ensureProject(ctx, tx); err != nil {
			return err
		}
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		subs, err := m.subscriptions(ctx, tx, me.Name)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(subs.Topics, func(s record.Subscription) bool { return s.Topic == t })
		now := m.st.Now()
		switch {
		case on && i < 0:
			subs.Topics = append(subs.Topics, record.Subscription{Topic: t, Since: now})
			slices.SortFunc(subs.Topics, func(a, b record.Subscription) int { return strings.Compare(a.Topic, b.Topic) })
		case !on && i >= 0:
			subs.Topics = slices.Delete(subs.Topics, i, i+1)
		default:
			return nil
		}
		changed = true
		subs.Updated = now
		tx.Put(subs)
		verb := "subscribes to"
		if !on {
			verb = "unsubscribes from"
		}
		tx.Describe(me.Name, fmt.Sprintf("subscribe: %s %s %s", me.Name, verb, t))
		return nil
	})
	return t, changed, err
}

// Channels lists the acting agent's channels, by topic, each with its
// unread posts.
func (m *Mailbox) Channels(ctx context.Context) ([]Channel, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	out := []Channel{}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT s.topic, s.since, (SELECT count(*) FROM messages m WHERE m.project_id = s.project_id
		AND m.topic = s.topic AND m.id >= s.since_id AND m.sender != s.agent AND `+isPost+`
		AND m.id > COALESCE((SELECT c.message_id FROM topic_cursors c WHERE c.slug = ? AND c.fold = ? AND c.topic = s.topic), ''))
		FROM subscriptions s WHERE s.project_id = ? AND s.agent = ? ORDER BY s.topic`, m.proj.Slug, names.Fold(me.Name), m.pid, me.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c Channel
		var since string
		if err := rows.Scan(&c.Topic, &since, &c.Unread); err != nil {
			return nil, err
		}
		c.Since, _ = record.ParseTime(since)
		out = append(out, c)
	}
	return out, rows.Err()
}

// newPostRows are the posts of the channels agent ?1 (folded: ?2) of
// project ?3 (slug ?4) subscribes to that it has not read, oldest first:
// posted since it subscribed, after its reading position in the channel,
// by another agent. CROSS JOIN keeps the subscriptions the outer loop:
// left to itself, SQLite's planner walks every message of the project
// (9 ms of every check at 10,000 messages) instead of each channel's.
const newPostRows = ` FROM subscriptions s CROSS JOIN messages m ON m.project_id = s.project_id AND m.topic = s.topic AND m.id >= s.since_id
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ?1
	WHERE s.project_id = ?3 AND s.agent = ?1 AND m.sender != ?1 AND ` + isPost + `
	AND m.id > COALESCE((SELECT c.message_id FROM topic_cursors c WHERE c.slug = ?4 AND c.fold = ?2 AND c.topic = s.topic), '')`

// NewPosts counts the posts of the acting agent's channels it has not
// read, and lists the oldest limit of them (0: all), oldest first.
func (m *Mailbox) NewPosts(ctx context.Context, limit int) (int, []Message, error) {
	me, err := m.reader(ctx, m.st.Index())
	if err != nil || m.pid == 0 {
		return 0, []Message{}, err
	}
	args := []any{me.Name, names.Fold(me.Name), m.pid, m.proj.Slug}
	var n int
	if err := m.st.Index().QueryRowContext(ctx, `SELECT count(*)`+newPostRows, args...).Scan(&n); err != nil || n == 0 {
		return 0, []Message{}, err
	}
	query := `SELECT ` + headerColumns + newPostRows + ` ORDER BY m.id`
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", limit)
	}
	msgs, err := m.list(ctx, m.st.Index(), me.Name, query, args...)
	return n, msgs, err
}

// MarkPosts moves the acting agent's reading position in the channels of
// the given posts to each, when it is further on than the position: the
// post and every earlier one of its channel are read. Positions are this
// machine's, kept in the index (as the inbox events' cursor is).
func (m *Mailbox) MarkPosts(ctx context.Context, posts []Message) error {
	if m.st.ReadOnly() || m.agent == "" {
		return nil
	}
	fold := names.Fold(m.agent)
	for _, p := range posts {
		if !p.Post() {
			continue
		}
		if err := m.keep(ctx, `INSERT INTO topic_cursors(slug, fold, topic, message_id) VALUES (?, ?, ?, ?)
			ON CONFLICT(slug, fold, topic) DO UPDATE SET message_id = max(message_id, excluded.message_id)`,
			m.proj.Slug, fold, p.Topic, p.ID); err != nil {
			return fmt.Errorf("store the reading position in %s: %w", p.Topic, err)
		}
	}
	return nil
}

// keepWait bounds how long keep waits for the index's write lock.
const keepWait = 30 * time.Second

// keep writes to a kept table of the index (a reading position) what a
// read must not lose: unlike a last-seen time, which the next command
// records, it waits for another process's index write to end (up to
// keepWait), trying again every few milliseconds.
func (m *Mailbox) keep(ctx context.Context, query string, args ...any) error {
	deadline := time.Now().Add(keepWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		_, err := m.st.Index().ExecContext(ctx, query, args...)
		if !errors.Is(err, store.ErrBusy) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// Poll blocks until a post to topic that the acting agent has not read
// is there (by another agent; after its reading position in the channel,
// else after its subscription, else after the call began), returns the
// first one with its body, and marks it read; ErrTimeout after timeout.
// Like Wait, it looks at the archive's head every poll interval and
// queries only when the head moved.
func (m *Mailbox) Poll(ctx context.Context, topic string, timeout, poll time.Duration) (Message, error) {
	t, ok := record.NormalTopic(topic)
	if !ok {
		return Message{}, invalidTopic(topic)
	}
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return Message{}, err
	}
	fold := names.Fold(me.Name)
	start := firstIDAt(m.st.Clock())
	deadline := time.Now().Add(timeout)
	var msgs []Message
	found, err := m.st.Watch(ctx, poll, func() time.Time { return deadline }, func() (bool, error) {
		if m.pid == 0 {
			if err := m.loadProjectID(ctx, m.st.Index()); err != nil {
				return false, err
			}
		}
		var err error
		msgs, err = m.list(ctx, m.st.Index(), me.Name, `SELECT `+messageColumns+` FROM messages m
			LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ?1
			WHERE m.project_id = ?2 AND m.topic = ?3 AND m.sender != ?1 AND `+isPost+` AND m.id > COALESCE(
				(SELECT c.message_id FROM topic_cursors c WHERE c.slug = ?4 AND c.fold = ?5 AND c.topic = ?3),
				(SELECT s.since_id FROM subscriptions s WHERE s.project_id = ?2 AND s.agent = ?1 AND s.topic = ?3), ?6)
			ORDER BY m.id LIMIT 1`, me.Name, m.pid, t, m.proj.Slug, fold, start)
		return len(msgs) > 0, err
	})
	switch {
	case err != nil:
		return Message{}, err
	case !found:
		return Message{}, fault.WithHint(fmt.Errorf("%w: no post to %s for %s within %s", ErrTimeout, t, me.Name, timeout), "poll again, or list the channel's posts")
	}
	return msgs[0], m.MarkPosts(ctx, msgs)
}
