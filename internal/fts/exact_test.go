package fts

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// partsByRune and mixedCaseByRune are parts and mixedCase as they were
// written first, rune by rune: the ASCII paths must agree with them.
func partsByRune(word string) [][2]int {
	var dst [][2]int
	start := -1
	for i, r := range word {
		switch {
		case isPart(r) && start < 0:
			start = i
		case !isPart(r) && start >= 0:
			dst = append(dst, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, [2]int{start, len(word)})
	}
	return dst
}

func mixedCaseByRune(w string) bool {
	lower, upper := false, false
	for i, r := range w {
		lower = lower || unicode.IsLower(r)
		upper = upper || (i > 0 && unicode.IsUpper(r))
	}
	return lower && upper
}

var exactWords = []string{
	"", "word", "Word", "WORD", "camelCase", "iPhone", "HTTPServer", "snake_case_name", "x.y.z", "a1b2",
	"--flag", "(parse)", "`parse()`", "src/auth/session.go", "Ünïcödé", "straßeName", "日本語テキスト",
	"naïveCamelCase", "e\u0301clair", "café_au_lait", "\xff\xfeBad", "ab\xffCd", "٣٤٥", "Ⅻroman", "x²",
	"ǅungla", "ΣίσυφοςName", "ﬁle", "İstanbul", "😀smileFace", "tab\there",
}

func TestPartsASCIIPath(t *testing.T) {
	for _, w := range exactWords {
		if got, want := parts(nil, w), partsByRune(w); !slices.Equal(got, want) {
			t.Errorf("parts(%q) = %v, want %v", w, got, want)
		}
		if got, want := mixedCase(w), mixedCaseByRune(w); got != want {
			t.Errorf("mixedCase(%q) = %v, want %v", w, got, want)
		}
	}
}

func FuzzParts(f *testing.F) {
	for _, w := range exactWords {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if got, want := parts(nil, w), partsByRune(w); !slices.Equal(got, want) {
			t.Errorf("parts(%q) = %v, want %v", w, got, want)
		}
		if got, want := mixedCase(w), mixedCaseByRune(w); got != want {
			t.Errorf("mixedCase(%q) = %v, want %v", w, got, want)
		}
	})
}

// exactTokensByFields is exactTokens as it was written first, over
// strings.FieldsSeq with partsByRune and mixedCaseByRune.
func exactTokensByFields(text string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for word := range strings.FieldsSeq(text) {
		ps := partsByRune(word)
		if len(ps) == 0 || len(ps) == 1 && !mixedCaseByRune(word[ps[0][0]:ps[0][1]]) {
			continue
		}
		for i := range ps {
			for j := i; j < len(ps) && j < i+maxExactParts; j++ {
				seq := word[ps[i][0]:ps[j][1]]
				if len(seq) > maxExactBytes {
					break
				}
				if i == j && !mixedCaseByRune(seq) {
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

var exactTexts = []string{
	"", "plain words only 2025 and more", "call parseHTTP() in src/auth/session.go, then x.y.z",
	"\u00a0nbsp\u00a0separated\u2003em space\u3000ideographic", "tabs\tand\nnew\vlines\fform\rreturn",
	"caf\u00e9 na\u00efveCamel \xff\xfe broken\xffBytes", "\u0085next-line\u0085word", "  leading and trailing  ",
	strings.Join(exactWords, " "),
}

func TestExactTokensFastPaths(t *testing.T) {
	for _, text := range exactTexts {
		if got, want := exactTokens(text), exactTokensByFields(text); got != want {
			t.Errorf("exactTokens(%q) = %q, want %q", text, got, want)
		}
	}
}

func FuzzExactTokens(f *testing.F) {
	for _, text := range exactTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := exactTokens(text), exactTokensByFields(text); got != want {
			t.Errorf("exactTokens(%q) = %q, want %q", text, got, want)
		}
	})
}
