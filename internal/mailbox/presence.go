package mailbox

import (
	"context"
	"fmt"
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
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		due, err := m.duePresence(ctx, tx, every)
		if err != nil {
			return err
		}
		for _, p := range due {
			tx.Put(p)
			published = append(published, p.Agent)
		}
		if len(published) > 0 {
			tx.Describe("agentmail", "presence: "+strings.Join(published, ", "))
		}
		return nil
	})
	return len(published), err
}

// presenceRows selects the name, last-seen time here and in the archive
// ("" if never published) of each agent seen of the project with slug ?
// and row id ?, by folded name.
const presenceRows = `SELECT a.name, p.last_seen, COALESCE(pp.last_seen, '') FROM agents a
	JOIN presence p ON p.slug = ` + joinParam + ` AND p.fold = a.fold
	LEFT JOIN published_presence pp ON pp.slug = p.slug AND pp.fold = a.fold
	WHERE a.project_id = ` + joinParam + ` ORDER BY a.fold`

// duePresence returns, as presence records, the last-seen time of each
// agent of the project seen here at least every later than the archive
// says (published_presence).
func (m *Mailbox) duePresence(ctx context.Context, q queryer, every time.Duration) ([]*record.Presence, error) {
	rows, err := q.QueryContext(ctx, presenceRows, m.proj.Slug, m.pid)
	if err != nil {
		return nil, fmt.Errorf("read presence: %w", err)
	}
	defer rows.Close()
	var out []*record.Presence
	for rows.Next() {
		var name, seen, published string
		if err := rows.Scan(&name, &seen, &published); err != nil {
			return nil, fmt.Errorf("read presence: %w", err)
		}
		t, err := record.ParseTime(seen)
		if err != nil {
			continue // not a time: nothing worth publishing
		}
		if p, err := record.ParseTime(published); err == nil && !p.IsZero() && t.Sub(p) < every {
			continue
		}
		out = append(out, &record.Presence{Project: m.proj.Slug, Agent: name, LastSeen: t})
	}
	return out, rows.Err()
}
