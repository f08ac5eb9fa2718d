package fts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// short abbreviates a Match string for the tables below: any: for the text
// columns, ids: for the identifier columns, and [seq] for an encoded
// identifier sequence.
func short(m string) string {
	m = strings.ReplaceAll(m, textColumns[""]+" : ", "any:")
	m = strings.ReplaceAll(m, exactColumns[""]+" : ", "ids:")
	for _, c := range []string{"subject", "body", "subject_ids", "body_ids", "meta_ids"} {
		m = strings.ReplaceAll(m, c+" : ", c+":")
	}
	return encoded.ReplaceAllStringFunc(m, func(s string) string {
		i := strings.Index(s, `"`)
		return s[:i] + "[" + decodeExact(s[i+1:len(s)-1]) + "]"
	})
}

// decodeExact undoes encodeExact.
func decodeExact(digits string) string {
	var b []byte
	for len(digits) > 0 {
		n := 2
		if digits[0] == '0' || digits[0] == '9' {
			n = 3
		}
		c := slices.Index(exactCode()[:], digits[:n])
		if c < 0 {
			return "?" + digits
		}
		b = append(b, byte(c))
		digits = digits[n:]
	}
	return string(b)
}

var encoded = regexp.MustCompile(`_?ids:"[0-9]{2,}"`)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

type parseCase struct {
	in    string
	match string   // short form
	notes []string // exactly these
	want  Query    // expected filters; its Match and Notes are not used
}

