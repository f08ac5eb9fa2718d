package fts

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/markdown"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	mdparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser parses GitHub-flavoured markdown (tables, strikethrough, task
// lists; see internal/markdown), which is what agents write. It is built on first use:
// most commands never index a message.
var mdParser = sync.OnceValue(markdown.Parser)

// htmlTag matches an HTML comment or tag.
var htmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->|<[^>]*>`) })

// PlainText reduces markdown to the text a reader sees, for indexing and
// snippets. Emphasis, heading and list markers go; every block, list item
// and table row starts a line (cells are separated by " | "); inline code
// and code blocks stay verbatim; a link or image becomes its text followed
// by its URL in parentheses, unless the two are the same. HTML tags and
// comments are dropped, the text between them kept; entities and backslash
// escapes are resolved. PlainText accepts any input and never panics.
func PlainText(md string) string {
	if plain, ok := plainProse(md); ok {
		return plain
	}
	return plainText(mdParser(), md)
}

// plainProse is PlainText, without parsing, for text that markdown leaves
// alone but for its line breaks: letters, digits, spaces, newlines and the
// punctuation . , ; ? ! ' with no line starting with a space or a digit
// (code, lists), none ending in two spaces (a hard break) and no "www." (a
// link). Paragraphs become lines and spaces at line ends go. ok is false for
// any other text.
func plainProse(md string) (plain string, ok bool) {
	for i := 0; i < len(md); i++ {
		switch c := md[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', strings.IndexByte(",;?!'", c) >= 0:
		case c == '\n':
			if i >= 2 && md[i-2:i] == "  " {
				return "", false
			}
		case c == '.':
			if i >= 3 && strings.EqualFold(md[i-3:i], "www") {
				return "", false
			}
		case '0' <= c && c <= '9', c == ' ':
			if i == 0 || md[i-1] == '\n' {
				return "", false
			}
		default:
			return "", false
		}
	}
	var b strings.Builder
	b.Grow(len(md))
	for line := range strings.SplitSeq(md, "\n") {
		if line = strings.TrimRight(line, " "); line != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
	}
	return b.String(), true
}

// plainText is PlainText for any text, parsed as markdown by p.
func plainText(p mdparser.Parser, md string) (plain string) {
	defer func() {
		// goldmark has no known panics; should one appear, index the source.
		if recover() != nil {
			plain = md
		}
	}()
	src := []byte(md)
	w := plainWriter{src: src}
	w.children(p.Parse(text.NewReader(src)))
	return strings.TrimSpace(w.b.String())
}

type plainWriter struct {
	src []byte
	b   strings.Builder
}

// newline ends the current line, if one was started.
func (w *plainWriter) newline() {
	if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		w.b.WriteByte('\n')
	}
}

func (w *plainWriter) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Type() == ast.TypeBlock {
			w.block(c)
		} else {
			w.inline(c)
		}
	}
}

func (w *plainWriter) lines(n ast.Node) []byte {
	var v []byte
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		v = append(v, seg.Value(w.src)...)
	}
	return v
}

func (w *plainWriter) block(n ast.Node) {
	w.newline()
	switch n := n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.b.Write(w.lines(n))
	case *ast.HTMLBlock:
		v := w.lines(n)
		if n.HasClosure() {
			v = append(v, n.ClosureLine.Value(w.src)...)
		}
		w.b.Write(bytes.TrimSpace(resolve(htmlTag().ReplaceAll(v, nil))))
	case *east.TableHeader, *east.TableRow:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c != n.FirstChild() {
				w.b.WriteString(" | ")
			}
			w.children(c)
		}
	default:
		w.children(n)
	}
	w.newline()
}

func (w *plainWriter) inline(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(w.src)
		if !n.IsRaw() {
			v = resolve(v)
		}
		w.b.Write(v)
		if n.SoftLineBreak() || n.HardLineBreak() {
			w.b.WriteByte('\n')
		}
	case *ast.String:
		w.b.Write(n.Value)
	case *ast.CodeSpan:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				w.b.Write(bytes.ReplaceAll(t.Segment.Value(w.src), []byte("\n"), []byte(" ")))
			}
		}
	case *ast.AutoLink:
		w.b.Write(n.Label(w.src))
	case *ast.Link:
		w.link(n, n.Destination)
	case *ast.Image:
		w.link(n, n.Destination)
	case *ast.RawHTML, *east.TaskCheckBox:
	default:
		w.children(n)
	}
}

// link writes the text of a link or image and then its destination.
func (w *plainWriter) link(n ast.Node, dest []byte) {
	start := w.b.Len()
	w.children(n)
	label := strings.TrimSpace(w.b.String()[start:])
	switch {
	case len(dest) == 0 || label == string(dest):
	case label == "":
		w.b.Write(dest)
	default:
		w.b.WriteString(" (" + string(dest) + ")")
	}
}

// resolve undoes backslash escapes and character references.
func resolve(v []byte) []byte {
	return util.ResolveNumericReferences(util.ResolveEntityNames(util.UnescapePunctuations(v)))
}
