package glob

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/glob/globtest"
	"github.com/bmatcuk/doublestar/v4"
)

// inUniverse reports whether p is a path overlap is decided over: non-empty
// valid UTF-8, no NUL, no empty segment, no leading or trailing slash.
func inUniverse(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.HasSuffix(p, "/") &&
		!strings.Contains(p, "//") && !strings.ContainsRune(p, 0) && strings.ToValidUTF8(p, "") == p
}

// dsMatch is doublestar.Match of the pattern's Meaning (a pattern without
// glob characters covers the path and everything below it), failing the
// test on a pattern error.
func dsMatch(t testing.TB, pattern, path string) bool {
	t.Helper()
	ok, err := doublestar.Match(Meaning(pattern), path)
	if err != nil {
		t.Fatalf("doublestar.Match(%q, %q): %v", pattern, path, err)
	}
	return ok
}

var overlapCases = []struct {
	a, b string
	want bool
}{
	// from the spec
	{"src/*.py", "src/a*", true},
	{"src/*.py", "src/*.go", false},
	{"**/*.md", "docs/x.md", true},
	{"src/**", "src/a/b.go", true},
	{"src/**", "srcx/a", false},
	{"{a,b}/x", "b/*", true},
	{"{a,b}/x", "c/*", false},
	{"[a-c]*.go", "b.go", true},
	{"[!a]*", "a", false},
	{"?", "ab", false},
	{"**", "any/thing/at/all.txt", true},
	{"**", "x", true},
	{"a/**/b", "a/b", true},
	// `a/**` covers a itself, as doublestar.Match does
	{"src/**", "src", true},
	{"src/**", "src/*", true},
	{"src/api/**", "src/*", true},
	{"src/api/**", "src/*.go", false},
	{"src/**", "sr?", true}, // src
	{"src/**", "sr?x", false},
	// ...but `a*/**` does not match `a` in doublestar (`a` covers a/x too)
	{"a*/**", "a", true},
	{"a*/**", "a/x", true},
	{"a*/x/**", "a", true},
	{"a*/*.go", "a/x.py", false},
	{"a*/**", "ab", true},
	{"a*/**", "a/x", true},
	// directories and depth
	{"src/*", "src/a/b", false},
	{"src/*/b", "src/**/b", true},
	{"*/b", "a/*", true},
	{"a/b", "a/b/c", true}, // a literal pattern covers what is below it
	{"a/b", "a", true},
	{"a/b", "a/c", false},
	{"a/b", "a/bc", false},
	{"a/b/c", "a/b/c", true},
	{"**/x/**", "y/**", true},
	{"**/a/**/b", "b", true},   // b/a/b
	{"**/a/**/b", "b*", false}, // b* is a glob: one segment
	{"**/a/**/b", "c/*", false},
	{"**/a/**/b", "a/**", true},
	{"**/*.md", "src/api/**", true},
	{"**/test_*.py", "tests/**", true},
	{"a?c", "a/c", false},
	{"src/**/main.go", "src/api/*.go", true},
	{"src/**/main.go", "src/api/*.py", false},
	// braces
	{"{a,b/c}/d", "b/*/d", true},
	{"{a,b/c}/d", "b/d", false},
	{"*.{go,py}", "*.py", true},
	{"*.{go,py}", "*.rs", false},
	{"{src,docs}/{a,b}.{md,txt}", "docs/b.txt", true},
	{"{src,docs}/{a,b}.{md,txt}", "docs/c.txt", false},
	{"x{,.orig}", "x", true},
	{"x{,.orig}", "x.orig", true},
	{"x{,.orig}", "x.bak", false},
	// classes
	{"?", "[!a]", true},
	{"[ab]", "[!ab]", false},
	{"[a-c]", "[c-e]", true},
	{"[a-c]", "[d-f]", false},
	{"[!a]", "[!b]", true},
	{"[^a-y]", "[!b-z]", true}, // "0"
	{"[a-y]", "[!a-y]", false},
	// dotfiles: nothing special in doublestar, * and ** match them
	{"*", ".gitignore", true},
	{"**", ".github/workflows/ci.yml", true},
	{"*.md", ".md", true},
	{"[!.]*", ".env", false},
	{".*", "*.go", true},
	{"**/.*", "a/.b", true},
	{"**/.*", "a/b", true}, // a/b/.x
	{"**/.*", "a/*", true},
	{"*/.*", "a/b", false},
	// a directory reserved before it exists: a literal pattern covers the
	// path and everything below it
	{"newdir", "newdir/**", true},
	{"newdir", "newdir/*.py", true},
	{"newdir", "newdir/f.py", true},
	{"newdir", "newdir", true},
	{"newdir", "newdir*", true},
	{"newdir", "*/f.py", true},
	{"newdir", "newdir2/**", false},
	{"newdir", "newdir.py", false},
	{"newdir", "*.py", false},
	{"src/app.py", "src/*.go", false},
	{"src/app.py", "src/*.py", true},
	// escaped metacharacters
	{`a\*`, "a?", true},
	{`a\*`, "ab", false},
	{`\[x\]`, "?x?", true},
	{`\{a,b\}`, "{a,b}", false},
	{`\{a,b\}`, "*", true},
	{`a\?`, "a[?]", true},
	// non-ASCII
	{"é*", "?x", true},
	{"[à-ÿ]", "é", true},
	{"[à-ÿ]", "e", false},
	// normalization applies
	{"./src/", "src/a.go", true},
	{".", "x/y", true},
	// invalid patterns overlap nothing
	{"/etc/passwd", "**", false},
	{"**", "../x", false},
}

