package service

import (
	"sync/atomic"
)

// Gate is how a server shares one store among its concurrent requests:
// every call runs on one Service, which is safe for concurrent use, so
// calls go on at once (Do), and so do calls that may block for long (a
// wait for mail, a lock acquired with a wait: Blocking), which the gate
// counts while they run.
type Gate struct {
	svc     *Service
	blocked atomic.Int32
}

// NewGate returns the gate of the store cfg names. It opens nothing yet.
func NewGate(cfg Config) *Gate { return &Gate{svc: New(cfg)} }

// Do runs fn on the gate's Service.
func (g *Gate) Do(fn func(*Service) error) error { return fn(g.svc) }

// Blocking runs fn, which may block for long, on the gate's Service; other
// calls go on meanwhile.
func (g *Gate) Blocking(fn func(*Service) error) error {
	g.blocked.Add(1)
	defer g.blocked.Add(-1)
	return fn(g.svc)
}

// Blocked returns how many calls that block (Blocking) are under way.
func (g *Gate) Blocked() int { return int(g.blocked.Load()) }

// Close closes the store the gate's Service opened. A call under way when
// it is called should have ended first (a server shuts down before it
// closes).
func (g *Gate) Close() error { return g.svc.Close() }
