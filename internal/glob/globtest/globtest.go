// Package globtest makes random glob patterns and paths for the property
// tests of the glob engine and of the leases built on it.
package globtest

import (
	"math/rand/v2"
	"strings"
)

// RandomPattern builds a pattern from the tokens of the property test.
func RandomPattern(rng *rand.Rand) string {
	tokens := []string{"a", "b", "/", "/", "*", "?", "**", "**/", "[ab]", "[!a]", "{a,b/c}", "{b,*}", ".a", `\*`}
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteString(tokens[rng.IntN(len(tokens))])
	}
	return b.String()
}

// RandomPath builds a path of one to four segments over a small alphabet.
func RandomPath(rng *rand.Rand) string {
	segs := []string{"a", "b", "c", "ab", "ba", "aa", ".a", "*", "bc", "a*"}
	n := 1 + rng.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = segs[rng.IntN(len(segs))]
	}
	return strings.Join(parts, "/")
}
