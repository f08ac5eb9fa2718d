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

	"github.com/agentmail/agentmail/internal/reservations"
)

func patterns(rs []Reservation) []string {
	return mapSlice(rs, func(r Reservation) string { return r.Pattern })
}

func TestReserve(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	if _, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"src/api/**"}, TTL: time.Hour, Reason: "auth"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		agent     string
		req       ReserveRequest
		granted   []string
		conflicts int
		warnings  bool
		code      string
	}{
		{name: "broad pattern warns", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"**"}, TTL: time.Hour, Shared: true, AllowConflicts: true}, granted: []string{"**"}, conflicts: 1, warnings: true},
		{name: "free paths", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"docs/", "Makefile"}, TTL: time.Hour, Shared: true}, granted: []string{"docs/**", "Makefile"}},
		{name: "conflict: nothing granted", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"web/**", "src/api/a.go"}, TTL: time.Hour}, granted: []string{}, conflicts: 1, code: "RESERVATION_CONFLICT"},
		{name: "allow conflicts", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"src/api/a.go"}, TTL: time.Hour, AllowConflicts: true}, granted: []string{"src/api/a.go"}, conflicts: 1},
		{name: "no patterns", agent: "BlueLake", req: ReserveRequest{TTL: time.Hour}, code: "USAGE"},
		{name: "bad pattern", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"src/[z-a]"}, TTL: time.Hour}, code: "INVALID_ARGUMENT"},
		{name: "bad ttl", agent: "BlueLake", req: ReserveRequest{Patterns: []string{"x"}}, code: "INVALID_ARGUMENT"},
		{name: "unregistered", agent: "RedFox", req: ReserveRequest{Patterns: []string{"x"}, TTL: time.Hour}, code: "NOT_REGISTERED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Reserve(ctx, as(tt.agent), tt.req)
			wantCode(t, "reserve", err, tt.code)
			if err != nil && !errors.Is(err, reservations.ErrConflict) {
				return
			}
			if got := patterns(resp.Granted); !slices.Equal(got, tt.granted) || len(resp.Conflicts) != tt.conflicts || (len(resp.Warnings) > 0) != tt.warnings {
				t.Errorf("granted %q, %d conflicts, warnings %q", got, len(resp.Conflicts), resp.Warnings)
			}
			// The warnings are in the document (for the HTTP API and MCP
			// too), when there are some.
			want := []string{"conflicts", "granted"}
			if tt.warnings {
				want = append(want, "warnings")
			}
			if got := keys(t, resp); !slices.Equal(got, want) {
				t.Errorf("document keys %q, want %q", got, want)
			}
		})
	}
}

