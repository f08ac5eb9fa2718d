package store

import (
	"context"
	"time"
)

// Watch is the one way to wait for a change in the store: it calls look
// with the index caught up, at once and again each time the archive's head
// moves, which it reads every poll (a file read: nothing is queried while
// nothing changes). It returns true when look reports done, false when
// deadline passes first; look's error, the head's, a catch-up's or the
// context's ends it. deadline is asked again after every look, so that a
// look may extend the wait (a reply that asks the waiter to hold on).
func (s *Store) Watch(ctx context.Context, poll time.Duration, deadline func() time.Time, look func() (done bool, err error)) (bool, error) {
	lastHead := ""
	for {
		head, err := s.Head()
		if err != nil {
			return false, err
		}
		if head != lastHead {
			lastHead = head
			if err := s.Fresh(ctx); err != nil {
				return false, err
			}
			if done, err := look(); done || err != nil {
				return done, err
			}
		}
		end := deadline()
		if !time.Now().Before(end) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(min(poll, time.Until(end))):
		}
	}
}
