package reservations

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// ErrLockHeld: another agent, or a `lock run` of the same agent, holds
// the lock.
var ErrLockHeld = errors.New("lock held")

// Lock is a named lock as commands report it.
type Lock = record.Lock

// HeldError says who holds a lock and until when. Agent is who asked: the
// advice depends on whether the holder is someone else or one of the
// agent's own runs.
type HeldError struct {
	Lock  Lock
	Agent string
}

func (e *HeldError) Error() string {
	by := e.Lock.Holder
	if e.Lock.Run != "" {
		by = "a lock run of " + by
	}
	return fmt.Sprintf("%s: %s is held by %s until %s", ErrLockHeld, e.Lock.Key, by, record.FormatTime(e.Lock.Expires))
}

func (e *HeldError) Unwrap() error { return ErrLockHeld }

// Detail names the lock's key, holder and expiry, whether the acting
// agent holds it, and whether a lock run does: a face words from them how
// to proceed (wait for it, ask the holder, or release one's own).
func (e *HeldError) Detail() fault.Detail {
	return fault.Detail{Values: map[string]any{
		"key": e.Lock.Key, "holder": e.Lock.Holder, "expires": record.FormatTime(e.Lock.Expires),
		"yours": e.Lock.Holder == e.Agent, "by_run": e.Lock.Run != "",
	}}
}