// Patterns and paths are taken from the scope's directory, as git takes
// them; a literal directory name covers what is below it.
func TestReservePathsInRepository(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	ctx := context.Background()
	repo := newRepo(t)
	sub := filepath.Join(repo, "src")
	if err := os.MkdirAll(filepath.Join(sub, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Register(ctx, in(repo, ""), RegisterRequest{Name: ptr("GreenCastle")}); err != nil {
		t.Fatal(err)
	}
	resp, err := f.svc.Reserve(ctx, in(sub, "GreenCastle"), ReserveRequest{Patterns: []string{"api", "*.py"}, TTL: time.Hour})
	if err != nil || !slices.Equal(patterns(resp.Granted), []string{"src/api/**", "src/*.py"}) {
		t.Fatalf("reserve in src: %+v, %v", resp, err)
	}
	held, err := f.svc.CheckPaths(ctx, in(sub, ""), []string{"api/a.go", "../README", "x.py"})
	if err != nil || len(held.Paths) != 3 {
		t.Fatalf("check: %+v, %v", held, err)
	}
	for i, want := range []struct {
		path    string
		holders int
	}{{"src/api/a.go", 1}, {"README", 0}, {"src/x.py", 1}} {
		if p := held.Paths[i]; p.Path != want.path || len(p.Holders) != want.holders {
			t.Errorf("path %d: %+v, want %s held %d times", i, p, want.path, want.holders)
		}
	}
	_, err = f.svc.CheckPaths(ctx, in(sub, ""), []string{"../../outside"})
	wantCode(t, "a path outside the repository", err, "INVALID_ARGUMENT")
	_, err = f.svc.CheckPaths(ctx, in(sub, ""), nil)
	wantCode(t, "no paths", err, "USAGE")
}

func TestRenewReleaseList(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	got, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"a", "b", "c"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"z"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}

	renewed, err := f.svc.Renew(ctx, as("GreenCastle"), RenewRequest{Selection: Selection{Patterns: []string{"a"}}, Extend: time.Hour})
	if err != nil || !slices.Equal(patterns(renewed.Renewed), []string{"a"}) || !renewed.Renewed[0].Expires.After(got.Granted[0].Expires.Time) || renewed.Conflicts == nil {
		t.Errorf("renew a: %+v, %v", renewed, err)
	}
	if all, err := f.svc.Renew(ctx, as("GreenCastle"), RenewRequest{Extend: time.Minute}); err != nil || len(all.Renewed) != 3 {
		t.Errorf("renew all: %+v, %v", all, err)
	}
	if got := keys(t, renewed); !slices.Equal(got, []string{"conflicts", "renewed"}) {
		t.Errorf("renew document keys %q", got)
	}

	tests := []struct {
		name string
		sel  Selection
		want []string
		code string
	}{
		{name: "nothing named", sel: Selection{}, code: "USAGE"},
		{name: "by id prefix", sel: Selection{IDs: []string{got.Granted[1].ID}}, want: []string{"b"}},
		{name: "not mine", sel: Selection{Patterns: []string{"z"}}, code: "NOT_FOUND"},
		{name: "all", sel: Selection{All: true}, want: []string{"a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.Release(ctx, as("GreenCastle"), tt.sel)
			wantCode(t, "release", err, tt.code)
			if err == nil && !slices.Equal(patterns(resp.Released), tt.want) {
				t.Errorf("released %q, want %q", patterns(resp.Released), tt.want)
			}
		})
	}

	list := func(agent string, req ReservationsRequest) []string {
		t.Helper()
		resp, err := f.svc.Reservations(ctx, as(agent), req)
		if err != nil {
			t.Fatalf("reservations %+v: %v", req, err)
		}
		return patterns(resp.Reservations)
	}
	if got := list("", ReservationsRequest{}); !slices.Equal(got, []string{"z"}) {
		t.Errorf("active: %q", got)
	}
	if got := list("GreenCastle", ReservationsRequest{Mine: true, Expired: true}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("mine, released too: %q", got)
	}
	if got := list("", ReservationsRequest{Holder: "BlueLake"}); !slices.Equal(got, []string{"z"}) {
		t.Errorf("holder: %q", got)
	}
	_, err = f.svc.Reservations(ctx, as(""), ReservationsRequest{Mine: true})
	wantCode(t, "mine without an agent", err, "NOT_REGISTERED")
	short, err := f.svc.Reservations(ctx, as(""), ReservationsRequest{Abbreviate: true})
	if id := short.Reservations[0].ID; err != nil || !strings.HasPrefix(id, short.Short.Of(id)) || len(short.Short.Of(id)) >= len(id) {
		t.Errorf("short ids: %v, %v", short.Short, err)
	}
}

// A forced release takes a stale reservation and tells its holder who took
// it and why.
func TestForceRelease(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	held, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	id := held.Granted[0].ID
	_, err = f.svc.ForceRelease(ctx, as("GreenCastle"), ForceReleaseRequest{ID: id, Reason: "gone"})
	wantCode(t, "a live holder", err, "INVALID_ARGUMENT")
	_, err = f.svc.ForceRelease(ctx, as("GreenCastle"), ForceReleaseRequest{ID: "01ZZZZZZZZ", Reason: "gone"})
	wantCode(t, "no such reservation", err, "NOT_FOUND")

	f.clock.Add(2 * time.Hour) // expired, and its holder silent
	resp, err := f.svc.ForceRelease(ctx, as("GreenCastle"), ForceReleaseRequest{ID: id, Reason: "stale, taking over"})
	if err != nil || len(resp.Released) != 1 || resp.Released[0].Released.IsZero() {
		t.Fatalf("force: %+v, %v", resp, err)
	}
	inbox, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{Bodies: true})
	if err != nil || len(inbox.Messages) != 1 {
		t.Fatalf("the holder's inbox: %+v, %v", inbox, err)
	}
	m := inbox.Messages[0]
	if m.From != "GreenCastle" || m.Importance != "high" || m.Subject != "Released your reservation of src/**" ||
		!strings.Contains(*m.Body, id) || !strings.Contains(*m.Body, "stale, taking over") {
		t.Errorf("notification %+v: %q", m.Message, *m.Body)
	}
}