var parseCases = []parseCase{
	// Text.
	{in: "", match: ""},
	{in: " \t\n ", match: ""},
	{in: "deploy failed", match: `(any:"deploy" AND any:"failed")`},
	{in: `"exact phrase"`, match: `any:"exact phrase"`},
	{in: `deplo*`, match: `any:"deplo"*`},
	{in: `deplo**`, match: `any:"deplo"*`},
	{in: `"a phras"*`, match: `any:"a phras"*`},
	{in: `*deploy`, match: `any:"*deploy"`},
	{in: `a OR b`, match: `(any:"a" OR any:"b")`},
	{in: `a OR b OR c`, match: `(any:"a" OR any:"b" OR any:"c")`},
	{in: `a b OR c`, match: `(any:"a" AND (any:"b" OR any:"c"))`},
	{in: `a OR b c`, match: `((any:"a" OR any:"b") AND any:"c")`},
	{in: `a AND b`, match: `(any:"a" AND any:"b")`},
	{in: `a or b and c`, match: `(any:"a" AND any:"or" AND any:"b" AND any:"and" AND any:"c")`},
	{in: `deploy -draft`, match: `(any:"deploy" NOT any:"draft")`},
	{in: `deploy NOT draft`, match: `(any:"deploy" NOT any:"draft")`},
	{in: `-draft`, match: `(meta_ids:"0" NOT any:"draft")`},
	{in: `NOT draft`, match: `(meta_ids:"0" NOT any:"draft")`},
	{in: `-a -"b c"`, match: `(meta_ids:"0" NOT any:"a" NOT any:"b c")`},
	{in: `--a`, match: `any:"a"`},
	{in: `NOT -a`, match: `any:"a"`},
	{in: `(a OR b) c`, match: `((any:"a" OR any:"b") AND any:"c")`},
	{in: `((((((((((a))))))))))`, match: `any:"a"`},
	{in: `-(a OR b) c`, match: `(any:"c" NOT (any:"a" OR any:"b"))`},
	{in: `a OR -b`, match: `(any:"a" OR (meta_ids:"0" NOT any:"b"))`},
	{in: `-(a -b)`, match: `(meta_ids:"0" NOT (any:"a" NOT any:"b"))`},
	{in: `a-b`, match: `(any:"a-b" AND ids:[a-b])`},
	{in: `x - y`, match: `(any:"x" AND any:"y")`, notes: []string{`ignored "-": nothing to search`}},
	{in: `"NEAR(a b)" ^c d+e`, match: `((any:"NEAR(a b)" AND ids:[near(a]) AND any:"^c" AND (any:"d+e" AND ids:[d+e]))`},
	{in: `say "he said ""hi"""`, match: `(any:"say" AND any:"he said " AND any:"hi")`, notes: []string{`ignored "\"\"": nothing to search`}},
	{in: `résumé naïve`, match: `(any:"résumé" AND any:"naïve")`},

	// Column scopes.
	{in: `subject:deploy`, match: `subject:"deploy"`},
	{in: `Subject:deploy BODY:failed`, match: `(subject:"deploy" AND body:"failed")`},
	{in: `subject:"deploy failed"`, match: `subject:"deploy failed"`},
	{in: `subject:dep*`, match: `subject:"dep"*`},
	{in: `subject:(a OR b) body:c`, match: `((subject:"a" OR subject:"b") AND body:"c")`},
	{in: `subject:(a body:b)`, match: `(subject:"a" AND body:"b")`},
	{in: `subject:(a -b)`, match: `(subject:"a" NOT subject:"b")`},
	{in: `-subject:wip`, match: `(meta_ids:"0" NOT subject:"wip")`},
	{in: `subject:-wip`, match: `subject:"-wip"`},
	{in: `subject:subject:x`, match: `(subject:"subject:x" AND subject_ids:[subject:x])`},

	// Identifiers.
	{in: `POL-358`, match: `(any:"POL-358" AND ids:[pol-358])`},
	{in: `POL-358.`, match: `(any:"POL-358." AND ids:[pol-358])`},
	{in: `src/api/routes.py`, match: `(any:"src/api/routes.py" AND ids:[src/api/routes.py])`},
	{in: `snake_case_name`, match: `(any:"snake_case_name" AND ids:[snake_case_name])`},
	{in: `CamelCase iPhone`, match: `((any:"CamelCase" AND ids:[camelcase]) AND (any:"iPhone" AND ids:[iphone]))`},
	{in: `Hello HTTP`, match: `(any:"Hello" AND any:"HTTP")`},
	{in: `POL-35*`, match: `(any:"POL-35"* AND ids:[pol-35]*)`},
	{in: `src/api/*`, match: `(any:"src/api/"* AND ids:[src/api/]*)`},
	{in: `POL-*`, match: `(any:"POL-"* AND ids:[pol-]*)`},
	{in: `Camel*`, match: `any:"Camel"*`},
	{in: `CamelCa*`, match: `(any:"CamelCa"* AND ids:[camelca]*)`},
	{in: `"fix POL-358 in routes.py"`, match: `(any:"fix POL-358 in routes.py" AND ids:[pol-358] AND ids:[routes.py])`},
	{in: `"see src/api/"*`, match: `(any:"see src/api/"* AND ids:[src/api/]*)`},
	{in: `subject:POL-358`, match: `(subject:"POL-358" AND subject_ids:[pol-358])`},
	{in: `body:CamelCase`, match: `(body:"CamelCase" AND body_ids:[camelcase])`},
	{in: `foo:bar`, match: `(any:"foo:bar" AND ids:[foo:bar])`},
	{in: `https://example.com/a?b=c`, match: `(any:"https://example.com/a?b=c" AND ids:[https://example.com/a?b=c])`},
	{in: `a.b.c.d.e.f.g.h.i`, match: `any:"a.b.c.d.e.f.g.h.i"`,
		notes: []string{`matched "a.b.c.d.e.f.g.h.i" as words, not exactly: too long`}},
	{in: "x-" + strings.Repeat("y", 70), match: `any:"x-` + strings.Repeat("y", 70) + `"`,
		notes: []string{`matched "x-yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy…" as words, not exactly: too long`}},

	// Filters.
	{in: `from:Alice from:bob from:ALICE to:Carol thread:POL-358 category:Ops importance:HIGH is:unread is:UNACKED since:2024-01-02 before:2024-02-01`,
		want: Query{From: []string{"alice", "bob"}, To: []string{"carol"}, Thread: []string{"POL-358"},
			Category: []string{"Ops"}, Importance: []string{"high"}, Unread: true, Unacked: true,
			Since: day("2024-01-02"), Before: day("2024-02-01")}},
	{in: `deploy from:alice`, match: `any:"deploy"`, want: Query{From: []string{"alice"}}},
	{in: `from:"Blue Lake" thread:"my thread"`, want: Query{From: []string{"blue lake"}, Thread: []string{"my thread"}}},
	{in: `since:2024-01-05 since:2024-01-02 before:2024-03-01 before:2024-02-01`,
		want: Query{Since: day("2024-01-05"), Before: day("2024-02-01")}},
	{in: `from:a OR from:b`, want: Query{From: []string{"a", "b"}}},
	{in: `(from:a OR from:b) deploy`, match: `any:"deploy"`, want: Query{From: []string{"a", "b"}}},
	{in: `from:a OR c`, match: `any:"c"`, want: Query{From: []string{"a"}},
		notes: []string{"filters inside OR apply to the whole query, not to one side"}},
	{in: `is:unread OR is:unacked`, want: Query{Unread: true, Unacked: true},
		notes: []string{"filters inside OR apply to the whole query, not to one side"}},
	{in: `from:a OR to:b`, want: Query{From: []string{"a"}, To: []string{"b"}},
		notes: []string{"filters inside OR apply to the whole query, not to one side"}},
	{in: `-from:a deploy`, match: `any:"deploy"`, notes: []string{`ignored "from:a": filters cannot be negated`}},
	{in: `NOT is:unread`, notes: []string{`ignored "is:unread": filters cannot be negated`}},
	{in: `-(a from:b)`, match: `(meta_ids:"0" NOT any:"a")`, notes: []string{`ignored "from:b": filters cannot be negated`}},
	{in: `--from:b`, want: Query{From: []string{"b"}}},
	{in: `from:`, notes: []string{`ignored "from:": no value`}},
	{in: `from:""`, notes: []string{`ignored "from:\"\"": no value`}},
	{in: `from:(a b)`, match: `(any:"a" AND any:"b")`, notes: []string{`ignored "from:": a filter takes one value, not a group`}},
	{in: `is:read`, notes: []string{`ignored "is:read": want is:unread or is:unacked`}},
	{in: `since:yesterday before:2024-13-01`, notes: []string{
		`ignored "since:yesterday": want a date as YYYY-MM-DD`, `ignored "before:2024-13-01": want a date as YYYY-MM-DD`}},
	{in: `from:blue*`, want: Query{From: []string{"blue*"}}},

	// Odd input.
	{in: `*`, notes: []string{`ignored "*": nothing to search`}},
	{in: `"`, notes: []string{`ignored "\"": unbalanced quote`}},
	{in: `""`, notes: []string{`ignored "\"\"": nothing to search`}},
	{in: `"unbalanced phrase`, match: `(any:"unbalanced" AND any:"phrase")`, notes: []string{`ignored "\"": unbalanced quote`}},
	{in: `a "b" "c`, match: `(any:"a" AND any:"b" AND any:"c")`, notes: []string{`ignored "\"": unbalanced quote`}},
	{in: `AND`, notes: []string{`ignored "AND": nothing on its left`}},
	{in: `OR`, notes: []string{`ignored "OR": nothing on its left`}},
	{in: `NOT`, notes: []string{`ignored "NOT": nothing to exclude`}},
	{in: `a OR`, match: `any:"a"`, notes: []string{`ignored "OR": nothing on its right`}},
	{in: `OR a`, match: `any:"a"`, notes: []string{`ignored "OR": nothing on its left`}},
	{in: `a OR OR b`, match: `(any:"a" OR any:"b")`, notes: []string{`ignored "OR": nothing on its right`}},
	{in: `a AND`, match: `any:"a"`, notes: []string{`ignored "AND": nothing on its right`}},
	{in: `a AND OR b`, match: `(any:"a" AND any:"b")`, notes: []string{`ignored "AND": nothing on its right`, `ignored "OR": nothing on its left`}},
	{in: `a NOT`, match: `any:"a"`, notes: []string{`ignored "NOT": nothing to exclude`}},
	{in: `a -`, match: `any:"a"`, notes: []string{`ignored "-": nothing to search`}},
	{in: `a NOT OR b`, match: `(any:"a" AND any:"b")`, notes: []string{`ignored "NOT": nothing to exclude`}},
	{in: `(`, notes: []string{`ignored "(": unbalanced parenthesis`}},
	{in: `)`, notes: []string{`ignored ")": no matching "("`}},
	{in: `()`, notes: []string{`ignored "()": empty group`}},
	{in: `NEAR(`, match: `any:"NEAR"`, notes: []string{`ignored "(": unbalanced parenthesis`}},
	{in: `NEAR(a b)`, match: `(any:"NEAR" AND any:"a" AND any:"b")`},
	{in: `(a b`, match: `(any:"a" AND any:"b")`, notes: []string{`added the missing ")" at the end`}},
	{in: `a) b`, match: `(any:"a" AND any:"b")`, notes: []string{`ignored ")": no matching "("`}},
	{in: `-`, notes: []string{`ignored "-": nothing to search`}},
	{in: `col:`, match: `any:"col:"`},
	{in: `subject:`, notes: []string{`ignored "subject:": no value`}},
	{in: `subject: deploy`, match: `any:"deploy"`, notes: []string{`ignored "subject:": no value`}},
	{in: `subject:"`, notes: []string{`ignored "\"": unbalanced quote`, `ignored "subject:": no value`}},
	{in: `subject:()`, notes: []string{`ignored "()": empty group`}},
	{in: "a\x00b\x1b[31mc", match: `(any:"a" AND any:"b" AND any:"[31mc")`, notes: []string{"ignored control characters or invalid UTF-8"}},
	{in: "\xff\xfe", notes: []string{"ignored control characters or invalid UTF-8"}},
	{in: "caf\xe9 ok", match: `(any:"caf" AND any:"ok")`, notes: []string{"ignored control characters or invalid UTF-8"}},
	{in: "★ ☃", notes: []string{`ignored "★": nothing to search`, `ignored "☃": nothing to search`}},
	{in: "\uE000hit\uE001", match: `any:"` + "\uE000hit\uE001" + `"`},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		got := Parse(c.in)
		if m := short(got.Match); m != c.match {
			t.Errorf("Parse(%q).Match\n got %s\nwant %s", c.in, m, c.match)
		}
		if !slices.Equal(got.Notes, c.notes) {
			t.Errorf("Parse(%q).Notes\n got %q\nwant %q", c.in, got.Notes, c.notes)
		}
		if got.Empty() != (c.match == "" && fmt.Sprint(c.want) == fmt.Sprint(Query{})) {
			t.Errorf("Parse(%q).Empty() = %v", c.in, got.Empty())
		}
		got.Match, got.Notes = "", nil
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Parse(%q) filters\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestParseLimits(t *testing.T) {
	long := Parse(strings.Repeat("word ", 3000))
	if want := []string{
		"ignored the query after its first 4096 bytes: too long",
		"ignored 756 terms after the first 64: too many",
	}; !slices.Equal(long.Notes, want) {
		t.Errorf("long query notes %q, want %q", long.Notes, want)
	}
	if n := strings.Count(long.Match, `"word"`); n != maxTerms {
		t.Errorf("long query kept %d terms, want %d", n, maxTerms)
	}

	cut := Parse(strings.Repeat("日", 2000)) // cut before the rune at byte 4095
	if !strings.HasSuffix(cut.Match, strings.Repeat("日", 1365)+`"`) || len(cut.Notes) != 1 {
		t.Errorf("cut query: %d bytes of match, notes %q", len(cut.Match), cut.Notes)
	}

	// a OR -(b OR -(c ...)) nests two parentheses of Match per level.
	deep := "x"
	for i := range 12 {
		deep = fmt.Sprintf("t%d OR -(%s)", i, deep)
	}
	q := Parse(deep)
	if !slices.Equal(q.Notes, []string{"ignored parts nested more than 16 deep"}) {
		t.Errorf("deep query notes %q", q.Notes)
	}
	if d := nesting(q.Match); d > maxNesting {
		t.Errorf("deep query nests %d deep: %s", d, q.Match)
	}

	var odd []string
	for i := range 15 {
		odd = append(odd, fmt.Sprintf("is:x%d", i))
	}
	q = Parse(strings.Join(odd, " "))
	if len(q.Notes) != maxNotes+1 || q.Notes[maxNotes] != "and 5 more notes" {
		t.Errorf("many notes: %q", q.Notes)
	}
}

// nesting returns how deep the parentheses of an FTS5 expression nest.
func nesting(m string) int {
	depth, deepest, quoted := 0, 0, false
	for _, r := range m {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
			deepest = max(deepest, depth)
		case r == ')':
			depth--
		}
	}
	return deepest
}

func TestIdentifierSequences(t *testing.T) {
	decode := func(s string) []string {
		var out []string
		for _, tok := range strings.Fields(s) {
			out = append(out, short(`ids:"` + tok + `"`)[4:])
		}
		return out
	}
	got := decode(exactTokens("See (POL-358/x), iPhone!"))
	want := []string{"[pol-358]", "[pol-358/x]", "[358/x]", "[iphone]"}
	if !slices.Equal(got, want) {
		t.Errorf("exactTokens = %q, want %q", got, want)
	}
	got = decode(exactTokens("a.b.c.d.e.f.g.h.i " + strings.Repeat("z", 65)))
	if len(got) != 7+7+6+5+4+3+2+1 || slices.Contains(got, "[a.b.c.d.e.f.g.h.i]") || got[6] != "[a.b.c.d.e.f.g.h]" {
		t.Errorf("exactTokens of 9 parts = %q", got)
	}
}
