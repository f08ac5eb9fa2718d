package record

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The hand-written checks accept exactly what the patterns they stand
// for match, on the edge cases and on random strings over the bytes that
// matter.
func TestWordsMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		name string
		is   func(string) bool
		re   *regexp.Regexp
	}{
		{"topic", isTopic, regexp.MustCompile(`^[a-z0-9_][a-z0-9._-]{0,63}$`)},
		{"role", isRole, regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)},
		{"sha256", isSHA256, regexp.MustCompile(`^[0-9a-f]{64}$`)},
	}
	edge := []string{"", "a", "_", ".", "-", "A", "a.b", "a-b", "a_b", "a b", "é", "a\n", strings.Repeat("a", 32), strings.Repeat("a", 33),
		strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("f0", 32), strings.Repeat("F0", 32), strings.Repeat("g0", 32)}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "az09AZ_.-/ \n\xc3"
	for range 5000 {
		b := make([]byte, rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		edge = append(edge, string(b))
	}
	for _, c := range checks {
		for _, s := range edge {
			if got, want := c.is(s), c.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, its pattern says %v", c.name, s, got, want)
			}
		}
	}
}
