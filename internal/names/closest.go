package names

import (
	"cmp"
	"slices"
	"strings"
)

// Closest returns up to limit of the candidates most like name, best first, for
// messages such as "unknown recipient BlueLak; did you mean BlueLake?". It
// returns nil when limit <= 0 or nothing is close.
//
// Comparison ignores case. A candidate is close when its Damerau-Levenshtein
// distance (optimal string alignment) from name is at most a third of the
// shorter length (at least 1), when one contains the other and the shorter has
// at least 3 letters, or when they share a prefix of at least 4 letters that is
// at least half the shorter one. Candidates rank by distance, then by longer
// shared prefix, then alphabetically (ignoring case, then exactly), so the
// order is deterministic. Duplicate and empty candidates are ignored.
func Closest(name string, candidates []string, limit int) []string {
	if limit <= 0 || name == "" {
		return nil
	}
	type match struct {
		cand, folded string
		dist, prefix int
	}
	q := []rune(Fold(name))
	seen := make(map[string]bool, len(candidates))
	var found []match
	for _, cand := range candidates {
		if cand == "" || seen[cand] {
			continue
		}
		seen[cand] = true
		folded := Fold(cand)
		c := []rune(folded)
		shorter := min(len(q), len(c))
		prefix := commonPrefix(q, c)
		dist := distance(q, c)
		near := dist <= max(1, shorter/3) ||
			shorter >= 3 && (strings.Contains(folded, string(q)) || strings.Contains(string(q), folded)) ||
			prefix >= 4 && 2*prefix >= shorter
		if near {
			found = append(found, match{cand, folded, dist, prefix})
		}
	}
	slices.SortFunc(found, func(a, b match) int {
		return cmp.Or(
			cmp.Compare(a.dist, b.dist),
			cmp.Compare(b.prefix, a.prefix),
			strings.Compare(a.folded, b.folded),
			strings.Compare(a.cand, b.cand),
		)
	})
	if len(found) > limit {
		found = found[:limit]
	}
	out := make([]string, len(found))
	for i, m := range found {
		out[i] = m.cand
	}
	return out
}

// commonPrefix returns how many runes a and b share at the start.
func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// distance returns the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of two adjacent
// runes that turn a into b, no substring edited twice.
func distance(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return len(a) + len(b)
	}
	// Three rows of the dynamic-programming table: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
