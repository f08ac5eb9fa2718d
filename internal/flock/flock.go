// Package flock provides advisory file locks, exclusive or shared, with a
// timeout. Each Lock opens the file anew, so two goroutines of one process
// exclude each other as two processes do. The kernel releases it when the process dies, so a killed
// writer never wedges the store.
package flock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// ErrTimeout is returned by Lock when the lock was not free within the wait.
var ErrTimeout = errors.New("lock is busy")

// Lock is a held lock.
type Lock struct {
	f *os.File
}

// Acquire takes the exclusive lock on path, creating the file if needed, and
// waits up to wait for another holder to let go.
func Acquire(path string, wait time.Duration) (*Lock, error) {
	return acquire(path, wait, syscall.LOCK_EX)
}

// AcquireShared takes a shared lock on path, which any number of holders
// may have at once, but none while another holds the exclusive lock;
// it waits as Acquire does.
func AcquireShared(path string, wait time.Duration) (*Lock, error) {
	return acquire(path, wait, syscall.LOCK_SH)
}

// TryAcquire takes the exclusive lock on path (shared, if shared) if it is
// free now; it returns nil and no error if it is not.
func TryAcquire(path string, shared bool) (*Lock, error) {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

func acquire(path string, wait time.Duration, how int) (*Lock, error) {
	l, err := TryAcquire(path, how == syscall.LOCK_SH)
	if l != nil || err != nil {
		return l, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	// Block in the kernel so that waiters are woken the moment the holder
	// lets go; a goroutine keeps the wait bounded.
	done := make(chan error, 1)
	go func() { done <- syscall.Flock(int(f.Fd()), how) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &Lock{f: f}, nil
	case <-timer.C:
		// Closing the descriptor does not interrupt flock(2); let the
		// goroutine finish and drop the lock if it ever gets it.
		go func() {
			if <-done == nil {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
			f.Close()
		}()
		return nil, fmt.Errorf("%w: waited %s for %s", ErrTimeout, wait, path)
	}
}

// File returns the locked file. A child process that inherits it holds the
// lock too, until both have closed it: that is how a helper such as git
// repack keeps the lock if its parent is killed.
func (l *Lock) File() *os.File { return l.f }

// Release lets go of the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
