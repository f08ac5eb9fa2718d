package glob

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentmail/agentmail/internal/glob/globtest"
)

// The matcher's index and the literal-directory prefilter never change an
// answer: the matcher finds exactly the patterns doublestar matches, and
// DirsMeet is true whenever the patterns overlap.
func TestPatternIndexAndPrefilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var patterns []string
	for len(patterns) < 300 {
		p, err := NormalizePattern(globtest.RandomPattern(rng), nil)
		if err != nil {
			continue
		}
		if _, err := Compile(p); err == nil {
			patterns = append(patterns, p, "src/"+p, "a/b/"+p)
		}
	}
	m := NewMatcher(patterns)
	for range 2000 {
		path := globtest.RandomPath(rng)
		var want []int
		for i, p := range patterns {
			if dsMatch(t, p, path) {
				want = append(want, i)
			}
		}
		if got := m.Match(path, false); !slices.Equal(got, want) {
			t.Fatalf("matcher on %q: %v, want %v", path, got, want)
		}
	}
	for i := range 3000 {
		a, b := patterns[rng.IntN(len(patterns))], patterns[(i*7919)%len(patterns)]
		if !DirsMeet(LiteralDir(a), LiteralDir(b)) && Overlap(a, b) {
			t.Fatalf("prefilter says %q and %q cannot overlap, but they do", a, b)
		}
	}
}

func TestLiteralDir(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"src/api/*.go", "src/api"}, {"docs/**", "docs"}, {"**/*.md", ""}, {"Makefile", "Makefile"},
		{"a/b{c,d}/e", "a"}, {`src/\*x`, "src"}, {"*", ""},
	} {
		if got := LiteralDir(tt.in); got != tt.want {
			t.Errorf("literalDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
