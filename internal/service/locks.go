package service

import (
	"context"
	"errors"
	"time"

	"github.com/agentmail/agentmail/internal/reservations"
)

// LockResponse is the document of lock acquire, renew and release, and of
// a lock found held: {"lock": lock}.
type LockResponse struct {
	Lock Lock `json:"lock"`
}

// LockRequest takes or extends a named lock.
type LockRequest struct {
	Key  string        // /-separated, such as deploy/staging
	TTL  time.Duration // how long it lasts unless renewed
	Wait time.Duration // how long to wait for its holder to let go (acquire only)
	// Offline takes the lock here without the remote (acquire and run),
	// unconfirmed until a sync decides it.
	Offline bool
}

// heldResponse turns a lock held by another into its document, beside the
// error saying so.
func heldResponse(l reservations.Lock, err error) (LockResponse, error) {
	if err == nil {
		return LockResponse{Lock: lockDoc(l)}, nil
	}
	var held *reservations.HeldError
	if errors.As(err, &held) {
		return LockResponse{Lock: lockDoc(held.Lock)}, err
	}
	return LockResponse{}, err
}

// AcquireLock takes lock req.Key for req.TTL, waiting up to req.Wait while
// another holds it. Acquiring a lock one holds extends it. When it stays
// held the error wraps reservations.ErrLockHeld and the response is the
// holder's lock.
func (s *Service) AcquireLock(ctx context.Context, sc Scope, req LockRequest) (LockResponse, error) {
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return LockResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return LockResponse{}, err
	}
	if err := s.grantOffline(x, rs, req.Offline); err != nil {
		return LockResponse{}, err
	}
	return heldResponse(rs.Acquire(ctx, req.Key, req.TTL, req.Wait))
}

// RenewLock extends a lock the acting agent holds to req.TTL from now.
func (s *Service) RenewLock(ctx context.Context, sc Scope, req LockRequest) (LockResponse, error) {
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return LockResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return LockResponse{}, err
	}
	return heldResponse(rs.RenewLock(ctx, req.Key, req.TTL))
}

// ReleaseLock lets go of a lock the acting agent holds.
func (s *Service) ReleaseLock(ctx context.Context, sc Scope, key string) (LockResponse, error) {
	_, rs, err := s.leases(ctx, sc)
	if err != nil {
		return LockResponse{}, err
	}
	return heldResponse(rs.ReleaseLock(ctx, key))
}

// LocksResponse is the document of lock list: {"locks": [lock...]}.
type LocksResponse struct {
	Locks []Lock `json:"locks"`
}

// Locks lists the locks held now whose key starts with prefix.
func (s *Service) Locks(ctx context.Context, sc Scope, prefix string) (LocksResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return LocksResponse{}, err
	}
	locks, err := x.overview().Locks(ctx, prefix)
	if err != nil {
		return LocksResponse{}, err
	}
	return LocksResponse{Locks: mapSlice(locks, lockDoc)}, nil
}

// LockRun is a lock held for one run of a command (lock run): it carries a
// token of its own, so that every other acquirer, even another run of the
// same agent, finds it held until the run releases it.
type LockRun struct {
	rs   *reservations.Service
	lock reservations.Lock
	ttl  time.Duration
}

// StartLockRun takes lock req.Key for a run, waiting like AcquireLock.
// When it stays held the error wraps reservations.ErrLockHeld and the
// response is the holder's lock.
func (s *Service) StartLockRun(ctx context.Context, sc Scope, req LockRequest) (*LockRun, LockResponse, error) {
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return nil, LockResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return nil, LockResponse{}, err
	}
	if err := s.grantOffline(x, rs, req.Offline); err != nil {
		return nil, LockResponse{}, err
	}
	l, err := rs.AcquireRun(ctx, req.Key, req.TTL, req.Wait)
	resp, err := heldResponse(l, err)
	if err != nil {
		return nil, resp, err
	}
	return &LockRun{rs: rs, lock: l, ttl: req.TTL}, resp, nil
}

// Key returns the lock's key.
func (r *LockRun) Key() string { return r.lock.Key }

// Renew extends the run's lock to its TTL from now.
func (r *LockRun) Renew(ctx context.Context) error {
	_, err := r.rs.RenewRun(ctx, r.lock, r.ttl)
	return err
}

// KeepAlive renews the run's lock every third of its TTL (at most every
// second) until ctx is done, telling failed, when set, of each renewal
// that failed. It returns when ctx is done.
func (r *LockRun) KeepAlive(ctx context.Context, failed func(error)) {
	keepAlive(ctx, r.ttl, r.Renew, failed)
}

// keepAlive calls renew every third of ttl (at most every second) until
// ctx is done, telling failed, when set, of each renewal that failed.
func keepAlive(ctx context.Context, ttl time.Duration, renew func(context.Context) error, failed func(error)) {
	tick := time.NewTicker(max(ttl/3, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := renew(ctx); err != nil && ctx.Err() == nil && failed != nil {
				failed(err)
			}
		}
	}
}

// Release lets go of the run's lock.
func (r *LockRun) Release(ctx context.Context) error {
	_, err := r.rs.ReleaseRun(ctx, r.lock)
	return err
}
