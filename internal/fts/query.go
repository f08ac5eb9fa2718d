package fts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Query is what a search query means: an FTS5 expression for the text terms
// and filters for the search. Filters of different fields must all
// hold; the values of one field are alternatives.
type Query struct {
	// Match is the FTS5 expression to bind to `MATCH ?`, or "" when the query
	// has no text terms. It is always valid FTS5 syntax.
	Match string
	// From and To are lower-cased agent names: the sender must be one of
	// From, and one of the recipients one of To (compare case-insensitively).
	From, To []string
	// Thread and Category are as typed; Importance is lower-cased.
	Thread, Category, Importance []string
	// Unread and Unacked restrict the hits to messages the searching agent
	// has not read, or has not acknowledged although asked to.
	Unread, Unacked bool
	// Since and Before, when not zero, are midnights UTC: a hit is created at
	// or after Since and before Before.
	Since, Before time.Time
	// Notes has one line for each part of the query that was ignored or
	// read differently from how it was typed.
	Notes []string
}

// Empty reports whether q has neither text terms nor filters, as when the
// query was blank or all of it was ignored. Such a query has no hits.
func (q Query) Empty() bool {
	return q.Match == "" && len(q.From) == 0 && len(q.To) == 0 && len(q.Thread) == 0 &&
		len(q.Category) == 0 && len(q.Importance) == 0 && !q.Unread && !q.Unacked &&
		q.Since.IsZero() && q.Before.IsZero()
}

// Limits on what Parse reads; beyond them parts are ignored with a note.
const (
	maxQueryBytes = 4096 // the rest of a longer query is ignored
	maxTerms      = 64   // text terms after these are ignored
	maxNesting    = 16   // parts of Match nested deeper are ignored
	maxNotes      = 10   // further notes are counted in one last note
)

// Parse reads a search query. It never fails: what it cannot use, it drops
// and reports in Notes, so the worst outcome is a query without hits.
//
// The language:
//
//	deploy failed       words; all must match (stemmed: "deploying" matches)
//	"exact phrase"      the words in this order
//	deplo*              words starting with deplo (also "a phras"*)
//	a OR b              either side; OR binds tighter than the implicit AND,
//	                    so a b OR c means a (b OR c)
//	a AND b             same as a b
//	-draft, NOT draft   excludes; a query of exclusions only matches
//	                    every message without them
//	(a OR b) c          grouping
//	subject:word        a word, "phrase", prefix* or (group) in the subject
//	body:word           ... or in the body only
//	from:NAME to:NAME   sender or a recipient (repeat a field for OR)
//	thread:ID category:NAME importance:LEVEL
//	is:unread is:unacked
//	since:YYYY-MM-DD before:YYYY-MM-DD   dates in UTC; since inclusive
//
// OR, AND and NOT are operators only in capitals; field names may be in
// any case. A field value may be quoted (thread:"release 2"). An unknown
// field such as foo:bar is text, like anything else that is not syntax. Words that look like identifiers (POL-358, src/api/routes.py,
// snake_case_name, CamelCase) must match exactly, ignoring case; see the
// package documentation. Filters are not text: they cannot be negated, and
// one inside an OR still applies to the whole query (a note says so), except
// that an OR of values of one field, as in `from:a OR from:b`, means either.
func Parse(q string) Query {
	var query Query
	p := &parser{q: &query}
	if len(q) > maxQueryBytes {
		cut := maxQueryBytes
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut]
		p.note("ignored the query after its first %d bytes: too long", maxQueryBytes)
	}
	q, dirty := sanitizeQuery(q)
	if dirty {
		p.note("ignored control characters or invalid UTF-8")
	}
	p.toks = p.lex(q)
	var top []node
	for p.pos < len(p.toks) {
		top = append(top, p.parseAnd(ctx{}).n)
		if p.at(tClose) {
			p.pos++
			p.note(`ignored ")": no matching "("`)
		}
	}
	root, pruned := prune(mkAnd(top), maxNesting)
	if pruned {
		p.note("ignored parts nested more than %d deep", maxNesting)
	}
	if root != nil {
		query.Match = root.compile()
	}
	if p.dropped > 0 {
		p.note("ignored %d terms after the first %d: too many", p.dropped, maxTerms)
	}
	query.Notes = p.notes
	if p.extraNotes > 0 {
		query.Notes = append(query.Notes, fmt.Sprintf("and %d more notes", p.extraNotes))
	}
	return query
}

