package reservations

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/glob/globtest"
)

func TestClashes(t *testing.T) {
	list := []Lease{
		{"a", "BlueLake", "src/api/**", true},
		{"b", "GreenCastle", "src/api/auth.go", true}, // inside a: clashes
		{"c", "GreenCastle", "src/web/**", true},      // beside it: no
		{"d", "RedFox", "**/*.go", false},             // shared, meets a and b (exclusive): clashes with both
		{"e", "RedFox", "docs/**", false},             // shared
		{"f", "BlueLake", "docs/guide.md", false},     // shared against shared: no
		{"g", "BlueLake", "src/api/auth.go", true},    // the same agent as a: no clash with a; with b: yes
	}
	got := Clashes(list)
	want := map[string][]string{"a": {"b", "d"}, "b": {"a", "d", "g"}, "c": {"d"}, "d": {"a", "b", "c", "g"}, "g": {"b", "d"}}
	for id := range got {
		slices.Sort(got[id])
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Clashes = %v, want %v", got, want)
	}
}

// Clashes finds exactly the pairs that comparing every pair finds.
func TestClashesAsEveryPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var list []Lease
	for len(list) < 300 {
		p, err := glob.NormalizePattern(globtest.RandomPattern(rng), nil)
		if err != nil {
			continue
		}
		for _, pre := range []string{"", "src/", "src/a/"} {
			list = append(list, Lease{fmt.Sprint(len(list)), []string{"A", "B", "C"}[rng.IntN(3)], pre + p, rng.IntN(2) == 0})
		}
	}
	want := map[string][]string{}
	for i, a := range list {
		for _, b := range list[i+1:] {
			if a.Agent != b.Agent && (a.Exclusive || b.Exclusive) && glob.Overlap(a.Pattern, b.Pattern) {
				want[a.ID] = append(want[a.ID], b.ID)
				want[b.ID] = append(want[b.ID], a.ID)
			}
		}
	}
	got := Clashes(list)
	for _, m := range []map[string][]string{got, want} {
		for id := range m {
			slices.Sort(m[id])
		}
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Clashes differs from comparing every pair: %d leases clash, want %d", len(got), len(want))
	}
}
