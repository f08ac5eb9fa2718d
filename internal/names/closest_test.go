package names

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	agents := []string{"BlueLake", "BlueHill", "GreenCastle", "GreenLake", "RedFox", "RedBox", "QuietHarbor"}
	for _, tc := range []struct {
		name       string
		query      string
		candidates []string
		limit      int
		want       []string
	}{
		{"one typo", "BlueLak", agents, 3, []string{"BlueLake", "BlueHill"}},
		{"one typo, one wanted", "BlueLak", agents, 1, []string{"BlueLake"}},
		{"case only", "bluelake", agents, 3, []string{"BlueLake", "BlueHill"}},
		{"transposition", "BlueLkae", agents, 3, []string{"BlueLake", "BlueHill"}},
		{"two typos in a long name", "GrenCastel", agents, 3, []string{"GreenCastle"}},
		{"shared prefix", "GreenLak", agents, 5, []string{"GreenLake", "GreenCastle"}},
		{"substring, ties alphabetical", "lake", agents, 5, []string{"BlueLake", "GreenLake"}},
		{"contains candidate", "TheQuietHarborAgent", agents, 5, []string{"QuietHarbor"}},
		{"equal distance, alphabetical", "RedGox", agents, 5, []string{"RedBox", "RedFox"}},
		{"too far", "XyzLake", agents, 5, nil},
		{"unrelated", "Zebra", agents, 5, nil},
		{"short query, no substring rule", "e", agents, 5, nil},
		{"limit zero", "BlueLak", agents, 0, nil},
		{"empty name", "", agents, 5, nil},
		{"no candidates", "BlueLak", nil, 5, nil},
		{"duplicates and empties", "BlueLak", []string{"BlueLake", "", "BlueLake"}, 5, []string{"BlueLake"}},
		{"case-different duplicates ordered", "BLUELAKE", []string{"bluelake", "BlueLake"}, 5, []string{"BlueLake", "bluelake"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Closest(tc.query, tc.candidates, tc.limit)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Closest(%q, %q, %d) = %q, want %q", tc.query, tc.candidates, tc.limit, got, tc.want)
			}
			// The order of the candidates does not matter.
			r := rand.New(rand.NewPCG(1, 2))
			for range 10 {
				shuffled := slices.Clone(tc.candidates)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				if got := Closest(tc.query, shuffled, tc.limit); !slices.Equal(got, tc.want) {
					t.Fatalf("Closest(%q, %q, %d) = %q, want %q", tc.query, shuffled, tc.limit, got, tc.want)
				}
			}
		})
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"ca", "ac", 1},
		{"abcd", "acbd", 1},
		{"kitten", "sitting", 3},
		{"bluelak", "bluelake", 1},
		{"bluelkae", "bluelake", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau-Levenshtein
		{"grün", "grun", 1},
	} {
		if got := distance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance([]rune(tc.b), []rune(tc.a)); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}
