// Package glob is the glob-pattern engine behind file
// reservations: validation and normalization of doublestar (v4) patterns,
// and an exact overlap test between two patterns.
//
// Patterns use the syntax of github.com/bmatcuk/doublestar/v4: `**`, `*`,
// `?`, `[a-z]`, `[!a]`/`[^a]`, nestable `{a,b}` and `\` escapes. They name
// repo-relative paths with `/` as the separator. A pattern without glob
// characters (`newdir`, `src/app.py`) covers the path it names and
// everything below it, whether or not that is a directory today (a
// directory reserved before it exists is held all the same): it means
// `newdir/**` (see Meaning). Every other pattern means exactly what
// doublestar.Match makes of it:
//   - `*` and `?` never match '/'; `**` is special only as a whole segment,
//     where it matches zero or more segments (`a/**/b` matches `a/b`);
//     elsewhere it is a `*`;
//   - `a/**` also matches `a` itself (but `a*/**` does not match `a`);
//   - dotfiles are not special: `*` matches `.env`, `**` matches `.git/x`;
//   - `\` makes the next character literal.
//
// Two patterns overlap when some path matches both. Paths are those a
// repository can hold: non-empty, valid UTF-8, non-empty segments separated
// by single slashes, no leading or trailing slash, no NUL.
//
// doublestar's matcher backtracks only partially, which makes a few
// pattern forms match inconsistently (a class matching '/', empty
// alternatives after a `*`, alternatives ending in '/'); NormalizePattern
// rewrites or rejects them, so that every accepted pattern has a regular
// meaning the overlap test can decide exactly.
package glob

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrInvalidPattern is wrapped by every error that reports a pattern which
// cannot be used for a reservation. Test for it with errors.Is.
var ErrInvalidPattern = errors.New("invalid pattern")

// maxPatternLen bounds the length of a pattern in bytes, so that compiling
// one stays cheap.
const maxPatternLen = 1024

// invalid builds an error wrapping ErrInvalidPattern that names the pattern,
// says what is wrong and how to fix it.
func invalid(pattern, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrInvalidPattern, pattern, fmt.Sprintf(format, args...))
}

// NormalizePattern validates a reservation pattern and returns its canonical
// form.
//
// It rejects, with an error wrapping ErrInvalidPattern that says what is
// wrong and how to fix it:
//   - empty or whitespace-only patterns, leading or trailing white space;
//   - absolute paths (a leading `/`, a Windows drive letter) and `..`
//     segments, in any expansion of the braces;
//   - NUL and other control characters, invalid UTF-8;
//   - a backslash before a letter, digit, '.', '_' or '/' (a Windows path:
//     a backslash only escapes punctuation such as `\*`);
//   - malformed classes and braces (doublestar.ValidatePattern and more:
//     empty or reversed ranges, unescaped '[', '{' or '}' in a class, a
//     positive class that matches '/');
//   - brace forms doublestar.Match handles inconsistently: an alternative
//     made only of '*' and '/' (or empty) after a '*', as in `x*{,.go}`, and
//     an alternative that ends the pattern with '/', as in `x/{a/,b}`;
//     `.` segments inside braces; more than 256 brace expansions;
//   - patterns longer than 1024 bytes, and patterns too intricate to test
//     for overlap cheaply (an automaton of more than 512 states or 2048
//     edges, such as a run of a hundred `*`).
//
// It then normalizes:
//   - a leading `./` and `.` segments are removed, runs of `/` collapse to one;
//   - `.` alone, or a pattern that is nothing but `.` segments, becomes `**`;
//   - a trailing `/` (or `/.`) turns `p/` into `p/**`;
//   - a literal pattern (no glob metacharacter) for which isDir reports a
//     directory becomes `p/**`, which says so; isDir receives the
//     unescaped repo-relative path and may be nil. (A literal pattern
//     covers what is below it either way: see Meaning.)
//   - a negated class that does not exclude `/` gets `/` added, so `[!a]`
//     becomes `[!/a]`: like `*` and `?`, a class never matches the path
//     separator (doublestar itself would let `[!a]` match `/`).
//
// The result is a fixed point (normalizing it again returns it unchanged)
// and Compile accepts it.
func NormalizePattern(raw string, isDir func(rel string) bool) (string, error) {
	g, err := NormalizeCompile(raw, isDir)
	if err != nil {
		return "", err
	}
	return g.pattern, nil
}

