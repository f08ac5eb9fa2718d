package flock

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestAcquireRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	l, err := Acquire(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("lock file not created: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	var nilLock *Lock
	if err := nilLock.Release(); err != nil {
		t.Errorf("Release of nil: %v", err)
	}
	// Free again: acquiring succeeds at once, many times over.
	for i := 0; i < 3; i++ {
		start := time.Now()
		l, err := Acquire(path, time.Second)
		if err != nil {
			t.Fatalf("re-Acquire %d: %v", i, err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("re-Acquire %d of a free lock took %v", i, d)
		}
		l.Release()
	}
	// The file stays; it is the lock's identity.
	if _, err := os.Stat(path); err != nil {
		t.Errorf("lock file removed: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Acquire(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	for _, wait := range []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond} {
		start := time.Now()
		l, err := Acquire(path, wait)
		d := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("Acquire(%v) on a held lock: %v, %v; want ErrTimeout", wait, l, err)
		}
		if l != nil {
			t.Errorf("Acquire returned a lock with its error")
		}
		if d < wait || d > wait+time.Second {
			t.Errorf("Acquire(%v) gave up after %v", wait, d)
		}
	}
	// Timed-out waiters must not keep the lock from its next owner.
	held.Release()
	l, err := Acquire(path, 2*time.Second)
	if err != nil {
		t.Fatalf("Acquire after the holder let go: %v", err)
	}
	l.Release()
}

func TestWaiterGetsLockPromptly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Acquire(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		l   *Lock
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		l, err := Acquire(path, 10*time.Second)
		got <- result{l, err, time.Now()}
	}()
	select {
	case r := <-got:
		t.Fatalf("second Acquire did not wait: %v, %v", r.l, r.err)
	case <-time.After(150 * time.Millisecond):
	}
	released := time.Now()
	if err := held.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("waiter: %v", r.err)
		}
		if d := r.at.Sub(released); d > 500*time.Millisecond {
			t.Errorf("waiter got the lock %v after release", d)
		}
		// And it really holds it.
		if _, err := Acquire(path, 0); !errors.Is(err, ErrTimeout) {
			t.Errorf("third Acquire while the waiter holds the lock: %v", err)
		}
		r.l.Release()
	case <-time.After(5 * time.Second):
		t.Fatal("waiter never got the lock")
	}
}

func TestMutualExclusion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	const workers, rounds = 4, 20
	var inside, entries, overlaps atomic.Int32
	done := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < rounds; i++ {
				l, err := Acquire(path, 10*time.Second)
				if err != nil {
					done <- err
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				entries.Add(1)
				time.Sleep(200 * time.Microsecond)
				inside.Add(-1)
				if err := l.Release(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d times two holders at once", n)
	}
	if n := entries.Load(); n != workers*rounds {
		t.Errorf("%d entries, want %d", n, workers*rounds)
	}
}

func TestAcquireBadPath(t *testing.T) {
	_, err := Acquire(filepath.Join(t.TempDir(), "missing", "lock"), time.Second)
	if err == nil || errors.Is(err, ErrTimeout) {
		t.Errorf("Acquire in a missing directory: %v", err)
	}
}

// TestSharedAndTry: shared holders coexist and keep out the exclusive
// lock; TryAcquire reports a busy lock at once, without an error.
func TestSharedAndTry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	a, err := AcquireShared(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AcquireShared(path, time.Second)
	if err != nil {
		t.Fatalf("second shared holder: %v", err)
	}
	if l, err := TryAcquire(path, false); l != nil || err != nil {
		t.Fatalf("TryAcquire exclusive under shared holders = %v, %v; want nil, nil", l, err)
	}
	a.Release()
	b.Release()
	ex, err := TryAcquire(path, false)
	if ex == nil || err != nil {
		t.Fatalf("TryAcquire of a free lock = %v, %v", ex, err)
	}
	if l, err := TryAcquire(path, true); l != nil || err != nil {
		t.Fatalf("TryAcquire shared under the exclusive holder = %v, %v; want nil, nil", l, err)
	}
	ex.Release()
	if l, err := TryAcquire(path, true); l == nil || err != nil {
		t.Fatalf("TryAcquire shared of a free lock = %v, %v", l, err)
	} else {
		l.Release()
	}
	// Last: a waiter that timed out stays blocked in flock(2), which nothing
	// interrupts, and takes and drops the lock once it is free, so any
	// TryAcquire after this one could find the lock briefly held.
	sh, err := AcquireShared(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Release()
	if _, err := Acquire(path, 50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Acquire under a shared holder: %v, want ErrTimeout", err)
	}
}
