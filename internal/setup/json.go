package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"
)

// dialect is what a client's JSON parser accepts beyond plain JSON.
type dialect struct {
	name           string // as error messages call it
	comments       bool   // // and /* */ comments
	trailingCommas bool   // a comma after the last member or element
}

var (
	plainJSON   = dialect{name: "plain JSON"}
	jsonComment = dialect{name: "JSON with comments (no trailing commas)", comments: true}
	jsonc       = dialect{name: "JSONC", comments: true, trailingCommas: true}
)

// jsonFile is a JSON document with the syntax tree hujson parsed it into:
// every value knows its byte offsets, and nothing of the text is lost, so
// an edit is a splice of the original bytes.
type jsonFile struct {
	src  []byte
	root hujson.Value
	unit string // one level of indentation, as the file uses it
}

// parseJSON parses src in the given dialect. A syntax error, or a comment
// or trailing comma the client would not accept, is ErrMalformed with the
// line and column.
func parseJSON(src []byte, d dialect) (*jsonFile, error) {
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if off, what := nonStandard(&root, d); off >= 0 {
		line, col := lineCol(src, off)
		return nil, fmt.Errorf("%w: line %d, column %d: %s, which %s does not allow", ErrMalformed, line, col, what, d.name)
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		line, col := lineCol(src, root.StartOffset)
		return nil, fmt.Errorf("%w: line %d, column %d: the document is not a JSON object", ErrMalformed, line, col)
	}
	return &jsonFile{src: src, root: root, unit: indentUnit(src, &root)}, nil
}

// nonStandard returns the offset of the first comment or trailing comma
// that d does not allow in v, and what it is; -1 when there is none.
func nonStandard(v *hujson.Value, d dialect) (int, string) {
	if d.comments && d.trailingCommas {
		return -1, ""
	}
	for x := range v.All() {
		if !d.comments {
			if !x.BeforeExtra.IsStandard() {
				return x.StartOffset - len(x.BeforeExtra) + commentStart(x.BeforeExtra), "a comment"
			}
			if !x.AfterExtra.IsStandard() {
				return x.EndOffset + commentStart(x.AfterExtra), "a comment"
			}
		}
		c := compositeOf(x)
		if c == nil {
			continue
		}
		if !d.comments && !c.inner.IsStandard() {
			return c.close - len(c.inner) + commentStart(c.inner), "a comment"
		}
		if !d.trailingCommas && c.trailingComma {
			return c.items[len(c.items)-1].comma, "a trailing comma"
		}
	}
	return -1, ""
}

// commentStart is the offset of the first comment in extra, which holds
// only whitespace and comments.
func commentStart(extra hujson.Extra) int {
	return len(extra) - len(bytes.TrimLeft(extra, " \t\r\n"))
}

func lineCol(src []byte, off int) (line, col int) {
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = 1 + off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return line, col
}

// container is an object or array as offsets in the text.
type container struct {
	v             *hujson.Value
	open, close   int // offsets of the brackets
	items         []item
	trailingComma bool
	inner         hujson.Extra // what is between the last item (or its comma) and the closing bracket
}

// item is an object member (from its name to the end of its value) or an
// array element.
type item struct {
	name       string        // object members only
	value      *hujson.Value // the member's value, or the element
	start, end int
	comma      int // offset of the comma after it; -1 when there is none
}

func compositeOf(v *hujson.Value) *container {
	c := &container{v: v, open: v.StartOffset, close: v.EndOffset - 1}
	switch x := v.Value.(type) {
	case *hujson.Object:
		for i := range x.Members {
			m := &x.Members[i]
			var name string
			_ = json.Unmarshal(m.Name.Value.(hujson.Literal), &name)
			c.items = append(c.items, item{name: name, value: &m.Value, start: m.Name.StartOffset, end: m.Value.EndOffset,
				comma: m.Value.EndOffset + len(m.Value.AfterExtra)})
		}
		c.inner = x.AfterExtra
		c.trailingComma = len(x.Members) > 0 && x.Members[len(x.Members)-1].Value.AfterExtra != nil
	case *hujson.Array:
		for i := range x.Elements {
			e := &x.Elements[i]
			c.items = append(c.items, item{value: e, start: e.StartOffset, end: e.EndOffset, comma: e.EndOffset + len(e.AfterExtra)})
		}
		c.inner = x.AfterExtra
		c.trailingComma = len(x.Elements) > 0 && x.Elements[len(x.Elements)-1].AfterExtra != nil
	default:
		return nil
	}
	if n := len(c.items); n > 0 && !c.trailingComma {
		c.items[n-1].comma = -1
	}
	return c
}

