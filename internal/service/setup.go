package service

import (
	"context"

	"github.com/agentmail/agentmail/internal/setup"
)

// SetupOptions say which client's configuration setup changes, and how.
type SetupOptions = setup.Options

// SetupClients are the coding agents setup configures, by name.
func SetupClients() []string { return setup.Clients() }

// SetupHasHooks reports whether setup adds hooks to client's configuration.
func SetupHasHooks(client string) bool { return setup.HasHooks(client) }

// SetupRequest adds the agentmail MCP server (and, for some clients, a
// hook) to a coding agent's configuration, or takes it out.
type SetupRequest struct {
	Options   setup.Options
	Uninstall bool
	DryRun    bool // say what would change, and write nothing
}

// SetupFile is what setup did, or would do, to one file.
type SetupFile struct {
	Path   string  `json:"path"`
	Action string  `json:"action"` // created, updated, unchanged, removed
	What   string  `json:"what"`   // server or hook
	Diff   *string `json:"diff,omitempty"`
}

// SetupResponse is the document of setup.
type SetupResponse struct {
	Client  string      `json:"client"`
	Command string      `json:"command"` // the agentmail the client runs
	DryRun  bool        `json:"dry_run"`
	Files   []SetupFile `json:"files"`
	Notes   []string    `json:"notes"` // what the user should know, once a change is made
	Scope   string      `json:"scope"`
}

// Setup plans the change to the client's configuration and, unless a dry
// run, makes it. Every other byte of the files stays as it was. It needs no
// store.
func Setup(ctx context.Context, req SetupRequest) (SetupResponse, error) {
	do := setup.Install
	if req.Uninstall {
		do = setup.Uninstall
	}
	p, err := do(req.Options)
	if err != nil {
		return SetupResponse{}, err
	}
	if !req.DryRun {
		if err := p.Apply(); err != nil {
			return SetupResponse{}, err
		}
	}
	resp := SetupResponse{Client: p.Client, Command: req.Options.Command, DryRun: req.DryRun, Files: []SetupFile{}, Notes: []string{}, Scope: p.Scope}
	changed := false
	for _, ch := range p.Changes {
		f := SetupFile{Path: ch.Path, Action: ch.Action, What: ch.What}
		if req.DryRun {
			d := ch.Diff()
			f.Diff = &d
		}
		resp.Files = append(resp.Files, f)
		changed = changed || ch.Action != "unchanged"
	}
	if changed && !req.DryRun {
		resp.Notes = append(resp.Notes, p.Notes...)
	}
	return resp, nil
}
