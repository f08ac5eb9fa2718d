package service

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestLocks(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	deploy := LockRequest{Key: "deploy/staging", TTL: time.Minute}
	tests := []struct {
		name   string
		agent  string
		op     func(Scope, LockRequest) (LockResponse, error)
		req    LockRequest
		holder string // the lock in the response
		code   string
	}{
		{name: "acquire", agent: "GreenCastle", op: f.acquire, req: deploy, holder: "GreenCastle"},
		{name: "acquire again extends", agent: "GreenCastle", op: f.acquire, req: deploy, holder: "GreenCastle"},
		{name: "held: the holder's lock", agent: "BlueLake", op: f.acquire, req: deploy, holder: "GreenCastle", code: "LOCK_HELD"},
		{name: "renew someone else's", agent: "BlueLake", op: f.renewLock, req: deploy, holder: "GreenCastle", code: "LOCK_HELD"},
		{name: "renew", agent: "GreenCastle", op: f.renewLock, req: LockRequest{Key: "deploy/staging", TTL: time.Hour}, holder: "GreenCastle"},
		{name: "release someone else's", agent: "BlueLake", op: f.releaseLock, req: deploy, holder: "GreenCastle", code: "LOCK_HELD"},
		{name: "bad key", agent: "BlueLake", op: f.acquire, req: LockRequest{Key: "a/../b", TTL: time.Minute}, code: "INVALID_ARGUMENT"},
		{name: "release what nobody holds", agent: "BlueLake", op: f.releaseLock, req: LockRequest{Key: "nothing"}, code: "NOT_FOUND"},
		{name: "unregistered", agent: "RedFox", op: f.acquire, req: deploy, code: "NOT_REGISTERED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.op(as(tt.agent), tt.req)
			wantCode(t, tt.name, err, tt.code)
			if resp.Lock.Holder != tt.holder || tt.holder != "" && (resp.Lock.Key != tt.req.Key || resp.Lock.Expires.IsZero() || !resp.Lock.Released.IsZero()) {
				t.Errorf("lock %+v, want held by %q", resp.Lock, tt.holder)
			}
		})
	}
	list, err := f.svc.Locks(ctx, as(""), "deploy/")
	if err != nil || len(list.Locks) != 1 || list.Locks[0].Holder != "GreenCastle" {
		t.Errorf("locks: %+v, %v", list, err)
	}
	if none, err := f.svc.Locks(ctx, as(""), "build/"); err != nil || none.Locks == nil || len(none.Locks) != 0 {
		t.Errorf("no locks: %+v, %v", none, err)
	}
	if resp, err := f.releaseLock(as("GreenCastle"), deploy); err != nil || resp.Lock.Key != deploy.Key || !resp.Lock.Released.Equal(f.svc.Now()) {
		t.Errorf("release: %+v, %v", resp, err)
	}
}

func (f *fixture) acquire(sc Scope, req LockRequest) (LockResponse, error) {
	return f.svc.AcquireLock(context.Background(), sc, req)
}

func (f *fixture) renewLock(sc Scope, req LockRequest) (LockResponse, error) {
	return f.svc.RenewLock(context.Background(), sc, req)
}

func (f *fixture) releaseLock(sc Scope, req LockRequest) (LockResponse, error) {
	return f.svc.ReleaseLock(context.Background(), sc, req.Key)
}

// A run's lock is the run's: another run of the same agent, or an acquire,
// finds it held; it is renewed while the run goes on, and released after.
func TestLockRun(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle")
	req := LockRequest{Key: "build", TTL: 3 * time.Second}
	run, resp, err := f.svc.StartLockRun(ctx, as("GreenCastle"), req)
	if err != nil || run.Key() != "build" || resp.Lock.Holder != "GreenCastle" {
		t.Fatalf("start: %+v, %v", resp, err)
	}
	_, held, err := f.svc.StartLockRun(ctx, as("GreenCastle"), req)
	wantCode(t, "a second run of the same agent", err, "LOCK_HELD")
	if held.Lock.Holder != "GreenCastle" {
		t.Errorf("held by %+v", held.Lock)
	}
	_, err = f.svc.AcquireLock(ctx, as("GreenCastle"), req)
	wantCode(t, "an acquire by the same agent", err, "LOCK_HELD")

	// KeepAlive renews every second (a third of the TTL) until stopped.
	before := f.lock("build")
	f.clock.Add(time.Second) // renewals are dated by the service's clock
	keep, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	var failures []error
	go func() {
		defer wg.Done()
		run.KeepAlive(keep, func(err error) { failures = append(failures, err) })
	}()
	renewed := func() bool { // held until later than before
		l, err := f.svc.Locks(ctx, as(""), "build")
		return err == nil && len(l.Locks) == 1 && l.Locks[0].Expires.After(before.Expires.Time)
	}
	for deadline := time.Now().Add(10 * time.Second); !renewed() && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if !renewed() || len(failures) > 0 {
		t.Errorf("not renewed: %+v then %+v, failures %v", before, f.lock("build"), failures)
	}

	if err := run.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if l, err := f.svc.Locks(ctx, as(""), ""); err != nil || len(l.Locks) != 0 {
		t.Errorf("after the run: %+v, %v", l, err)
	}
	if _, err := f.svc.AcquireLock(ctx, as("GreenCastle"), req); err != nil {
		t.Errorf("acquire after the run: %v", err)
	}
}

// lock returns the lock held on key.
func (f *fixture) lock(key string) Lock {
	f.t.Helper()
	list, err := f.svc.Locks(context.Background(), as(""), key)
	if err != nil || len(list.Locks) != 1 {
		f.t.Fatalf("lock %s: %+v, %v", key, list, err)
	}
	return list.Locks[0]
}