// NormalizeCompile normalizes raw as NormalizePattern does and returns the
// normalized pattern compiled, as Compile would.
func NormalizeCompile(raw string, isDir func(rel string) bool) (*Glob, error) {
	if err := checkText(raw); err != nil {
		return nil, err
	}
	classes, err := checkSyntax(raw)
	if err != nil {
		return nil, err
	}
	p := rewriteNegatedClasses(raw, classes)
	if err := checkDotSegments(raw, p, true); err != nil {
		return nil, err
	}
	p, dir := cleanSegments(p)
	switch {
	case p == "":
		p = "**"
	case dir:
		p += "/**"
	case isDir != nil && IsLiteral(p) && isDir(Unescape(p)):
		p += "/**"
	}
	// What normalization leaves must pass every check Compile makes; the
	// checks above name the raw pattern, these the normalized one.
	if err := validate(p); err != nil {
		return nil, fmt.Errorf("%w (normalized from %q)", err, raw)
	}
	return compileValid(p)
}

// endsWithSlash reports whether some expansion of the braces of p ends with
// an unescaped '/'. doublestar lets such a pattern match a path that ends
// before a final `**/`, depending on the order it tries alternatives in.
func endsWithSlash(p string) bool {
	last := -1 // where the last token starts
	for i := 0; i < len(p); {
		last = i
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			i = skipClass(p, i) + 1
		case '{':
			i += indexMatchedClosingAlt(p[i+1:]) + 2
		default:
			i++
		}
	}
	switch {
	case last < 0:
		return false
	case p[last] == '/':
		return true
	case p[last] == '{':
		alts := p[last+1 : len(p)-1]
		for {
			comma := indexNextAlt(alts)
			if comma < 0 {
				return endsWithSlash(alts)
			}
			if endsWithSlash(alts[:comma]) {
				return true
			}
			alts = alts[comma+1:]
		}
	}
	return false
}

// validate applies every check of NormalizePattern without rewriting the
// pattern; it also rejects negated classes that do not exclude `/`, which
// NormalizePattern would have rewritten.
func validate(p string) error {
	if err := checkText(p); err != nil {
		return err
	}
	classes, err := checkSyntax(p)
	if err != nil {
		return err
	}
	for _, c := range classes {
		if c.negate && !c.hasSlash {
			return invalid(p, "the negated class %s also matches '/'; exclude '/' from it, writing the pattern as %q (NormalizePattern does this)", p[c.start:c.end], rewriteNegatedClasses(p, classes))
		}
	}
	if err := checkDotSegments(p, p, false); err != nil {
		return err
	}
	if endsWithSlash(p) {
		return invalid(p, "the pattern, or an alternative at its end, ends with '/'; end it with '/**' to cover a directory (a/** rather than a/, {a/**,b} rather than {a/,b})")
	}
	return nil
}

// checkText rejects patterns whose text cannot name a repo-relative path:
// empty, surrounding white space, bad UTF-8, control characters, absolute
// paths and overlong patterns.
func checkText(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return invalid(p, "the pattern is empty; give a path relative to the repository root, such as src/** or docs/*.md")
	case strings.TrimSpace(p) != p:
		return invalid(p, "the pattern starts or ends with white space; remove it (escape it as '\\ ' if it is part of a file name)")
	case !utf8.ValidString(p):
		return invalid(p, "the pattern is not valid UTF-8; write it in UTF-8")
	case len(p) > maxPatternLen:
		return invalid(p, "the pattern is longer than %d bytes; reserve a shorter pattern or several patterns", maxPatternLen)
	case p[0] == '/':
		return invalid(p, "absolute paths are not allowed; use a path relative to the repository root")
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return invalid(p, "Windows drive letters are not allowed; use a path relative to the repository root, with '/' as the separator")
	}
	for i, r := range p {
		if unicode.IsControl(r) {
			return invalid(p, "control character %U at byte %d; remove it", r, i)
		}
	}
	return nil
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// classInfo locates one character class in a pattern.
type classInfo struct {
	start, end int // p[start:end] is the class, brackets included
	negate     bool
	hasSlash   bool // the class matches '/'
	ranges     []runeRange
}

