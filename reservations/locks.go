package reservations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// ErrLockHeld: another agent holds the lock.
var ErrLockHeld = errors.New("lock held")

// Lock is a named lock as commands report it.
type Lock = record.Lock

// HeldError says who holds a lock and until when.
type HeldError struct{ Lock Lock }

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s: %s is held by %s until %s", ErrLockHeld, e.Lock.Key, e.Lock.Holder, record.FormatTime(e.Lock.Expires))
}

func (e *HeldError) Unwrap() error { return ErrLockHeld }

var lockKey = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)

func checkKey(key string) error {
	if len(key) > 200 || !lockKey.MatchString(key) {
		return fault.WithHint(fmt.Errorf("%w: invalid lock key %q", ErrInvalidArgument, key),
			"keys are /-separated names of letters, digits, '.', '_' and '-', like deploy/staging")
	}
	return nil
}

func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fault.WithHint(fmt.Errorf("%w: --ttl must be positive, got %s", ErrInvalidArgument, ttl), "pass a duration such as --ttl 5m")
	}
	return nil
}

func (s *Service) lock(ctx context.Context, q querier, key string) (Lock, bool, error) {
	pid, err := s.projectID(ctx, q)
	if err != nil || pid == 0 {
		return Lock{}, false, err
	}
	l := Lock{Project: s.slug, Key: key}
	var created, expires string
	var released sql.NullString
	err = q.QueryRowContext(ctx, `SELECT holder, created, expires, released FROM locks WHERE project_id = ? AND key = ?`, pid, key).
		Scan(&l.Holder, &created, &expires, &released)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, err
	}
	l.Created, _ = record.ParseTime(created)
	l.Expires, _ = record.ParseTime(expires)
	if released.Valid {
		l.Released, _ = record.ParseTime(released.String)
	}
	return l, true, nil
}

// Acquire takes the lock key for ttl, waiting up to wait (polling) while
// another agent holds it. Acquiring a lock one already holds extends it.
func (s *Service) Acquire(ctx context.Context, key string, ttl, wait time.Duration) (Lock, error) {
	if err := checkKey(key); err != nil {
		return Lock{}, err
	}
	if err := checkTTL(ttl); err != nil {
		return Lock{}, err
	}
	deadline := time.Now().Add(wait)
	for {
		l, err := s.tryAcquire(ctx, key, ttl)
		if !errors.Is(err, ErrLockHeld) || !time.Now().Before(deadline) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return l, ctx.Err()
		case <-time.After(min(100*time.Millisecond, time.Until(deadline))):
		}
	}
}

func (s *Service) tryAcquire(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	var out Lock
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		now := s.st.Now()
		cur, ok, err := s.lock(ctx, tx, key)
		if err != nil {
			return err
		}
		if ok && cur.Held(now) && cur.Holder != s.agent {
			out = cur
			return &HeldError{Lock: cur}
		}
		out = Lock{Project: s.slug, Key: key, Holder: s.agent, Created: now, Expires: now.Add(ttl)}
		if ok && cur.Held(now) {
			out.Created = cur.Created
		}
		tx.Put(&out)
		tx.Describe(s.agent, fmt.Sprintf("lock: %s acquires %s (%s)", s.agent, key, ttl))
		return nil
	})
	return out, err
}

// RenewLock extends a lock the agent holds to ttl from now.
func (s *Service) RenewLock(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return Lock{}, err
	}
	return s.changeLock(ctx, key, "renews", func(l *Lock, now time.Time) { l.Expires = now.Add(ttl) })
}

// ReleaseLock lets go of a lock the agent holds.
func (s *Service) ReleaseLock(ctx context.Context, key string) (Lock, error) {
	return s.changeLock(ctx, key, "releases", func(l *Lock, now time.Time) { l.Released = now })
}

func (s *Service) changeLock(ctx context.Context, key, verb string, change func(*Lock, time.Time)) (Lock, error) {
	if err := checkKey(key); err != nil {
		return Lock{}, err
	}
	var out Lock
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		now := s.st.Now()
		cur, ok, err := s.lock(ctx, tx, key)
		if err != nil {
			return err
		}
		switch {
		case !ok || !cur.Held(now):
			return fault.WithHint(fmt.Errorf("%w: %s does not hold lock %s", ErrNotFound, s.agent, key), "acquire it with: agentmail lock acquire "+key)
		case cur.Holder != s.agent:
			return &HeldError{Lock: cur}
		}
		change(&cur, now)
		out = cur
		tx.Put(&cur)
		tx.Describe(s.agent, fmt.Sprintf("lock: %s %s %s", s.agent, verb, key))
		return nil
	})
	return out, err
}

// Locks lists the locks held now whose key starts with prefix.
func (s *Service) Locks(ctx context.Context, prefix string) ([]Lock, error) {
	out := []Lock{}
	pid, err := s.projectID(ctx, s.st.DB())
	if err != nil || pid == 0 {
		return out, err
	}
	rows, err := s.st.DB().QueryContext(ctx, `SELECT key FROM locks WHERE project_id = ? AND released IS NULL AND expires > ?
		AND substr(key, 1, length(?)) = ? ORDER BY key`, pid, record.FormatTime(s.st.Now()), prefix, prefix)
	if err != nil {
		return out, err
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return out, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	for _, k := range keys {
		l, _, err := s.lock(ctx, s.st.DB(), k)
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
	return out, nil
}