func TestOverlapTable(t *testing.T) {
	for _, c := range overlapCases {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Overlap(c.b, c.a); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v (reversed)", c.b, c.a, got, c.want)
		}
	}
}

func TestWitness(t *testing.T) {
	for _, c := range overlapCases {
		ga, errA := compileNormalized(c.a)
		gb, errB := compileNormalized(c.b)
		if errA != nil || errB != nil {
			continue
		}
		w, ok := ga.Witness(gb)
		if ok != c.want {
			t.Errorf("Witness(%q, %q) ok = %v, want %v", c.a, c.b, ok, c.want)
			continue
		}
		if ok && (!inUniverse(w) || !dsMatch(t, ga.String(), w) || !dsMatch(t, gb.String(), w)) {
			t.Errorf("Witness(%q, %q) = %q, which does not match both", c.a, c.b, w)
		}
	}
	for _, c := range []struct{ a, b, want string }{
		{"src/*.py", "src/a*", "src/a.py"},
		{"src/**", "src/a/b.go", "src/a/b.go"},
		{"src/api/**", "src/*", "src/api"},
		{"{a,b}/x", "b/*", "b/x"},
		{"[!/a]", "?", "b"},
		{`a\*`, "a?", "a*"},
	} {
		w, ok := MustCompile(c.a).Witness(MustCompile(c.b))
		if !ok || w != c.want {
			t.Errorf("Witness(%q, %q) = %q, %v; want %q", c.a, c.b, w, ok, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, p := range []string{"", "/x", "a/../b", "[abc", "a{b", "[!a]", "./x", "a/", "{a/,b}", "*{,a}", "src\\x"} {
		g, err := Compile(p)
		if err == nil || !errors.Is(err, ErrInvalidPattern) || g != nil {
			t.Errorf("Compile(%q) = %v, %v; want an ErrInvalidPattern", p, g, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustCompile of an invalid pattern did not panic")
		}
	}()
	MustCompile("[")
}

func TestGlobString(t *testing.T) {
	if g := MustCompile("src/**/*.go"); g.String() != "src/**/*.go" {
		t.Errorf("String() = %q", g.String())
	}
}

// enumerate returns every concatenation of 0..maxLen items of alpha.
func enumerate(alpha []string, maxLen int) []string {
	out, layer := []string{""}, []string{""}
	for range maxLen {
		var next []string
		for _, s := range layer {
			for _, a := range alpha {
				next = append(next, s+a)
			}
		}
		out, layer = append(out, next...), next
	}
	return out
}

// TestAutomatonAgreesWithDoublestar compares the compiled automaton with
// doublestar.Match on every pattern of up to four tokens and every path of
// up to four characters over a small alphabet. This is what makes the
// overlap test exact: the automaton accepts exactly what doublestar does.
func TestAutomatonAgreesWithDoublestar(t *testing.T) {
	var paths []string
	for _, p := range enumerate([]string{"a", "b", "/", "."}, 4) {
		if inUniverse(p) {
			paths = append(paths, p)
		}
	}
	tokens := []string{"a", "/", "*", "**", "?", "[!/a]", "{a,b/c}", "{,a}", "{**,b}", `\*`}
	compiled := 0
	for _, p := range enumerate(tokens, 4) {
		g, err := Compile(p)
		if err != nil {
			continue
		}
		compiled++
		for _, path := range paths {
			if got, want := g.accepts(path), dsMatch(t, p, path); got != want {
				t.Fatalf("pattern %q, path %q: automaton %v, doublestar.Match %v", p, path, got, want)
			}
		}
	}
	if compiled < 1000 {
		t.Fatalf("only %d patterns compiled", compiled)
	}
}

// TestOverlapProperties checks, on random normalized patterns and paths
// (seeded, so reproducible):
//  1. Overlaps is symmetric;
//  2. when Overlaps is true, Witness returns a path that doublestar.Match
//     matches with both patterns, and Witness fails when Overlaps is false;
//  3. when a generated path matches both patterns under doublestar.Match,
//     Overlaps is true;
//  4. Overlaps (prefilters, then the automaton) and the bare automaton
//     search agree.
func TestOverlapProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var globs []*Glob
	seen := map[string]bool{}
	for len(globs) < 300 {
		p, err := NormalizePattern(globtest.RandomPattern(rng), nil)
		if err != nil || seen[p] {
			continue
		}
		seen[p] = true
		g, err := Compile(p)
		if err != nil {
			t.Fatalf("Compile(%q) of a normalized pattern: %v", p, err)
		}
		globs = append(globs, g)
	}
	paths := make([]string, 400)
	for i := range paths {
		paths[i] = globtest.RandomPath(rng)
	}
	// matches[i][j]: glob i matches path j
	matches := make([][]bool, len(globs))
	for i, g := range globs {
		matches[i] = make([]bool, len(paths))
		for j, p := range paths {
			matches[i][j] = dsMatch(t, g.String(), p)
		}
	}
	overlapping := 0
	for i, g := range globs {
		for k := i; k < len(globs); k++ {
			h := globs[k]
			got := g.Overlaps(h)
			if got != h.Overlaps(g) {
				t.Fatalf("Overlaps(%q, %q) is not symmetric", g, h)
			}
			if full := search(g, h, nil); got != full {
				t.Fatalf("Overlaps(%q, %q) = %v but the automaton says %v", g, h, got, full)
			}
			w, ok := g.Witness(h)
			if ok != got {
				t.Fatalf("Witness(%q, %q) ok = %v, Overlaps = %v", g, h, ok, got)
			}
			if ok && (!inUniverse(w) || !dsMatch(t, g.String(), w) || !dsMatch(t, h.String(), w)) {
				t.Fatalf("Witness(%q, %q) = %q does not match both", g, h, w)
			}
			if got {
				overlapping++
				continue
			}
			for j, p := range paths {
				if matches[i][j] && matches[k][j] {
					t.Fatalf("%q matches both %q and %q, but Overlaps is false", p, g, h)
				}
			}
		}
	}
	pairs := len(globs) * (len(globs) + 1) / 2
	if overlapping < pairs/10 || overlapping > pairs*9/10 {
		t.Errorf("%d of %d pairs overlap: the generator is too lopsided to test much", overlapping, pairs)
	}
}

// FuzzOverlap checks, on any input, that nothing panics, that invalid
// patterns are reported as ErrInvalidPattern, that the automaton agrees with
// doublestar.Match, and that overlaps are symmetric, witnessed and agree
// with the bare automaton.
func FuzzOverlap(f *testing.F) {
	for _, c := range overlapCases {
		f.Add(c.a, c.b, "src/a.py")
	}
	f.Add("a/**", "a", "a")
	f.Add("**/a*{,a}", "a/a", "a/a")
	f.Add("*[!a]*c", "b/c", "b/c")
	f.Add("[!a}]", "a", "a")
	f.Add("x/{a/,b}", "x/**", "x/b")
	f.Fuzz(func(t *testing.T, a, b, path string) {
		ga, gb := fuzzCompile(t, a), fuzzCompile(t, b)
		if ga == nil || gb == nil {
			return
		}
		if inUniverse(path) {
			ma, mb := dsMatch(t, ga.String(), path), dsMatch(t, gb.String(), path)
			if ga.accepts(path) != ma || gb.accepts(path) != mb {
				t.Fatalf("automaton and doublestar.Match disagree on %q with %q or %q", path, ga, gb)
			}
			if ma && mb && !ga.Overlaps(gb) {
				t.Fatalf("%q matches both %q and %q, but Overlaps is false", path, ga, gb)
			}
		}
		got := ga.Overlaps(gb)
		if got != gb.Overlaps(ga) {
			t.Fatalf("Overlaps(%q, %q) is not symmetric", ga, gb)
		}
		if full := search(ga, gb, nil); got != full {
			t.Fatalf("Overlaps(%q, %q) = %v but the automaton says %v", ga, gb, got, full)
		}
		w, ok := ga.Witness(gb)
		if ok != got {
			t.Fatalf("Witness(%q, %q) ok = %v, Overlaps = %v", ga, gb, ok, got)
		}
		if ok && (!inUniverse(w) || !dsMatch(t, ga.String(), w) || !dsMatch(t, gb.String(), w)) {
			t.Fatalf("Witness(%q, %q) = %q does not match both", ga, gb, w)
		}
	})
}

// fuzzCompile normalizes and compiles p, checking the error contracts; it
// returns nil for an invalid pattern.
func fuzzCompile(t *testing.T, p string) *Glob {
	if _, err := Compile(p); err != nil && !errors.Is(err, ErrInvalidPattern) {
		t.Fatalf("Compile(%q): error %v does not wrap ErrInvalidPattern", p, err)
	}
	n, err := NormalizePattern(p, nil)
	if err != nil {
		if !errors.Is(err, ErrInvalidPattern) {
			t.Fatalf("NormalizePattern(%q): error %v does not wrap ErrInvalidPattern", p, err)
		}
		return nil
	}
	if again, err := NormalizePattern(n, nil); err != nil || again != n {
		t.Fatalf("NormalizePattern(%q) = %q, but normalizing that gives %q, %v", p, n, again, err)
	}
	g, err := Compile(n)
	if err != nil {
		t.Fatalf("Compile(%q) of the normalized %q: %v", n, p, err)
	}
	return g
}

// realisticPatterns returns n reservation patterns shaped like those agents
// take in a mid-sized repository: subtrees, single files, per-directory
// globs, a few repo-wide globs.
func realisticPatterns(rng *rand.Rand, n int) []string {
	tops := []string{"src", "internal", "cmd", "pkg", "docs", "web", "scripts", "test"}
	dirs := []string{"api", "store", "auth", "mail", "cli", "db", "util", "http", "grpc", "config", "search", "ui", "jobs", "queue", "cache"}
	files := []string{"main", "server", "client", "handler", "model", "db", "types", "errors", "util", "config", "routes", "index"}
	exts := []string{"go", "py", "ts", "md", "sql", "yaml"}
	var out []string
	for len(out) < n {
		top, dir, sub := tops[rng.IntN(len(tops))], dirs[rng.IntN(len(dirs))], dirs[rng.IntN(len(dirs))]
		file, ext := files[rng.IntN(len(files))], exts[rng.IntN(len(exts))]
		var p string
		switch k := rng.IntN(100); {
		case k < 30:
			p = fmt.Sprintf("%s/%s/**", top, dir)
		case k < 60:
			p = fmt.Sprintf("%s/%s/%s/%s.%s", top, dir, sub, file, ext)
		case k < 70:
			p = fmt.Sprintf("%s/%s/*.%s", top, dir, ext)
		case k < 78:
			p = fmt.Sprintf("%s/%s/*_test.%s", top, dir, ext)
		case k < 85:
			p = fmt.Sprintf("%s/%s/%s/**", top, dir, sub)
		case k < 90:
			p = fmt.Sprintf("%s/%s/{%s,%s}.%s", top, dir, file, files[rng.IntN(len(files))], ext)
		case k < 95:
			p = fmt.Sprintf("%s/**/%s.%s", top, file, ext)
		case k < 98:
			p = fmt.Sprintf("%s/%s/%s_*.%s", top, dir, file, ext)
		default:
			p = fmt.Sprintf("**/*.%s", ext)
		}
		out = append(out, p)
	}
	return out
}

func compileAll(tb testing.TB, ps []string) []*Glob {
	gs := make([]*Glob, len(ps))
	for i, p := range ps {
		g, err := Compile(p)
		if err != nil {
			tb.Fatal(err)
		}
		gs[i] = g
	}
	return gs
}

// BenchmarkOverlap50x1000 checks 50 new patterns against 1,000 active ones:
// one op is the whole 50,000-pair check of a reservation command.
func BenchmarkOverlap50x1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	active := compileAll(b, realisticPatterns(rng, 1000))
	fresh := compileAll(b, realisticPatterns(rng, 50))
	b.ReportAllocs()
	conflicts := 0
	for b.Loop() {
		conflicts = 0
		for _, g := range fresh {
			for _, h := range active {
				if g.Overlaps(h) {
					conflicts++
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/50000, "ns/pair")
	b.ReportMetric(float64(conflicts), "conflicts")
}

// BenchmarkOverlapAutomaton measures pairs that no prefilter settles, so
// that the product automaton decides them.
func BenchmarkOverlapAutomaton(b *testing.B) {
	pairs := [][2]*Glob{
		{MustCompile("**/*.md"), MustCompile("src/api/**")},
		{MustCompile("src/api/*.go"), MustCompile("src/api/*_test.go")},
		{MustCompile("src/**/main.go"), MustCompile("src/*/cmd/**")},
		{MustCompile("internal/{store,mail}/*.go"), MustCompile("internal/*/db.{go,sql}")},
	}
	for _, p := range pairs {
		b.Run(p[0].String()+"~"+p[1].String(), func(b *testing.B) {
			for b.Loop() {
				p[0].Overlaps(p[1])
			}
		})
	}
}

// TestCompileRemembers: a pattern compiled lately is not compiled again
// (normalizing one, as release does, finds the Glob reserve made), and
// what is remembered stays bounded: a pattern not used since 2*maxGlobs
// others were is compiled afresh.
func TestCompileRemembers(t *testing.T) {
	first := MustCompile("remember/me/*.go")
	g, err := NormalizeCompile("./remember//me/*.go", nil)
	if err != nil || g != first {
		t.Fatalf("normalizing the same pattern: %p, %v; want the Glob compiled before, %p", g, err, first)
	}
	for i := range maxGlobs {
		MustCompile(fmt.Sprintf("other/%d/**", i))
	}
	if again := MustCompile("remember/me/*.go"); again != first {
		t.Fatalf("a pattern of the old generation was compiled again")
	}
	for i := range 2 * maxGlobs {
		MustCompile(fmt.Sprintf("more/%d/**", i))
	}
	if again := MustCompile("remember/me/*.go"); again == first || !again.Overlaps(MustCompile("remember/**")) {
		t.Fatalf("a pattern unused for %d others: the same Glob %p, or a wrong one", 2*maxGlobs, again)
	}
	if n := len(compiled.new) + len(compiled.old); n > 2*maxGlobs {
		t.Fatalf("%d Globs remembered; want at most %d", n, 2*maxGlobs)
	}
}

// Numbering a brace-free pattern's states by suffix builds the automaton
// the map of whole keys builds, state for state.
func TestBuildBySuffix(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	built := 0
	for range 8000 {
		p := globtest.RandomPattern(rng)
		if strings.IndexByte(p, '{') >= 0 || validate(p) != nil {
			continue
		}
		byMap, err := buildWith(p, newBuilder(p, false))
		if err != nil {
			continue // too complex, both ways
		}
		bySuffix, err := buildWith(p, newBuilder(p, true))
		if err != nil {
			t.Fatalf("%q by suffix: %v", p, err)
		}
		if !reflect.DeepEqual(bySuffix, byMap) {
			t.Fatalf("%q by suffix:\n%+v\nby map:\n%+v", p, bySuffix, byMap)
		}
		built++
	}
	if built < 1000 {
		t.Fatalf("only %d brace-free patterns built", built)
	}
}
