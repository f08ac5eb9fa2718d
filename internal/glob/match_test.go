package glob

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"strings"
)

func TestMatcher(t *testing.T) {
	patterns := []string{
		"src/api/**",
		"docs/*.md",
		"Makefile",
		"**/*.lock",
		"{web,app}/index.html",
		"Config/**",
		"odd/tab*",
		"données/**",
		"lib/[a-c]*.go",
		`esc/\*star`,
		"src/api/**", // the same pattern again
	}
	m := NewMatcher(patterns)
	named := func(ix []int) []string {
		var out []string
		for _, i := range ix {
			out = append(out, patterns[i])
		}
		return out
	}
	tests := []struct {
		path string
		fold bool
		want []string
	}{
		{"src/api/routes.go", false, []string{"src/api/**", "src/api/**"}},
		{"src/api", false, []string{"src/api/**", "src/api/**"}}, // doublestar: a/** matches a
		{"src/apix/routes.go", false, nil},
		{"src/other.go", false, nil},
		{"docs/guide.md", false, []string{"docs/*.md"}},
		{"docs/deep/guide.md", false, nil},
		{"Makefile", false, []string{"Makefile"}},
		{"sub/Makefile", false, nil},
		{"a/b/c/yarn.lock", false, []string{"**/*.lock"}},
		{"yarn.lock", false, []string{"**/*.lock"}},
		{"app/index.html", false, []string{"{web,app}/index.html"}},
		{"./web/index.html", false, []string{"{web,app}/index.html"}},
		{"odd/tab\tname.txt", false, []string{"odd/tab*"}},
		{"données/résumé.txt", false, []string{"données/**"}},
		{"lib/b_test.go", false, []string{"lib/[a-c]*.go"}},
		{"lib/d.go", false, nil},
		{"esc/*star", false, []string{`esc/\*star`}},
		{"esc/xstar", false, nil},
		// Case.
		{"config/app.yml", false, nil},
		{"config/app.yml", true, []string{"Config/**"}},
		{"CONFIG/APP.YML", true, []string{"Config/**"}},
		{"Config/app.yml", true, []string{"Config/**"}},
		{"SRC/API/X.GO", true, []string{"src/api/**", "src/api/**"}},
		{"MAKEFILE", true, []string{"Makefile"}},
		{"DONNÉES/X", true, []string{"données/**"}},
		{"LIB/B.GO", true, []string{"lib/[a-c]*.go"}},
		{"LIB/B.GO", false, nil},
		{"YARN.LOCK", true, []string{"**/*.lock"}},
	}
	for _, tt := range tests {
		got := named(m.Match(tt.path, tt.fold))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q, fold=%v) = %q, want %q", tt.path, tt.fold, got, tt.want)
		}
	}
}

// TestMatcherAgreesWithDoublestar checks the index against a plain loop
// over doublestar.Match, on random patterns and paths, and that matching
// ignoring case finds a superset.
func TestMatcherAgreesWithDoublestar(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { testMatcherAgreesWithDoublestar(t, seed) })
	}
}

// joinRandom joins one to four random segments of segs with '/'.
func joinRandom(rng *rand.Rand, segs []string) string {
	parts := make([]string, 1+rng.IntN(4))
	for i := range parts {
		parts[i] = segs[rng.IntN(len(segs))]
	}
	return strings.Join(parts, "/")
}

func testMatcherAgreesWithDoublestar(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	segs := []string{"a", "b", "A", "src", "Src", "x.go", "y.md", "é", "*", "**", "?", "[ab]", "{a,b}", "*.go", "a*"}
	var patterns []string
	for len(patterns) < 300 {
		norm, err := NormalizePattern(joinRandom(rng, segs), nil)
		if err != nil {
			continue
		}
		if _, err := Compile(norm); err != nil {
			continue
		}
		patterns = append(patterns, norm)
	}
	m := NewMatcher(patterns)
	names := []string{"a", "b", "A", "B", "src", "SRC", "Src", "x.go", "X.GO", "y.md", "é", "É", "ab", "ba", "aa"}
	matched, foldOnly := 0, 0
	for i := 0; i < 1500; i++ {
		p := joinRandom(rng, names)
		var want []int
		for k, pattern := range patterns {
			if dsMatch(t, pattern, p) {
				want = append(want, k)
			}
		}
		got := m.Match(p, false)
		if !slices.Equal(got, want) {
			t.Fatalf("Match(%q) = %v, want %v", p, got, want)
		}
		folded := m.Match(p, true)
		for _, w := range want {
			if !slices.Contains(folded, w) {
				t.Fatalf("Match(%q, fold) = %v misses %v", p, folded, w)
			}
		}
		matched += len(want)
		foldOnly += len(folded) - len(want)
	}
	if matched < 500 || foldOnly < 50 {
		t.Errorf("too few matches to mean much: %d, and %d more ignoring case", matched, foldOnly)
	}
	t.Logf("%d matches, %d more ignoring case", matched, foldOnly)
}

// BenchmarkMatcher matches 5,000 paths against 1,000 patterns, index
// building included.
func BenchmarkMatcher(b *testing.B) {
	patterns := make([]string, 1000)
	for i := range patterns {
		patterns[i] = fmt.Sprintf("pkg%d/sub%d/**", i%97, i)
	}
	paths := make([]string, 5000)
	for i := range paths {
		paths[i] = fmt.Sprintf("pkg%d/sub%d/f%d.go", i%97, (i*7)%2000, i)
	}
	for _, fold := range []bool{false, true} {
		b.Run(fmt.Sprint("fold=", fold), func(b *testing.B) {
			var n int
			for b.Loop() {
				m := NewMatcher(patterns)
				n = 0
				for _, p := range paths {
					n += len(m.Match(p, fold))
				}
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}
