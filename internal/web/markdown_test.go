package web

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	xhtml "golang.org/x/net/html"
)

// gfmParser is goldmark's parser with its GitHub extensions: the same nodes
// markdown.Parser builds (internal/fts/gfm_test.go checks that), with its own Linkify.
func gfmParser() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
}

// hostile are bodies that try to run script, load something, or smuggle
// markup through a message.
var hostile = []string{
	`<script>alert(1)</script>`,
	"<script>\ndocument.title='pwned'\n</script>",
	`inline <script>alert(1)</script> tag`,
	`<img src=x onerror=alert(1)>`,
	`text <img src=x onerror="fetch('/hit')"> more`,
	`<a href="javascript:alert(1)">x</a>`,
	`<iframe src="/hit"></iframe>`,
	`<svg onload=alert(1)>`,
	`<style>body{background:url(/hit)}</style>`,
	`<meta http-equiv="refresh" content="0;url=/hit">`,
	`[x](javascript:alert(1))`,
	`[x](JaVaScRiPt:alert(1))`,
	`[x](&#106;avascript:alert(1))`,
	`[x](&#x6A;&#x61;vascript:alert(1))`,
	`[x](&amp;#106;avascript:alert(1))`,
	`[x](java&#x09;script:alert(1))`,
	`[x](java&#10;script:alert(1))`,
	`[x](%20javascript:alert(1))`,
	`[x]( javascript:alert(1))`,
	`[x](<javascript:alert(1)>)`,
	`[x](&#0;javascript:alert(1))`,
	`[x](vbscript:msgbox(1))`,
	`[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`[x](file:///etc/passwd)`,
	`[x][ref]` + "\n\n" + `[ref]: javascript:alert(1)`,
	`<javascript:alert(1)>`,
	`<JAVASCRIPT:alert(1)>`,
	`![x](javascript:alert(1))`,
	`![x](data:image/png;base64,iVBORw0KGgo=)`,
	`![x](data:text/html,<script>alert(1)</script>)`,
	`![x](/hit)`,
	`![x](https://evil.example/track.png)`,
	`[x](https://example.com "title\" onmouseover=\"alert(1)")`,
	`[x](https://example.com/"onmouseover="alert(1))`,
	"```\"><script>alert(1)</script>\nbody\n```",
	"`<script>alert(1)</script>`",
	`&lt;script&gt;alert(1)&lt;/script&gt;`,
	`&#60;script&#62;alert(1)&#60;/script&#62;`,
	"| a | <script>alert(1)</script> |\n|---|:-:|\n| [x](javascript:alert(1)) | <img src=x onerror=alert(1)> |",
	"- [x] <img src=x onerror=alert(1)>\n- [ ] ~~<b>gone</b>~~",
	`www.example.com/<script>alert(1)</script>`,
	`https://example.com/?q=<script>alert(1)</script>`,
	`mail me: <a@b.c>`,
	"<!-- <script>alert(1)</script> -->",
	"<![CDATA[<script>alert(1)</script>]]>",
	`<?php echo 1 ?>`,
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		url  string
		safe bool
	}{
		{"https://example.com/x", true},
		{"http://example.com", true},
		{"HTTPS://EXAMPLE.COM", true},
		{"mailto:a@b.c", true},
		{"/mail/p/x", true},
		{"../x", true},
		{"#frag", true},
		{"?q=a:b", true},
		{"path/with:colon", true},
		{"//example.com", true},
		{"", true},
		{"javascript:alert(1)", false},
		{"JaVaScRiPt:alert(1)", false},
		{" javascript:alert(1)", false},
		{"\x01javascript:alert(1)", false},
		{"java\tscript:alert(1)", false},
		{"java\nscript:alert(1)", false},
		{"java\rscript:alert(1)", false},
		{"vbscript:x", false},
		{"data:text/html,x", false},
		{"data:image/png;base64,x", false},
		{"file:///etc/passwd", false},
		{"ftp://example.com", false},
		{"foo:bar", false},
	}
	for _, tt := range tests {
		if got := SafeURL(tt.url); got != tt.safe {
			t.Errorf("SafeURL(%q) = %v, want %v", tt.url, got, tt.safe)
		}
	}
}

func TestMarkdownRenders(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"emphasis", "*a* **b** `c`", []string{"<em>a</em>", "<strong>b</strong>", "<code>c</code>"}},
		{"link", "[docs](https://example.com/a?b=1&c=2)",
			[]string{`<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">docs</a>`}},
		{"relative link", "[x](/mail/p)", []string{`<a href="/mail/p" rel="nofollow noopener noreferrer">x</a>`}},
		{"mailto autolink", "<a@b.c>", []string{`<a href="mailto:a@b.c" rel="nofollow noopener noreferrer">a@b.c</a>`}},
		{"url autolink", "<https://example.com>", []string{`<a href="https://example.com" rel="nofollow noopener noreferrer">https://example.com</a>`}},
		{"image becomes a link", "![a chart](https://example.com/c.png)",
			[]string{`<a href="https://example.com/c.png" rel="nofollow noopener noreferrer" class="image"><span class="image-label">image:</span> a chart</a>`}},
		{"raw html shown as text", "<b>bold</b>", []string{"&lt;b&gt;bold&lt;/b&gt;"}},
		{"html block shown as text", "<div>\nx\n</div>", []string{`<pre class="raw-html"><code>&lt;div&gt;`}},
		{"unsafe link keeps its text", "[click](javascript:alert(1))",
			[]string{`<span class="link-removed"`, ">click</span>"}},
		{"entities stay text", "&lt;script&gt; &amp; &#60;b&#62;", []string{"&lt;script&gt; &amp; &lt;b&gt;"}},
		{"hard wraps", "one\ntwo", []string{"one<br>\ntwo"}},
		{"code block", "```go\nx := 1 < 2\n```", []string{`<pre><code class="language-go">x := 1 &lt; 2`}},
	}
	md := NewMarkdown(nil)
	for _, tt := range tests {
		got := string(md.Render(tt.body))
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Render(%q) = %q, want it to contain %q", tt.name, tt.body, got, w)
			}
		}
	}
}

