package reservations

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func inUniverse(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return false
	}
	return true
}

func enumStrings(alpha []string, maxLen int) []string {
	out := []string{""}
	layer := []string{""}
	for l := 1; l <= maxLen; l++ {
		var next []string
		for _, s := range layer {
			for _, a := range alpha {
				next = append(next, s+a)
			}
		}
		out = append(out, next...)
		layer = next
	}
	return out
}

func TestExploreDiff(t *testing.T) {
	toks := strings.Fields(os.Getenv("TOKS"))
	names := []string{}
	for _, n := range enumStrings([]string{"a", "b", "c", "/", "*", "."}, envInt("NAMELEN")) {
		if inUniverse(n) {
			names = append(names, n)
		}
	}
	pats := enumStrings(toks, envInt("PATLEN"))
	bad := 0
	badPats := 0
	for _, p := range pats {
		first := true
		if os.Getenv("NOSLASHEND") != "" && strings.HasSuffix(p, "/") {
			continue
		}
		g, err := Compile(p)
		if err != nil {
			continue
		}
		for _, n := range names {
			want, derr := doublestar.Match(p, n)
			if derr != nil {
				t.Errorf("doublestar error %q %q", p, n)
			}
			if got := g.accepts(n); got != want {
				bad++
				if first {
					first = false
					badPats++
					if badPats < 150 {
						t.Errorf("pattern %q name %q: nfa %v doublestar %v", p, n, got, want)
					}
				}
			}
		}
	}
	t.Logf("patterns %d names %d bad %d badpats %d", len(pats), len(names), bad, badPats)
}

func envInt(k string) int { n, _ := strconv.Atoi(os.Getenv(k)); return n }
