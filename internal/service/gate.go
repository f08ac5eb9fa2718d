package service

import (
	"errors"
	"sync"
)

// Gate is how a server shares one store among its concurrent requests
// while the store does not serve several goroutines at once: every call
// runs on one Service, one at a time (Do), and a call that may block for
// long (a wait for mail, a lock acquired with a wait) runs on a spare
// Service of its own (Blocking), so that it holds up no other call. It is
// the one place a server serializes its calls.
type Gate struct {
	cfg Config

	mu  sync.Mutex
	svc *Service

	spareMu sync.Mutex
	spare   []*Service // idle services of the store, for calls that block
	all     []*Service // every service opened, closed by Close
}

// NewGate returns the gate of the store cfg names. It opens nothing yet.
func NewGate(cfg Config) *Gate {
	g := &Gate{cfg: cfg, svc: New(cfg)}
	g.all = []*Service{g.svc}
	return g
}

// Do runs fn on the gate's Service, alone.
func (g *Gate) Do(fn func(*Service) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fn(g.svc)
}

// Blocking runs fn, which may block for long, on a Service of its own, so
// that other calls go on meanwhile. Services are kept for the next such
// call.
func (g *Gate) Blocking(fn func(*Service) error) error {
	svc := g.takeSpare()
	defer g.putSpare(svc)
	return fn(svc)
}

func (g *Gate) takeSpare() *Service {
	g.spareMu.Lock()
	defer g.spareMu.Unlock()
	if n := len(g.spare); n > 0 {
		svc := g.spare[n-1]
		g.spare = g.spare[:n-1]
		return svc
	}
	svc := New(g.cfg)
	g.all = append(g.all, svc)
	return svc
}

func (g *Gate) putSpare(svc *Service) {
	g.spareMu.Lock()
	defer g.spareMu.Unlock()
	if g.all != nil { // not closed
		g.spare = append(g.spare, svc)
	}
}

// Idle returns how many spare Services wait for a blocking call: one for
// each blocking call that ran at once, once they have all ended.
func (g *Gate) Idle() int {
	g.spareMu.Lock()
	defer g.spareMu.Unlock()
	return len(g.spare)
}

// Close closes every Service the gate opened. A call under way when it is
// called should have ended first (a server shuts down before it closes).
func (g *Gate) Close() error {
	g.spareMu.Lock()
	all := g.all
	g.all, g.spare = nil, nil
	g.spareMu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	var errs []error
	for _, svc := range all {
		errs = append(errs, svc.Close())
	}
	return errors.Join(errs...)
}