func TestMarkdownGFM(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"table", "| a | b |\n|:--|--:|\n| 1 | 2 |",
			[]string{`<th class="left">a</th>`, `<td class="right">2</td>`, "<tbody>"}},
		// A one-word footnote is a link reference definition to CommonMark:
		// shown as the note, not a link to a relative address.
		{"footnote", "As said[^1].\n\n[^1]: RFC-9110", []string{`As said<span class="footnote">[^1: RFC-9110]</span>.`}},
		{"table centered, a short row padded", "x | y | z\n:-:|---|--:\n1",
			[]string{`<th class="center">x</th><th>y</th><th class="right">z</th>`, `<td class="center">1</td><td></td><td></td>`}},
		{"strikethrough", "~~old~~", []string{"<del>old</del>"}},
		{"task list", "- [x] done\n- [ ] todo", []string{`<input type="checkbox" checked disabled> done`, `<input type="checkbox" disabled> todo`}},
		{"bare url", "see https://example.com/x.", []string{`<a href="https://example.com/x" rel="nofollow noopener noreferrer">https://example.com/x</a>.`}},
	}
	// The pages' parser (internal/markdown), and goldmark's own extensions
	// it stands for: the same page from either.
	for parser, md := range map[string]*Markdown{"pages'": BodyMarkdown(), "goldmark's": NewMarkdown(gfmParser())} {
		for _, tt := range tests {
			got := string(md.Render(tt.body))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s parser, %s: Render(%q) = %q, want it to contain %q", parser, tt.name, tt.body, got, w)
				}
			}
			if strings.Contains(got, "style=") || strings.Contains(got, `href="RFC`) {
				t.Errorf("%s parser, %s: Render(%q) = %q has an inline style, which the CSP blocks, or a relative link", parser, tt.name, tt.body, got)
			}
		}
	}
}

func TestMarkdownHostile(t *testing.T) {
	for _, p := range []struct {
		name string
		md   *Markdown
	}{{"commonmark", NewMarkdown(nil)}, {"gfm", NewMarkdown(gfmParser())}} {
		for _, body := range hostile {
			got := string(p.md.Render(body))
			if err := inert(got); err != "" {
				t.Errorf("%s: Render(%q) = %q: %s", p.name, body, got, err)
			}
		}
	}
}

// FuzzMarkdown checks that no body renders into active markup.
func FuzzMarkdown(f *testing.F) {
	for _, body := range hostile {
		f.Add(body)
	}
	md, gfm := NewMarkdown(nil), NewMarkdown(gfmParser())
	f.Fuzz(func(t *testing.T, body string) {
		for _, m := range []*Markdown{md, gfm} {
			if got := string(m.Render(body)); inert(got) != "" {
				t.Fatalf("Render(%q) = %q: %s", body, got, inert(got))
			}
		}
	})
}

// renderedTags and renderedAttrs are all the markup a rendered body may
// hold.
var (
	renderedTags = map[string]bool{
		"p": true, "a": true, "span": true, "pre": true, "code": true, "em": true, "strong": true,
		"ul": true, "ol": true, "li": true, "blockquote": true, "hr": true, "br": true, "del": true,
		"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"div": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
		"input": true,
	}
	renderedAttrs = map[string]bool{
		"href": true, "rel": true, "class": true, "title": true, "start": true,
		"type": true, "checked": true, "disabled": true,
	}
)

// inert parses rendered HTML as a browser would and says what in it could
// act (an element or attribute outside the lists above, an unsafe link, a
// link without rel), or "" when nothing can.
func inert(rendered string) string {
	z := xhtml.NewTokenizer(strings.NewReader(rendered))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.CommentToken:
			return "has a comment"
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			if !renderedTags[tok.Data] {
				return "has a <" + tok.Data + "> element"
			}
			rel := false
			for _, a := range tok.Attr {
				switch {
				case !renderedAttrs[a.Key]:
					return "has a " + a.Key + " attribute"
				case a.Key == "href" && !SafeURL(a.Val):
					return "links to " + a.Val
				case a.Key == "rel":
					rel = a.Val == linkRel
				case a.Key == "type" && a.Val != "checkbox":
					return "has an input of type " + a.Val
				}
			}
			if tok.Data == "a" && !rel {
				return "has a link without rel=" + linkRel
			}
		}
	}
}