// checkSyntax checks escapes, classes and braces, and returns the classes
// it found. Beyond doublestar.ValidatePattern it rejects escapes of letters,
// digits, '.', '_' and '/' (a sign of a Windows path), unescaped '[', '{'
// and '}' inside classes (doublestar.Match reports a spurious syntax error
// for some of them), reversed ranges such as [z-a], and positive classes
// that match '/'.
func checkSyntax(p string) ([]classInfo, error) {
	var classes []classInfo
	var altStart []int    // where the current alternative of each open brace starts
	var starBefore []bool // whether a '*' comes before each open brace
	sawStar := false      // a '*' came before p[i]
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			n, err := checkEscape(p, i)
			if err != nil {
				return nil, err
			}
			i += n
		case '[':
			c, err := parseClass(p, i)
			if err != nil {
				return nil, err
			}
			if !c.negate && c.hasSlash {
				return nil, invalid(p, "the class %s matches '/'; a class matches one character inside a path segment, so write '/' outside it (use {a,b/c} for alternatives that span segments)", p[c.start:c.end])
			}
			classes = append(classes, c)
			i = c.end
		case '{':
			altStart = append(altStart, i+1)
			starBefore = append(starBefore, sawStar)
			i++
		case '*':
			sawStar = true
			i++
		case ',', '}':
			if len(altStart) == 0 {
				if p[i] == '}' {
					return nil, invalid(p, "unmatched '}' at byte %d; remove it or escape it as '\\}'", i)
				}
				i++
				continue
			}
			top := len(altStart) - 1
			if alt := p[altStart[top]:i]; starBefore[top] && strings.Trim(alt, "*/") == "" {
				return nil, invalid(p, "the alternative %q of the braces at byte %d has only '*' and '/' in it, after a '*'; doublestar matches such patterns inconsistently, so write the alternatives out in full (x*{,.go} as {x*,x*.go})", alt, altStart[top]-1)
			}
			if p[i] == '}' {
				altStart, starBefore = altStart[:top], starBefore[:top]
			} else {
				altStart[top] = i + 1
			}
			i++
		default:
			i++
		}
	}
	if len(altStart) > 0 {
		return nil, invalid(p, "unclosed '{'; close the alternatives with '}' or escape the brace as '\\{'")
	}
	if !doublestar.ValidatePattern(p) {
		// The checks above are stricter than doublestar's; this backstop
		// makes sure no pattern doublestar rejects is ever accepted.
		return nil, invalid(p, "doublestar rejects the pattern syntax; check its brackets, braces and escapes")
	}
	return classes, nil
}

// checkEscape checks the escape at p[i] (a backslash) and returns its length.
func checkEscape(p string, i int) (int, error) {
	if i+1 >= len(p) {
		return 0, invalid(p, "the pattern ends with a lone backslash; remove it or write '\\\\' for a literal backslash")
	}
	r, n := utf8.DecodeRuneInString(p[i+1:])
	if r == '/' || r == '.' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return 0, invalid(p, "backslash before %q at byte %d: use '/' to separate path segments; a backslash only escapes glob metacharacters such as \\* or \\[", r, i)
	}
	return 1 + n, nil
}

// parseClass parses the class that starts at p[start] ('['), mirroring how
// doublestar.Match reads it: an optional leading '!' or '^' negates, `\`
// escapes the next character, `lo-hi` is a range, and a '-' first, last or
// right after a range is literal.
func parseClass(p string, start int) (classInfo, error) {
	c := classInfo{start: start}
	i := start + 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		c.negate = true
		i++
	}
	if i < len(p) && p[i] == ']' {
		return c, invalid(p, "empty character class at byte %d; put at least one character in it, or escape the bracket as '\\['", start)
	}
	last := rune(-1)
	for i < len(p) && p[i] != ']' {
		r, n := utf8.DecodeRuneInString(p[i:])
		switch r {
		case '[', '{', '}':
			return c, invalid(p, "unescaped %q inside the character class at byte %d; escape it as '\\%c'", r, start, r)
		case '\\':
			m, err := checkEscape(p, i)
			if err != nil {
				return c, err
			}
			r, _ = utf8.DecodeRuneInString(p[i+1:])
			n = m
		case '-':
			if last >= 0 && i+1 < len(p) && p[i+1] != ']' {
				j := i + 1
				hi, m := utf8.DecodeRuneInString(p[j:])
				if hi == '\\' {
					k, err := checkEscape(p, j)
					if err != nil {
						return c, err
					}
					hi, _ = utf8.DecodeRuneInString(p[j+1:])
					m = k
				}
				if hi < last {
					return c, invalid(p, "the range %c-%c in the class at byte %d is reversed and matches nothing; write %c-%c", last, hi, start, hi, last)
				}
				c.ranges = append(c.ranges, runeRange{last, hi})
				last = -1
				i = j + m
				continue
			}
		}
		c.ranges = append(c.ranges, runeRange{r, r})
		last = r
		i += n
	}
	if i >= len(p) {
		return c, invalid(p, "unclosed character class at byte %d; close it with ']' or escape the bracket as '\\['", start)
	}
	c.end = i + 1
	c.ranges = normalizeRanges(c.ranges)
	c.hasSlash = containsRune(c.ranges, '/')
	return c, nil
}

// rewriteNegatedClasses adds '/' to every negated class that lacks it, by
// printing the class again from its parsed set, so that no class matches the
// path separator.
func rewriteNegatedClasses(p string, classes []classInfo) string {
	var b strings.Builder
	done := 0
	for _, c := range classes {
		if !c.negate || c.hasSlash {
			continue
		}
		b.WriteString(p[done:c.start])
		b.WriteString(p[c.start : c.start+2]) // "[!" or "[^"
		for _, rr := range normalizeRanges(append(append([]runeRange(nil), c.ranges...), runeRange{'/', '/'})) {
			writeClassRune(&b, rr.lo)
			if rr.hi > rr.lo {
				if rr.hi > rr.lo+1 {
					b.WriteByte('-')
				}
				writeClassRune(&b, rr.hi)
			}
		}
		b.WriteByte(']')
		done = c.end
	}
	if done == 0 {
		return p
	}
	b.WriteString(p[done:])
	return b.String()
}

