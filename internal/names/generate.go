package names

import (
	"errors"
	"math/rand/v2"
)

// ErrExhausted is returned by Generate when every name is taken.
var ErrExhausted = errors.New("every agent name is taken")

// randomTries is how many random names Generate tries before it scans.
const randomTries = 64

// Generate returns a random agent name in canonical form for which taken,
// given the name's Fold key, reports false. With a nil taken every name is
// free; with a nil r it uses the math/rand/v2 global source. The same seeded r
// and the same taken give the same name.
//
// It tries up to 64 random names, then scans every combination in order from
// a random start, so it finds a free name whenever one exists and returns
// ErrExhausted only when all are taken.
func Generate(r *rand.Rand, taken func(folded string) bool) (string, error) {
	l := lists()
	total := len(l.adjectives) * len(l.nouns)
	intN := rand.IntN
	if r != nil {
		intN = r.IntN
	}
	free := func(i int) (string, bool) {
		name := combination(i)
		return name, taken == nil || !taken(Fold(name))
	}
	for range randomTries {
		if name, ok := free(intN(total)); ok {
			return name, nil
		}
	}
	start := intN(total)
	for k := range total {
		if name, ok := free((start + k) % total); ok {
			return name, nil
		}
	}
	return "", ErrExhausted
}

// combination returns the i-th name, adjective-major in list order.
func combination(i int) string {
	l := lists()
	return l.adjectives[i/len(l.nouns)] + l.nouns[i%len(l.nouns)]
}
