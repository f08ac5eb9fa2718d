package mailbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// PublishPresence carries the heartbeat of the project's agents into the
// archive, for sync to take to other machines: one commit holding a
// presence record for each agent seen here at least every later than the
// archive says, none when there is no such agent. So presence costs a
// commit per agent at most once per every, never one per command. It
// returns how many agents it published.
func (m *Mailbox) PublishPresence(ctx context.Context, every time.Duration) (int, error) {
	if m.pid == 0 || m.st.ReadOnly() {
		return 0, nil
	}
	var published []string
	err := m.st.Update(ctx, func(tx *store.Tx) error {
		seen, err := m.heartbeats(ctx, tx)
		if err != nil {
			return err
		}
		head, err := m.st.ProjectHead(m.proj.Slug)
		if err != nil {
			return err
		}
		for _, p := range seen {
			archived, err := m.archivedPresence(head, p.Agent)
			if err != nil {
				return err
			}
			if archived.IsZero() || p.LastSeen.Sub(archived) >= every {
				tx.Put(p)
				published = append(published, p.Agent)
			}
		}
		if len(published) > 0 {
			tx.Describe("agentmail", "presence: "+strings.Join(published, ", "))
		}
		return nil
	})
	return len(published), err
}

// heartbeats returns the last-seen time of each agent of the project that
// has one, as presence records.
func (m *Mailbox) heartbeats(ctx context.Context, q queryer) ([]*record.Presence, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.name, p.last_seen FROM agents a
		JOIN presence p ON p.slug = ? AND p.fold = a.fold
		WHERE a.project_id = ? ORDER BY a.fold`, m.proj.Slug, m.pid)
	if err != nil {
		return nil, fmt.Errorf("read presence: %w", err)
	}
	defer rows.Close()
	var out []*record.Presence
	for rows.Next() {
		var name, seen string
		if err := rows.Scan(&name, &seen); err != nil {
			return nil, fmt.Errorf("read presence: %w", err)
		}
		t, err := record.ParseTime(seen)
		if err != nil {
			continue // not a time: nothing worth publishing
		}
		out = append(out, &record.Presence{Project: m.proj.Slug, Agent: name, LastSeen: t})
	}
	return out, rows.Err()
}

// archivedPresence returns the last-seen time of agent in the project's
// commit head, zero when it has none.
func (m *Mailbox) archivedPresence(head, agent string) (time.Time, error) {
	if head == "" {
		return time.Time{}, nil
	}
	rel := "agents/" + agent + "/presence.json"
	data, err := m.st.Archive().ReadFile(head, rel)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read %s's presence: %w", agent, err)
	}
	rec, err := record.Decode(record.ProjectDir(m.proj.Slug)+"/"+rel, data)
	if p, ok := rec.(*record.Presence); ok && err == nil {
		return p.LastSeen, nil
	}
	return time.Time{}, nil // unreadable: written again
}
