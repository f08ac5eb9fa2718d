package reservations

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Remote says what a project's branch on its remote holds, as last
// fetched or as the push about to be made leaves it: the record of the
// reservation id, and the lock key.
type Remote interface {
	HasReservation(id string) bool
	Lock(key string) (*Lock, error)
}

// Confirm clears the unconfirmed mark of each active lease and held lock
// granted offline that the remote now has (the same holding, for a lock):
// it reached the remote first, so it is decided. One commit for all,
// written as DecideBy said (a sync proposes it, to push it with the
// grants); it returns how many it confirmed.
func (s *Service) Confirm(ctx context.Context, remote Remote) (int, error) {
	n := 0
	err := s.grant(ctx, func(tx *store.Tx) error {
		n = 0
		sc, err := s.scope(ctx, tx)
		if err != nil || sc.pid == 0 {
			return err
		}
		now := s.st.Now()
		leases, err := s.load(ctx, sc, activeWhere+` AND unconfirmed`, record.FormatTime(now))
		if err != nil {
			return err
		}
		for _, r := range leases {
			if remote.HasReservation(r.ID) {
				r.Unconfirmed = false
				tx.Put(&r)
				n++
			}
		}
		keys, err := store.Strings(ctx, sc.q, `SELECT key FROM locks WHERE project_id = ? AND unconfirmed AND released IS NULL AND expires > ?`,
			sc.pid, record.FormatTime(now))
		if err != nil {
			return err
		}
		for _, k := range keys {
			l, _, err := s.lock(ctx, sc, k)
			if err != nil {
				return err
			}
			there, err := remote.Lock(k)
			if err != nil {
				return err
			}
			if there != nil && SameHolding(*there, l) {
				l.Unconfirmed = false
				tx.Put(&l)
				n++
			}
		}
		tx.Describe("agentmail", fmt.Sprintf("confirm: %d leases and locks granted offline reached the remote first", n))
		return nil
	})
	return n, err
}
