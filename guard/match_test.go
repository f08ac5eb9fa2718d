package guard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/agentmail/agentmail/reservations"
)

func res(agent, pattern string) reservations.Reservation {
	return reservations.Reservation{ID: agent + ":" + pattern, Agent: agent, Pattern: pattern, Exclusive: true,
		Expires: time.Now().Add(time.Hour)}
}

func holders(rs []reservations.Reservation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Pattern)
	}
	return out
}

func TestMatcher(t *testing.T) {
	rs := []reservations.Reservation{
		res("A", "src/api/**"),
		res("A", "docs/*.md"),
		res("B", "Makefile"),
		res("B", "**/*.lock"),
		res("C", "{web,app}/index.html"),
		res("C", "Config/**"),
		res("C", "odd/tab*"),
		res("C", "données/**"),
		res("C", "lib/[a-c]*.go"),
		res("C", `esc/\*star`),
		res("D", "src/api/**"), // a second holder of the same pattern
	}
	m := NewMatcher(rs)
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
		got := holders(m.Match(tt.path, tt.fold))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Match(%q, fold=%v) = %q, want %q", tt.path, tt.fold, got, tt.want)
		}
	}
}

// TestMatcherAgreesWithGlob checks the index against a plain loop over
// reservations.Glob.Match, on random patterns and paths, and that matching
// ignoring case finds a superset.
func TestMatcherAgreesWithGlob(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { testMatcherAgreesWithGlob(t, seed) })
	}
}

func testMatcherAgreesWithGlob(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	segs := []string{"a", "b", "A", "src", "Src", "x.go", "y.md", "é", "*", "**", "?", "[ab]", "{a,b}", "*.go", "a*"}
	var rs []reservations.Reservation
	var globs []*reservations.Glob
	for len(rs) < 300 {
		n := 1 + rng.IntN(4)
		var p string
		for i := 0; i < n; i++ {
			if i > 0 {
				p += "/"
			}
			p += segs[rng.IntN(len(segs))]
		}
		norm, err := reservations.NormalizePattern(p, nil)
		if err != nil {
			continue
		}
		g, err := reservations.Compile(norm)
		if err != nil {
			continue
		}
		rs = append(rs, res(fmt.Sprint("agent", len(rs)), norm))
		globs = append(globs, g)
	}
	m := NewMatcher(rs)
	names := []string{"a", "b", "A", "B", "src", "SRC", "Src", "x.go", "X.GO", "y.md", "é", "É", "ab", "ba", "aa"}
	matched, foldOnly := 0, 0
	for i := 0; i < 1500; i++ {
		n := 1 + rng.IntN(4)
		var p string
		for j := 0; j < n; j++ {
			if j > 0 {
				p += "/"
			}
			p += names[rng.IntN(len(names))]
		}
		var want []string
		for k, g := range globs {
			if g.Match(p) {
				want = append(want, rs[k].Pattern)
			}
		}
		got := holders(m.Match(p, false))
		if !slices.Equal(got, want) {
			t.Fatalf("Match(%q) = %q, want %q", p, got, want)
		}
		folded := holders(m.Match(p, true))
		for _, w := range want {
			if !slices.Contains(folded, w) {
				t.Fatalf("Match(%q, fold) = %q misses %q", p, folded, w)
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

func TestBlocking(t *testing.T) {
	now := time.Now()
	mk := func(agent, pattern string, exclusive bool, expires time.Time, released bool) reservations.Reservation {
		r := reservations.Reservation{Agent: agent, Pattern: pattern, Exclusive: exclusive, Expires: expires}
		if released {
			r.Released = now.Add(-time.Minute)
		}
		return r
	}
	rs := []reservations.Reservation{
		mk("BlueLake", "held", true, now.Add(time.Hour), false),
		mk("BlueLake", "shared", false, now.Add(time.Hour), false),
		mk("BlueLake", "expired", true, now.Add(-time.Second), false),
		mk("BlueLake", "released", true, now.Add(time.Hour), true),
		mk("GreenCastle", "mine", true, now.Add(time.Hour), false),
	}
	for _, tt := range []struct {
		agent string
		want  []string
	}{
		{"GreenCastle", []string{"held"}},
		{"greencastle", []string{"held"}},
		{"BlueLake", []string{"mine"}},
		{"", []string{"held", "mine"}}, // nobody: every exclusive reservation
		{"RedFox", []string{"held", "mine"}},
	} {
		if got := holders(Blocking(rs, tt.agent, now)); !slices.Equal(got, tt.want) {
			t.Errorf("Blocking(%q) = %q, want %q", tt.agent, got, tt.want)
		}
	}
}