func writeClassRune(b *strings.Builder, r rune) {
	if strings.ContainsRune(`]\-[{}!^`, r) {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

// cleanSegments drops empty and `.` segments outside braces, collapses runs
// of '/' inside braces, and reports whether the pattern ended with a '/' or
// a `.` segment (so names a directory).
func cleanSegments(p string) (string, bool) {
	var segs []string
	depth, segStart := 0, 0
	var cur strings.Builder
	flush := func(end int) {
		seg := cur.String() + p[segStart:end]
		cur.Reset()
		if seg != "" && seg != "." {
			segs = append(segs, seg)
		}
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			c, _ := parseClass(p, i) // already validated
			i = c.end - 1
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth == 0 {
				flush(i)
				segStart = i + 1
			} else if i > 0 && p[i-1] == '/' {
				// collapse "//" inside braces: p[segStart:i] ends with '/'
				cur.WriteString(p[segStart:i])
				segStart = i + 1
			}
		}
	}
	// A trailing '/' or '.' segment names a directory: everything below it.
	last := p[segStart:]
	dir := last == "" || last == "."
	flush(len(p))
	return strings.Join(segs, "/"), dir && len(segs) > 0
}

// maxExpansions bounds the number of brace expansions of a pattern.
const maxExpansions = 256

// checkDotSegments rejects `..` segments, and `.` segments unless allowDot,
// in every expansion of the braces of p; escapes count as the character
// they escape. raw is the pattern as given, for error messages.
func checkDotSegments(raw, p string, allowDot bool) error {
	exps, ok := expandBraces(p, maxExpansions)
	if !ok {
		return invalid(raw, "the braces expand to more than %d alternatives; split the pattern into several", maxExpansions)
	}
	for _, e := range exps {
		start := 0
		for i := 0; i <= len(e); i++ {
			switch {
			case i < len(e) && e[i] == '\\':
				i++
				continue
			case i < len(e) && e[i] == '[':
				i = skipClass(e, i)
				continue
			case i < len(e) && e[i] != '/':
				continue
			}
			switch Unescape(e[start:i]) {
			case "..":
				return invalid(raw, "'..' segments are not allowed; name the path relative to the repository root without '..'")
			case ".":
				if !allowDot {
					return invalid(raw, "'.' segment inside braces; remove it (write {a,b} rather than {./a,b})")
				}
			}
			start = i + 1
		}
	}
	return nil
}

// expandBraces returns the brace expansions of p, or false if there are
// more than limit of them.
func expandBraces(p string, limit int) ([]string, bool) {
	open := -1
	for i := 0; i < len(p) && open < 0; i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			i = skipClass(p, i)
		case '{':
			open = i
		}
	}
	if open < 0 {
		return []string{p}, limit > 0
	}
	closing := open + 1 + indexMatchedClosingAlt(p[open+1:])
	var out []string
	alts := p[open+1 : closing]
	for {
		comma := indexNextAlt(alts)
		alt := alts
		if comma >= 0 {
			alt = alts[:comma]
		}
		exps, ok := expandBraces(p[:open]+alt+p[closing+1:], limit-len(out))
		if !ok {
			return nil, false
		}
		out = append(out, exps...)
		if len(out) > limit {
			return nil, false
		}
		if comma < 0 {
			return out, true
		}
		alts = alts[comma+1:]
	}
}

// IsLiteral reports whether p has no glob metacharacter outside escapes.
func IsLiteral(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return false
		}
	}
	return true
}

// Unescape removes the backslashes of escapes from a literal pattern.
func Unescape(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// IsBroad reports whether the pattern is broad: whether it matches every
// path of one segment, i.e. every top-level file or directory of the
// repository. `**`, `*`, `**/*`, `**/**`, `{**}`, `*/**` and `?*` are broad;
// `*.go`, `[!.]*` (no dotfiles), `src/**` and `*/*` are not. The pattern is
// normalized first (without a directory lookup); an invalid pattern is not
// broad. The test is exact, computed on the pattern's automaton; for
// patterns too intricate to decide cheaply (thousands of automaton state
// sets) it reports false.
func IsBroad(pattern string) bool {
	g, err := compileNormalized(pattern)
	return err == nil && g.Broad()
}

// Broad is IsBroad of g's pattern, which is normalized already.
func (g *Glob) Broad() bool { return g.matchesEverySegment() }
