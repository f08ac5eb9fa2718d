package setup

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines a diff shows around a change.
const context = 3

// Diff returns the change as a unified diff (one hunk: setup changes one
// stretch of a file, or two close together), "" when nothing changes.
func (ch Change) Diff() string {
	if ch.Action == "unchanged" {
		return ""
	}
	from, to := ch.Path, ch.Path
	if ch.Before == nil {
		from = "/dev/null"
	}
	if ch.After == nil {
		to = "/dev/null"
	}
	return fmt.Sprintf("--- %s\n+++ %s\n", from, to) + hunk(lines(ch.Before), lines(ch.After))
}

// lines splits text into lines, each with its newline; a last line
// without one is marked the way diff marks it.
func lines(b []byte) []string {
	var out []string
	for s := string(b); s != ""; {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// hunk is the one hunk from the first line that differs to the last.
func hunk(a, b []string) string {
	p, s := commonEnds(a, b)
	start := max(p-context, 0)
	aEnd, bEnd := len(a)-max(s-context, 0), len(b)-max(s-context, 0)
	var w strings.Builder
	fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(start, aEnd-start), hunkRange(start, bEnd-start))
	write := func(mark string, ls []string) {
		for _, l := range ls {
			w.WriteString(mark + l)
		}
	}
	write(" ", a[start:p])
	write("-", a[p:len(a)-s])
	write("+", b[p:len(b)-s])
	write(" ", a[len(a)-s:aEnd])
	return w.String()
}

// hunkRange is a hunk header's start,count: line numbers from 1, and an
// empty range named by the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// commonEnds returns how many elements a and b share at the start, and
// then how many of the rest at the end.
func commonEnds[E comparable](a, b []E) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}
