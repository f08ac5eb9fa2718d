package service

import (
	"fmt"
	"testing"

	"github.com/agentmail/agentmail/internal/reservations"
)

func TestLostLeases(t *testing.T) {
	lease := func(id, agent, pattern string, exclusive, offline bool) reservations.Reservation {
		return reservations.Reservation{ID: id, Agent: agent, Pattern: pattern, Exclusive: exclusive, Unconfirmed: offline}
	}
	remote := map[string]bool{"r1": true, "r2": true, "r3": true, "mine": true}
	tests := []struct {
		name   string
		active []reservations.Reservation
		want   map[string]string // lost lease -> the one it lost to
	}{
		{"overlaps another agent's on the remote", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", true, true), lease("r1", "BlueLake", "src/a*", true, false)},
			map[string]string{"u": "r1"}},
		{"the first it overlaps", []reservations.Reservation{
			lease("r1", "BlueLake", "docs/**", true, false), lease("r2", "BlueLake", "src/*.go", true, false),
			lease("r3", "RedFox", "src/main.go", true, false), lease("u", "GreenCastle", "src/**", true, true)},
			map[string]string{"u": "r2"}},
		{"no overlap", []reservations.Reservation{
			lease("u", "GreenCastle", "src/*.py", true, true), lease("r1", "BlueLake", "src/*.go", true, false)},
			nil},
		{"both shared", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", false, true), lease("r1", "BlueLake", "src/**", false, false)},
			nil},
		{"one shared, one exclusive", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", false, true), lease("r1", "BlueLake", "src/**", true, false)},
			map[string]string{"u": "r1"}},
		{"the same agent's", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", true, true), lease("mine", "GreenCastle", "src/**", true, false)},
			nil},
		{"the other is not on the remote", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", true, true), lease("local", "BlueLake", "src/**", true, false)},
			nil},
		{"the offline lease reached the remote already", []reservations.Reservation{
			lease("mine", "GreenCastle", "src/**", true, true), lease("r1", "BlueLake", "src/**", true, false)},
			nil},
		{"confirmed leases do not lose", []reservations.Reservation{
			lease("u", "GreenCastle", "src/**", true, false), lease("r1", "BlueLake", "src/**", true, false)},
			nil},
		{"an invalid pattern overlaps nothing", []reservations.Reservation{
			lease("u", "GreenCastle", "src/[", true, true), lease("r1", "BlueLake", "**", true, false)},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, l := range lostLeases(tt.active, func(r reservations.Reservation) bool { return remote[r.ID] }) {
				got[l.lease.ID] = l.first.ID
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("lost %v, want %v", got, tt.want)
			}
		})
	}
}

// Settling many offline leases against many others' costs what the leases
// do, not the pairs: each pattern is compiled once, each lease looked up
// on the remote once (a sync with 40 offline leases in a project with
// 1,000 others spent half a second compiling the same patterns again).
func TestLostLeasesCostGrowsWithTheLeases(t *testing.T) {
	var active []reservations.Reservation
	for i := 0; i < 400; i++ {
		active = append(active, reservations.Reservation{ID: fmt.Sprint("r", i), Agent: "BlueLake", Exclusive: true,
			Pattern: fmt.Sprintf("area-%d/pkg-%d/**", i%20, i)})
	}
	for i := 0; i < 40; i++ {
		active = append(active, reservations.Reservation{ID: fmt.Sprint("u", i), Agent: "GreenCastle", Exclusive: true, Unconfirmed: true,
			Pattern: fmt.Sprintf("area-%d/**/*.go", i%20)})
	}
	// BlueLake's leases are not on the remote yet: each offline lease
	// overlaps 20 of them, none of which it loses to.
	lookups := 0
	onRemote := func(r reservations.Reservation) bool { lookups++; return false }
	allocs := testing.AllocsPerRun(1, func() {
		if lost := lostLeases(active, onRemote); len(lost) != 0 {
			t.Fatalf("lost %v, want none", lost)
		}
	})
	if lookups > 2*len(active) { // one per lease and run (AllocsPerRun runs it twice)
		t.Errorf("%d lookups on the remote for %d leases", lookups, len(active))
	}
	// Compiling a pattern takes tens of allocations: a bound per lease,
	// where compiling per pair (16,000 pairs) takes hundreds of thousands.
	if limit := 100 * float64(len(active)); allocs > limit {
		t.Errorf("%.0f allocations for %d leases, want at most %.0f", allocs, len(active), limit)
	}
}
