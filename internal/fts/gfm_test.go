package fts

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// gfmReference is goldmark's own implementation of the extensions in
// internal/markdown, which PlainText must match.
// Linkify is in because urlParser, like it, is called at every space, which
// shapes how goldmark trims trailing whitespace; the URLs themselves are
// left out of the comparison (see hasURL).
var gfmReference = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify)).Parser()

var gfmCases = []string{
	"| a | b |\n|---|---|\n| 1 | `2` |",
	"a|b\n-|-\n1|2|3\n4",
	"para\nline\n| h1 | h2 |\n| :-- | --: |\n| x |",
	"| h |\n|:-:|\n| `a\\|b` \\| c | d\n| `x \\\\| y` |",
	"| a | b |\n| --- |\n| 1 | 2 |",
	"| a |\n| -x- |",
	"|a|\n|-|\n\n|b|\n|--|\n|c|",
	"- | a | b |\n  |---|---|\n  | 1 | 2 |",
	"> | q |\n> |---|\n> | r |",
	"    | code |\n    |---|",
	"| a |\n   |---|\n| b |",
	"| a |\n    |---|",
	"|\n|-|",
	"a\n---",
	"a\n:-:",
	"| a |\n|\v-|",
	"~~struck~~ ~one~ ~~~three~~~ a~~b~~c ~~ spaced ~~ ~~unclosed",
	"~~**both**~~ and `~~code~~` and \\~~escaped~~",
	"- [x] done\n- [ ] todo\n- [X]upper\n- [\t] tab\n- [y] not\n- [x]\n- text [x] later",
	"1. [x] ordered\n2. [ ] also",
	"- [x] a\n  - [ ] nested\n\n  [x] second paragraph",
	"* > [x] quoted",
	"[x] not a list",
	"- [x] [link](u) after",
	"- [ ]",
}

// hasURL reports whether in may hold a bare URL, which urlParser keeps by
// a simpler rule than goldmark's Linkify (TestPlainText covers it).
func hasURL(in string) bool {
	return strings.Contains(in, "://") || strings.Contains(in, "www.")
}

func TestGFMMatchesGoldmark(t *testing.T) {
	for _, in := range gfmCases {
		if got, want := plainText(mdParser(), in), plainText(gfmReference, in); got != want {
			t.Errorf("PlainText(%q)\n got %q\nwant %q (goldmark's extensions)", in, got, want)
		}
	}
}

func FuzzGFM(f *testing.F) {
	for _, in := range gfmCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if hasURL(in) {
			return
		}
		if got, want := plainText(mdParser(), in), plainText(gfmReference, in); got != want {
			t.Errorf("PlainText(%q)\n got %q\nwant %q (goldmark's extensions)", in, got, want)
		}
	})
}
