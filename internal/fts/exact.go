package fts

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Limits of the identifier sequences stored for each message (see the package
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

// parts appends the byte ranges of the parts of word to dst.
func parts(dst [][2]int, word string) [][2]int {
	start := -1
	for i := 0; i < len(word); {
		// ASCII, most of any text, without decoding runes.
		c, n := word[i], 1
		var part bool
		if c < utf8.RuneSelf {
			part = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(word[i:])
			part = isPart(r)
		}
		switch {
		case part && start < 0:
			start = i
		case !part && start >= 0:
			dst = append(dst, [2]int{start, i})
			start = -1
		}
		i += n
	}
	if start >= 0 {
		dst = append(dst, [2]int{start, len(word)})
	}
	return dst
}

// exactCode is the code of each byte in an encoded sequence: two decimal
// digits for the printable ASCII that lower-cased identifiers are made of,
// three (starting with 0 or 9) for any other byte. No code is a prefix of
// another, so an encoding is a single unicode61 token of digits, which the
// porter stemmer leaves unchanged, and the encodings of the prefixes of s are
// the prefixes of the encoding of s that end on a code.
// They are made on first use: most commands search nothing.
var exactCode = sync.OnceValue(func() *[256]string {
	var codes [256]string
	two, three := 10, 0
	for c := range codes {
		if c > ' ' && c < 0x7f && (c < 'A' || c > 'Z') {
			codes[c] = strconv.Itoa(two)
			two++
			continue
		}
		codes[c] = fmt.Sprintf("%03d", three)
		if three++; three == 100 {
			three = 900
		}
	}
	return &codes
})

// encodeExact encodes s with exactCode.
func encodeExact(s string) string {
	codes := exactCode()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(codes[s[i]])
	}
	return b.String()
}

// exactTokens returns the encoded identifier sequences of text, each once,
// separated by spaces: for every word, the lower-cased runs of 2 to
// maxExactParts consecutive parts with what separates them, and every part
// in mixed case, all up to maxExactBytes long.
func exactTokens(text string) string {
	var seen map[string]bool
	var b strings.Builder
	var buf [16][2]int
	for word := range plainlessWords(text) {
		ps := parts(buf[:0], word)
		// Most words of prose are one part in one case: nothing to store.
		if len(ps) == 0 || len(ps) == 1 && !mixedCase(word[ps[0][0]:ps[0][1]]) {
			continue
		}
		if seen == nil {
			seen = make(map[string]bool)
		}
		for i := range ps {
			for j := i; j < len(ps) && j < i+maxExactParts; j++ {
				seq := word[ps[i][0]:ps[j][1]]
				if len(seq) > maxExactBytes {
					break
				}
				if i == j && !mixedCase(seq) {
					continue
				}
				seq = strings.ToLower(seq)
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

// plainlessWords yields the words of text as strings.FieldsSeq splits it,
// but for those made of lower-case ASCII letters and digits alone, most
// words of prose, in which exactTokens finds nothing to store.
func plainlessWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(text); {
			// Skip the spaces before the word, then find its end.
			c := text[i]
			if c < utf8.RuneSelf && asciiSpace[c] {
				i++
				continue
			}
			if c >= utf8.RuneSelf {
				if r, n := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
					i += n
					continue
				}
			}
			start, plain := i, true
			for i < len(text) {
				c := text[i]
				if c < utf8.RuneSelf {
					if asciiSpace[c] {
						break
					}
					plain = plain && ('a' <= c && c <= 'z' || '0' <= c && c <= '9')
					i++
					continue
				}
				r, n := utf8.DecodeRuneInString(text[i:])
				if unicode.IsSpace(r) {
					break
				}
				plain = false
				i += n
			}
			if !plain && !yield(text[start:i]) {
				return
			}
		}
	}
}

// asciiSpace marks the ASCII bytes that strings.Fields splits at.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// identifier reports whether the query word w is an identifier and, if so,
// returns the sequence it must match: w lower-cased, without punctuation
// before its first part or after its last (kept when w is a prefix). w is
// one if it has two parts or more, or one in mixed case, as exactTokens
// stores them. fits is false when the sequence is longer than those.
func identifier(w string, prefix bool) (seq string, ok, fits bool) {
	ps := parts(nil, w)
	if len(ps) == 0 {
		return "", false, false
	}
	end := ps[len(ps)-1][1]
	if prefix {
		end = len(w)
	}
	if len(ps) == 1 && end == ps[0][1] && !mixedCase(w[ps[0][0]:end]) {
		return "", false, false
	}
	seq = w[ps[0][0]:end]
	return strings.ToLower(seq), true, len(ps) <= maxExactParts && len(seq) <= maxExactBytes
}

// mixedCase reports whether the part w has a lower-case letter and an
// upper-case one after its first rune, as in CamelCase or iPhone but not
// Hello or HTTP.
func mixedCase(w string) bool {
	lower, upper := false, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return mixedCaseRunes(w)
		}
		lower = lower || 'a' <= c && c <= 'z'
		upper = upper || i > 0 && 'A' <= c && c <= 'Z'
	}
	return lower && upper
}

// mixedCaseRunes is mixedCase for a part that is not all ASCII.
func mixedCaseRunes(w string) bool {
	lower, upper := false, false
	for i, r := range w {
		lower = lower || unicode.IsLower(r)
		upper = upper || (i > 0 && unicode.IsUpper(r))
	}
	return lower && upper
}
