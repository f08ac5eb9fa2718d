package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	mdparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The GitHub extensions PlainText needs (tables, strikethrough, task lists)
// follow goldmark's extension package, which is not imported: its package
// initialization alone (regexps, HTML renderers) costs every agentmail
// process about a millisecond. The nodes are goldmark's own, so PlainText
// reads them as before; gfm_test.go checks the output against goldmark's
// extensions. Bare URLs (GitHub's autolinks) are kept as written by
// urlParser, a simpler rule than goldmark's Linkify with the same aim.

// Parser returns a CommonMark parser with the GitHub extensions above,
// at the priorities goldmark gives them: the one markdown reading that
// search indexes and the pages render.
func Parser() mdparser.Parser {
	return mdparser.NewParser(
		mdparser.WithBlockParsers(mdparser.DefaultBlockParsers()...),
		mdparser.WithInlineParsers(append(mdparser.DefaultInlineParsers(),
			util.Prioritized(taskCheckBoxParser{}, 0),
			util.Prioritized(strikethroughParser{}, 500),
			util.Prioritized(urlParser{}, 999))...),
		mdparser.WithParagraphTransformers(append(mdparser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
		mdparser.WithASTTransformers(util.Prioritized(tableCodePipes{}, 0)),
	)
}

// isRESpace reports whether b is whitespace as \s in a Go regexp means it.
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

func skipRESpace(b []byte, i int) int {
	for i < len(b) && isRESpace(b[i]) {
		i++
	}
	return i
}

// urlParser reads a bare URL (http://, https://, ftp:// or www. at a word
// boundary) as an autolink whose text is the URL as written, so that
// emphasis, strikethrough and entities are not applied inside it and a
// search for the URL, or any part of it, finds the message. Trailing
// punctuation and unbalanced closing parentheses are left out, as GitHub
// does. goldmark calls inline parsers at spaces, punctuation and line
// starts only, so the parser is called on the character before the URL.
type urlParser struct{}

var urlPrefixes = [][]byte{[]byte("http://"), []byte("https://"), []byte("ftp://"), []byte("www.")}

// urlLeads are the characters after which a URL may start.
const urlLeads = " \t*_~("

// Trigger implements parser.InlineParser; goldmark calls the parser of ' '
// for every space character.
func (urlParser) Trigger() []byte { return []byte(" *_~(") }

func (urlParser) Parse(parent ast.Node, block text.Reader, pc mdparser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, segment := block.PeekLine()
	lead := 0
	if len(line) > 0 && strings.IndexByte(urlLeads, line[0]) >= 0 {
		lead = 1
	}
	n := urlLength(line[lead:])
	if n == 0 {
		return nil
	}
	if lead > 0 {
		ast.MergeOrAppendTextSegment(parent, segment.WithStop(segment.Start+lead))
	}
	block.Advance(lead + n)
	start := segment.Start + lead
	return ast.NewAutoLink(ast.AutoLinkURL, ast.NewTextSegment(text.NewSegment(start, start+n)))
}

func (urlParser) CloseBlock(ast.Node, mdparser.Context) {}

// urlLength returns the length of the URL b starts with, or 0.
func urlLength(b []byte) int {
	prefix := 0
	for _, p := range urlPrefixes {
		if bytes.HasPrefix(b, p) {
			prefix = len(p)
			break
		}
	}
	if prefix == 0 {
		return 0
	}
	n := prefix
	for n < len(b) && b[n] > ' ' && b[n] != '<' && b[n] != 0x7f {
		n++
	}
	for n > prefix {
		c := b[n-1]
		if strings.IndexByte("?!.,:;*_~'\"", c) < 0 &&
			!(c == ')' && bytes.Count(b[:n], []byte(")")) > bytes.Count(b[:n], []byte("("))) {
			break
		}
		n--
	}
	if n == prefix {
		return 0
	}
	return n
}

// taskCheckBoxParser reads "[ ]" or "[x]" opening a list item's first line.
type taskCheckBoxParser struct{}

func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, _ mdparser.Context) ast.Node {
	if parent.Parent() == nil || parent.Parent().FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := parent.Parent().(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' || !(isRESpace(line[1]) || line[1] == 'x' || line[1] == 'X') {
		return nil
	}
	block.Advance(skipRESpace(line, 3))
	return east.NewTaskCheckBox(line[1] == 'x' || line[1] == 'X')
}

func (taskCheckBoxParser) CloseBlock(ast.Node, mdparser.Context) {}

// strikethroughParser reads ~text~ and ~~text~~.
type strikethroughParser struct{}

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(_ ast.Node, block text.Reader, pc mdparser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	node := mdparser.ScanDelimiter(line, before, 1, tildes{})
	if node == nil || node.OriginalLength > 2 || before == '~' {
		return nil
	}
	node.Segment = segment.WithStop(segment.Start + node.OriginalLength)
	block.Advance(node.OriginalLength)
	pc.PushDelimiter(node)
	return node
}

func (strikethroughParser) CloseBlock(ast.Node, mdparser.Context) {}

// tildes is the mdparser.DelimiterProcessor of strikethroughParser.
type tildes struct{}

func (tildes) IsDelimiter(b byte) bool { return b == '~' }

func (tildes) CanOpenCloser(opener, closer *mdparser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (tildes) OnMatch(int) ast.Node { return east.NewStrikethrough() }

// tableTransformer turns a paragraph whose second or later line is a
// delimiter row ("|---|:--:|") into a table: the line above it is the
// header, the lines below it the rows; the lines before the header stay a
// paragraph.
type tableTransformer struct{}

// escapedPipesKey holds the table cells that have "\|" after a backtick:
// inside a code span that is a pipe, which tableCodePipes unescapes.
var escapedPipesKey = mdparser.NewContextKey()

func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc mdparser.Context) {
	lines := node.Lines()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		aligns := delimiterColumns(delim.Value(reader.Source()))
		if len(aligns) == 0 {
			continue
		}
		header := tableRow(lines.At(i-1), aligns, true, reader, pc)
		if header.ChildCount() != len(aligns) {
			return
		}
		table := east.NewTable()
		table.SetPos(node.Pos())
		table.AppendChild(table, east.NewTableHeader(header))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(lines.At(j), aligns, false, reader, pc))
		}
		lines.SetSliced(0, i-1)
		node.Parent().InsertAfter(node.Parent(), node, table)
		if lines.Len() == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			last := lines.At(i - 2)
			last.Stop-- // the newline
			lines.Set(i-2, last)
		}
		return
	}
}

