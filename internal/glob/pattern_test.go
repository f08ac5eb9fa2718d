package glob

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func dirs(names ...string) func(string) bool {
	return func(rel string) bool {
		for _, n := range names {
			if rel == n {
				return true
			}
		}
		return false
	}
}

func TestNormalizePattern(t *testing.T) {
	for _, c := range []struct {
		raw   string
		isDir func(string) bool
		want  string
	}{
		{"src/**", nil, "src/**"},
		{"src/api/handler.go", nil, "src/api/handler.go"},
		{"docs/*.md", nil, "docs/*.md"},
		// leading ./, . segments, repeated slashes
		{"./src/a.go", nil, "src/a.go"},
		{"././src", nil, "src"},
		{"src/./api", nil, "src/api"},
		{"src//api///x.go", nil, "src/api/x.go"},
		{"{a//b,c}/x", nil, "{a/b,c}/x"},
		// the whole repository
		{".", nil, "**"},
		{"./", nil, "**"},
		{"./.", nil, "**"},
		{"**", nil, "**"},
		// directories
		{"src/", nil, "src/**"},
		{"src/api/.", nil, "src/api/**"},
		{"a/{b,c}/", nil, "a/{b,c}/**"},
		{"**/", nil, "**/**"},
		{"docs", dirs("docs"), "docs/**"},
		{"./docs", dirs("docs"), "docs/**"},
		{"docs", nil, "docs"},
		{"docs/x.md", dirs("docs"), "docs/x.md"},
		{"doc*", dirs("doc*", "docs"), "doc*"}, // not literal: isDir is not asked
		{`a\*b`, dirs("a*b"), `a\*b/**`},
		{"docs/", dirs(), "docs/**"},
		// negated classes never match '/'
		{"[!a]*", nil, "[!/a]*"},
		{"[^a-c]x", nil, "[^/a-c]x"},
		{"[!.]*", nil, "[!./]*"},
		{"[!-]", nil, `[!\-/]`},
		{"[!a-]", nil, `[!\-/a]`},
		{`[!\]]`, nil, `[!/\]]`},
		{"[!/a]", nil, "[!/a]"},
		{"[!.-0]", nil, "[!.-0]"},
		// kept as they are
		{"x{,.orig}", nil, "x{,.orig}"},
		{"src/{**,*.go}", nil, "src/{**,*.go}"},
		{`a\*`, nil, `a\*`},
		{`my\ file`, nil, `my\ file`},
		{"a b/c d", nil, "a b/c d"},
		{"é/ü*", nil, "é/ü*"},
		{"a,b", nil, "a,b"},
	} {
		got, err := NormalizePattern(c.raw, c.isDir)
		if err != nil || got != c.want {
			t.Errorf("NormalizePattern(%q) = %q, %v; want %q", c.raw, got, err, c.want)
			continue
		}
		if again, err := NormalizePattern(got, c.isDir); err != nil || again != got {
			t.Errorf("NormalizePattern(%q) = %q is not a fixed point: %q, %v", c.raw, got, again, err)
		}
		if _, err := Compile(got); err != nil {
			t.Errorf("Compile(NormalizePattern(%q) = %q): %v", c.raw, got, err)
		}
	}
}