// member returns the index of the member named name in an object, -1 if
// there is none. A name that appears twice is ErrMalformed: clients keep
// one of the two, and which one is theirs to say.
func (c *container) member(src []byte, name string) (int, error) {
	found := -1
	for i, it := range c.items {
		if it.name != name {
			continue
		}
		if found >= 0 {
			line, col := lineCol(src, it.start)
			return -1, fmt.Errorf("%w: line %d, column %d: %q appears twice in the same object", ErrMalformed, line, col, name)
		}
		found = i
	}
	return found, nil
}

// splice is an edit of a text: src[at:end] becomes text.
type splice struct {
	at, end int
	text    string
}

func (s splice) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-(s.end-s.at)+len(s.text))
	out = append(append(append(out, src[:s.at]...), s.text...), src[s.end:]...)
	return out
}

// lineIndent returns the spaces and tabs that start the line holding off.
func lineIndent(src []byte, off int) string {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// startsLine reports whether only spaces and tabs precede off on its line.
func startsLine(src []byte, off int) bool {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return len(bytes.Trim(src[start:off], " \t")) == 0 && bytes.Contains(src[:off], []byte("\n"))
}

// indentUnit guesses one level of indentation from the first member of
// the document that starts a line: two spaces when nothing tells.
func indentUnit(src []byte, root *hujson.Value) string {
	c := compositeOf(root)
	for _, it := range c.items {
		if startsLine(src, it.start) {
			if in := strings.TrimPrefix(lineIndent(src, it.start), lineIndent(src, c.open)); in != "" {
				return in
			}
		}
	}
	return "  "
}

// render marshals v as JSON that continues the line it starts on, each
// further line indented by prefix (a list of plain values on one line, as
// people write them); compact when prefix is "-".
func (f *jsonFile) render(v any, prefix string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if prefix != "-" {
		enc.SetIndent(prefix, f.unit)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("setup: marshal %T: %v", v, err)) // our own values always marshal
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	if prefix == "-" {
		return out
	}
	return joinPlainLists(out)
}

// joinPlainLists puts each list of indented JSON whose elements are all
// plain values (no objects or lists) on the line that opens it.
func joinPlainLists(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if !strings.HasSuffix(lines[i], "[") {
			out = append(out, lines[i])
			continue
		}
		var elems []string
		j := i + 1
		for ; j < len(lines); j++ {
			e := strings.TrimSuffix(strings.TrimSpace(lines[j]), ",")
			if e == "" || e[0] == '{' || e[0] == '[' || e[0] == ']' || !json.Valid([]byte(e)) {
				break
			}
			elems = append(elems, e)
		}
		if j == len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[j]), "]") || len(elems) == 0 {
			out = append(out, lines[i])
			continue
		}
		out = append(out, lines[i]+strings.Join(elems, ", ")+strings.TrimSpace(lines[j]))
		i = j
	}
	return strings.Join(out, "\n")
}

// insert returns the splice that adds text (a member "name": value, or
// an element, rendered by the render function for the indentation given)
// at the end of c, in the layout c already has: one item per line, or
// all on one line.
func (f *jsonFile) insert(c *container, text func(prefix string) string) splice {
	src := f.src
	if len(c.items) == 0 {
		closing := lineIndent(src, c.open)
		inner := closing + f.unit
		if bytes.Contains(c.inner, []byte("\n")) { // what is inside already ends the line
			return splice{c.open + 1, c.open + 1, "\n" + inner + text(inner)}
		}
		return splice{c.open + 1, c.open + 1, "\n" + inner + text(inner) + "\n" + closing}
	}
	last := c.items[len(c.items)-1]
	if !startsLine(src, last.start) {
		if c.trailingComma {
			return splice{last.comma + 1, last.comma + 1, " " + text("-") + ","}
		}
		return splice{last.end, last.end, ", " + text("-")}
	}
	inner := lineIndent(src, last.start)
	if c.trailingComma {
		return splice{last.comma + 1, last.comma + 1, "\n" + inner + text(inner) + ","}
	}
	return splice{last.end, last.end, ",\n" + inner + text(inner)}
}

// remove returns the splice that takes item i out of c: the inverse of
// insert when the item is the one insert added last.
func (f *jsonFile) remove(c *container, i int) splice {
	src, it := f.src, c.items[i]
	switch {
	case i > 0:
		// The comma before it goes; its own comma, if any, takes its place.
		return splice{c.items[i-1].comma, it.end, ""}
	case len(c.items) > 1:
		next := c.items[1].start
		if len(bytes.Trim(src[it.comma+1:next], " \t\r\n")) == 0 {
			return splice{it.start, next, ""}
		}
		return splice{it.start, it.comma + 1, ""}
	}
	end := it.end
	if it.comma >= 0 {
		end = it.comma + 1
	}
	// The line break insert added before the closing bracket, when what
	// was inside did not end a line.
	if nl := []byte("\n" + lineIndent(src, c.open)); bytes.HasPrefix(src[end:c.close], nl) &&
		!bytes.Contains(src[end+len(nl):c.close], []byte("\n")) {
		end += len(nl)
	}
	return splice{c.open + 1, end, ""}
}

