package names

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func TestGenerateFree(t *testing.T) {
	total := len(adjectives) * len(nouns)
	// Every name whose index is not a multiple of 7 is taken.
	takenSet := map[string]bool{}
	for i := range total {
		if i%7 != 0 {
			takenSet[Fold(combination(i))] = true
		}
	}
	for _, tc := range []struct {
		name  string
		r     *rand.Rand
		taken func(string) bool
	}{
		{"nil taken", seeded(1), nil},
		{"nothing taken", seeded(2), func(string) bool { return false }},
		{"most taken", seeded(3), func(f string) bool { return takenSet[f] }},
		{"nil rand", nil, func(f string) bool { return takenSet[f] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 200 {
				calls := 0
				taken := tc.taken
				if taken != nil {
					taken = func(f string) bool {
						calls++
						if f != Fold(f) {
							t.Fatalf("taken got %q, not a folded key", f)
						}
						return tc.taken(f)
					}
				}
				name, err := Generate(tc.r, taken)
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				if takenSet[Fold(name)] && tc.name != "nil taken" && tc.name != "nothing taken" {
					t.Fatalf("Generate returned taken name %s", name)
				}
				if got, err := Parse(name); got != name || err != nil {
					t.Fatalf("Parse(%q) = %q, %v; want it back unchanged", name, got, err)
				}
				if taken != nil && calls == 0 {
					t.Fatal("Generate did not ask taken")
				}
			}
		})
	}
}

func TestGenerateLastFree(t *testing.T) {
	for _, want := range []string{"QuietHarbor", combination(0), combination(len(adjectives)*len(nouns) - 1)} {
		for seed := range uint64(5) {
			calls := 0
			got, err := Generate(seeded(seed), func(f string) bool {
				calls++
				return f != Fold(want)
			})
			if got != want || err != nil {
				t.Errorf("seed %d: Generate = %q, %v; want %q", seed, got, err, want)
			}
			if max := randomTries + len(adjectives)*len(nouns); calls > max {
				t.Errorf("seed %d: taken called %d times, want at most %d", seed, calls, max)
			}
		}
	}
}

func TestGenerateExhausted(t *testing.T) {
	calls := 0
	got, err := Generate(seeded(9), func(string) bool { calls++; return true })
	if got != "" || !errors.Is(err, ErrExhausted) {
		t.Fatalf("Generate = %q, %v; want ErrExhausted", got, err)
	}
	if want := randomTries + len(adjectives)*len(nouns); calls != want {
		t.Errorf("taken called %d times, want %d", calls, want)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		r := seeded(seed)
		taken := map[string]bool{}
		var out []string
		for range 50 {
			name, err := Generate(r, func(f string) bool { return taken[f] })
			if err != nil {
				t.Fatal(err)
			}
			if taken[Fold(name)] {
				t.Fatalf("Generate returned %s twice", name)
			}
			taken[Fold(name)] = true
			out = append(out, name)
		}
		return out
	}
	a, b, c := run(42), run(42), run(43)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different names at %d: %s vs %s", i, a[i], b[i])
		}
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same == len(a) {
		t.Error("different seeds gave the same names")
	}
}
