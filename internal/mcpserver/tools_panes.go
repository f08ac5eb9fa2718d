package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
)

// addPaneTools registers the window and pane identity tools of
// mcp_agent_mail (Python: windows; Rust: panes): which agent works in
// which terminal pane or window of this machine, kept in the store
// directory, never in the archive.
func (s *Server) addPaneTools() {
	addTool(s, tool{name: "list_window_identities", desc: "The live window and pane identities of the project on this machine: which agent works in which tmux pane (or window id). " +
		"register_agent, create_agent_identity and macro_start_session record one when the server runs in a tmux pane.", readOnly: true},
		textWindows, s.listWindowIdentities)
	addTool(s, tool{name: "rename_window", desc: "Make a window's (or pane's) identity name another registered agent of the project."},
		textWindow, s.renameWindow)
	addTool(s, tool{name: "expire_window", desc: "Expire a window's (or pane's) identity now: it is no longer listed or resolved."},
		textExpired, s.expireWindow)
	addTool(s, tool{name: "resolve_pane_identity", desc: "The agent that works in a tmux pane of this machine (default: the pane the server runs in, $TMUX_PANE)."},
		textResolved, s.resolvePaneIdentity)
	addTool(s, tool{name: "cleanup_pane_identities", desc: "Remove the identities of tmux panes that no longer exist, and expired ones: of the project given, or of every project without project_key. When tmux does not answer, only expired ones."},
		textCleanup, s.cleanupPaneIdentities)
}

// recordPane records that agent works in the server's pane, when the
// server runs in one (stdio in tmux).
func (s *Server) recordPane(c *call, sc service.Scope, agent string) {
	if s.cfg.Pane == "" || agent == "" {
		return
	}
	_, _ = c.svc.BindPane(sc, s.cfg.Pane, agent) // a convenience: the agent is registered whatever happens to it
}

// Window is a window (or pane) identity, with mcp_agent_mail's fields
// beside ours (its id is the pane id: no numbers here).
type Window struct {
	service.PaneIdentity
	ID           string       `json:"id"`
	WindowUUID   string       `json:"window_uuid"`
	DisplayName  string       `json:"display_name"`
	CreatedTS    service.Time `json:"created_ts"`
	LastActiveTS service.Time `json:"last_active_ts"`
	ExpiresTS    service.Time `json:"expires_ts"`
}

func windowOf(p service.PaneIdentity) Window {
	return Window{PaneIdentity: p, ID: p.Pane, WindowUUID: p.Pane, DisplayName: p.Agent, CreatedTS: p.Created, LastActiveTS: p.LastActive, ExpiresTS: p.Expires}
}

// Windows is the document of list_window_identities.
type Windows struct {
	Identities []Window `json:"identities"`
	Count      int      `json:"count"`
}

func (s *Server) listWindowIdentities(ctx context.Context, c *call, in projectArgs) (Windows, error) {
	sc, err := c.project(in, "")
	if err != nil {
		return Windows{}, err
	}
	list, err := c.svc.Panes(sc)
	if err != nil {
		return Windows{}, err
	}
	out := Windows{Identities: make([]Window, len(list.Identities)), Count: list.Count}
	for i, p := range list.Identities {
		out.Identities[i] = windowOf(p)
	}
	return out, nil
}

func textWindows(r Windows) string {
	return listing(count(r.Count, "window identity", "window identities"), lines(r.Identities, func(w Window) string { return w.Pane + ": " + w.Agent }))
}

type renameWindowArgs struct {
	projectArgs
	WindowUUID     string `json:"window_uuid" jsonschema:"the window's id, or a tmux pane id such as %3 (list_window_identities lists them)"`
	NewDisplayName string `json:"new_display_name" jsonschema:"the registered agent that works there now"`
}

// Renamed is the document of rename_window.
type Renamed struct {
	Window
	OldDisplayName string `json:"old_display_name"`
}

func (s *Server) renameWindow(ctx context.Context, c *call, in renameWindowArgs) (Renamed, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return Renamed{}, err
	}
	p, old, err := c.svc.RenamePane(ctx, sc, in.WindowUUID, in.NewDisplayName)
	return Renamed{Window: windowOf(p), OldDisplayName: old}, err
}

func textWindow(r Renamed) string {
	return fmt.Sprintf("%s: %s (was %s)", r.Pane, r.Agent, r.OldDisplayName)
}

type expireWindowArgs struct {
	projectArgs
	WindowUUID string `json:"window_uuid" jsonschema:"the window's id, or a tmux pane id such as %3"`
}

// Expired is the document of expire_window.
type Expired struct {
	Window
	Expired   bool         `json:"expired"`
	ExpiredAt service.Time `json:"expired_at"`
}

func (s *Server) expireWindow(ctx context.Context, c *call, in expireWindowArgs) (Expired, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return Expired{}, err
	}
	p, err := c.svc.ExpirePane(sc, in.WindowUUID)
	return Expired{Window: windowOf(p), Expired: err == nil, ExpiredAt: p.Expires}, err
}

func textExpired(r Expired) string { return fmt.Sprintf("expired %s (%s)", r.Pane, r.Agent) }

type resolvePaneArgs struct {
	projectArgs
	PaneID string `json:"pane_id,omitempty" jsonschema:"a tmux pane id such as %3; default: the pane the server runs in"`
}

// Resolved is the document of resolve_pane_identity.
type Resolved struct {
	Window
	IdentityPath string `json:"identity_path"` // the store's file of pane identities
}

func (s *Server) resolvePaneIdentity(ctx context.Context, c *call, in resolvePaneArgs) (Resolved, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return Resolved{}, err
	}
	pane := strings.TrimSpace(in.PaneID)
	if pane == "" {
		pane = s.cfg.Pane
	}
	p, err := c.svc.ResolvePane(sc, pane)
	return Resolved{Window: windowOf(p), IdentityPath: c.svc.PanesFile()}, err
}

func textResolved(r Resolved) string { return fmt.Sprintf("%s works in %s", r.Agent, r.Pane) }

func (s *Server) cleanupPaneIdentities(ctx context.Context, c *call, in projectArgs) (service.CleanupPanesResponse, error) {
	sc, err := c.project(in, "")
	if err != nil {
		return service.CleanupPanesResponse{}, err
	}
	return c.svc.CleanupPanes(sc, strings.TrimSpace(in.ProjectKey) == "")
}

func textCleanup(r service.CleanupPanesResponse) string {
	return fmt.Sprintf("removed %s; %s", count(r.RemovedCount, "pane identity", "pane identities"), r.Note)
}