// delimiterColumns returns the alignment of each column of a table's
// delimiter row (":--" left, "--:" right, ":-:" center), or nil if line
// is not one.
func delimiterColumns(line []byte) []east.Alignment {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	allDashes := true
	for _, b := range line {
		if b != '-' {
			allDashes = false
		}
		if !(util.IsSpace(b) || b == '-' || b == '|' || b == ':') {
			return nil
		}
	}
	if allDashes {
		return nil
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	aligns := make([]east.Alignment, len(cols))
	for c, col := range cols {
		// ^\s*:?-+:?\s*$
		i := skipRESpace(col, 0)
		left := i < len(col) && col[i] == ':'
		if left {
			i++
		}
		dashes := i
		for i < len(col) && col[i] == '-' {
			i++
		}
		if i == dashes {
			return nil
		}
		right := i < len(col) && col[i] == ':'
		if right {
			i++
		}
		if skipRESpace(col, i) != len(col) {
			return nil
		}
		switch {
		case left && right:
			aligns[c] = east.AlignCenter
		case left:
			aligns[c] = east.AlignLeft
		case right:
			aligns[c] = east.AlignRight
		default:
			aligns[c] = east.AlignNone
		}
	}
	return aligns
}

// tableRow splits a table line into its cells, aligned as their columns:
// a header keeps every cell, a row is cut or padded to the header's width.
func tableRow(segment text.Segment, aligns []east.Alignment, header bool, reader text.Reader, pc mdparser.Context) *east.TableRow {
	source := reader.Source()
	columns := len(aligns)
	row := east.NewTableRow(aligns)
	row.SetPos(segment.Start)
	segment = segment.TrimLeftSpace(source)
	segment = segment.TrimRightSpace(source)
	line := segment.Value(source)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	i := 0
	for ; pos < limit; i++ {
		if i >= columns && !header {
			return row
		}
		cell := east.NewTableCell()
		if i < columns {
			cell.Alignment = aligns[i]
		}
		backtick, escaped := false, false
		end := pos
		for ; end < limit; end++ {
			if line[end] == '`' {
				backtick = true
			}
			if line[end] == '|' {
				if end == 0 || line[end-1] != '\\' {
					break
				}
				escaped = escaped || backtick
			}
		}
		if escaped {
			cells, _ := pc.Get(escapedPipesKey).([]ast.Node)
			pc.Set(escapedPipesKey, append(cells, cell))
		}
		seg := text.NewSegment(segment.Start+pos, segment.Start+end)
		seg = seg.TrimLeftSpace(source)
		cell.Lines().Append(seg.TrimRightSpace(source))
		row.AppendChild(row, cell)
		pos = end + 1
	}
	for ; i < columns; i++ { // padding, unaligned as goldmark's
		row.AppendChild(row, east.NewTableCell())
	}
	return row
}

// tableCodePipes drops the backslash of "\|" inside code spans in table
// cells, as GitHub does.
type tableCodePipes struct{}

func (tableCodePipes) Transform(_ *ast.Document, reader text.Reader, pc mdparser.Context) {
	cells, _ := pc.Get(escapedPipesKey).([]ast.Node)
	pc.Set(escapedPipesKey, nil)
	source := reader.Source()
	for _, cell := range cells {
		_ = ast.Walk(cell, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering || n.Kind() != ast.KindCodeSpan {
				return ast.WalkContinue, nil
			}
			for c := n.FirstChild(); c != nil; {
				next := c.NextSibling()
				if t, ok := c.(*ast.Text); ok {
					splitEscapedPipes(n, t, source)
				}
				c = next
			}
			return ast.WalkSkipChildren, nil
		})
	}
}

// splitEscapedPipes replaces t, a child of code, by raw text segments that
// leave out the backslash of every "\|".
func splitEscapedPipes(code ast.Node, t *ast.Text, source []byte) {
	seg := t.Segment
	var prev ast.Node = t
	for i := seg.Start; i+1 < seg.Stop; i++ {
		if source[i] != '\\' || source[i+1] != '|' {
			continue
		}
		before := ast.NewRawTextSegment(seg.WithStop(i))
		code.InsertAfter(code, prev, before)
		prev, seg = before, seg.WithStart(i+1)
	}
	if prev == t {
		return
	}
	code.InsertAfter(code, prev, ast.NewRawTextSegment(seg))
	code.RemoveChild(code, t)
}
