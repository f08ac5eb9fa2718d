package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/agentmail/agentmail/reservations"
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

// confirmGrant makes a grant just committed here hold only once the
// remote's ref has it, for a project that has synced: it fetches, merges
// and pushes like sync, and after each merge redecide says whether the
// grant still stands against what landed on the remote first. When it
// does not, or the remote cannot be reached, undo ends the grant here and
// the error says why. A project that never synced grants locally.
func (s *Service) confirmGrant(ctx context.Context, x *session, redecide func(theirs string) error, undo func() error) error {
	remote, ok, err := x.synced()
	if !ok {
		return err
	}
	var resp SyncResponse
	err = s.syncOnce(ctx, x.st, x.project().Slug, remote, &resp, redecide)
	if err == nil {
		return nil
	}
	if uerr := undo(); uerr != nil {
		return fmt.Errorf("%w (and ending the grant here failed: %v)", err, uerr)
	}
	if !errors.Is(err, archive.ErrUnreachable) {
		// Another grant's push may have carried ours out before it was
		// decided: publish its end too, best effort (the next sync would).
		_ = s.syncOnce(ctx, x.st, x.project().Slug, remote, &resp, nil)
		return err
	}
	return fault.WithHint(fmt.Errorf("not granted: the grant must reach %s first: %w", remote, err),
		"check the remote (git ls-remote "+remote+"), or pass --offline to grant here only, unconfirmed")
}

// confirmLock confirms the lock mine, just taken here, with the remote
// (see confirmGrant): a lock the remote says another holds was taken
// first, so mine yields to it and the error is a HeldError naming it.
func (s *Service) confirmLock(ctx context.Context, x *session, rs *reservations.Service, mine reservations.Lock) (reservations.Lock, error) {
	var first *reservations.Lock
	err := s.confirmGrant(ctx, x, func(theirs string) error {
		l, err := lockAt(x.st.Archive(), theirs, x.project().Slug, mine.Key)
		if err != nil || l == nil || !l.Held(x.st.Now()) || reservations.SameHolding(*l, mine) {
			return err
		}
		first = l
		return &reservations.HeldError{Lock: *l, Agent: mine.Holder}
	}, func() error {
		if first != nil {
			return rs.Yield(ctx, mine, *first)
		}
		_, err := rs.ReleaseRun(ctx, mine)
		return err
	})
	return mine, err
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

// settleOffline ends each lease granted offline here (unconfirmed, and not
// on the remote yet) that overlaps an active lease of another agent that
// is on the remote (commit theirs): that one landed first. The holder of
// each lease ended is told by mail from the human overseer.
func (s *Service) settleOffline(ctx context.Context, x *session, theirs string) error {
	all := x.overview()
	active, err := all.List(ctx, reservations.Filter{})
	if err != nil {
		return err
	}
	arc := x.st.Archive()
	onRemote := func(r reservations.Reservation) bool {
		_, err := arc.ReadFile(theirs, "reservations/"+r.ID+".json")
		return err == nil
	}
	for _, u := range active {
		if !u.Unconfirmed || onRemote(u) {
			continue
		}
		i := slices.IndexFunc(active, func(h reservations.Reservation) bool {
			return h.Agent != u.Agent && (h.Exclusive || u.Exclusive) && reservations.Overlap(u.Pattern, h.Pattern) && onRemote(h)
		})
		if i < 0 {
			continue
		}
		if err := s.endLost(ctx, x, all, u, active[i]); err != nil {
			return err
		}
	}
	return nil
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
		Body: fmt.Sprintf("Your reservation %s of `%s`, granted with --offline, overlapped %s's reservation %s of `%s`, "+
			"which reached the remote first; sync ended yours. Reserve again once %s releases it, or ask: agentmail send --to %s",
			r.ID, r.Pattern, first.Agent, first.ID, first.Pattern, first.Agent, first.Agent)})
	if err != nil {
		return fmt.Errorf("ended %s's reservation %s, but could not tell them: %w", r.Agent, r.ID, err)
	}
	return nil
}

// keepRemoteLocks makes each lock the remote (commit theirs) has held win
// over another holding of it here that the merge kept: the remote's ref
// decided it (the merge rule alone keeps the later acquisition, which a
// lock taken here and never pushed would win).
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
			if err := rs.Yield(ctx, l, *first); err != nil {
				return fmt.Errorf("keep the remote's lock %s: %w", l.Key, err)
			}
		}
	}
	return nil
}
