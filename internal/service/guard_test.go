package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/guard"
)

// env is an environment for a guard check.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// opener opens f's store, and counts what else it is asked to open.
func (f *fixture) opener(others *[]string) Opener {
	return func(dir string) (*Service, error) {
		if dir == f.svc.Dir() {
			return f.svc, nil
		}
		*others = append(*others, dir)
		return nil, errors.New("opened another store")
	}
}

func TestGuardInstallStatusUninstall(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	ctx := context.Background()
	repo := newRepo(t)

	before, err := GuardStatus(ctx, repo)
	if err != nil || before.Mode != nil || before.Store != nil || len(before.Hooks) == 0 || before.Hooks[0].State != "missing" {
		t.Fatalf("status before: %+v, %v", before, err)
	}
	_, err = f.svc.GuardInstall(ctx, in(repo, ""), GuardInstallRequest{Mode: "sideways"})
	wantCode(t, "unknown mode", err, "INVALID_ARGUMENT")

	resp, err := f.svc.GuardInstall(ctx, in(repo, ""), GuardInstallRequest{Mode: "warn"})
	if err != nil || resp.Mode != "warn" || resp.Store != f.svc.Dir() || resp.Agentmail == "" || len(resp.Hooks) != 3 {
		t.Fatalf("install: %+v, %v", resp, err)
	}
	if got := keys(t, resp); !slices.Equal(got, []string{"agentmail", "dir", "hooks", "mode", "project", "store"}) {
		t.Errorf("install document keys %q", got)
	}
	// The store now knows the project: a guard check finds it there.
	proj, err := f.svc.Project(ctx, in(repo, ""))
	if err != nil || proj.Project.Key != "github.com/acme/shop" {
		t.Errorf("the project recorded: %+v, %v", proj, err)
	}

	status, err := GuardStatus(ctx, repo)
	if err != nil || status.Mode == nil || *status.Mode != "warn" || status.Store == nil || *status.Store != f.svc.Dir() || status.Hooks[0].State != "ours" {
		t.Errorf("status: %+v, %v", status, err)
	}
	if got := keys(t, status); !slices.Equal(got, []string{"dir", "global", "hooks", "mode", "project", "store", "warning"}) {
		t.Errorf("status document keys %q", got)
	}

	un, err := GuardUninstall(ctx, repo)
	if err != nil || len(un.Hooks) != 3 || un.Hooks[0].Action != "removed" {
		t.Errorf("uninstall: %+v, %v", un, err)
	}
	_, err = GuardStatus(ctx, t.TempDir())
	wantCode(t, "status outside a repository", err, "NO_PROJECT")
}

func TestGuardCheck(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	ctx := context.Background()
	repo := newRepo(t)
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := f.svc.Register(ctx, in(repo, ""), RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.Reserve(ctx, in(repo, "BlueLake"), ReserveRequest{Patterns: []string{"src/api/**"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/api/a.go", "README"} {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, repo, "add", "-A")
	store := f.svc.Dir()
	missing := filepath.Join(t.TempDir(), "nothing")
	tests := []struct {
		name      string
		scope     Scope
		req       GuardCheckRequest
		blocked   bool
		conflicts int
		unchecked string // in the report
		code      string
		others    int // stores opened but the fixture's
	}{
		{name: "staged path held", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Store: store}, blocked: true, conflicts: 1, code: "GUARD_BLOCKED"},
		{name: "the holder commits", scope: in(repo, "BlueLake"), req: GuardCheckRequest{Store: store}},
		{name: "warn mode from the environment", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Store: store, Env: env(map[string]string{"AGENTMAIL_GUARD_MODE": "warn"})}, conflicts: 1},
		{name: "paths from a subdirectory", scope: in(filepath.Join(repo, "src"), ""), req: GuardCheckRequest{Store: store, Paths: []string{"api/b.go", "../README"}}, blocked: true, conflicts: 1, code: "GUARD_BLOCKED"},
		{name: "bypass", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Store: store, Env: env(map[string]string{"AGENTMAIL_BYPASS": "1"})}},
		{name: "the environment's store", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Env: env(map[string]string{"AGENTMAIL_HOME": store})}, blocked: true, conflicts: 1, code: "GUARD_BLOCKED"},
		{name: "the recorded store", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Recorded: store}, blocked: true, conflicts: 1, code: "GUARD_BLOCKED"},
		{name: "no store: fails closed", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Store: missing}, unchecked: "no agentmail store", code: "ERROR"},
		{name: "no store, warn mode", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Store: missing, Mode: "warn"}, unchecked: "no agentmail store"},
		{name: "a store that does not know the project", scope: Scope{Project: ProjectRef{Key: "github.com/x/y", Dir: repo}}, req: GuardCheckRequest{Store: store}, unchecked: "unknown project", code: "ERROR"},
		{name: "the default store", scope: in(repo, "GreenCastle"), req: GuardCheckRequest{Env: env(map[string]string{"HOME": "/nonexistent"})}, unchecked: "no agentmail store at /nonexistent/.local/share/agentmail, the default store", code: "ERROR"},
		{name: "bad mode", scope: in(repo, ""), req: GuardCheckRequest{Mode: "sideways"}, code: "INVALID_ARGUMENT"},
		{name: "a path outside the repository", scope: in(repo, ""), req: GuardCheckRequest{Store: store, Paths: []string{"../x"}}, code: "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var others []string
			resp, err := GuardCheck(ctx, tt.scope, tt.req, f.opener(&others))
			if tt.code == "ERROR" {
				if !errors.Is(err, guard.ErrUnchecked) {
					t.Errorf("error %v, want it unchecked", err)
				}
			} else {
				wantCode(t, "guard check", err, tt.code)
			}
			if tt.code == "INVALID_ARGUMENT" {
				if resp.Hook != "" {
					t.Errorf("a check was made: %+v", resp)
				}
				return
			}
			unchecked := ""
			if resp.Unchecked != nil {
				unchecked = *resp.Unchecked
			}
			if resp.Blocked != tt.blocked || len(resp.Conflicts) != tt.conflicts || !strings.Contains(unchecked, tt.unchecked) || (tt.unchecked == "") != (unchecked == "") || len(others) != tt.others {
				t.Errorf("report %+v (unchecked %q), opened %q", resp, unchecked, others)
			}
			if tt.unchecked != "" {
				if f := Describe(resp.UncheckedErr); f.Code == "ERROR" || f.Field == "" && len(f.Values) == 0 && !f.OwnHint {
					t.Errorf("no failure as data for %q: %+v", unchecked, f)
				}
			}
			if resp.Conflicts != nil && len(resp.Conflicts) > 0 && (resp.Conflicts[0].Holder != "BlueLake" || resp.Conflicts[0].Pattern != "src/api/**" || !slices.Equal(resp.Holders(), []string{"BlueLake"})) {
				t.Errorf("conflicts %+v", resp.Conflicts)
			}
		})
	}
	resp, _ := GuardCheck(ctx, in(repo, ""), GuardCheckRequest{Store: store}, f.opener(new([]string)))
	if got := keys(t, resp); !slices.Equal(got, []string{"also", "blocked", "bypassed", "conflicts", "hook", "mode", "note", "paths", "unchecked"}) {
		t.Errorf("check document keys %q", got)
	}
}
