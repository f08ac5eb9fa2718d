package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/flock"
	"github.com/agentmail/agentmail/internal/names"
)

// Pane identities: which agent works in which terminal pane or window
// (a tmux pane id such as %3, or a window id such as mcp_agent_mail's
// window UUID), so that a process started there again finds its name.
// They belong to this machine: they live in the store directory, beside
// the archive, never in it (a pane id means nothing on another machine).

// panesFile is the file of the pane identities in the store directory.
const panesFile = "pane-identities.json"

// PaneIdentity is a pane (or window) of this machine and the agent that
// works in it, in a project.
type PaneIdentity struct {
	Project    string `json:"project"` // slug
	Pane       string `json:"pane_id"`
	Agent      string `json:"agent_name"`
	Created    Time   `json:"created"`
	LastActive Time   `json:"last_active"`
	Expires    Time   `json:"expires"` // null: until expired or cleaned up
}

// expired reports whether p is expired at now.
func (p PaneIdentity) expired(now time.Time) bool {
	return !p.Expires.IsZero() && !p.Expires.After(now)
}

// withPanes runs fn on the store's pane identities under a lock of the
// file; with write, what fn leaves is saved.
func (s *Service) withPanes(write bool, fn func([]PaneIdentity) ([]PaneIdentity, error)) error {
	if err := os.MkdirAll(s.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("pane identities: %w", err)
	}
	path := filepath.Join(s.cfg.Dir, panesFile)
	lock, err := flock.Acquire(path+".lock", 10*time.Second)
	if err != nil {
		return fmt.Errorf("pane identities: %w", err)
	}
	defer lock.Release()
	var list []PaneIdentity
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("pane identities: %w", err)
	default:
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("pane identities: %s: %w (remove the file to start afresh)", path, err)
		}
	}
	out, err := fn(list)
	if err != nil || !write {
		return err
	}
	data, err = json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("pane identities: %w", err)
	}
	return os.Rename(tmp, path)
}

// paneProject returns the slug of sc's project.
func paneProject(sc Scope) (string, error) {
	p, err := ResolveProject(sc.Project)
	return p.Slug, err
}

// checkPane refuses an empty pane id.
func checkPane(pane string) (string, error) {
	pane = strings.TrimSpace(pane)
	if pane == "" {
		return "", Usagef("name the pane (a tmux pane id such as %3) or window", "no pane or window id given, and none is known here (no $TMUX_PANE)")
	}
	return pane, nil
}

// BindPane records that agent works in pane (in sc's project), replacing
// what the pane had.
func (s *Service) BindPane(sc Scope, pane, agent string) (PaneIdentity, error) {
	slug, err := paneProject(sc)
	if err != nil {
		return PaneIdentity{}, err
	}
	if pane, err = checkPane(pane); err != nil {
		return PaneIdentity{}, err
	}
	now := Time{s.Now()}
	out := PaneIdentity{Project: slug, Pane: pane, Agent: agent, Created: now, LastActive: now}
	return out, s.withPanes(true, func(list []PaneIdentity) ([]PaneIdentity, error) {
		list = slices.DeleteFunc(list, func(p PaneIdentity) bool { return p.Project == slug && p.Pane == pane })
		return append(list, out), nil
	})
}

// PanesResponse lists pane identities.
type PanesResponse struct {
	Identities []PaneIdentity `json:"identities"`
	Count      int            `json:"count"`
}

// Panes lists the live (not expired) pane identities of sc's project.
func (s *Service) Panes(sc Scope) (PanesResponse, error) {
	slug, err := paneProject(sc)
	if err != nil {
		return PanesResponse{}, err
	}
	now := s.Now()
	out := PanesResponse{Identities: []PaneIdentity{}}
	err = s.withPanes(false, func(list []PaneIdentity) ([]PaneIdentity, error) {
		for _, p := range list {
			if p.Project == slug && !p.expired(now) {
				out.Identities = append(out.Identities, p)
			}
		}
		return list, nil
	})
	out.Count = len(out.Identities)
	return out, err
}