// memberText renders the object member name: v.
func (f *jsonFile) memberText(name string, v any) func(string) string {
	return func(prefix string) string {
		return f.render(name, "-") + ": " + f.render(v, prefix)
	}
}

// nest wraps v in single-member objects, one per name, innermost last:
// nest(v, "a", "b") is {"a": {"b": v}}.
func nest(v any, names ...string) any {
	for i := len(names) - 1; i >= 0; i-- {
		v = map[string]any{names[i]: v}
	}
	return v
}

// object finds the object at path, each name a member of the one before.
// It returns the deepest object that exists and how many names of path
// it took to reach it; a member on the path that is not an object is
// ErrMalformed.
func (f *jsonFile) object(path []string) (*container, int, error) {
	c := compositeOf(&f.root)
	for depth, name := range path {
		i, err := c.member(f.src, name)
		if err != nil || i < 0 {
			return c, depth, err
		}
		next := compositeOf(c.items[i].value)
		if next == nil || c.items[i].value.Value.Kind() != '{' {
			line, col := lineCol(f.src, c.items[i].value.StartOffset)
			return nil, 0, fmt.Errorf("%w: line %d, column %d: %q is not an object", ErrMalformed, line, col, strings.Join(path[:depth+1], "."))
		}
		c = next
	}
	return c, len(path), nil
}

// setMember returns the text with the member path[len(path)-1] of the
// object at the rest of path set to v, creating the objects on the way
// that are missing.
func (f *jsonFile) setMember(path []string, v any) ([]byte, error) {
	parent, depth, err := f.object(path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if depth < len(path)-1 {
		return f.insert(parent, f.memberText(path[depth], nest(v, path[depth+1:]...))).apply(f.src), nil
	}
	name := path[len(path)-1]
	i, err := parent.member(f.src, name)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return f.insert(parent, f.memberText(name, v)).apply(f.src), nil
	}
	old := parent.items[i].value
	prefix := lineIndent(f.src, parent.items[i].start)
	if !startsLine(f.src, parent.items[i].start) {
		prefix = "-"
	}
	return splice{old.StartOffset, old.EndOffset, f.render(v, prefix)}.apply(f.src), nil
}

// decode returns a JSON value as encoding/json decodes it.
func decode(v *hujson.Value) any {
	c := v.Clone()
	c.Standardize()
	var x any
	if err := json.Unmarshal(c.Pack(), &x); err != nil {
		return err // not reached: hujson parsed it
	}
	return x
}

// sameJSON reports whether the value v holds what want marshals to.
func sameJSON(v *hujson.Value, want any) bool {
	b, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var w any
	if err := json.Unmarshal(b, &w); err != nil {
		return false
	}
	return reflect.DeepEqual(decode(v), w)
}

var errNotFound = errors.New("not found")

// lookup returns the value at path, errNotFound when some member on the
// way is missing.
func (f *jsonFile) lookup(path []string) (*hujson.Value, error) {
	parent, depth, err := f.object(path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if depth < len(path)-1 {
		return nil, errNotFound
	}
	i, err := parent.member(f.src, path[len(path)-1])
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, errNotFound
	}
	return parent.items[i].value, nil
}

// removeMember returns the text without the member at path, and whether
// there was one.
func (f *jsonFile) removeMember(path []string) ([]byte, bool, error) {
	parent, depth, err := f.object(path[:len(path)-1])
	if err != nil || depth < len(path)-1 {
		return f.src, false, err
	}
	i, err := parent.member(f.src, path[len(path)-1])
	if err != nil || i < 0 {
		return f.src, false, err
	}
	return f.remove(parent, i).apply(f.src), true, nil
}

// pruneEmpty takes out the object or list at path, then the one holding
// it, and so on up to (not including) the document, as long as each is
// empty, without even a comment: after an entry is taken out, the objects
// that were there only to hold it go too.
func pruneEmpty(src []byte, d dialect, path []string) ([]byte, error) {
	for n := len(path); n >= 1; n-- {
		f, err := parseJSON(src, d)
		if err != nil {
			return nil, err
		}
		v, err := f.lookup(path[:n])
		if err != nil {
			return src, nil
		}
		if c := compositeOf(v); c == nil || len(c.items) > 0 || !c.inner.IsStandard() {
			return src, nil
		}
		if src, _, err = f.removeMember(path[:n]); err != nil {
			return nil, err
		}
	}
	return src, nil
}
