package web

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// linkRel is the rel attribute of every link in a message: the archive's
// readers follow links at their own risk, and the page they leave learns
// nothing of where they came from.
const linkRel = "nofollow noopener noreferrer"

// Markdown renders message bodies as HTML that is safe to put in a page:
// raw HTML in a body is shown as text, links and images whose address is
// neither relative nor http, https or mailto are reduced to their text,
// and images are shown as links (a message never makes the browser fetch
// anything). It is safe for concurrent use.
type Markdown struct {
	md goldmark.Markdown
}

// NewMarkdown returns a renderer that reads bodies with p, or with
// goldmark's CommonMark parser when p is nil. Tables, strikethrough and
// task lists render when p produces goldmark's extension nodes for them
// (as the parser of goldmark/extension and fts's GitHub extensions do).
func NewMarkdown(p parser.Parser) *Markdown {
	if p == nil {
		p = parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		)
	}
	r := renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(html.NewRenderer(html.WithHardWraps()), 1000),
		util.Prioritized(safeRenderer{}, 100),
	))
	return &Markdown{md: goldmark.New(goldmark.WithParser(p), goldmark.WithRenderer(r))}
}

// Render returns body as HTML.
func (m *Markdown) Render(body string) template.HTML {
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(body), &buf); err != nil {
		// Only a failing writer makes Convert fail; a bytes.Buffer does not.
		return template.HTML("<pre>" + template.HTMLEscapeString(body) + "</pre>")
	}
	return template.HTML(buf.String())
}

