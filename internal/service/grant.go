package service

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// synced reports whether x's project has synced: from then on its grants
// are decided by the push, and returns the remote to push to.
func (x *session) synced() (string, bool, error) {
	arc := x.st.Archive()
	slug := x.project().Slug
	if arc.Config(syncKey(slug, "lastsync")) == "" {
		return "", false, nil
	}
	remote, err := syncRemote(arc, x.project(), "")
	return remote, err == nil, err
}

// decideByPush makes rs write its grants (reserve, renew, lock acquire,
// lock run) only once the remote has them, when x's project has synced
// and the grant is not offline; otherwise they are written here.
func (s *Service) decideByPush(x *session, rs *reservations.Service, offline bool) error {
	if offline {
		return nil
	}
	remote, ok, err := x.synced()
	if ok {
		rs.DecideBy(s.pushFirst(x, remote))
	}
	return err
}

// grantOffline says how rs grants renewals and locks: offline, here and
// unconfirmed; else decided by the push once x's project has synced.
func (s *Service) grantOffline(x *session, rs *reservations.Service, offline bool) error {
	if offline {
		rs.Offline()
	}
	return s.decideByPush(x, rs, offline)
}

// pushFirst returns the writer of x's project's grants once it has synced:
// the grant's commit is built on the project's branch without moving it
// (store.Propose) and pushed with the remote's compare-and-swap, expecting
// what was last seen there; only once the remote has it does the branch
// here adopt it (store.Adopt). In the common case that is one push and no
// fetch. A rejected push fetches and merges what landed first, and the
// grant is decided again against it; the leases granted offline here that
// lost to it are ended. An unreachable remote changes nothing here: a
// lease held before a renewal still holds, as it was.
func (s *Service) pushFirst(x *session, remote string) reservations.Writer {
	st, slug := x.st, x.project().Slug
	arc := st.Archive()
	return func(ctx context.Context, fn func(*store.Tx) error) error {
		theirs := ""    // what a rejected push fetched and merged, until settled
		merged := false // whether any was
		for attempt := 0; attempt < syncAttempts; attempt++ {
			p, err := st.Propose(ctx, slug, fn)
			if err != nil && merged {
				// Decided against what landed first: publish the merge,
				// and the end of what lost, best effort (the next sync would).
				var resp SyncResponse
				_ = s.syncOnce(ctx, st, slug, remote, &resp, s.settler(ctx, x))
			}
			if err != nil || p == nil {
				return err
			}
			if theirs != "" {
				if ended, err := s.settleOffline(ctx, x, theirs); err != nil || ended > 0 {
					theirs = "" // the branch moved: decide again on top of it
					if err != nil {
						return err
					}
					continue
				}
			}
			err = pushGrant(arc, remote, slug, p.Commit, p.Parent)
			switch {
			case err == nil:
				return st.Adopt(ctx, p)
			case !errors.Is(err, archive.ErrPushRejected):
				return notGranted(remote, err)
			}
			if theirs, err = s.pull(ctx, st, slug, remote); err != nil {
				return notGranted(remote, err)
			}
			merged = true
		}
		return fault.WithHint(fmt.Errorf("%w: %d pushes in a row lost to others", store.ErrBusy, syncAttempts),
			"others are granting in the same project right now; try again")
	}
}

// pushGrant pushes c, a commit on parent, the project slug's branch here,
// to the remote's branch if it is still what was last seen there (the
// remote's compare-and-swap): ErrPushRejected otherwise, and when the
// branch here has not merged what was last seen (the push would drop it).
func pushGrant(arc *archive.Archive, remote, slug, c, parent string) error {
	seen := arc.Tracking(slug)
	if seen != "" && seen != parent {
		if ok, err := arc.IsAncestor(seen, parent); err != nil || !ok {
			if err != nil {
				return err
			}
			return archive.ErrPushRejected
		}
	}
	return arc.Push(remote, slug, c, seen)
}

// notGranted is the error of a grant that could not reach remote.
func notGranted(remote string, err error) error {
	if !errors.Is(err, archive.ErrUnreachable) {
		return err
	}
	return fault.WithValues(fmt.Errorf("not granted: the grant must reach %s first (what you held before still holds): %w", remote, err),
		"remote", remote, "operation", "grant")
}

// remoteAt is a project's branch on the remote as commit rev, which the
// archive here has.
type remoteAt struct {
	arc       *archive.Archive
	rev, slug string
}

func (r remoteAt) HasReservation(id string) bool { return hasReservation(r.arc, r.rev, id) }

// hasReservation reports whether commit rev of a project's branch holds
// the reservation id, where this version puts it or, on a remote an
// earlier version wrote, where that one did.
func hasReservation(arc *archive.Archive, rev, id string) bool {
	for _, p := range []string{record.ReservationFile(id), record.LegacyReservationFile(id)} {
		if _, err := arc.ReadFile(rev, p); err == nil {
			return true
		}
	}
	return false
}

func (r remoteAt) Lock(key string) (*reservations.Lock, error) {
	return lockAt(r.arc, r.rev, r.slug, key)
}

