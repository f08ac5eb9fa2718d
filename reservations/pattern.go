// Package reservations holds the glob-pattern engine behind file
// reservations: validation and normalization of doublestar (v4) patterns,
// and an exact overlap test between two patterns.
//
// Patterns use the syntax of github.com/bmatcuk/doublestar/v4: `**`, `*`,
// `?`, `[a-z]`, `[!a]`/`[^a]`, nestable `{a,b}` and `\` escapes. They name
// repo-relative paths with `/` as the separator.
package reservations

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
// It rejects, with an error wrapping ErrInvalidPattern: empty or
// whitespace-only patterns and patterns with leading or trailing white
// space, absolute paths (a leading `/` or a Windows drive letter), `..`
// segments, NUL and other control characters, invalid UTF-8, backslashes
// used as path separators (a backslash may only escape punctuation such as
// `\*`), malformed classes and braces, classes that name `/`, and patterns
// longer than 1024 bytes.
//
// It then normalizes:
//   - a leading `./` and `.` segments are removed, runs of `/` collapse to one;
//   - `.` alone, or a pattern that is nothing but `.` segments, becomes `**`;
//   - a trailing `/` (or `/.`) turns `p/` into `p/**`;
//   - a literal pattern (no glob metacharacter) for which isDir reports a
//     directory becomes `p/**`; isDir receives the unescaped repo-relative
//     path and may be nil, in which case only a trailing `/` marks a
//     directory;
//   - a negated class that does not exclude `/` gets `/` added, so `[!a]`
//     becomes `[!/a]`: like `*` and `?`, a class never matches the path
//     separator (doublestar itself would let `[!a]` match `/`).
//
// The result is a fixed point: normalizing it again returns it unchanged.
func NormalizePattern(raw string, isDir func(rel string) bool) (string, error) {
	if err := checkText(raw); err != nil {
		return "", err
	}
	classes, err := checkSyntax(raw)
	if err != nil {
		return "", err
	}
	p := rewriteNegatedClasses(raw, classes)
	p, trailingSlash, err := cleanSegments(raw, p)
	if err != nil {
		return "", err
	}
	switch {
	case p == "":
		return "**", nil
	case trailingSlash:
		p += "/**"
	case isDir != nil && isLiteral(p) && isDir(unescape(p)):
		p += "/**"
	}
	if len(p) > maxPatternLen {
		return "", invalid(raw, "the pattern is longer than %d bytes; reserve a shorter pattern or several patterns", maxPatternLen)
	}
	return p, nil
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
			return invalid(p, "the negated class %s also matches '/'; add '/' to it (%s) or normalize the pattern with NormalizePattern", p[c.start:c.end], p[c.start:c.start+2]+"/"+p[c.start+2:c.end])
		}
	}
	if err := checkDotSegments(p, p, false); err != nil {
		return err
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
	var altStart []int // where the current alternative of each open brace starts
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
			if alt := p[altStart[top]:i]; strings.Trim(alt, "*/") == "" {
				return nil, invalid(p, "the alternative %q in the braces at byte %d has no character other than '*' and '/'; doublestar reads such alternatives inconsistently, so write each alternative out in full (a{,b} as {a,ab}, a/{**,b} as {a/**,a/b})", alt, altStart[top]-1)
			}
			if p[i] == '}' {
				altStart = altStart[:top]
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
		// Unreachable for patterns that passed the checks above; kept as a
		// guard so that no pattern doublestar rejects is ever accepted.
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

// cleanSegments drops empty and `.` segments outside braces, rejects `..`
// (and `.` inside braces), collapses runs of '/' inside braces, and reports
// whether the pattern ended with a '/'. raw is the pattern as given, for
// error messages.
func cleanSegments(raw, p string) (string, bool, error) {
	if err := checkDotSegments(raw, p, true); err != nil {
		return "", false, err
	}
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
	dir := depth == 0 && (last == "" || last == ".")
	flush(len(p))
	return strings.Join(segs, "/"), dir && len(segs) > 0, nil
}

// checkDotSegments rejects `..` segments anywhere, and `.` segments inside
// braces (where they cannot be removed). A segment is delimited by the
// pattern's start or end, '/', and, conservatively, the '{', ',' and '}' of
// braces; escapes count as the character they escape. allowTopDot permits
// `.` segments outside braces (NormalizePattern removes them).
func checkDotSegments(raw, p string, allowTopDot bool) error {
	depth := 0
	seg := strings.Builder{}
	segDepth := 0 // brace depth where the current segment started
	end := func() error {
		s := seg.String()
		seg.Reset()
		switch {
		case s == "..":
			return invalid(raw, "'..' segments are not allowed; name the path relative to the repository root without '..'")
		case s == "." && (segDepth > 0 || !allowTopDot):
			return invalid(raw, "'.' segment; remove it (write a/b rather than a/./b)")
		}
		return nil
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			i++
			seg.WriteByte(p[i])
			continue
		case '[':
			cl, _ := parseClass(p, i) // already validated
			seg.WriteString("[]")
			i = cl.end - 1
			continue
		case '/', '{', ',', '}':
			if c == ',' && depth == 0 {
				break
			}
			if err := end(); err != nil {
				return err
			}
			switch c {
			case '{':
				depth++
			case '}':
				depth--
			}
			segDepth = depth
			continue
		}
		seg.WriteByte(c)
	}
	return end()
}

// isLiteral reports whether p has no glob metacharacter outside escapes.
func isLiteral(p string) bool {
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

// unescape removes the backslashes of escapes from a literal pattern.
func unescape(p string) string {
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
	p, err := NormalizePattern(pattern, nil)
	if err != nil {
		return false
	}
	g, err := Compile(p)
	if err != nil {
		return false
	}
	return g.matchesEverySegment()
}