// lockKey is what a lock key is, compiled on first use: most commands take
// no lock.
var lockKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`) })

func checkKey(key string) error {
	hint := "keys are /-separated names of letters, digits, '.', '_' and '-', like deploy/staging"
	if len(key) > 200 || !lockKey().MatchString(key) {
		return fault.WithHint(fmt.Errorf("%w: invalid lock key %q", ErrInvalidArgument, key), hint)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return fault.WithHint(fmt.Errorf("%w: invalid lock key %q: %q is not a name", ErrInvalidArgument, key, seg), hint)
		}
	}
	return nil
}

func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fault.WithField(fmt.Errorf("%w: the TTL must be positive, got %s", ErrInvalidArgument, ttl), "ttl", "example", "5m")
	}
	return nil
}

// lockQuery selects the lock of project ? with key ?.
const lockQuery = `SELECT holder, created, expires, released, run, unconfirmed FROM locks WHERE project_id = ? AND key = ?`

// lock reads the lock key of sc's project; ok says it exists.
func (s *Service) lock(ctx context.Context, sc scope, key string) (Lock, bool, error) {
	l := Lock{Project: s.slug, Key: key}
	var created, expires string
	var released sql.NullString
	err := sc.q.QueryRowContext(ctx, lockQuery, sc.pid, key).
		Scan(&l.Holder, &created, &expires, &released, &l.Run, &l.Unconfirmed)
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

// lockIn reads the lock key, as the write tx sees it.
func (s *Service) lockIn(ctx context.Context, tx *store.Tx, key string) (Lock, bool, error) {
	sc, err := s.scope(ctx, tx)
	if err != nil {
		return Lock{}, false, err
	}
	return s.lock(ctx, sc, key)
}

// Acquire takes the lock key for ttl, waiting up to wait (polling) while
// another agent holds it. Acquiring a lock one already holds with Acquire
// extends it; one held by a run (AcquireRun) is held, even by its agent.
func (s *Service) Acquire(ctx context.Context, key string, ttl, wait time.Duration) (Lock, error) {
	return s.acquire(ctx, key, ttl, wait, "")
}

// AcquireRun takes the lock key for one run of a command, waiting like
// Acquire. The lock it returns carries a new token (Lock.Run) that renewing
// and releasing it need: while the run holds it, every other acquirer,
// the same agent's other runs included, finds it held.
func (s *Service) AcquireRun(ctx context.Context, key string, ttl, wait time.Duration) (Lock, error) {
	token := make([]byte, 8)
	if _, err := rand.Read(token); err != nil {
		return Lock{}, fmt.Errorf("lock %s: %w", key, err)
	}
	return s.acquire(ctx, key, ttl, wait, hex.EncodeToString(token))
}

func (s *Service) acquire(ctx context.Context, key string, ttl, wait time.Duration, run string) (Lock, error) {
	if err := checkKey(key); err != nil {
		return Lock{}, err
	}
	if err := checkTTL(ttl); err != nil {
		return Lock{}, err
	}
	if wait < 0 {
		return Lock{}, fault.WithField(fmt.Errorf("%w: the wait must not be negative, got %s", ErrInvalidArgument, wait), "wait", "example", "5m")
	}
	deadline := time.Now().Add(wait)
	for {
		l, err := s.tryAcquire(ctx, key, ttl, run)
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

func (s *Service) tryAcquire(ctx context.Context, key string, ttl time.Duration, run string) (Lock, error) {
	var out Lock
	err := s.grant(ctx, func(tx *store.Tx) error {
		now := s.st.Now()
		cur, ok, err := s.lockIn(ctx, tx, key)
		if err != nil {
			return err
		}
		held := ok && cur.Held(now)
		// Only a plain acquire of a lock the agent holds plainly is
		// re-entrant: a run owns its lock alone.
		extend := held && cur.Holder == s.agent && cur.Run == "" && run == ""
		if held && !extend {
			out = cur
			return &HeldError{Lock: cur, Agent: s.agent}
		}
		out = Lock{Project: s.slug, Key: key, Holder: s.agent, Created: now, Expires: now.Add(ttl), Run: run, Unconfirmed: s.offline}
		if extend {
			out.Created, out.Unconfirmed = cur.Created, s.unconfirmed(cur.Unconfirmed, s.offline)
		}
		tx.Put(&out)
		tx.Describe(s.agent, fmt.Sprintf("lock: %s acquires %s (%s)", s.agent, key, ttl))
		return nil
	})
	return out, err
}

// RenewLock extends a lock the agent holds to ttl from now. The lock of a
// run is renewed by the run, with RenewRun.
func (s *Service) RenewLock(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	return s.RenewRun(ctx, Lock{Key: key}, ttl)
}

// RenewRun extends the lock l that a run took with AcquireRun (or, with an
// empty l.Run, a lock taken by Acquire) to ttl from now.
func (s *Service) RenewRun(ctx context.Context, l Lock, ttl time.Duration) (Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return Lock{}, err
	}
	return s.changeLock(ctx, l.Key, l.Run, "renews", func(l *Lock, now time.Time) { l.Expires = now.Add(ttl) })
}

// ReleaseLock lets go of a lock the agent holds. The lock of a run is
// released by the run, with ReleaseRun.
func (s *Service) ReleaseLock(ctx context.Context, key string) (Lock, error) {
	return s.ReleaseRun(ctx, Lock{Key: key})
}

// ReleaseRun lets go of the lock l that a run took with AcquireRun.
func (s *Service) ReleaseRun(ctx context.Context, l Lock) (Lock, error) {
	return s.changeLock(ctx, l.Key, l.Run, "releases", func(l *Lock, now time.Time) { l.Released = now })
}

// changeLock changes the lock key held by the agent, and by the run with
// token run ("" for none).
func (s *Service) changeLock(ctx context.Context, key, run, verb string, change func(*Lock, time.Time)) (Lock, error) {
	if err := checkKey(key); err != nil {
		return Lock{}, err
	}
	var out Lock
	err := s.grant(ctx, func(tx *store.Tx) error {
		now := s.st.Now()
		cur, ok, err := s.lockIn(ctx, tx, key)
		if err != nil {
			return err
		}
		switch {
		case !ok || !cur.Held(now):
			return fault.WithField(fmt.Errorf("%w: %s does not hold lock %s", ErrNotFound, s.agent, key), "key", "key", key)
		case cur.Holder != s.agent || cur.Run != run:
			return &HeldError{Lock: cur, Agent: s.agent}
		}
		change(&cur, now)
		out = cur
		tx.Put(&cur)
		tx.Describe(s.agent, fmt.Sprintf("lock: %s %s %s", s.agent, verb, key))
		return nil
	})
	return out, err
}

// SameHolding reports whether a and b are one holding of a lock: the same
// holder and run since the same time.
func SameHolding(a, b Lock) bool {
	return a.Key == b.Key && a.Holder == b.Holder && a.Run == b.Run && a.Created.Equal(b.Created)
}

// Yield gives the lock mine, taken here, up to first, which a remote says
// was taken before it: if the lock here is still mine, it becomes first
// again, so that a merge keeps first.
func (s *Service) Yield(ctx context.Context, mine, first Lock) error {
	return s.st.UpdateProject(ctx, s.slug, func(tx *store.Tx) error {
		cur, ok, err := s.lockIn(ctx, tx, mine.Key)
		if err != nil || !ok || !SameHolding(cur, mine) {
			return err
		}
		tx.Put(&first)
		tx.Describe(s.agent, fmt.Sprintf("lock: %s yields %s to %s, who took it first", s.agent, mine.Key, first.Holder))
		return nil
	})
}

// locksByPrefix selects the keys of the locks of project ? held at a time
// whose key starts with a prefix (given twice).
const locksByPrefix = `SELECT key FROM locks WHERE project_id = +? AND released IS NULL AND expires > ?
	AND substr(key, 1, length(?)) = ? ORDER BY key`

// Locks lists the locks held now whose key starts with prefix.
func (s *Service) Locks(ctx context.Context, prefix string) ([]Lock, error) {
	out := []Lock{}
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil || sc.pid == 0 {
		return out, err
	}
	keys, err := store.Strings(ctx, sc.q, locksByPrefix, sc.pid, record.FormatTime(s.st.Now()), prefix, prefix)
	if err != nil {
		return out, err
	}
	for _, k := range keys {
		l, _, err := s.lock(ctx, sc, k)
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
	return out, nil
}