// sanitizeQuery turns invalid UTF-8 and control characters other than white
// space into spaces, reporting whether there were any.
func sanitizeQuery(q string) (string, bool) {
	var b strings.Builder
	dirty := false
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		if (r == utf8.RuneError && n == 1) || (unicode.IsControl(r) && !unicode.IsSpace(r)) {
			dirty = true
			r = ' '
		}
		b.WriteRune(r)
		i += n
	}
	return b.String(), dirty
}

type tokKind int

const (
	tWord   tokKind = iota // a bare word
	tPhrase                // a "quoted phrase"
	tOpen                  // (
	tClose                 // )
	tOr                    // OR
	tAnd                   // AND
	tNot                   // NOT, or - before a word, phrase or group
)

type token struct {
	kind   tokKind
	text   string // of a word or phrase: without quotes or trailing *
	prefix bool   // a word or phrase followed by *
	field  string // the lower-case field name before a word, phrase or (
	raw    string // as typed, for notes
}

// fields maps the names of fields to whether they scope text (as opposed to
// being filters).
var fields = map[string]bool{
	"subject": true, "body": true,
	"from": false, "to": false, "thread": false, "category": false, "importance": false,
	"is": false, "since": false, "before": false,
}

func endsWord(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ')' }

// lex splits q into tokens.
func (p *parser) lex(q string) []token {
	var toks []token
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		start := i
		switch {
		case r == '(':
			toks = append(toks, token{kind: tOpen, raw: "("})
			i++
			continue
		case r == ')':
			toks = append(toks, token{kind: tClose, raw: ")"})
			i++
			continue
		case r == '-' && i+1 < len(q):
			if next := firstRune(q[i+1:]); !unicode.IsSpace(next) && next != ')' {
				toks = append(toks, token{kind: tNot, raw: "-"})
				i++
				continue
			}
		}
		field := fieldAt(q[i:])
		if field != "" {
			i += len(field) + 1
		}
		if i < len(q) && q[i] == '"' && strings.IndexByte(q[i+1:], '"') < 0 {
			p.note("ignored %s: unbalanced quote", show(`"`))
			i++
		}
		if i == len(q) || endsWord(firstRune(q[i:])) {
			switch {
			case field == "":
			case i < len(q) && q[i] == '(' && fields[field]:
				toks = append(toks, token{kind: tOpen, field: field, raw: q[start : i+1]})
				i++
			case i < len(q) && q[i] == '(':
				p.note("ignored %s: a filter takes one value, not a group", show(field+":"))
			default:
				p.note("ignored %s: no value", show(field+":"))
			}
			continue
		}
		tok, next := lexTerm(q, i)
		tok.field, tok.raw = field, q[start:next]
		if field == "" && tok.kind == tWord && !tok.prefix {
			switch tok.text {
			case "OR":
				tok.kind = tOr
			case "AND":
				tok.kind = tAnd
			case "NOT":
				tok.kind = tNot
			}
		}
		toks = append(toks, tok)
		i = next
	}
	return toks
}

// fieldAt returns the lower-case name of the field that s starts with
// (letters and a colon), or "".
func fieldAt(s string) string {
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	if n == len(s) || s[n] != ':' {
		return ""
	}
	name := strings.ToLower(s[:n])
	if _, ok := fields[name]; !ok {
		return ""
	}
	return name
}