// lockAt returns the lock key of project slug in commit rev, nil if it has
// none.
func lockAt(arc *archive.Archive, rev, slug, key string) (*reservations.Lock, error) {
	name := "locks/" + record.LockFileName(key)
	data, err := arc.ReadFile(rev, name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec, err := record.Decode(record.ProjectDir(slug)+"/"+name, data)
	if err != nil {
		return nil, fmt.Errorf("lock %s on the remote: %w", key, err)
	}
	l, _ := rec.(*reservations.Lock)
	return l, nil
}

// settler is settleOffline as sync's loop runs it.
func (s *Service) settler(ctx context.Context, x *session) func(theirs string) error {
	return func(theirs string) error {
		_, err := s.settleOffline(ctx, x, theirs)
		return err
	}
}

// settleOffline ends each lease granted offline here (unconfirmed, and not
// on the remote yet) that overlaps an active lease of another agent that
// is on the remote (commit theirs): that one landed first. The holder of
// each lease ended is told by mail from the human overseer. It returns how
// many it ended.
func (s *Service) settleOffline(ctx context.Context, x *session, theirs string) (int, error) {
	all := x.overview()
	active, err := all.List(ctx, reservations.Filter{})
	if err != nil {
		return 0, err
	}
	arc := x.st.Archive()
	lost := lostLeases(active, func(r reservations.Reservation) bool { return hasReservation(arc, theirs, r.ID) })
	for i, l := range lost {
		if err := s.endLost(ctx, x, all, l.lease, l.first); err != nil {
			return i, err
		}
	}
	return len(lost), nil
}

// loss is a lease granted offline here that lost to first, another
// agent's lease that reached the remote before it.
type loss struct{ lease, first reservations.Reservation }

// lostLeases returns the leases of active granted offline here and not
// on the remote (onRemote) that overlap an active lease of another agent
// that is, each with the first such in active. Every offline lease is
// tested against every other agent's, so each pattern is compiled once
// and each lease looked up on the remote once: the cost grows with the
// leases, not with the pairs.
func lostLeases(active []reservations.Reservation, onRemote func(reservations.Reservation) bool) []loss {
	remote := make(map[int]bool, len(active))
	isOnRemote := func(i int) bool {
		on, ok := remote[i]
		if !ok {
			on = onRemote(active[i])
			remote[i] = on
		}
		return on
	}
	globs := make(map[int]*glob.Glob, len(active))
	glob := func(i int) *glob.Glob {
		g, ok := globs[i]
		if !ok {
			// As glob.Overlap reads a pattern: an invalid one
			// (nil) overlaps nothing.
			if p, err := glob.NormalizePattern(active[i].Pattern, nil); err == nil {
				g, _ = glob.Compile(p)
			}
			globs[i] = g
		}
		return g
	}
	overlap := func(i, j int) bool {
		g, h := glob(i), glob(j)
		return g != nil && h != nil && g.Overlaps(h)
	}
	var lost []loss
	for i, u := range active {
		if !u.Unconfirmed || isOnRemote(i) {
			continue
		}
		for j, h := range active {
			if h.Agent != u.Agent && (h.Exclusive || u.Exclusive) && overlap(i, j) && isOnRemote(j) {
				lost = append(lost, loss{u, h})
				break
			}
		}
	}
	return lost
}

// endLost ends the offline lease u, which lost to first, and tells its
// holder.
func (s *Service) endLost(ctx context.Context, x *session, all *reservations.Service, u, first reservations.Reservation) error {
	reason := fmt.Sprintf("granted offline; %s's %s reached the remote first", first.Agent, first.Pattern)
	r, ended, err := all.Supersede(ctx, u.ID, mailbox.HumanSender, reason)
	if err != nil || !ended {
		return err
	}
	_, err = x.mb.Send(ctx, mailbox.Draft{AsHuman: true, To: []string{r.Agent}, Importance: "high",
		Subject: "Your offline reservation of " + r.Pattern + " was ended",
		Body: fmt.Sprintf("Your reservation %s of `%s`, granted offline, overlapped %s's reservation %s of `%s`, "+
			"which reached the remote first; sync ended yours. Reserve again once %s releases it, or ask them with a message.",
			r.ID, r.Pattern, first.Agent, first.ID, first.Pattern, first.Agent)})
	if err != nil {
		return fmt.Errorf("ended %s's reservation %s, but could not tell them: %w", r.Agent, r.ID, err)
	}
	return nil
}

// keepRemoteLocks makes each lock the remote (commit theirs) has held win
// over another holding of it here that the merge kept: the remote's ref
// decided it (the merge rule alone keeps the later acquisition, which a
// lock taken here and never pushed would win). A holding the index would
// keep out (a holder not registered here: see store.Admitter) wins
// nothing.
func keepRemoteLocks(ctx context.Context, st *store.Store, slug, theirs string) error {
	rs := reservations.New(st, slug, "", nil)
	held, err := rs.Locks(ctx, "")
	if err != nil {
		return err
	}
	for _, l := range held {
		first, err := lockAt(st.Archive(), theirs, slug, l.Key)
		if err != nil {
			return err
		}
		if first != nil && first.Held(st.Now()) && !reservations.SameHolding(*first, l) {
			if why, err := st.Refusal(ctx, first); err != nil || why != "" {
				if err != nil {
					return err
				}
				continue
			}
			if err := rs.Yield(ctx, l, *first); err != nil {
				return fmt.Errorf("keep the remote's lock %s: %w", l.Key, err)
			}
		}
	}
	return nil
}
