package service

import (
	"context"
	"errors"
	"time"

	"github.com/agentmail/agentmail/internal/ports"
)

// Port is a port claim as every face shows it.
type Port struct {
	Name     string `json:"name"`
	Port     int    `json:"port"`
	Host     string `json:"host"`
	Here     bool   `json:"here"` // claimed on this machine: the only place it holds
	Holder   string `json:"holder"`
	Created  Time   `json:"created"`
	Expires  Time   `json:"expires"`
	Released Time   `json:"released"` // null while held
}

// PortResponse is the document of port claim, get and release, and of a
// name found held: {"port": port}.
type PortResponse struct {
	Port Port `json:"port"`
}

// PortsResponse is the document of port list.
type PortsResponse struct {
	Ports []Port `json:"ports"`
}

// PortRequest claims a port under a name.
type PortRequest struct {
	Name string        // the stable name, such as shop:api
	TTL  time.Duration // how long the claim lasts unless claimed again
}

func portDoc(p ports.Port, host string) Port {
	return Port{p.Name, p.Port, p.Host, p.Host == host, p.Holder, Time{p.Created}, Time{p.Expires}, Time{p.Released}}
}

// ports returns the port claims of sc's project on this machine, acting as
// sc's agent (registered) when mine, else as nobody; claim refuses a
// paused agent (PAUSED).
func (s *Service) ports(ctx context.Context, sc Scope, mine, claim bool) (*ports.Service, string, error) {
	host, err := ports.Host()
	if err != nil {
		return nil, "", err
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return nil, "", err
	}
	agent := ""
	if mine {
		me, err := x.mb.Whoami(ctx)
		if err != nil {
			return nil, "", err
		}
		if claim {
			if err := x.writable(ctx); err != nil {
				return nil, "", err
			}
		}
		agent = me.Name
	}
	return ports.New(x.st, x.project().Slug, agent, host), host, nil
}

// portResult turns a claim, or the claim that holds a name, into its
// document beside the error.
func portResult(p ports.Port, host string, err error) (PortResponse, error) {
	var held *ports.HeldError
	switch {
	case err == nil:
		return PortResponse{Port: portDoc(p, host)}, nil
	case errors.As(err, &held):
		return PortResponse{Port: portDoc(held.Port, host)}, err
	}
	return PortResponse{}, err
}

// ClaimPort leases a free TCP port of this machine to the acting agent
// under req.Name (see ports.Service.Claim). A name another agent holds
// here is ports.ErrHeld, the response naming the claim.
func (s *Service) ClaimPort(ctx context.Context, sc Scope, req PortRequest) (PortResponse, error) {
	ps, host, err := s.ports(ctx, sc, true, true)
	if err != nil {
		return PortResponse{}, err
	}
	p, err := ps.Claim(ctx, req.Name, req.TTL)
	return portResult(p, host, err)
}

// ReleasePort ends the acting agent's claim of name on this machine.
func (s *Service) ReleasePort(ctx context.Context, sc Scope, name string) (PortResponse, error) {
	ps, host, err := s.ports(ctx, sc, true, false)
	if err != nil {
		return PortResponse{}, err
	}
	p, err := ps.Release(ctx, name)
	return portResult(p, host, err)
}

// GetPort returns the claim held now under name on this machine: where
// another agent's server listens.
func (s *Service) GetPort(ctx context.Context, sc Scope, name string) (PortResponse, error) {
	ps, host, err := s.ports(ctx, sc, false, false)
	if err != nil {
		return PortResponse{}, err
	}
	p, err := ps.Get(ctx, name)
	return portResult(p, host, err)
}

// Ports lists the claims held now, this machine's and, in a synced
// project, other machines' (Here false).
func (s *Service) Ports(ctx context.Context, sc Scope) (PortsResponse, error) {
	ps, host, err := s.ports(ctx, sc, false, false)
	if err != nil {
		return PortsResponse{}, err
	}
	list, err := ps.List(ctx)
	if err != nil {
		return PortsResponse{}, err
	}
	return PortsResponse{Ports: mapSlice(list, func(p ports.Port) Port { return portDoc(p, host) })}, nil
}

// PortRun is a port claimed for one run of a command (port run).
type PortRun struct {
	ps   *ports.Service
	port ports.Port
	ttl  time.Duration
}

// StartPortRun claims req.Name's port for a run, as ClaimPort does.
func (s *Service) StartPortRun(ctx context.Context, sc Scope, req PortRequest) (*PortRun, PortResponse, error) {
	ps, host, err := s.ports(ctx, sc, true, true)
	if err != nil {
		return nil, PortResponse{}, err
	}
	p, err := ps.Claim(ctx, req.Name, req.TTL)
	resp, err := portResult(p, host, err)
	if err != nil {
		return nil, resp, err
	}
	return &PortRun{ps: ps, port: p, ttl: req.TTL}, resp, nil
}

// Port returns the run's port.
func (r *PortRun) Port() int { return r.port.Port }

// KeepAlive claims the run's name again every third of its TTL (at most
// every second), which extends it on the same port, until ctx is done,
// telling failed, when set, of each renewal that failed.
func (r *PortRun) KeepAlive(ctx context.Context, failed func(error)) {
	keepAlive(ctx, r.ttl, func(ctx context.Context) error {
		_, err := r.ps.Claim(ctx, r.port.Name, r.ttl)
		return err
	}, failed)
}

// Release ends the run's claim.
func (r *PortRun) Release(ctx context.Context) error {
	_, err := r.ps.Release(ctx, r.port.Name)
	return err
}
