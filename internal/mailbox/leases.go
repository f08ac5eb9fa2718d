package mailbox

import (
	"context"
	"time"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Leases is what the mailbox needs to know of reservations, which another
// package keeps: how many each agent holds (agents, holdings), and whether
// two agents' leases overlap (the auto contact policy). The projection of
// the store that implements it answers (package reservations' does); a
// store opened without one holds no reservations.
type Leases interface {
	// ActiveCounts returns the number of active reservations at now of
	// each agent of the project with row id project that holds any, by
	// the agent's name as held.
	ActiveCounts(ctx context.Context, q store.Querier, project int64, now time.Time) (map[string]int, error)
	// Overlapping reports whether agent a holds, at now, an active
	// reservation that overlaps one of agent b's, leaving out a's broad
	// patterns ("**"), which overlap everything.
	Overlapping(ctx context.Context, q store.Querier, project int64, a, b string, now time.Time) (bool, error)
}

// leases returns the store's Leases.
func (m *Mailbox) leases() Leases {
	for _, p := range m.st.Projections() {
		if l, ok := p.(Leases); ok {
			return l
		}
	}
	return noLeases{}
}

// noLeases is a store without reservations.
type noLeases struct{}

func (noLeases) ActiveCounts(context.Context, store.Querier, int64, time.Time) (map[string]int, error) {
	return map[string]int{}, nil
}

func (noLeases) Overlapping(context.Context, store.Querier, int64, string, string, time.Time) (bool, error) {
	return false, nil
}

// reservationCounts returns the number of active reservations per agent
// (by folded name).
func (m *Mailbox) reservationCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	if m.pid == 0 {
		return out, nil
	}
	counts, err := m.leases().ActiveCounts(ctx, m.st.Index(), m.pid, m.st.Now())
	if err != nil {
		return nil, err
	}
	for a, n := range counts {
		out[names.Fold(a)] += n
	}
	return out, nil
}

// lastSeen selects when the agent with folded name ? of the project with
// slug ? last ran a command.
const lastSeen = `SELECT last_seen FROM presence WHERE slug = ? AND fold = ?`

// LastSeen returns when agent of the project with slug last ran a command,
// from the presence kept in the index, for other packages (reservations'
// forced release asks it through an interface of its own).
func (projection) LastSeen(ctx context.Context, q store.Querier, slug, agent string) (time.Time, bool, error) {
	var seen string
	err := q.QueryRowContext(ctx, lastSeen, slug, names.Fold(agent)).Scan(&seen)
	if err != nil {
		return time.Time{}, false, ignoreNoRows(err)
	}
	t, err := record.ParseTime(seen)
	return t, err == nil, nil
}