// changePane changes sc's project's live identity of pane with fn.
func (s *Service) changePane(sc Scope, pane string, fn func(*PaneIdentity) error) (PaneIdentity, error) {
	slug, err := paneProject(sc)
	if err != nil {
		return PaneIdentity{}, err
	}
	if pane, err = checkPane(pane); err != nil {
		return PaneIdentity{}, err
	}
	now := s.Now()
	var out PaneIdentity
	err = s.withPanes(true, func(list []PaneIdentity) ([]PaneIdentity, error) {
		for i, p := range list {
			if p.Project == slug && strings.EqualFold(p.Pane, pane) && !p.expired(now) {
				if err := fn(&list[i]); err != nil {
					return nil, err
				}
				out = list[i]
				return list, nil
			}
		}
		return nil, fault.WithHint(fmt.Errorf("%w: no live identity of pane or window %q in project %s", ErrNotFound, pane, slug),
			"list them with list_window_identities; registering an agent in a tmux pane records one")
	})
	return out, err
}

// RenamePane makes pane's identity name agent instead, which must be
// registered in the project; it returns the identity and the old name.
func (s *Service) RenamePane(ctx context.Context, sc Scope, pane, agent string) (PaneIdentity, string, error) {
	name, err := names.Parse(strings.TrimSpace(agent))
	if err != nil {
		return PaneIdentity{}, "", err
	}
	x, err := s.session(ctx, Scope{Project: sc.Project})
	if err != nil {
		return PaneIdentity{}, "", err
	}
	a, ok, err := x.mb.Lookup(ctx, name)
	if err != nil {
		return PaneIdentity{}, "", err
	}
	if !ok {
		return PaneIdentity{}, "", fault.WithHint(fmt.Errorf("%w: no agent %s in project %s", ErrNotFound, name, x.project().Slug),
			"a pane's identity names a registered agent: register it first")
	}
	var old string
	p, err := s.changePane(sc, pane, func(p *PaneIdentity) error {
		old, p.Agent, p.LastActive = p.Agent, a.Name, Time{s.Now()}
		return nil
	})
	return p, old, err
}

// ExpirePane expires pane's identity now.
func (s *Service) ExpirePane(sc Scope, pane string) (PaneIdentity, error) {
	return s.changePane(sc, pane, func(p *PaneIdentity) error {
		p.Expires = Time{s.Now()}
		return nil
	})
}

// ResolvePane returns the agent that works in pane, in sc's project.
func (s *Service) ResolvePane(sc Scope, pane string) (PaneIdentity, error) {
	return s.changePane(sc, pane, func(p *PaneIdentity) error {
		p.LastActive = Time{s.Now()}
		return nil
	})
}

// PanesFile returns the file of the store's pane identities.
func (s *Service) PanesFile() string { return filepath.Join(s.cfg.Dir, panesFile) }

// CleanupPanesResponse is what a clean-up removed.
type CleanupPanesResponse struct {
	RemovedCount int            `json:"removed_count"`
	RemovedPaths []string       `json:"removed_paths"` // none: identities are entries of one file, not files
	Removed      []PaneIdentity `json:"removed"`
	TmuxRunning  bool           `json:"tmux_running"`
	Note         string         `json:"note"`
}

// LivePanes lists the tmux panes of this machine; ok is false when tmux
// does not answer (not installed, no server). Tests replace it.
var LivePanes = func() (panes []string, ok bool) {
	out, err := exec.Command("tmux", "list-panes", "-a", "-F", "#{pane_id}").Output()
	if err != nil {
		return nil, false
	}
	return strings.Fields(string(out)), true
}

// CleanupPanes removes the expired pane identities (of sc's project, or
// of every project with all), and those of tmux panes that no longer
// exist; when tmux does not answer, only the expired ones.
func (s *Service) CleanupPanes(sc Scope, all bool) (CleanupPanesResponse, error) {
	slug := ""
	if !all {
		var err error
		if slug, err = paneProject(sc); err != nil {
			return CleanupPanesResponse{}, err
		}
	}
	live, running := LivePanes()
	now := s.Now()
	resp := CleanupPanesResponse{RemovedPaths: []string{}, Removed: []PaneIdentity{}, TmuxRunning: running,
		Note: "identities of tmux panes that no longer exist, and expired ones, are removed"}
	if !running {
		resp.Note = "tmux does not answer here: only expired identities are removed (a pane's liveness cannot be known)"
	}
	err := s.withPanes(true, func(list []PaneIdentity) ([]PaneIdentity, error) {
		return slices.DeleteFunc(list, func(p PaneIdentity) bool {
			if slug != "" && p.Project != slug {
				return false
			}
			dead := running && strings.HasPrefix(p.Pane, "%") && !slices.Contains(live, p.Pane)
			if dead || p.expired(now) {
				resp.Removed = append(resp.Removed, p)
				return true
			}
			return false
		}), nil
	})
	resp.RemovedCount = len(resp.Removed)
	return resp, err
}
