package glob

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// The path universe. Overlap is decided over the paths a repository can
// hold: non-empty, valid UTF-8, made of non-empty segments separated by
// single slashes, with no leading or trailing slash and no NUL byte. The
// runes allowed inside a segment are nonSlashRanges.
var nonSlashRanges = []runeRange{{1, '/' - 1}, {'/' + 1, 0xD7FF}, {0xE000, utf8.MaxRune}}

// maxStates and maxEdges bound the automaton of one pattern, and so the
// cost of an overlap test in the worst case (realistic patterns have tens of
// states and edges; a run of a hundred `*` has thousands of edges).
const (
	maxStates = 512
	maxEdges  = 2048
)

// runeRange is the closed interval of runes [lo, hi].
type runeRange struct{ lo, hi rune }

// normalizeRanges sorts ranges and merges the overlapping or adjacent ones.
func normalizeRanges(rs []runeRange) []runeRange {
	slices.SortFunc(rs, func(a, b runeRange) int { return int(a.lo - b.lo) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

func containsRune(rs []runeRange, c rune) bool {
	for _, r := range rs {
		if r.lo <= c && c <= r.hi {
			return true
		}
	}
	return false
}

// intersectRanges returns the intersection of two normalized range lists.
func intersectRanges(a, b []runeRange) []runeRange {
	var out []runeRange
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi)
		if lo <= hi {
			out = append(out, runeRange{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// rangesMeet reports whether two normalized range lists share a rune.
func rangesMeet(a, b []runeRange) bool {
	if len(a) == 1 && len(b) == 1 {
		return a[0].lo <= b[0].hi && b[0].lo <= a[0].hi
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if a[i].lo <= b[j].hi && b[j].lo <= a[i].hi {
			return true
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return false
}

// charSet is the set of runes an automaton edge consumes: possibly '/', and
// the segment runes in r (normalized, inside nonSlashRanges).
type charSet struct {
	slash bool
	r     []runeRange
}

var (
	setNonSlash = charSet{r: nonSlashRanges}
	setAny      = charSet{slash: true, r: nonSlashRanges}
	setSlash    = charSet{slash: true}
)

// newCharSet builds the set of the runes in rs (normalized ranges), or of
// those not in rs if negate, restricted to the path universe.
func newCharSet(rs []runeRange, negate bool) charSet {
	if negate {
		var comp []runeRange
		next := rune(0)
		for _, r := range rs {
			if r.lo > next {
				comp = append(comp, runeRange{next, r.lo - 1})
			}
			next = r.hi + 1
		}
		if next <= utf8.MaxRune {
			comp = append(comp, runeRange{next, utf8.MaxRune})
		}
		rs = comp
	}
	return charSet{slash: containsRune(rs, '/'), r: intersectRanges(rs, nonSlashRanges)}
}

func literalSet(c rune) charSet {
	switch {
	case c == '/':
		return setSlash
	case 0 < c && c < utf8.RuneSelf:
		return asciiSets[c]
	}
	return newCharSet([]runeRange{{c, c}}, false)
}

// asciiSets holds the sets of single ASCII runes but '/', shared by every
// automaton (sets are never modified): literal runes are most of a pattern.
var asciiSets = func() (t [utf8.RuneSelf]charSet) {
	for c := rune(1); c < utf8.RuneSelf; c++ {
		t[c] = newCharSet([]runeRange{{c, c}}, false)
	}
	return t
}()

// pickRune chooses a readable rune from a non-empty range list, for
// witnesses: 'a' if possible, else a letter, digit or common punctuation,
// else the smallest rune.
func pickRune(rs []runeRange) rune {
	for _, pref := range []runeRange{{'a', 'a'}, {'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'_', '_'}, {'-', '.'}, {'!', '~'}} {
		if in := intersectRanges(rs, []runeRange{pref}); len(in) > 0 {
			return in[0].lo
		}
	}
	return rs[0].lo
}

// edge is a transition of a pattern automaton.
type edge struct {
	set charSet
	to  int32
}

// Glob is a compiled pattern: a nondeterministic automaton over runes that
// accepts exactly the paths of the universe that doublestar.Match accepts,
// plus literal facts used as exact prefilters. (The agreement with
// doublestar is checked by the tests exhaustively on small patterns and
// paths, and by FuzzOverlap.) A Glob is immutable and safe for concurrent
// use.
type Glob struct {
	pattern string
	accept  []bool
	off     []int32 // the edges of state s are edges[off[s]:off[s+1]]; state 0 is the start
	edges   []edge

	prefix  string // every matching path starts with prefix, or is prefix minus its final '/'
	suffix  string // every matching path ends with suffix
	literal bool   // the pattern matches exactly the path prefix
	subtree bool   // the pattern is prefix+"**" with prefix empty or ending in '/'
	empty   bool   // the pattern matches no path of the universe
}

// Compile validates a pattern and compiles it for repeated overlap tests.
// It accepts every pattern NormalizePattern returns. It does not normalize:
// it applies the same checks, rejects the forms that normalization repairs
// but doublestar reads differently (`.` segments, a trailing '/', negated
// classes that do not exclude '/'), and keeps doublestar's meaning for the
// rest (`a//b` matches no repository path). Errors wrap ErrInvalidPattern.
func Compile(pattern string) (*Glob, error) {
	if err := validate(pattern); err != nil {
		return nil, err
	}
	return compileValid(pattern)
}

// compileValid compiles a pattern that validate accepts, or returns the
// Glob it compiled for it lately.
func compileValid(pattern string) (*Glob, error) {
	if g := compiled.get(pattern); g != nil {
		return g, nil
	}
	g, err := build(pattern)
	if err != nil {
		return nil, err
	}
	g.empty = !search(g, universal(), nil)
	compiled.put(g)
	return g, nil
}

// compiled keeps the Globs compiled last, by pattern: building an
// automaton is most of the cost of normalizing a pattern (some 6 µs), and
// a long-lived process (a server) compiles the same ones again and again:
// a release names the patterns its reserve compiled, and every reserve
// compiles the rivals' patterns near its own.
var compiled globCache

// globCache remembers the Globs of up to twice maxGlobs recent patterns, in
// two generations: a lookup finds a Glob in either, and moves one of the
// old generation to the new; once the new one is full, it becomes the old
// one, and the Globs left in the old one are dropped. Globs are immutable,
// so sharing one is safe.
type globCache struct {
	mu       sync.Mutex
	new, old map[string]*Glob
}

// maxGlobs bounds each generation of compiled: a Glob of a typical pattern
// takes some 1.3 KB.
const maxGlobs = 256

func (c *globCache) get(pattern string) *Glob {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.new[pattern]; g != nil {
		return g
	}
	g := c.old[pattern]
	if g != nil {
		c.add(g)
	}
	return g
}

func (c *globCache) put(g *Glob) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(g)
}

func (c *globCache) add(g *Glob) {
	if len(c.new) >= maxGlobs {
		c.old, c.new = c.new, nil
	}
	if c.new == nil {
		c.new = make(map[string]*Glob, maxGlobs)
	}
	c.new[g.pattern] = g
}

// MustCompile is like Compile but panics on an invalid pattern; it is meant
// for patterns fixed in source code.
func MustCompile(pattern string) *Glob {
	g, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return g
}

// universal matches every path; Compile uses it to test emptiness. It is
// built on first use.
var universal = sync.OnceValue(func() *Glob {
	g, err := build("**")
	if err != nil {
		panic(err)
	}
	return g
})

// String returns the pattern the Glob was compiled from.
func (g *Glob) String() string { return g.pattern }

// Overlap reports whether some path matches both patterns. Both are
// normalized with NormalizePattern (without a directory lookup) first; an
// invalid pattern overlaps nothing. To check many pairs, Compile the
// patterns once and use Glob.Overlaps.
func Overlap(a, b string) bool {
	ga, err := compileNormalized(a)
	if err != nil {
		return false
	}
	gb, err := compileNormalized(b)
	if err != nil {
		return false
	}
	return ga.Overlaps(gb)
}

// compileNormalized normalizes p without a directory lookup and compiles it.
func compileNormalized(p string) (*Glob, error) { return NormalizeCompile(p, nil) }

// Overlaps reports whether some repository path matches both g and h. The
// answer is exact: it is decided on the product of the two automata, after
// exact prefilters (literal prefixes and suffixes, literal patterns, and
// `dir/**` subtrees) settle the common cases in a few nanoseconds.
func (g *Glob) Overlaps(h *Glob) bool {
	if g.empty || h.empty || !g.compatible(h) {
		return false
	}
	switch {
	case g.subtree && strings.HasPrefix(h.prefix, g.prefix),
		h.subtree && strings.HasPrefix(g.prefix, h.prefix):
		// Every path of the other pattern lies in the subtree.
		return true
	case g.literal:
		return h.accepts(g.prefix)
	case h.literal:
		return g.accepts(h.prefix)
	}
	return search(g, h, nil)
}

// Witness returns a shortest path that matches both g and h, and whether
// there is one.
func (g *Glob) Witness(h *Glob) (path string, ok bool) {
	if g.empty || h.empty || !g.compatible(h) {
		return "", false
	}
	var w strings.Builder
	if !search(g, h, &w) {
		return "", false
	}
	return w.String(), true
}

// compatible is the prefix and suffix prefilter: it returns false when the
// literal prefixes, or the literal suffixes, of g and h differ at some
// position, since no path can then match both. It stays exact although a
// path of g may also be g.prefix without its final '/' (doublestar matches
// `a/**` against `a`): such a path agrees with g.prefix up to that '/', so it
// can only start with h.prefix, or be h.prefix shortened the same way, if
// h.prefix agrees with g.prefix everywhere they overlap.
func (g *Glob) compatible(h *Glob) bool {
	n := min(len(g.prefix), len(h.prefix))
	if g.prefix[:n] != h.prefix[:n] {
		return false
	}
	n = min(len(g.suffix), len(h.suffix))
	return g.suffix[len(g.suffix)-n:] == h.suffix[len(h.suffix)-n:]
}

// accepts reports whether the automaton accepts path, a path of the
// universe, by simulating it on the set of active states.
func (g *Glob) accepts(path string) bool {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	cur, next := append(sc.queue[:0], 0), sc.next[:0]
	defer func() { sc.queue, sc.next = cur[:0], next[:0] }()
	for _, c := range path {
		stamp := sc.fresh(len(g.accept))
		next = next[:0]
		for _, s := range cur {
			for _, e := range g.edges[g.off[s]:g.off[s+1]] {
				if sc.seen[e.to] != stamp && e.set.contains(c) {
					sc.seen[e.to] = stamp
					next = append(next, e.to)
				}
			}
		}
		if len(next) == 0 {
			return false
		}
		cur, next = next, cur
	}
	for _, s := range cur {
		if g.accept[s] {
			return true
		}
	}
	return false
}

func (s *charSet) contains(c rune) bool {
	if c == '/' {
		return s.slash
	}
	return containsRune(s.r, c)
}

// scratch holds the reusable buffers of automaton searches.
type scratch struct {
	seen   []uint32 // seen[i] == stamp marks state i as visited
	stamp  uint32
	queue  []int32
	next   []int32
	parent []int32 // for witnesses: the state each state was reached from
	via    []rune  // and the rune it was reached by
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// fresh returns a stamp that marks none of the first n states as seen.
func (sc *scratch) fresh(n int) uint32 {
	if len(sc.seen) < n {
		sc.seen = make([]uint32, n)
	}
	sc.stamp++
	if sc.stamp == 0 { // wrapped around: old marks could collide
		clear(sc.seen)
		sc.stamp = 1
	}
	return sc.stamp
}

// search explores the product of g, h and the path universe breadth-first
// and reports whether it reaches a state where both automata accept at the
// end of a path. When w is not nil it writes the shortest such path to w.
//
// A product state is (state of g, state of h, u) where u is 0 at the start
// of a segment (the next rune may not be '/') and 1 inside one (the path may
// end, or continue with '/').
func search(g, h *Glob, w *strings.Builder) bool {
	ng, nh := len(g.accept), len(h.accept)
	total := ng * nh * 2
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	stamp := sc.fresh(total)
	if w != nil && len(sc.parent) < total {
		sc.parent = make([]int32, total)
		sc.via = make([]rune, total)
	}
	queue := append(sc.queue[:0], 0)
	sc.seen[0] = stamp
	defer func() { sc.queue = queue[:0] }()
	for qi := 0; qi < len(queue); qi++ {
		cur := queue[qi]
		a := int(cur) / (nh * 2)
		b := int(cur) / 2 % nh
		inSeg := cur&1 == 1
		if inSeg && g.accept[a] && h.accept[b] {
			if w != nil {
				writePath(w, sc, cur)
			}
			return true
		}
		for _, ea := range g.edges[g.off[a]:g.off[a+1]] {
			base := int(ea.to) * nh * 2
			for _, eb := range h.edges[h.off[b]:h.off[b+1]] {
				if ea.set.slash && eb.set.slash && inSeg {
					if next := int32(base + int(eb.to)*2); sc.seen[next] != stamp {
						sc.seen[next] = stamp
						queue = append(queue, next)
						if w != nil {
							sc.parent[next], sc.via[next] = cur, '/'
						}
					}
				}
				if next := int32(base + int(eb.to)*2 + 1); sc.seen[next] != stamp && rangesMeet(ea.set.r, eb.set.r) {
					sc.seen[next] = stamp
					queue = append(queue, next)
					if w != nil {
						sc.parent[next], sc.via[next] = cur, pickRune(intersectRanges(ea.set.r, eb.set.r))
					}
				}
			}
		}
	}
	return false
}

// writePath writes the runes on the search path from the start to end.
func writePath(w *strings.Builder, sc *scratch, end int32) {
	var rs []rune
	for s := end; s != 0; s = sc.parent[s] {
		rs = append(rs, sc.via[s])
	}
	slices.Reverse(rs)
	w.WriteString(string(rs))
}

// Automaton construction.
//
// The automaton mirrors doublestar.Match step by step. Its states are
// positions of doublestar's matching loop: the rest of the pattern still to
// match (after the brace alternatives chosen so far are spliced in, exactly
// as doublestar splices them), and what is being consumed there. Edges
// consume one rune; the moves doublestar makes without consuming (skipping
// an empty `*`, entering `**/`, choosing an alternative) are folded into
// them, because doublestar only makes them while some of the path is left.
// When the path ends, doublestar accepts if the rest of the pattern can
// match the empty string by its own rule (isZeroLengthPattern, which for
// instance accepts `/**` but not `*/**`); a state accepts exactly when
// doublestar.Match(rest, "") does.
//
// The automaton explores every way to match, where doublestar backtracks
// only to its latest `*` and latest `**/`. The two agree on the patterns
// validate accepts: it rejects the forms where the difference shows (a
// class that matches '/', an alternative of only '*' and '/' after a `*`, an
// expansion that ends with '/').

// nodeKind says what a state is doing at its rest of pattern.
type nodeKind uint8

const (
	atRest   nodeKind = iota // about to match rest
	inStar                   // a `*` before rest has consumed at least one rune
	dsLoop                   // a `**/` before rest has consumed whole segments
	dsChunk                  // a `**/` before rest is inside a segment it skips
	matchAll                 // a final `**` matched: everything that follows matches
	numKinds
)

type nodeKey struct {
	kind nodeKind
	sos  bool // at the start of a pattern segment (doublestar's startOfSegment)
	rest string
}

// builder numbers the states of an automaton under construction. In a
// pattern without braces every rest is a suffix of the pattern, so a key
// is its kind, sos and the length of its rest: the states are numbered in
// a table (bySuffix, each id plus one) instead of a map, whose hashing of
// rests was a third of the cost of compiling a typical pattern. Braces
// splice alternatives into new rests: those are numbered in the map (ids).
type builder struct {
	ids      map[nodeKey]int32
	bySuffix []int32
	keys     []nodeKey
}

// newBuilder returns a builder for pattern, which sizes it, numbering
// states by suffix when bySuffix (pattern must have no braces).
func newBuilder(pattern string, bySuffix bool) *builder {
	// A typical pattern has about one state and one edge per byte.
	b := &builder{keys: make([]nodeKey, 0, len(pattern)+2)}
	if bySuffix {
		b.bySuffix = make([]int32, (len(pattern)+1)*int(numKinds)*2)
	} else {
		b.ids = make(map[nodeKey]int32, len(pattern)+2)
	}
	return b
}

func (b *builder) id(k nodeKey) int32 {
	if b.bySuffix != nil {
		slot := (len(k.rest)*int(numKinds) + int(k.kind)) * 2
		if k.sos {
			slot++
		}
		if id := b.bySuffix[slot]; id > 0 {
			return id - 1
		}
		b.bySuffix[slot] = int32(len(b.keys)) + 1
	} else {
		if id, ok := b.ids[k]; ok {
			return id
		}
		b.ids[k] = int32(len(b.keys))
	}
	b.keys = append(b.keys, k)
	return int32(len(b.keys)) - 1
}

// build compiles a validated pattern.
func build(pattern string) (*Glob, error) {
	m := Meaning(pattern)
	g, err := buildWith(m, newBuilder(m, strings.IndexByte(m, '{') < 0))
	if err != nil {
		return nil, err
	}
	g.pattern = pattern
	return g, nil
}

// Meaning returns the doublestar pattern that matches exactly the paths a
// valid reservation pattern covers: the pattern itself, except that a
// pattern without glob characters (`newdir`, `src/app.py`) covers the path
// it names and everything below it (`newdir/**`), whether or not that is a
// directory today. A directory reserved before it exists is then held all
// the same, and a file's pattern still covers just the file (nothing can
// lie below a file).
func Meaning(pattern string) string {
	if IsLiteral(pattern) {
		return pattern + "/**"
	}
	return pattern
}

// buildWith compiles a validated pattern with builder b.
func buildWith(pattern string, b *builder) (*Glob, error) {
	n := len(pattern) + 2
	b.id(nodeKey{kind: atRest, sos: true, rest: pattern})
	g := &Glob{pattern: pattern, accept: make([]bool, 0, n), off: make([]int32, 0, n+1), edges: make([]edge, 0, n)}
	for i := 0; i < len(b.keys); i++ {
		k := b.keys[i]
		g.off = append(g.off, int32(len(g.edges)))
		switch k.kind {
		case matchAll:
			g.accept = append(g.accept, true)
			g.edges = append(g.edges, edge{setAny, int32(i)})
		case dsChunk:
			g.accept = append(g.accept, false)
			g.edges = append(g.edges,
				edge{setNonSlash, int32(i)},
				edge{setSlash, b.id(nodeKey{kind: dsLoop, sos: true, rest: k.rest})})
		case dsLoop:
			g.accept = append(g.accept, zeroLength(k.rest))
			g.edges = append(g.edges,
				edge{setNonSlash, b.id(nodeKey{kind: dsChunk, sos: true, rest: k.rest})},
				edge{setSlash, int32(i)})
			g.edges = b.moves(g.edges, k.rest, true)
		case inStar:
			g.accept = append(g.accept, zeroLength(k.rest))
			g.edges = append(g.edges, edge{setNonSlash, int32(i)})
			g.edges = b.moves(g.edges, k.rest, false)
		case atRest:
			g.accept = append(g.accept, zeroLength(k.rest))
			g.edges = b.moves(g.edges, k.rest, k.sos)
		}
		if len(b.keys) > maxStates || len(g.edges) > maxEdges {
			return nil, invalid(pattern, "the pattern is too complex (its automaton exceeds %d states or %d edges); split it into simpler patterns", maxStates, maxEdges)
		}
	}
	g.off = append(g.off, int32(len(g.edges)))
	g.literalFacts()
	return g, nil
}

// zeroLength reports whether doublestar accepts when the path has ended and
// rest of the pattern is left.
func zeroLength(rest string) bool { return doublestar.MatchUnvalidated(rest, "") }

// moves appends the edges doublestar's loop can take from rest of pattern
// with at least one rune of path left; sos is its startOfSegment flag.
func (b *builder) moves(out []edge, rest string, sos bool) []edge {
	if rest == "" {
		return out
	}
	switch rest[0] {
	case '*':
		after := rest[1:]
		if len(rest) > 1 && rest[1] == '*' {
			after = rest[2:]
			if sos && after == "" {
				// `**` ends the pattern at a segment start: doublestar
				// returns true whatever is left of the path.
				return append(out, edge{setAny, b.id(nodeKey{kind: matchAll})})
			}
			if sos && after[0] == '/' {
				// `**/`: zero or more segments, each a run of non-slashes
				// and a slash, then the rest at a segment start.
				after = after[1:]
				out = append(out,
					edge{setNonSlash, b.id(nodeKey{kind: dsChunk, sos: true, rest: after})},
					edge{setSlash, b.id(nodeKey{kind: dsLoop, sos: true, rest: after})})
				return b.moves(out, after, true)
			}
			// elsewhere `**` is a plain `*`
		}
		out = append(out, edge{setNonSlash, b.id(nodeKey{kind: inStar, rest: after})})
		return b.moves(out, after, false)
	case '?':
		return append(out, edge{setNonSlash, b.id(nodeKey{kind: atRest, rest: rest[1:]})})
	case '[':
		c, _ := parseClass(rest, 0) // validated
		return append(out, edge{newCharSet(c.ranges, c.negate), b.id(nodeKey{kind: atRest, rest: rest[c.end:]})})
	case '{':
		closing := indexMatchedClosingAlt(rest[1:]) + 1
		after := rest[closing+1:]
		alts := rest[1:closing]
		for {
			comma := indexNextAlt(alts)
			if comma < 0 {
				break
			}
			out = b.moves(out, alts[:comma]+after, sos)
			alts = alts[comma+1:]
		}
		return b.moves(out, alts+after, sos)
	case '\\':
		rest = rest[1:]
	}
	c, n := utf8.DecodeRuneInString(rest)
	return append(out, edge{literalSet(c), b.id(nodeKey{kind: atRest, sos: c == '/', rest: rest[n:]})})
}

// indexMatchedClosingAlt returns the index of the '}' that closes the brace
// opened just before s, skipping escapes, classes and nested braces, as
// doublestar does.
func indexMatchedClosingAlt(s string) int { return scanAlt(s, false) }

// indexNextAlt returns the index of the first ',' of s outside nested
// braces, escapes and classes, or -1, as doublestar does.
func indexNextAlt(s string) int { return scanAlt(s, true) }

// scanAlt scans the inside of a brace for its closing '}' or, with comma,
// for the first ',' at its own level, whichever the caller asks for.
func scanAlt(s string, comma bool) int {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = skipClass(s, i)
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 && !comma {
				return i
			}
		case ',':
			if comma && depth == 1 {
				return i
			}
		}
	}
	return -1
}

// skipClass returns the index of the ']' closing the class at s[i], the way
// doublestar's brace scanner finds it.
func skipClass(s string, i int) int {
	for i++; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		} else if s[i] == ']' {
			break
		}
	}
	return i
}

// literalFacts fills in the prefilter facts from the pattern text.
func (g *Glob) literalFacts() {
	p := g.pattern
	var prefix strings.Builder
	i := 0
	for ; i < len(p); i++ {
		c := p[i]
		if c == '*' || c == '?' || c == '[' || c == '{' {
			break
		}
		if c == '\\' {
			i++
			c = p[i]
		}
		prefix.WriteByte(c)
	}
	g.prefix = prefix.String()
	g.literal = i == len(p)
	g.subtree = p[i:] == "**" && (i == 0 || p[i-1] == '/') // `\/` is rejected by validate

	// The suffix: the literal runes after the last metacharacter outside
	// braces. doublestar only accepts a path that ends before the pattern
	// does when the rest of the pattern is made of '*', '/' and braces, and
	// validate rejects patterns that end with '/', so a pattern that ends
	// with a literal rune only matches paths that end with its suffix.
	start, depth := 0, 0
	for j := 0; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '[':
			j = skipClass(p, j)
			start = j + 1
		case '{':
			depth++
		case '}':
			depth--
			start = j + 1
		case '*', '?':
			start = j + 1
		}
		if depth > 0 {
			start = j + 1
		}
	}
	g.suffix = Unescape(p[start:])
}

// matchesEverySegment reports whether g matches every path of one segment,
// by a subset construction over the runes that g's edges tell apart.
func (g *Glob) matchesEverySegment() bool {
	if g.prefix != "" || g.suffix != "" {
		// A segment that starts, or ends, with another rune does not match.
		return false
	}
	// One representative rune for each class of segment runes that no edge
	// distinguishes.
	var cuts []rune
	for _, r := range nonSlashRanges {
		cuts = append(cuts, r.lo, r.hi+1)
	}
	for _, e := range g.edges {
		for _, r := range e.set.r {
			cuts = append(cuts, r.lo, r.hi+1)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var reps []rune
	for _, c := range cuts {
		if containsRune(nonSlashRanges, c) {
			reps = append(reps, c)
		}
	}

	const maxSets = 4096
	seen := map[string]bool{}
	work := [][]int32{{0}}
	for len(work) > 0 {
		set := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range reps {
			var next []int32
			for _, s := range set {
				for _, e := range g.edges[g.off[s]:g.off[s+1]] {
					if containsRune(e.set.r, c) && !slices.Contains(next, e.to) {
						next = append(next, e.to)
					}
				}
			}
			slices.Sort(next)
			key := fmt.Sprint(next)
			if seen[key] {
				continue
			}
			if !slices.ContainsFunc(next, func(s int32) bool { return g.accept[s] }) || len(seen) >= maxSets {
				return false
			}
			seen[key] = true
			work = append(work, next)
		}
	}
	return true
}
