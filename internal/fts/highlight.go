package fts

import (
	"strings"
	"unicode"
)

// MarkOpen and MarkClose surround the matched words in the output of
// [snippetSQL] and [highlightSubjectSQL]. They are private-use runes that
// [putDocument] removes from indexed text, so they never come from a message.
const (
	MarkOpen  = "\uE000"
	MarkClose = "\uE001"
)

const (
	markOpen  = '\uE000'
	markClose = '\uE001'
)

// HighlightText renders the markers in a snippet as [ and ], for plain text
// and JSON output.
func HighlightText(snippet string) string {
	return Highlight(snippet, "[", "]")
}

// HighlightTerminal renders the markers in a snippet as bold on an ANSI
// terminal. It also drops control characters other than newline and tab, so
// that text cannot send escape sequences of its own.
func HighlightTerminal(snippet string) string {
	snippet = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, snippet)
	return Highlight(snippet, "\x1b[1m", "\x1b[22m")
}

// Highlight replaces the markers in a snippet with open and close. Stray
// markers are dropped and one left open is closed at the end, so the result
// is always balanced.
func Highlight(snippet, open, close string) string {
	var b strings.Builder
	in := false
	for _, r := range snippet {
		switch {
		case r == markOpen && !in:
			b.WriteString(open)
			in = true
		case r == markClose && in:
			b.WriteString(close)
			in = false
		case r == markOpen || r == markClose:
		default:
			b.WriteRune(r)
		}
	}
	if in {
		b.WriteString(close)
	}
	return b.String()
}
