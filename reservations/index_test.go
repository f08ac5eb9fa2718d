package reservations

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The matcher's index and the literal-directory prefilter never change an
// answer: the matcher finds exactly the patterns doublestar matches, and
// dirsMeet is true whenever the patterns overlap.
func TestPatternIndexAndPrefilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var patterns []string
	for len(patterns) < 300 {
		p, err := NormalizePattern(randomPattern(rng), nil)
		if err != nil {
			continue
		}
		if _, err := Compile(p); err == nil {
			patterns = append(patterns, p, "src/"+p, "a/b/"+p)
		}
	}
	m := NewMatcher(patterns)
	for range 2000 {
		path := randomPath(rng)
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
		if !dirsMeet(literalDir(a), literalDir(b)) && Overlap(a, b) {
			t.Fatalf("prefilter says %q and %q cannot overlap, but they do", a, b)
		}
	}
}

// dirSet.meets is dirsMeet against each directory of the set.
func TestDirSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	segs := []string{"a", "b", "ab", "a.b", ""}
	dir := func() string {
		parts := make([]string, rng.IntN(4))
		for i := range parts {
			parts[i] = segs[rng.IntN(len(segs))]
		}
		return strings.Join(parts, "/")
	}
	for range 3000 {
		dirs := make([]string, rng.IntN(4))
		for i := range dirs {
			dirs[i] = dir()
		}
		set, d := newDirSet(dirs), dir()
		want := slices.ContainsFunc(dirs, func(x string) bool { return dirsMeet(x, d) })
		if got := set.meets(d); got != want {
			t.Fatalf("newDirSet(%q).meets(%q) = %v, want %v", dirs, d, got, want)
		}
	}
}

func TestLiteralDir(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"src/api/*.go", "src/api"}, {"docs/**", "docs"}, {"**/*.md", ""}, {"Makefile", "Makefile"},
		{"a/b{c,d}/e", "a"}, {`src/\*x`, "src"}, {"*", ""},
	} {
		if got := literalDir(tt.in); got != tt.want {
			t.Errorf("literalDir(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
