package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/setup"
)

func TestSetup(t *testing.T) {
	ctx := context.Background()
	project, home := t.TempDir(), t.TempDir()
	opts := setup.Options{Client: "cursor", Command: "/usr/local/bin/agentmail", Project: project, Home: home,
		ConfigHome: filepath.Join(home, ".config"), CodexHome: filepath.Join(home, ".codex"), StateDir: filepath.Join(home, "state")}
	config := filepath.Join(project, ".cursor", "mcp.json")
	tests := []struct {
		name   string
		req    SetupRequest
		action string
		diff   bool // the response carries the diff
		exists bool // the file is there afterwards
		code   string
	}{
		{name: "dry run writes nothing", req: SetupRequest{Options: opts, DryRun: true}, action: "created", diff: true},
		{name: "install", req: SetupRequest{Options: opts}, action: "created", exists: true},
		{name: "again: unchanged", req: SetupRequest{Options: opts}, action: "unchanged", exists: true},
		{name: "another command differs", req: SetupRequest{Options: setup.Options{Client: "cursor", Command: "agentmail", Project: project, Home: home, StateDir: opts.StateDir}}, code: "ENTRY_DIFFERS"},
		{name: "uninstall", req: SetupRequest{Options: opts, Uninstall: true}, action: "removed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Setup(ctx, tt.req)
			wantCode(t, "setup", err, tt.code)
			if err != nil {
				return
			}
			if len(resp.Files) != 1 || resp.Files[0].Action != tt.action || resp.Files[0].Path != config || (resp.Files[0].Diff != nil) != tt.diff ||
				resp.Client != "cursor" || resp.Command != opts.Command || resp.DryRun != tt.req.DryRun || resp.Notes == nil {
				t.Errorf("response %+v", resp)
			}
			if tt.diff && !strings.Contains(*resp.Files[0].Diff, "agentmail") {
				t.Errorf("diff %q", *resp.Files[0].Diff)
			}
			if _, err := os.Stat(config); (err == nil) != tt.exists {
				t.Errorf("config file there: %v, want %v", err == nil, tt.exists)
			}
			if got := keys(t, resp); !slices.Equal(got, []string{"client", "command", "dry_run", "files", "notes", "scope"}) {
				t.Errorf("document keys %q", got)
			}
		})
	}
	writeFile(t, config, []byte("{,"))
	_, err := Setup(ctx, SetupRequest{Options: opts})
	wantCode(t, "a malformed file", err, "MALFORMED_CONFIG")
}
