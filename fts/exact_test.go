package fts

import (
	"slices"
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
