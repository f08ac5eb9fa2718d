package fts

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPlainText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain words", "plain words"},
		{"**bold**, __strong__, *em*, _em_ and ***both***", "bold, strong, em, em and both"},
		{"snake_case_name, 2 * 3 and a*b stay", "snake_case_name, 2 * 3 and a*b stay"},
		{"# Heading one\n\nSetext\n======\n\ntext", "Heading one\nSetext\ntext"},
		{"[link text](https://x.y/z?a=1) and ![alt](img.png)", "link text (https://x.y/z?a=1) and alt (img.png)"},
		{"[https://x.y](https://x.y) [](https://empty.label) [ref][r]\n\n[r]: /ref/path", "https://x.y https://empty.label ref (/ref/path)"},
		{"<https://auto.link> and www.bare.link and https://bare.url/x.", "https://auto.link and www.bare.link and https://bare.url/x."},
		// Bare URLs are kept as written: no emphasis, strikethrough or
		// entities inside them; trailing punctuation and unbalanced ")" end them.
		{"https://x.y/a&amp;b https://x.y/~a~b", "https://x.y/a&amp;b https://x.y/~a~b"},
		{"see https://x.y/_private_/file, www.ex.com/~al/notes~1.", "see https://x.y/_private_/file, www.ex.com/~al/notes~1."},
		{"(ftp://x.y/a_b_) and **https://x.y/_a_** and *www.x.y/b*", "(ftp://x.y/a_b_) and https://x.y/_a_ and www.x.y/b"},
		{"not a url: xhttp://x.y/_a_ or http:// or https://.", "not a url: xhttp://x.y/a or http:// or https://."},
		{"[http://x.y/_a_](http://z) `http://x.y/_b_`", "http://x.y/a (http://z) http://x.y/_b_"},
		{"call `a**b_c*` now", "call a**b_c* now"},
		{"```go\nfunc f() { return a**b }\n\n// _x_\n```\nafter", "func f() { return a**b }\n\n// _x_\nafter"},
		{"    indented **code**\n\npara", "indented **code**\npara"},
		{"- one\n- **two**\n  - nested\n1. first\n2. second", "one\ntwo\nnested\nfirst\nsecond"},
		{"- [x] done\n- [ ] todo", "done\ntodo"},
		{"> quoted _text_\n> more", "quoted text\nmore"},
		{"| a | b |\n|---|---|\n| 1 | `2` |", "a | b\n1 | 2"},
		{"line one\nline two  \nhard", "line one\nline two\nhard"},
		{"above\n\n---\n\nbelow", "above\nbelow"},
		{"~~struck~~ text", "struck text"},
		{"a <span class=\"x\">b</span> c", "a b c"},
		{"<div>\n<b>block</b> &amp; html\n</div>\n\nafter", "block & html\nafter"},
		{"<!-- a comment -->\n\ntext", "text"},
		{`\*not em\* &lt;tag&gt; &#35; &copy;`, "*not em* <tag> # ©"},
		{"POL-358: see src/api/routes.py", "POL-358: see src/api/routes.py"},
		{"[a [nested] link](u) [brackets] a[0]", "a [nested] link (u) [brackets] a[0]"},
		{"unclosed **bold and `code", "unclosed **bold and `code"},
		{"nul\x00byte", "nul\x00byte"}, // Put cleans it
	} {
		if got := PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestPlainTextOdd(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("[", 10000), strings.Repeat("> ", 5000) + "x", strings.Repeat("- ", 3000),
		strings.Repeat("*a", 5000), "\xff\xfe\x00", "```", "<", "](", strings.Repeat("`", 999),
	} {
		PlainText(in) // must not panic
	}
}

func TestNewDocument(t *testing.T) {
	d := NewDocument("Subj", "**body**", "BlueLake", []string{"GreenCastle", "RedFox"}, "POL-358", "ops")
	want := Document{Subject: "Subj", Body: "body", Sender: "BlueLake", Recipients: "GreenCastle, RedFox", Thread: "POL-358", Category: "ops"}
	if d != want {
		t.Errorf("NewDocument = %+v, want %+v", d, want)
	}
}

func TestHighlight(t *testing.T) {
	s := "a[0] " + MarkOpen + "needle" + MarkClose + " [not] " + MarkOpen + "hay"
	if got, want := HighlightText(s), "a[0] [needle] [not] [hay]"; got != want {
		t.Errorf("HighlightText = %q, want %q", got, want)
	}
	if got, want := HighlightTerminal(s+"\x1b[31m\tx\n"), "a[0] \x1b[1mneedle\x1b[22m [not] \x1b[1mhay[31m\tx\n\x1b[22m"; got != want {
		t.Errorf("HighlightTerminal = %q, want %q", got, want)
	}
	if got, want := Highlight(MarkClose+"x"+MarkOpen+MarkOpen+"y"+MarkClose+MarkClose, "<", ">"), "x<y>"; got != want {
		t.Errorf("Highlight = %q, want %q", got, want)
	}
}

// TestPlainProse checks the shortcut of PlainText against the markdown
// parser on random text made of what the shortcut accepts and a little more.
func TestPlainProse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aBw1 .,;?!' \n\nW9-"
	taken := 0
	for i := 0; i < 50000; i++ {
		b := make([]byte, rng.IntN(60))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		md := string(b)
		got, ok := plainProse(md)
		if !ok {
			continue
		}
		taken++
		if want := plainText(mdParser(), md); got != want {
			t.Fatalf("plainProse(%q) = %q, want %q", md, got, want)
		}
	}
	if taken < 1000 {
		t.Fatalf("only %d texts took the shortcut", taken)
	}
}
