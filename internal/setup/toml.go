package setup

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlFile is a TOML document, checked by go-toml's decoder, with the byte
// ranges go-toml's parser gives its expressions: an edit splices whole
// lines that the parser located, so every other line, comment included,
// stays as it was.
type tomlFile struct {
	src []byte
	doc map[string]any
}

// parseTOML parses src; a syntax error, or a key defined twice, is
// ErrMalformed with the line and column.
func parseTOML(src []byte) (*tomlFile, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(src, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, fmt.Errorf("%w: line %d, column %d: %s", ErrMalformed, line, col, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return &tomlFile{src: src, doc: doc}, nil
}

// value returns the value at the dotted path, or nil.
func (f *tomlFile) value(path []string) any {
	var v any = f.doc
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// lineSpan is a run of whole lines, [start, end), end after the newline.
type lineSpan struct {
	start, end int
	table      bool // a [table] header and the key/values under it
}

// spans returns the lines that define the table at path or anything
// under it: [path] and [path.sub] headers with their key/values (up to the
// last key/value: comments that follow belong to what comes next), and
// key/values whose whole key starts with path (path.key = v at the top,
// key = v under [path minus its last part]...).
func (f *tomlFile) spans(path []string) []lineSpan {
	var p unstable.Parser
	p.KeepComments = true
	p.Reset(f.src)
	var out []lineSpan
	var table []string
	var open *lineSpan // the table span being extended, if it is ours
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(e.Key())
			open = nil
			if hasPrefix(table, path) {
				start := lineStart(f.src, int(e.Child().Raw.Offset))
				out = append(out, lineSpan{start: start, end: lineEnd(f.src, start), table: true})
				open = &out[len(out)-1]
			}
		case unstable.KeyValue:
			end := lineEnd(f.src, exprEnd(e))
			switch {
			case open != nil:
				open.end = end
			case hasPrefix(slices.Concat(table, keyOf(e.Key())), path):
				out = append(out, lineSpan{start: lineStart(f.src, int(e.Raw.Offset)), end: end})
			}
		}
	}
	return out
}

func keyOf(it unstable.Iterator) []string {
	var k []string
	for it.Next() {
		k = append(k, string(it.Node().Data))
	}
	return k
}

func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && slices.Equal(key[:len(prefix)], prefix)
}

// exprEnd is the offset after a key/value and the comment on its line.
func exprEnd(e *unstable.Node) int {
	end := int(e.Raw.Offset + e.Raw.Length)
	if c := e.Next(); c != nil && c.Kind == unstable.Comment {
		end = int(c.Raw.Offset + c.Raw.Length)
	}
	return end
}

func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd is the offset after the newline that ends the line holding off,
// or the end of src.
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

// removeSpans cuts the spans out of src. A table span also takes the
// newline before it when that newline only separated it from what came
// before (a blank line, or the end of the file follows): the inverse of
// appendTable.
func removeSpans(src []byte, spans []lineSpan) []byte {
	out := slices.Clone(src)
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		start := s.start
		if s.table && start > 0 && (s.end == len(out) || (start > 1 && out[start-2] == '\n')) {
			start--
		}
		out = slices.Delete(out, start, s.end)
	}
	return out
}

// appendTable adds block, which starts with a table header and ends with
// a newline, at the end of src: after a blank line, or after the newline
// that src lacked.
func appendTable(src []byte, block string) []byte {
	out := slices.Clone(src)
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return append(out, block...)
}