// SafeURL reports whether a link to u may be followed from a page: a
// relative address, or one whose scheme is http, https or mailto. It reads
// u as a browser would: tabs and newlines anywhere and control characters
// or spaces at the start do not count, and the scheme's case does not
// matter. u must already be free of character references.
func SafeURL(u string) bool {
	u = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
	u = strings.TrimLeft(u, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"+
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	colon := strings.IndexByte(u, ':')
	if colon < 0 {
		return true
	}
	if slash := strings.IndexAny(u, "/?#"); slash >= 0 && slash < colon {
		return true // a colon in the path, query or fragment of a relative address
	}
	switch strings.ToLower(u[:colon]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// safeRenderer replaces goldmark's renderers of the nodes that can carry
// markup or addresses, and renders goldmark's GitHub extension nodes
// without inline styles (which the Content-Security-Policy forbids).
type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(east.KindTable, wrap("<div class=\"table\"><table>\n", "</tbody></table></div>\n"))
	reg.Register(east.KindTableHeader, wrap("<thead><tr>", "</tr></thead>\n<tbody>\n"))
	reg.Register(east.KindTableRow, wrap("<tr>", "</tr>\n"))
	reg.Register(east.KindTableCell, renderTableCell)
	reg.Register(east.KindStrikethrough, wrap("<del>", "</del>"))
	reg.Register(east.KindTaskCheckBox, renderTaskCheckBox)
}

// renderHTMLBlock shows a block of raw HTML as the text it is.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<pre class="raw-html"><code>`)
	for i := 0; i < n.Lines().Len(); i++ {
		line := n.Lines().At(i)
		_, _ = w.Write(util.EscapeHTML(line.Value(source)))
	}
	if n.HasClosure() {
		_, _ = w.Write(util.EscapeHTML(n.ClosureLine.Value(source)))
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// renderRawHTML shows an inline tag as the text it is.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

// href returns the escaped attribute value of a link to dest, and whether
// it is safe. dest is checked both as the parser decoded it and as the
// browser will read the attribute.
func href(dest []byte, resolve bool) ([]byte, bool) {
	escaped := util.URLEscape(dest, resolve)
	if !SafeURL(string(dest)) || !SafeURL(string(escaped)) {
		return nil, false
	}
	return util.EscapeHTML(escaped), true
}

// openLink writes the start of a link to dest with a class, or, for an
// unsafe address, of a span that keeps only the link's text.
func openLink(w util.BufWriter, dest []byte, resolve bool, class string, title []byte) {
	h, ok := href(dest, resolve)
	if !ok {
		_, _ = w.WriteString(`<span class="link-removed" title="link removed: only http, https and mailto addresses are followed">`)
		return
	}
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(h)
	_, _ = w.WriteString(`" rel="` + linkRel + `"`)
	if class != "" {
		_, _ = w.WriteString(` class="` + class + `"`)
	}
	if title != nil {
		_, _ = w.WriteString(` title="`)
		_, _ = w.Write(util.EscapeHTML(title))
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
}

// closeLink ends what openLink started.
func closeLink(w util.BufWriter, dest []byte, resolve bool) {
	if _, ok := href(dest, resolve); ok {
		_, _ = w.WriteString("</a>")
	} else {
		_, _ = w.WriteString("</span>")
	}
}

func renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	if isFootnote(n, source) {
		// "[^1]" with a one-word "[^1]: note" below is a footnote, which
		// CommonMark reads as a link to the relative address "note":
		// shown as the note it is, not a broken link.
		if entering {
			_, _ = w.WriteString(`<span class="footnote">[`)
		} else {
			_, _ = w.WriteString(": ")
			_, _ = w.Write(util.EscapeHTML(n.Destination))
			_, _ = w.WriteString("]</span>")
		}
		return ast.WalkContinue, nil
	}
	if entering {
		openLink(w, n.Destination, true, "", n.Title)
	} else {
		closeLink(w, n.Destination, true)
	}
	return ast.WalkContinue, nil
}

// isFootnote reports whether a link is a footnote's reference: its text
// starts with ^ and it goes to an address with no scheme and no path (the
// first word of the footnote).
func isFootnote(n *ast.Link, source []byte) bool {
	t, ok := n.FirstChild().(*ast.Text)
	if !ok || !bytes.HasPrefix(t.Segment.Value(source), []byte("^")) {
		return false
	}
	return !bytes.Contains(n.Destination, []byte(":")) && !bytes.HasPrefix(n.Destination, []byte("/")) && !bytes.HasPrefix(n.Destination, []byte("#"))
}

// renderImage shows an image as a link to it, labelled with its
// description: a message makes the browser fetch nothing.
func renderImage(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Image)
	if entering {
		openLink(w, n.Destination, true, "image", n.Title)
		_, _ = w.WriteString(`<span class="image-label">image:</span> `)
	} else {
		closeLink(w, n.Destination, true)
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	dest := n.URL(source)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(dest), []byte("mailto:")) {
		dest = append([]byte("mailto:"), dest...)
	}
	openLink(w, dest, false, "", nil)
	_, _ = w.Write(util.EscapeHTML(n.Label(source)))
	closeLink(w, dest, false)
	return ast.WalkSkipChildren, nil
}

// wrap returns a renderer that writes open before a node's children and
// close after them.
func wrap(open, close string) renderer.NodeRendererFunc {
	return func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(open)
		} else {
			_, _ = w.WriteString(close)
		}
		return ast.WalkContinue, nil
	}
}

// renderTableCell writes a cell, aligned by a class rather than a style.
func renderTableCell(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*east.TableCell)
	tag := "td"
	if _, ok := n.Parent().(*east.TableHeader); ok {
		tag = "th"
	}
	if !entering {
		_, _ = w.WriteString("</" + tag + ">")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<" + tag)
	switch n.Alignment {
	case east.AlignLeft:
		_, _ = w.WriteString(` class="left"`)
	case east.AlignCenter:
		_, _ = w.WriteString(` class="center"`)
	case east.AlignRight:
		_, _ = w.WriteString(` class="right"`)
	}
	_ = w.WriteByte('>')
	return ast.WalkContinue, nil
}

func renderTaskCheckBox(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if node.(*east.TaskCheckBox).IsChecked {
		_, _ = w.WriteString(`<input type="checkbox" checked disabled> `)
	} else {
		_, _ = w.WriteString(`<input type="checkbox" disabled> `)
	}
	return ast.WalkContinue, nil
}
