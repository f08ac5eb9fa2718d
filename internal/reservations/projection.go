package reservations

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Projection returns the reservations' part of the index, which a store
// must be opened with (store.Options.Projections) to serve reservations
// and locks. Nothing but this package reads or writes these tables.
func Projection() store.Projection { return projection{} }

type projection struct{}

// Name changes with the tables, and with what they derive from records:
// the dir column is literalDir of the pattern, which rivals looks the
// active reservations up by; a lease Admit refuses is not there.
func (projection) Name() string { return "reservations7" }

// Admit keeps out of the index a lease that reserve would not have
// granted: an invalid pattern, or one that lasts longer than MaxTTL from
// its grant (see store.Admitter). That its agent is registered in the
// project is mailbox's to check, which keeps the agents.
func (projection) Admit(_ *store.Writer, rec record.Record) (bool, string, error) {
	r, ok := rec.(*record.Reservation)
	if !ok {
		return false, "", nil
	}
	return true, leaseRefusal(r), nil
}

// leaseRefusal says why reserve would not have granted the lease r, ""
// when it would have.
func leaseRefusal(r *record.Reservation) string {
	if _, err := glob.NormalizePattern(r.Pattern, nil); err != nil {
		return fmt.Sprintf("%s's lease %s has an invalid pattern: %v", r.Agent, r.ID, err)
	}
	if life := r.Expires.Sub(r.Created); life > MaxTTL {
		return fmt.Sprintf("%s's lease %s of %s expires %s, %dh after it was granted; a lease lasts at most %s",
			r.Agent, r.ID, r.Pattern, record.FormatTime(r.Expires), int64(life.Hours()), maxTTLText)
	}
	return ""
}

// Drop removes the row of a lease or lock that an Admitter refused.
func (projection) Drop(w *store.Writer, rec record.Record) error {
	switch r := rec.(type) {
	case *record.Reservation:
		_, err := w.Exec(`DELETE FROM reservations WHERE id = ?`, r.ID)
		return err
	case *record.Lock:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`DELETE FROM locks WHERE project_id = ? AND key = ?`, pid, r.Key)
		return err
	}
	return nil
}

func (projection) Tables() []store.Table {
	return []store.Table{
		{Name: "reservations", Create: `CREATE TABLE reservations(id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, agent TEXT NOT NULL,
			pattern TEXT NOT NULL, exclusive INTEGER NOT NULL, reason TEXT NOT NULL, created TEXT NOT NULL,
			expires TEXT NOT NULL, released TEXT, released_by TEXT NOT NULL, release_reason TEXT NOT NULL,
			unconfirmed INTEGER NOT NULL DEFAULT 0, dir TEXT NOT NULL, auto INTEGER NOT NULL DEFAULT 0, session TEXT NOT NULL DEFAULT '')`,
			Indexes: []string{`CREATE INDEX reservations_open ON reservations(project_id, released, expires)`,
				`CREATE INDEX reservations_dir ON reservations(project_id, dir) WHERE released IS NULL`,
				`CREATE INDEX reservations_cased ON reservations(project_id, dir) WHERE released IS NULL AND ` + casedDir}},
		{Name: "locks", Create: `CREATE TABLE locks(project_id INTEGER NOT NULL, key TEXT NOT NULL, holder TEXT NOT NULL,
			created TEXT NOT NULL, expires TEXT NOT NULL, released TEXT, run TEXT NOT NULL DEFAULT '',
			unconfirmed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(project_id, key)) WITHOUT ROWID`},
	}
}

func (projection) Prepare(record.Record) any { return nil }

func (projection) Apply(w *store.Writer, rec record.Record, _ any) error {
	switch r := rec.(type) {
	case *record.Reservation:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`INSERT OR REPLACE INTO reservations(id, project_id, agent, pattern, exclusive, reason,
			created, expires, released, released_by, release_reason, unconfirmed, dir, auto, session) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, pid, r.Agent, r.Pattern, r.Exclusive, r.Reason, record.FormatTime(r.Created),
			record.FormatTime(r.Expires), store.NullTime(r.Released), r.ReleasedBy, r.ReleaseReason, r.Unconfirmed, glob.LiteralDir(r.Pattern),
			r.Auto, r.Session)
		return err
	case *record.Lock:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`INSERT OR REPLACE INTO locks(project_id, key, holder, created, expires, released, run, unconfirmed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pid, r.Key, r.Holder, record.FormatTime(r.Created),
			record.FormatTime(r.Expires), store.NullTime(r.Released), r.Run, r.Unconfirmed)
		return err
	}
	return nil
}

// activeCounts counts the reservations of project ? that hold at a time
// by agent.
const activeCounts = `SELECT agent, count(*) FROM reservations
	WHERE project_id = ` + store.JoinParam + ` AND ` + activeWhere + ` GROUP BY agent`

// ActiveCounts returns the number of active reservations at now of each
// agent of the project with row id project that holds any, by name (it
// implements mailbox.Leases).
func (projection) ActiveCounts(ctx context.Context, q store.Querier, project int64, now time.Time) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, activeCounts, project, record.FormatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var a string
		var n int
		if err := rows.Scan(&a, &n); err != nil {
			return nil, err
		}
		out[a] = n
	}
	return out, rows.Err()
}

// Overlapping reports whether agent a holds, at now, an active
// reservation that overlaps one of agent b's in the project with row id
// project, leaving out a's broad patterns (it implements mailbox.Leases):
// taken with --shared, "**" would otherwise relate a to everyone.
func (p projection) Overlapping(ctx context.Context, q store.Querier, project int64, a, b string, now time.Time) (bool, error) {
	sc := scope{q, project}
	mine, err := activePatterns(ctx, sc, a, now)
	if err != nil {
		return false, err
	}
	mine = slices.DeleteFunc(mine, glob.IsBroad)
	if len(mine) == 0 {
		return false, nil
	}
	theirs, err := activePatterns(ctx, sc, b, now)
	if err != nil {
		return false, err
	}
	for _, x := range mine {
		for _, y := range theirs {
			if glob.Overlap(x, y) {
				return true, nil
			}
		}
	}
	return false, nil
}

func activePatterns(ctx context.Context, sc scope, agent string, now time.Time) ([]string, error) {
	return store.Strings(ctx, sc.q, activePatternsOf, sc.pid, agent, record.FormatTime(now))
}

// activePatternsOf selects the patterns of the reservations of project ?
// and agent ? that hold at a time.
const activePatternsOf = `SELECT pattern FROM reservations WHERE project_id = ` + store.JoinParam + ` AND agent = ` + store.JoinParam + `
	AND ` + activeWhere

// Presence is what a forced release needs to know of the mailbox's
// presence: when the holder last ran a command. The projection of the
// store that implements it answers (package mailbox's does); in a store
// opened without one, nobody has been seen, and every holder is silent.
type Presence interface {
	// LastSeen returns when agent of the project with slug last ran a
	// command, and whether it ever did.
	LastSeen(ctx context.Context, q store.Querier, slug, agent string) (time.Time, bool, error)
}

// presence returns the store's Presence.
func (s *Service) presence() Presence {
	for _, p := range s.st.Projections() {
		if pr, ok := p.(Presence); ok {
			return pr
		}
	}
	return unseen{}
}

// unseen is a store without presence.
type unseen struct{}

func (unseen) LastSeen(context.Context, store.Querier, string, string) (time.Time, bool, error) {
	return time.Time{}, false, nil
}
