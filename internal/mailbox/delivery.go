package mailbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Receipt is one recipient's state of a message: delivered when the
// message was written (or merged in by a sync), then read, then
// acknowledged.
type Receipt struct {
	Agent   string
	Kind    string // to, cc or bcc
	ReadAt  *time.Time
	AckedAt *time.Time
}

// Receipts returns a message (id, or a unique prefix) and the receipt of
// each of its recipients, as the viewer may see them: its sender and a
// human at the terminal see every recipient; a recipient sees the to and
// cc recipients, and of the bcc ones only itself.
func (m *Mailbox) Receipts(ctx context.Context, id string) (Message, []Receipt, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return Message{}, nil, err
	}
	v, err := m.visibleMessage(ctx, m.st.Index(), id, viewer)
	if err != nil {
		return Message{}, nil, err
	}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT agent, kind, read_at, acked_at FROM recipients
		WHERE project_id = `+joinParam+` AND message_id = `+joinParam+` ORDER BY CASE kind WHEN 'to' THEN 0 WHEN 'cc' THEN 1 ELSE 2 END, agent`, m.pid, v.ID)
	if err != nil {
		return Message{}, nil, fmt.Errorf("read receipts: %w", err)
	}
	defer rows.Close()
	out := []Receipt{}
	for rows.Next() {
		var r Receipt
		var readAt, ackedAt sql.NullString
		if err := rows.Scan(&r.Agent, &r.Kind, &readAt, &ackedAt); err != nil {
			return Message{}, nil, err
		}
		if r.Kind == "bcc" && viewer != "" && viewer != v.From && r.Agent != viewer {
			continue
		}
		r.ReadAt, r.AckedAt = parseNull(readAt), parseNull(ackedAt)
		out = append(out, r)
	}
	return v.Message, out, rows.Err()
}

// Recent returns the messages of the project created at since or later
// that the viewer (see Viewer) sent or received, every one for a human at
// the terminal, oldest first, at most limit (0: all) of the newest;
// truncated says whether more were left out.
func (m *Mailbox) Recent(ctx context.Context, since time.Time, limit int) (msgs []Message, truncated bool, err error) {
	viewer, err := m.Viewer(ctx)
	if err != nil || m.pid == 0 {
		return []Message{}, false, err
	}
	query := `SELECT ` + messageColumns + ` FROM messages m
		LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
		WHERE m.project_id = ` + joinParam + ` AND m.id >= ` + joinParam + ` AND m.created >= ` + joinParam + `
		AND (` + joinParam + ` = '' OR m.sender = ` + joinParam + ` OR r.agent IS NOT NULL) ORDER BY m.id DESC`
	// The ids bound the range read (an id holds its message's time), as
	// relatedQuery's do: the window's messages, not the project's.
	args := []any{viewer, m.pid, firstIDAt(since), record.FormatTime(since), viewer, viewer}
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", limit+1)
	}
	msgs, err = m.list(ctx, m.st.Index(), viewer, query, args...)
	if err != nil {
		return nil, false, err
	}
	if limit > 0 && len(msgs) > limit {
		msgs, truncated = msgs[:limit], true
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return msgs, truncated, nil
}

// CursorProjection returns the index's table of inbox event cursors: for
// each agent, the last delivery it read through InboxEvents. Like
// presence, it is not derived from the archive: a rebuild keeps it.
func CursorProjection() store.Projection { return cursors{} }

type cursors struct{}

func (cursors) Name() string { return "cursors1" }

func (cursors) Tables() []store.Table {
	return []store.Table{{Name: "inbox_cursors", Kept: true, Create: `CREATE TABLE inbox_cursors(slug TEXT NOT NULL, fold TEXT NOT NULL,
		message_id TEXT NOT NULL, updated TEXT NOT NULL, PRIMARY KEY(slug, fold)) WITHOUT ROWID`}}
}

func (cursors) Prepare(record.Record) any                     { return nil }
func (cursors) Apply(*store.Writer, record.Record, any) error { return nil }

// Event is a message delivered to an agent, as InboxEvents reports it.
type Event struct {
	Message
	Kind string // to, cc or bcc
}

// EventsQuery says which deliveries InboxEvents returns.
type EventsQuery struct {
	// After is the cursor (a message id) to read after; "" reads after
	// the agent's stored cursor (from the first delivery if none).
	After string
	// Limit is the most events returned; at least 1.
	Limit int
	// PositionNow skips every delivery so far: no events, and the cursor
	// moves to the newest.
	PositionNow bool
}

// EventsPage is a page of deliveries.
type EventsPage struct {
	Events []Event
	// Next is the cursor after the page: the last event's message id, or
	// where the page started when it is empty ("" before any delivery).
	Next string
	// More says that deliveries wait after Next.
	More bool
	// Tail is the cursor of the newest delivery ("" for none).
	Tail string
	// Stored is the cursor the page started after: After, or the one
	// stored for the agent.
	Stored string
}

// InboxEvents returns the acting agent's deliveries after a cursor, in
// the order this index received them (a message a sync brought in later
// comes later, whatever its id), oldest first, and stores the page's end
// as the agent's cursor, so that the next call without one resumes there,
// after a restart too. The cursor is a message id; one that names no
// message of the inbox any more is taken as the time its id holds.
func (m *Mailbox) InboxEvents(ctx context.Context, q EventsQuery) (EventsPage, error) {
	if q.Limit < 1 {
		return EventsPage{}, fault.WithHint(fmt.Errorf("%w: limit must be at least 1, got %d", ErrInvalidArgument, q.Limit), "pass a limit from 1 to 1000")
	}
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return EventsPage{}, err
	}
	db := m.st.Index()
	fold := names.Fold(me.Name)
	page := EventsPage{Events: []Event{}, Stored: q.After}
	if page.Stored == "" && !q.PositionNow {
		err := db.QueryRowContext(ctx, `SELECT message_id FROM inbox_cursors WHERE slug = ? AND fold = ?`, m.proj.Slug, fold).Scan(&page.Stored)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return EventsPage{}, fmt.Errorf("read the inbox cursor: %w", err)
		}
	}
	// Deliveries are walked in the order of the messages table (seq, its
	// row id): from the cursor on, each message is looked up among the
	// agent's recipients rows, so a call costs what arrived since the
	// cursor, not what the agent ever received.
	if err := db.QueryRowContext(ctx, `SELECT COALESCE((SELECT m.id FROM messages m CROSS JOIN recipients r
		ON r.project_id = m.project_id AND r.agent = `+joinParam+` AND r.message_id = m.id
		WHERE +m.project_id = `+joinParam+` ORDER BY m.seq DESC LIMIT 1), '')`, me.Name, m.pid).Scan(&page.Tail); err != nil {
		return EventsPage{}, fmt.Errorf("read the inbox's newest delivery: %w", err)
	}
	page.Next = page.Stored
	if q.PositionNow {
		page.Next = page.Tail
	} else if m.pid != 0 {
		// The cursor's place: its message's seq, or, when it names none
		// any more, the last seq of a message whose id is not after it.
		// (Plain parameters: with the unary plus of joinParam SQLite would
		// not look the id up in its index, and each poll would scan the
		// messages, 27 ms at 10,000 against 0.05.)
		var from int64
		if err := db.QueryRowContext(ctx, `SELECT COALESCE((SELECT seq FROM messages WHERE id = ?),
			(SELECT max(seq) FROM messages WHERE project_id = ? AND id <= ?), 0)`,
			page.Stored, m.pid, page.Stored).Scan(&from); err != nil {
			return EventsPage{}, fmt.Errorf("read the inbox cursor's place: %w", err)
		}
		rows, err := db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages m CROSS JOIN recipients r
			ON r.project_id = m.project_id AND r.agent = `+joinParam+` AND r.message_id = m.id
			WHERE m.seq > `+joinParam+` AND +m.project_id = `+joinParam+` ORDER BY m.seq LIMIT `+joinParam, me.Name, from, m.pid, q.Limit+1)
		if err != nil {
			return EventsPage{}, fmt.Errorf("read inbox events: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			v, err := m.scanMessage(rows, me.Name)
			if err != nil {
				return EventsPage{}, err
			}
			page.Events = append(page.Events, Event{Message: v.Message, Kind: v.kind})
		}
		if err := rows.Err(); err != nil {
			return EventsPage{}, err
		}
		if len(page.Events) > q.Limit {
			page.Events, page.More = page.Events[:q.Limit], true
		}
		if n := len(page.Events); n > 0 {
			page.Next = page.Events[n-1].ID
		}
	}
	if page.Next == "" || m.st.ReadOnly() {
		return page, nil
	}
	_, err = db.ExecContext(ctx, `INSERT INTO inbox_cursors(slug, fold, message_id, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT(slug, fold) DO UPDATE SET message_id = excluded.message_id, updated = excluded.updated`,
		m.proj.Slug, fold, page.Next, record.FormatTime(m.st.Now()))
	if err != nil {
		return EventsPage{}, fmt.Errorf("store the inbox cursor: %w", err)
	}
	return page, nil
}