// lexTerm reads the phrase or word at q[i:], which starts with neither
// white space nor an unbalanced quote, and returns it with the index after
// it.
func lexTerm(q string, i int) (token, int) {
	if q[i] == '"' {
		j := i + 1 + strings.IndexByte(q[i+1:], '"')
		tok := token{kind: tPhrase, text: q[i+1 : j]}
		next := j + 1
		for next < len(q) && q[next] == '*' {
			tok.prefix = true
			next++
		}
		return tok, next
	}
	next := i
	for next < len(q) && !endsWord(firstRune(q[next:])) {
		_, size := utf8.DecodeRuneInString(q[next:])
		next += size
	}
	text := strings.TrimRight(q[i:next], "*")
	return token{kind: tWord, text: text, prefix: len(text) < next-i}, next
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// parser reads tokens into a tree of text terms, applying filters to q as
// it meets them.
type parser struct {
	toks       []token
	pos        int
	q          *Query
	terms      int // text terms kept
	dropped    int // text terms dropped for maxTerms
	notes      []string
	extraNotes int
}

// ctx is what applies to the tokens being parsed.
type ctx struct {
	scope string // "", "subject" or "body"
	neg   bool   // inside an odd number of negations
}

// part is what parsing a stretch of tokens yields.
type part struct {
	n       node
	filters []string // fields of the filters applied within
	seen    bool     // there were tokens (maybe all ignored)
}

func (p *parser) note(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if slices.Contains(p.notes, line) {
		return
	}
	if len(p.notes) == maxNotes {
		p.extraNotes++
		return
	}
	p.notes = append(p.notes, line)
}

// show quotes a part of the query for a note, shortened to 40 runes.
func show(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return strconv.Quote(s)
}

func (p *parser) at(k tokKind) bool { return p.pos < len(p.toks) && p.toks[p.pos].kind == k }

// atStop reports whether the next token ends an operand: none, ), OR or
// AND.
func (p *parser) atStop() bool {
	return p.pos == len(p.toks) || p.at(tClose) || p.at(tOr) || p.at(tAnd)
}

// parseAnd reads operands, which must all match, up to ) or the end.
func (p *parser) parseAnd(c ctx) part {
	var res part
	var kids []node
	for p.pos < len(p.toks) && !p.at(tClose) {
		if p.at(tAnd) || p.at(tOr) {
			op := p.toks[p.pos]
			p.pos++
			switch {
			case op.kind == tOr || !res.seen: // parseOr takes every OR after an operand
				p.note("ignored %s: nothing on its left", show(op.raw))
			case p.atStop():
				p.note("ignored %s: nothing on its right", show(op.raw))
			}
			continue
		}
		o := p.parseOr(c)
		res.seen = true
		kids = append(kids, o.n)
		res.filters = append(res.filters, o.filters...)
	}
	res.n = mkAnd(kids)
	return res
}

// parseOr reads an operand and any more joined to it by OR.
func (p *parser) parseOr(c ctx) part {
	ops := []part{p.parseUnary(c)}
	for p.at(tOr) {
		or := p.toks[p.pos]
		p.pos++
		if p.atStop() {
			p.note("ignored %s: nothing on its right", show(or.raw))
			continue
		}
		ops = append(ops, p.parseUnary(c))
	}
	if len(ops) == 1 {
		return ops[0]
	}
	res := part{seen: true}
	var kids []node
	field, nonEmpty, merge := "", 0, true
	for _, op := range ops {
		kids = append(kids, op.n)
		res.filters = append(res.filters, op.filters...)
		if op.n != nil || len(op.filters) > 0 {
			nonEmpty++
		}
		merge = merge && op.n == nil
		for _, f := range op.filters {
			merge = merge && listField[f] && (field == "" || f == field)
			field = f
		}
	}
	if nonEmpty > 1 && len(res.filters) > 0 && !merge {
		p.note("filters inside OR apply to the whole query, not to one side")
	}
	res.n = mkOr(kids)
	return res
}

// listField tells the filters whose values are alternatives, so that an OR
// of them means what it says.
var listField = map[string]bool{"from": true, "to": true, "thread": true, "category": true, "importance": true}

// parseUnary reads an operand with any negations before it.
func (p *parser) parseUnary(c ctx) part {
	neg := false
	for p.at(tNot) {
		not := p.toks[p.pos]
		p.pos++
		neg = !neg
		if p.atStop() {
			p.note("ignored %s: nothing to exclude", show(not.raw))
			return part{seen: true}
		}
	}
	if neg {
		c.neg = !c.neg
	}
	res := p.parsePrimary(c)
	if neg {
		res.n = mkNot(res.n)
	}
	return res
}

// parsePrimary reads a group, a term or a filter.
func (p *parser) parsePrimary(c ctx) part {
	t := p.toks[p.pos]
	p.pos++
	if t.field != "" && fields[t.field] {
		c.scope = t.field
	}
	switch {
	case t.kind == tOpen:
		res := p.parseAnd(c)
		switch {
		case p.at(tClose):
			p.pos++
			if !res.seen {
				p.note(`ignored "()": empty group`)
			}
		case res.seen:
			p.note(`added the missing ")" at the end`)
		default:
			p.note(`ignored %s: unbalanced parenthesis`, show(t.raw))
		}
		res.seen = true
		return res
	case t.field != "" && !fields[t.field]:
		return p.filter(t, c)
	default:
		return p.term(t, c)
	}
}

// term makes a text term of a word or phrase.
func (p *parser) term(t token, c ctx) part {
	if !strings.ContainsFunc(t.text, isTokenChar) {
		p.note("ignored %s: nothing to search", show(t.raw))
		return part{seen: true}
	}
	if p.terms == maxTerms {
		p.dropped++
		return part{seen: true}
	}
	p.terms++
	n := &termNode{text: t.text, prefix: t.prefix, scope: c.scope}
	words := strings.Fields(t.text)
	for i, w := range words {
		prefix := t.prefix && i == len(words)-1
		seq, ok, fits := identifier(w, prefix)
		switch {
		case ok && fits:
			n.exact = append(n.exact, exactTerm{encodeExact(seq), prefix})
		case ok:
			p.note("matched %s as words, not exactly: too long", show(w))
		}
	}
	return part{n: n, seen: true}
}

// isTokenChar reports whether the tokenizer keeps r in a word: letters,
// digits and private-use runes.
func isTokenChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// filter applies a field filter to p.q.
func (p *parser) filter(t token, c ctx) part {
	if c.neg {
		p.note("ignored %s: filters cannot be negated", show(t.raw))
		return part{seen: true}
	}
	v := strings.TrimSpace(t.text)
	if t.prefix {
		v += "*"
	}
	if v == "" {
		p.note("ignored %s: no value", show(t.raw))
		return part{seen: true}
	}
	q := p.q
	switch t.field {
	case "from":
		q.From = addValue(q.From, strings.ToLower(v))
	case "to":
		q.To = addValue(q.To, strings.ToLower(v))
	case "thread":
		q.Thread = addValue(q.Thread, v)
	case "category":
		q.Category = addValue(q.Category, v)
	case "importance":
		q.Importance = addValue(q.Importance, strings.ToLower(v))
	case "is":
		switch strings.ToLower(v) {
		case "unread":
			q.Unread = true
		case "unacked":
			q.Unacked = true
		default:
			p.note("ignored %s: want is:unread or is:unacked", show(t.raw))
			return part{seen: true}
		}
	case "since", "before":
		day, err := time.Parse(time.DateOnly, v)
		if err != nil {
			p.note("ignored %s: want a date as YYYY-MM-DD", show(t.raw))
			return part{seen: true}
		}
		if t.field == "since" && day.After(q.Since) {
			q.Since = day
		}
		if t.field == "before" && (q.Before.IsZero() || day.Before(q.Before)) {
			q.Before = day
		}
	}
	return part{filters: []string{t.field}, seen: true}
}

func addValue(vs []string, v string) []string {
	if slices.Contains(vs, v) {
		return vs
	}
	return append(vs, v)
}
