package service

import (
	"context"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestRegister(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("BlueLake")
	tests := []struct {
		name       string
		scope      Scope
		req        RegisterRequest
		code       string
		wantName   string // "" for a generated one
		wantPolicy string
	}{
		{name: "named", scope: as(""), req: RegisterRequest{Name: ptr("GreenCastle"), Program: "claude-code", Task: "auth"}, wantName: "GreenCastle", wantPolicy: "open"},
		{name: "generated", scope: as(""), req: RegisterRequest{Policy: "auto"}, wantPolicy: "auto"},
		{name: "own profile again", scope: as("GreenCastle"), req: RegisterRequest{Model: "opus"}, wantName: "GreenCastle", wantPolicy: "open"},
		{name: "blank name", scope: as(""), req: RegisterRequest{Name: ptr("  ")}, code: "INVALID_NAME"},
		{name: "not a name", scope: as(""), req: RegisterRequest{Name: ptr("root")}, code: "INVALID_NAME"},
		{name: "taken, ignoring case", scope: as(""), req: RegisterRequest{Name: ptr("bluelake")}, code: "NAME_TAKEN"},
		{name: "unknown policy", scope: as(""), req: RegisterRequest{Name: ptr("RedFox"), Policy: "friends"}, code: "INVALID_ARGUMENT"},
		{name: "no project", scope: Scope{}, req: RegisterRequest{Name: ptr("RedFox")}, code: "NO_PROJECT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Register(ctx, tt.scope, tt.req)
			wantCode(t, "register", err, tt.code)
			if err != nil {
				return
			}
			a := resp.Agent
			if tt.wantName != "" && a.Name != tt.wantName || a.Name == "" || a.Policy != tt.wantPolicy || resp.Project == "" {
				t.Errorf("agent %+v in %q, want %q with policy %s", a, resp.Project, tt.wantName, tt.wantPolicy)
			}
			if a.Registered.IsZero() || a.State != "" || a.Reservations != nil {
				t.Errorf("profile %+v: want a registration time and no presence", a)
			}
		})
	}
	who, err := f.svc.Whoami(ctx, as("GreenCastle"))
	if err != nil || who.Agent.Program != "claude-code" || who.Agent.Model != "opus" {
		t.Errorf("whoami after the update: %+v, %v", who, err)
	}
}

func TestWhoamiAgentsPolicyRetire(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")

	_, err := f.svc.Whoami(ctx, as(""))
	wantCode(t, "whoami without an agent", err, "NOT_REGISTERED")
	_, err = f.svc.Whoami(ctx, as("RedFox"))
	wantCode(t, "whoami unregistered", err, "NOT_REGISTERED")

	if _, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"src/a.go"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(10 * time.Minute) // BlueLake idles; GreenCastle acts now
	if _, err := f.svc.Whoami(ctx, as("GreenCastle")); err != nil {
		t.Fatal(err)
	}
	list, err := f.svc.Agents(ctx, as(""), AgentsRequest{})
	if err != nil || len(list.Agents) != 2 {
		t.Fatalf("agents: %+v, %v", list, err)
	}
	for _, a := range list.Agents {
		want := map[string]struct {
			state string
			held  int
		}{"BlueLake": {"idle", 0}, "GreenCastle": {"active", 1}}[a.Name]
		if a.State != want.state || a.Reservations == nil || *a.Reservations != want.held {
			t.Errorf("%s: state %q, reservations %v; want %s and %d", a.Name, a.State, a.Reservations, want.state, want.held)
		}
	}
	if active, err := f.svc.Agents(ctx, as(""), AgentsRequest{Active: true}); err != nil || len(active.Agents) != 1 || active.Agents[0].Name != "GreenCastle" {
		t.Errorf("active agents: %+v, %v", active, err)
	}

	p, err := f.svc.SetPolicy(ctx, as("BlueLake"), "contacts_only")
	if err != nil || p.Agent.Policy != "contacts_only" {
		t.Errorf("set policy: %+v, %v", p, err)
	}
	_, err = f.svc.SetPolicy(ctx, as("BlueLake"), "nobody")
	wantCode(t, "unknown policy", err, "INVALID_ARGUMENT")

	r, err := f.svc.Retire(ctx, as("GreenCastle"), RetireRequest{Name: "BlueLake", Retired: true})
	if err != nil || !r.Agent.Retired {
		t.Errorf("retire: %+v, %v", r, err)
	}
	_, err = f.svc.Send(ctx, as("GreenCastle"), SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"})
	wantCode(t, "mail to a retired agent", err, "AGENT_RETIRED")
	if r, err := f.svc.Retire(ctx, as("GreenCastle"), RetireRequest{Name: "BlueLake"}); err != nil || r.Agent.Retired {
		t.Errorf("unretire: %+v, %v", r, err)
	}
	_, err = f.svc.Retire(ctx, as("GreenCastle"), RetireRequest{Name: "Nobody", Retired: true})
	wantCode(t, "retire nobody", err, "UNKNOWN_RECIPIENT")
}
