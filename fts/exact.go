package fts

import (
	"strings"
	"unicode"
)

// Limits of the identifier sequences stored by Put (see the package
// documentation). A query identifier beyond them is matched as a phrase only.
const (
	maxExactParts = 8
	maxExactBytes = 64
)

// isPart reports whether r belongs to a part of an identifier; every other
// rune of a word separates parts.
func isPart(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func notPart(r rune) bool { return !isPart(r) }

// parts returns the byte ranges of the parts of word.
func parts(word string) [][2]int {
	var ps [][2]int
	start := -1
	for i, r := range word {
		switch {
		case isPart(r) && start < 0:
			start = i
		case !isPart(r) && start >= 0:
			ps = append(ps, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		ps = append(ps, [2]int{start, len(word)})
	}
	return ps
}

// encodeExact writes s as three decimal digits per byte: a single unicode61
// token that the porter stemmer leaves unchanged, and whose prefixes are the
// encodings of the prefixes of s.
func encodeExact(s string) string {
	b := make([]byte, 0, 3*len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		b = append(b, '0'+c/100, '0'+c/10%10, '0'+c%10)
	}
	return string(b)
}

// exactTokens returns the encoded identifier sequences of text, each once,
// separated by spaces.
func exactTokens(text string) string {
	seen := make(map[string]bool)
	var b strings.Builder
	for _, word := range strings.Fields(strings.ToLower(text)) {
		ps := parts(word)
		for i := range ps {
			for j := i; j < len(ps) && j < i+maxExactParts; j++ {
				seq := word[ps[i][0]:ps[j][1]]
				if len(seq) > maxExactBytes {
					break
				}
				if seen[seq] {
					continue
				}
				seen[seq] = true
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(encodeExact(seq))
			}
		}
	}
	return b.String()
}

// identifier reports whether the query word w is an identifier and, if so,
// returns the sequence it must match: w lower-cased, without punctuation
// before its first part or after its last (kept when w is a prefix). fits is
// false when the sequence is longer than Put stores.
func identifier(w string, prefix bool) (seq string, ok, fits bool) {
	lw := strings.ToLower(w)
	ps := parts(lw)
	if len(ps) == 0 {
		return "", false, false
	}
	end := ps[len(ps)-1][1]
	if prefix {
		end = len(lw)
	}
	seq = lw[ps[0][0]:end]
	if len(ps) == 1 && end == ps[0][1] && !mixedCase(strings.TrimLeftFunc(w, notPart)) {
		return "", false, false
	}
	return seq, true, len(ps) <= maxExactParts && len(seq) <= maxExactBytes
}

// mixedCase reports whether w has a lower-case letter and an upper-case one
// after its first rune, as in CamelCase or iPhone but not Hello or HTTP.
func mixedCase(w string) bool {
	lower, upper := false, false
	for i, r := range w {
		lower = lower || unicode.IsLower(r)
		upper = upper || (i > 0 && unicode.IsUpper(r))
	}
	return lower && upper
}
