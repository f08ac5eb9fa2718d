package reservations

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// AutoTTL is how long a lease taken on an edit lasts (guard edit
// --auto-reserve), and how far a further edit moves its expiry.
const AutoTTL = 15 * time.Minute

// autoRenewAfter is how long after its grant or last renewal an edit
// renews an automatic lease: edits closer together than that leave it as it
// is, so a burst of edits writes once.
const autoRenewAfter = time.Minute

// AutoReason is the reason of a lease taken on an edit.
const AutoReason = "taken on edit"

// AutoResult is what AutoReserve did, path by path.
type AutoResult struct {
	Taken   []Reservation // new leases, one per path nobody held
	Renewed []Reservation // the agent's automatic leases of paths edited again
	// Shared are the paths other agents hold shared: edited without a
	// lease (a shared holder allows edits; an exclusive lease would
	// conflict with it).
	Shared []string
}

// Wrote reports whether AutoReserve changed anything.
func (r AutoResult) Wrote() bool { return len(r.Taken)+len(r.Renewed) > 0 }

// AutoReserve makes the agent the holder of files it is about to edit
// (repository paths, each leased as a literal pattern: a glob
// character in a file's name is escaped): a path nobody holds gets an exclusive lease of ttl
// for the agent, marked Auto and tagged with session; a path the agent holds by
// an automatic lease has that lease renewed to ttl from now (when it was
// granted or renewed more than a minute ago); a path the agent holds
// otherwise, or other agents hold shared, is left as it is. A path another
// agent holds exclusively takes nothing: the error is a ConflictError
// naming the holders. The decision is made under the project's lock; it
// writes only when there is something to take or renew, which a read of
// the index decides first. After Offline, what it takes or renews is
// unconfirmed (a synced project's sync decides it).
func (s *Service) AutoReserve(ctx context.Context, paths []string, ttl time.Duration, session string) (AutoResult, error) {
	if ttl <= 0 || ttl > MaxTTL {
		return AutoResult{}, fmt.Errorf("%w: the lease of an edit must last a positive time of at most %s, not %s", ErrInvalidArgument, maxTTLText, ttl)
	}
	literal := make([]string, len(paths)) // app/[slug]/page.tsx is a file, not a glob
	for i, p := range paths {
		literal[i] = project.EscapeGlob(p)
	}
	pats, globs, _, err := s.normalize(literal)
	if err != nil {
		return AutoResult{}, err
	}
	dirs := literalDirs(pats)
	decide := func(q store.Querier) (AutoResult, []Reservation, error) {
		var res AutoResult
		sc, err := s.scope(ctx, q)
		if err != nil {
			return res, nil, err
		}
		now := s.st.Now()
		held, err := s.near(ctx, sc, now, dirs)
		if err != nil {
			return res, nil, err
		}
		var stop []Conflict
		shared := map[string]bool{}
		for _, c := range s.conflicts(pats, globs, held, false) {
			if c.Exclusive {
				stop = append(stop, c)
			} else {
				shared[c.Pattern] = true
			}
		}
		if len(stop) > 0 {
			return res, nil, &ConflictError{Conflicts: stop}
		}
		var own []Reservation
		var ownPats []string
		for _, h := range held {
			if h.Agent == s.agent {
				own, ownPats = append(own, h), append(ownPats, h.Pattern)
			}
		}
		m := glob.NewMatcher(ownPats)
		var put []Reservation
		renewing := map[string]bool{}
		for _, p := range pats {
			if shared[p] {
				res.Shared = append(res.Shared, p)
				continue
			}
			path := p
			if glob.IsLiteral(p) {
				path = glob.Unescape(p)
			}
			covers := m.Match(path, false)
			if len(covers) == 0 {
				r := Reservation{Project: s.slug, Agent: s.agent, Pattern: p, Exclusive: true, Reason: AutoReason,
					Created: now, Expires: now.Add(ttl), Auto: true, Session: session, Unconfirmed: s.offline}
				res.Taken, put = append(res.Taken, r), append(put, r)
				continue
			}
			for _, i := range covers {
				r := own[i]
				if !r.Auto || renewing[r.ID] || r.Expires.After(now.Add(ttl-autoRenewAfter)) {
					continue
				}
				renewing[r.ID] = true
				r.Expires, r.Session = latest(r.Expires, lastExpiry(r, now.Add(ttl))), session
				r.Unconfirmed = s.unconfirmed(r.Unconfirmed, s.offline)
				res.Renewed, put = append(res.Renewed, r), append(put, r)
			}
		}
		return res, put, nil
	}
	var res AutoResult
	var put []Reservation
	if err := s.st.Snapshot(ctx, func(q store.Querier) error {
		res, put, err = decide(q)
		return err
	}); err != nil || len(put) == 0 {
		return res, err // nothing to write (or a holder in the way)
	}
	err = s.grant(ctx, func(tx *store.Tx) error {
		res, put, err = decide(tx)
		if err != nil {
			return err
		}
		idTime := ulid.Timestamp(s.st.Clock())
		for i := range res.Taken {
			res.Taken[i].ID = ulid.MustNew(idTime, ulid.DefaultEntropy()).String()
			tx.Put(&res.Taken[i])
		}
		for i := range res.Renewed {
			tx.Put(&res.Renewed[i])
		}
		tx.Describe(s.agent, fmt.Sprintf("reserve on edit: %s %s (taken %d, renewed %d, %s)",
			s.agent, summarize(pats), len(res.Taken), len(res.Renewed), ttl))
		return nil
	})
	return res, err
}

// ReleaseAuto ends the agent's active automatic leases (those AutoReserve
// took) of session, or of every session when session is "": what the end
// of the agent's coding session gives back. Its other leases stay.
func (s *Service) ReleaseAuto(ctx context.Context, session string) ([]Reservation, error) {
	var out []Reservation
	err := s.grant(ctx, func(tx *store.Tx) error {
		out = nil
		sc, err := s.scope(ctx, tx)
		if err != nil {
			return err
		}
		now := s.st.Now()
		where, args := mineWhere+` AND auto`, []any{record.FormatTime(now), s.agent}
		if session != "" {
			where += ` AND session = ` + store.JoinParam
			args = append(args, session)
		}
		mine, err := s.load(ctx, sc, where, args...)
		if err != nil {
			return fmt.Errorf("read reservations: %w", err)
		}
		for _, r := range mine {
			r.Released = now
			out = append(out, r)
			tx.Put(&r)
		}
		if len(out) > 0 {
			tx.Describe(s.agent, fmt.Sprintf("release on session end: %s %s", s.agent, summarize(patternsOf(out))))
		}
		return nil
	})
	return out, err
}