func TestNormalizePatternRejects(t *testing.T) {
	for _, c := range []struct {
		raw, why string // why: a fragment of the error message
	}{
		{"", "empty"},
		{"   ", "empty"},
		{" src/**", "white space"},
		{"src/** ", "white space"},
		{"/etc/x", "absolute paths are not allowed; use a path relative to the repository root"},
		{"/", "absolute"},
		{"C:/src", "drive letter"},
		{"c:src", "drive letter"},
		{"..", "'..'"},
		{"../x", "'..'"},
		{"a/../b", "'..'"},
		{"a/..", "'..'"},
		{"{..,a}/x", "'..'"},
		{`\.\./x`, "backslash"},
		{"a\x00b", "control character"},
		{"a\tb", "control character"},
		{"a\x7fb", "control character"},
		{"a\u0085b", "control character"},
		{"a\xffb", "UTF-8"},
		{`src\api\x.go`, "use '/' to separate path segments"},
		{`a\/b`, "backslash"},
		{`a\`, "lone backslash"},
		{"[abc", "unclosed character class"},
		{"a[", "unclosed character class"},
		{"[]a]", "empty character class"},
		{"[!]", "empty character class"},
		{"[z-a]", "reversed"},
		{"[a{]", "inside the character class"},
		{"[!}]", "inside the character class"},
		{"[a[]", "inside the character class"},
		{"[/]", "matches '/'"},
		{"[.-0]", "matches '/'"},
		{"a{b,c", "unclosed '{'"},
		{"a{b{c,d}", "unclosed '{'"},
		{"a}b", "unmatched '}'"},
		{"*{,a}", "only '*' and '/'"},
		{"**/a*{,a}", "only '*' and '/'"},
		{"*.{go,}", "only '*' and '/'"},
		{"x/{a/,b}", "ends with '/'"},
		{"{./a,b}", "'.' segment"},
		{"{a,.}", "'.' segment"},
		{strings.Repeat("{a,b}", 9), "more than 256 alternatives"},
		{strings.Repeat("*a", 300), "too complex"},
		{strings.Repeat("**/", 60) + "x", "too complex"},
		{strings.Repeat("a", maxPatternLen+1), "longer than"},
		{strings.Repeat("a/", maxPatternLen/2) + "/", "longer than"},
	} {
		got, err := NormalizePattern(c.raw, nil)
		if err == nil {
			t.Errorf("NormalizePattern(%q) = %q, want an error about %s", c.raw, got, c.why)
			continue
		}
		if !errors.Is(err, ErrInvalidPattern) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("NormalizePattern(%q): error %q does not wrap ErrInvalidPattern or mention %q", c.raw, err, c.why)
		}
		if !strings.Contains(err.Error(), "invalid pattern ") {
			t.Errorf("NormalizePattern(%q): error %q does not name the pattern", c.raw, err)
		}
		if _, err := Compile(c.raw); err == nil {
			t.Errorf("Compile(%q) accepted a pattern NormalizePattern rejects", c.raw)
		}
	}
}

func TestNormalizeErrorMessage(t *testing.T) {
	_, err := NormalizePattern("/etc/x", nil)
	want := `invalid pattern "/etc/x": absolute paths are not allowed; use a path relative to the repository root`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

// TestNormalizeRandom checks on random patterns that normalization is a
// fixed point, that its result compiles, and that it never panics.
func TestNormalizeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := []string{"a", "/", "//", "./", ".", "..", "*", "**", "?", "[", "]", "!", "-", "{", "}", ",", `\`, `\*`, " ", "é"}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		raw := b.String()
		n, err := NormalizePattern(raw, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalidPattern) {
				t.Fatalf("NormalizePattern(%q): %v does not wrap ErrInvalidPattern", raw, err)
			}
			continue
		}
		if again, err := NormalizePattern(n, nil); err != nil || again != n {
			t.Fatalf("NormalizePattern(%q) = %q, then %q, %v", raw, n, again, err)
		}
		if _, err := Compile(n); err != nil {
			t.Fatalf("Compile(%q) (normalized from %q): %v", n, raw, err)
		}
	}
}

func TestIsBroad(t *testing.T) {
	for p, want := range map[string]bool{
		"**":         true,
		"*":          true,
		"**/*":       true,
		"**/**":      true,
		"{**}":       true,
		"{*,a}":      true,
		"{**,src/*}": true,
		"*/**":       true,
		"?*":         true,
		"**/":        true,
		".":          true,
		"./":         true,
		"*{,.orig}":  false, // invalid
		"*.go":       false,
		"[!.]*":      false, // every top-level name but the dotfiles
		"src/**":     false,
		"*/*":        false,
		"?":          false,
		"a*":         false,
		"**/*.go":    false,
		"[":          false,
	} {
		if got := IsBroad(p); got != want {
			t.Errorf("IsBroad(%q) = %v, want %v", p, got, want)
		}
	}
}
