package fts

import "strings"

// node is a text expression. compile writes it as FTS5 syntax; prune
// drops the parts of it that would nest more than budget parentheses deep
// there (FTS5's parser has a small stack), reporting whether it dropped any.
type node interface {
	compile() string
	prune(budget int) (node, bool)
}

// termNode is a word or phrase, maybe a prefix, maybe scoped to a column.
type termNode struct {
	text   string
	prefix bool
	scope  string      // "", "subject" or "body"
	exact  []exactTerm // identifier sequences that must match too
}

// exactTerm is an encoded identifier sequence; see exactTokens.
type exactTerm struct {
	enc    string
	prefix bool
}

type (
	andNode []node           // all of them (a notNode in it excludes)
	orNode  []node           // any of them
	notNode struct{ n node } // everything but n
)

// The columns a term searches, by scope.
var (
	textColumns  = map[string]string{"": "{subject body sender recipients thread category}", "subject": "subject", "body": "body"}
	exactColumns = map[string]string{"": "{subject_ids body_ids meta_ids}", "subject": "subject_ids", "body": "body_ids"}
)

// everything matches every row; see allToken.
const everything = `meta_ids : "` + allToken + `"`

// quote makes s an FTS5 string.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func star(prefix bool) string {
	if prefix {
		return "*"
	}
	return ""
}

func (t *termNode) compile() string {
	s := textColumns[t.scope] + " : " + quote(t.text) + star(t.prefix)
	if len(t.exact) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString("(" + s)
	for _, e := range t.exact {
		b.WriteString(" AND " + exactColumns[t.scope] + ` : "` + e.enc + `"` + star(e.prefix))
	}
	b.WriteString(")")
	return b.String()
}

func (a andNode) compile() string {
	var pos, neg []string
	for _, n := range a {
		if not, ok := n.(notNode); ok {
			neg = append(neg, not.n.compile())
		} else {
			pos = append(pos, n.compile())
		}
	}
	if len(pos) == 0 {
		pos = []string{everything}
	}
	s := strings.Join(pos, " AND ")
	for _, n := range neg {
		s += " NOT " + n
	}
	return "(" + s + ")"
}

func (o orNode) compile() string {
	s := make([]string, len(o))
	for i, n := range o {
		s[i] = n.compile()
	}
	return "(" + strings.Join(s, " OR ") + ")"
}

func (n notNode) compile() string { return andNode{n}.compile() }

// mkAnd combines nodes, nils left out, into one, or nil if there are none.
func mkAnd(nodes []node) node { return combine[andNode](nodes) }

// mkOr is mkAnd for OR.
func mkOr(nodes []node) node { return combine[orNode](nodes) }

// combine joins nodes under one operator T, flattening nested T nodes.
func combine[T interface {
	~[]node
	node
}](nodes []node) node {
	var kids T
	for _, n := range nodes {
		switch n := n.(type) {
		case nil:
		case T:
			kids = append(kids, n...)
		default:
			kids = append(kids, n)
		}
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return kids
}

// mkNot negates n, undoing a negation.
func mkNot(n node) node {
	switch n := n.(type) {
	case nil:
		return nil
	case notNode:
		return n.n
	}
	return notNode{n}
}

// prune applies prune to n, nil included.
func prune(n node, budget int) (node, bool) {
	if n == nil {
		return nil, false
	}
	return n.prune(budget)
}

func (t *termNode) prune(budget int) (node, bool) {
	if len(t.exact) > 0 && budget < 1 {
		return nil, true
	}
	return t, false
}

func (n notNode) prune(budget int) (node, bool) {
	if budget < 1 {
		return nil, true
	}
	k, dropped := n.n.prune(budget - 1)
	return mkNot(k), dropped
}

func (a andNode) prune(budget int) (node, bool) {
	if budget < 1 {
		return nil, true
	}
	var kids []node
	dropped := false
	for _, n := range a {
		var k node
		var d bool
		if not, ok := n.(notNode); ok { // inside the parentheses of a
			k, d = not.n.prune(budget - 1)
			k = mkNot(k)
		} else {
			k, d = n.prune(budget - 1)
		}
		kids = append(kids, k)
		dropped = dropped || d
	}
	return mkAnd(kids), dropped
}

func (o orNode) prune(budget int) (node, bool) {
	if budget < 1 {
		return nil, true
	}
	var kids []node
	dropped := false
	for _, n := range o {
		k, d := n.prune(budget - 1)
		kids = append(kids, k)
		dropped = dropped || d
	}
	return mkOr(kids), dropped
}
