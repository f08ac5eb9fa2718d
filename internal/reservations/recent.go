package reservations

import (
	"context"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Taken returns, newest first, at most limit reservations of the project
// whose id sorts before before ("" for no bound): the leases taken, in the
// order of their ids (ULIDs, so of their taking), held by agent ("" for
// anyone; ignoring case). The project's timeline pages them.
func (s *Service) Taken(ctx context.Context, agent, before string, limit int) ([]Reservation, error) {
	where, args := `1`, []any{}
	if before != "" {
		where, args = `id < ?`, append(args, before)
	}
	return s.recent(ctx, agent, where, args, `id DESC`, limit)
}

// Released returns, newest first by the time of their release, at most
// limit reservations of the project released at or before at (whole
// seconds, as records keep it), held by agent ("" for anyone).
func (s *Service) Released(ctx context.Context, agent string, at time.Time, limit int) ([]Reservation, error) {
	return s.recent(ctx, agent, `released IS NOT NULL AND released <= ?`, []any{record.FormatTime(at)}, `released DESC, id DESC`, limit)
}

// recent reads at most limit reservations matching where, of agent, in
// order.
func (s *Service) recent(ctx context.Context, agent, where string, args []any, order string, limit int) ([]Reservation, error) {
	if agent != "" {
		where += ` AND lower(agent) = ?`
		args = append(args, strings.ToLower(agent))
	}
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return nil, err
	}
	// By id: the walk of the ids' index backwards, past other projects'
	// rows (+project_id: not the index of open reservations, whose
	// rows would all be sorted); by release: that index.
	project := `project_id = ` + store.JoinParam
	if order == `id DESC` {
		project = `+project_id = ?`
	}
	q := `SELECT rowid, ` + columns + ` FROM reservations WHERE ` + project + ` AND (` + where + `) ORDER BY ` + order + ` LIMIT ?`
	out := []Reservation{}
	err = s.query(ctx, sc, q, append(append([]any{sc.pid}, args...), limit), func(_ int64, r Reservation) { out = append(out, r) })
	return out, err
}
