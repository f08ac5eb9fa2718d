package reservations

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/store"
)

// near finds, through the index of literal directories, exactly the
// active reservations, the agent's own and the others', whose literal
// directory meets (glob.DirsMeet) one of the directories asked about: what
// Reserve judges conflicts with and extends.
func TestNearByDirectory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	segs := []string{"a", "b", "ab", "a.b", "a0", "a-"} // "0" and "-" sort around '/'
	dir := func() string {
		parts := make([]string, rng.IntN(4))
		for i := range parts {
			parts[i] = segs[rng.IntN(len(segs))]
		}
		return strings.Join(parts, "/")
	}
	w := newWorld(t)
	ctx := context.Background()
	var held []string // "agent pattern"
	for _, agent := range []string{"BlueLake", "GreenCastle"} {
		var pats []string
		for range 100 {
			d := dir()
			p := []string{"**", "*.go", "x.md"}[rng.IntN(3)]
			if d != "" {
				p = d + "/" + p
			}
			pats = append(pats, p)
		}
		if _, err := w.as(agent).Reserve(ctx, pats, Options{TTL: time.Hour, AllowConflicts: true}); err != nil {
			t.Fatal(err)
		}
		for _, p := range slices.Compact(slices.Sorted(slices.Values(pats))) {
			held = append(held, agent+" "+p)
		}
	}
	// Released and expired ones are not near.
	if _, err := w.as("BlueLake").Reserve(ctx, []string{"**", "a/**"}, Options{TTL: time.Minute, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	w.advance(2 * time.Minute)
	if _, err := w.as("GreenCastle").Reserve(ctx, []string{"b/y.md", "a/b/z.txt"}, Options{TTL: time.Hour, AllowConflicts: true, Shared: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.as("GreenCastle").Release(ctx, Selector{Patterns: []string{"b/y.md", "a/b/z.txt"}}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(held)
	g := w.as("GreenCastle")
	for range 300 {
		dirs := make([]string, 1+rng.IntN(3))
		for i := range dirs {
			dirs[i] = dir()
		}
		var got []string
		err := w.st.Snapshot(ctx, func(q store.Querier) error {
			sc, err := g.scope(ctx, q)
			if err != nil {
				return err
			}
			rs, err := g.near(ctx, sc, w.now(), dirs)
			for _, r := range rs {
				got = append(got, r.Agent+" "+r.Pattern)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, h := range held {
			_, p, _ := strings.Cut(h, " ")
			if slices.ContainsFunc(dirs, func(d string) bool { return glob.DirsMeet(d, glob.LiteralDir(p)) }) {
				want = append(want, h)
			}
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Fatalf("reservations near %q: %q, want %q", dirs, got, want)
		}
	}
}

// A release or renewal by pattern chooses among the agent's leases in the
// patterns' directories (and those containing them), read through the
// directory index, not among all of its active ones.
func TestHeldByDirectory(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	for _, a := range []string{"GreenCastle", "BlueLake"} {
		if _, err := w.as(a).Reserve(ctx, []string{"a/*.go", "a/b/**", "c/x.md", "*.md"}, Options{TTL: time.Hour, Shared: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		sel  Selector
		want []string
	}{
		{Selector{Patterns: []string{"a/*.go"}}, []string{"*.md", "a/*.go", "a/b/**"}},
		{Selector{Patterns: []string{"c/x.md", "./c/x.md"}}, []string{"*.md", "c/x.md"}},
		{Selector{Patterns: []string{"a/*.go"}, IDs: []string{"01ZZZZZZ"}}, []string{"*.md", "a/*.go", "a/b/**", "c/x.md"}},
		{Selector{All: true}, []string{"*.md", "a/*.go", "a/b/**", "c/x.md"}},
	} {
		sel, err := tt.sel.normalize(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		err = w.st.Snapshot(ctx, func(q store.Querier) error {
			sc, err := g.scope(ctx, q)
			if err != nil {
				return err
			}
			held, err := g.held(ctx, sc, w.now(), sel)
			for _, r := range held {
				if r.Agent != g.agent {
					t.Errorf("%+v: held has %s's %s", tt.sel, r.Agent, r.Pattern)
				}
				got = append(got, r.Pattern)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Sort(got); !slices.Equal(got, tt.want) {
			t.Errorf("held for %+v: %q, want %q", tt.sel, got, tt.want)
		}
	}
	released, err := g.Release(ctx, Selector{Patterns: []string{"./a/*.go"}})
	if err != nil || len(released) != 1 || released[0].Agent != "GreenCastle" || released[0].Pattern != "a/*.go" {
		t.Fatalf("release of a/*.go: %+v, %v", released, err)
	}
	if _, err := g.Release(ctx, Selector{Patterns: []string{"a/*.go"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a second release of a/*.go: %v, want ErrNotFound", err)
	}
}

// Covering returns every active exclusive reservation that covers one of
// the paths, as written or ignoring case (as the guard's matcher judges
// it), however the case and the letters beyond ASCII fall; and, with many
// leases in unrelated directories, few others.
func TestCoveringByDirectory(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	segs := []string{"a", "A", "b", "ab", "aB", "a.b", "a0", "a-", "é", "É", "k", "\u212a"} // U+212A KELVIN SIGN lowers to "k"
	name := func(min int) string {
		parts := make([]string, min+rng.IntN(3))
		for i := range parts {
			parts[i] = segs[rng.IntN(len(segs))]
		}
		return strings.Join(parts, "/")
	}
	w := newWorld(t)
	ctx := context.Background()
	var pats []string
	for range 150 {
		d := name(0)
		p := []string{"**", "*.go", "x.md", "[ab]*/**"}[rng.IntN(4)]
		if d != "" {
			p = d + "/" + p
		}
		pats = append(pats, p)
	}
	for range 20 {
		pats = append(pats, name(1)) // literal paths
	}
	if _, err := w.as("BlueLake").Reserve(ctx, pats, Options{TTL: time.Hour, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	// Shared, released and expired ones are never returned.
	if _, err := w.as("RedFox").Reserve(ctx, []string{"**"}, Options{TTL: time.Minute, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	w.advance(2 * time.Minute)
	if _, err := w.as("GreenCastle").Reserve(ctx, []string{"a/**", "A/b/**"}, Options{TTL: time.Hour, AllowConflicts: true, Shared: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.as("GreenCastle").Reserve(ctx, []string{"b/**"}, Options{TTL: time.Hour, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.as("GreenCastle").Release(ctx, Selector{Patterns: []string{"b/**"}}); err != nil {
		t.Fatal(err)
	}
	all, err := w.as("BlueLake").List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var active []Reservation
	for _, r := range all {
		if r.Exclusive {
			active = append(active, r)
		}
	}
	m := glob.NewMatcher(patternsOf(active))
	g := w.as("GreenCastle")
	for range 400 {
		paths := make([]string, 1+rng.IntN(3))
		for i := range paths {
			paths[i] = name(1) + []string{"", "/x.go", "/X.md", "/a.go"}[rng.IntN(4)]
		}
		got, err := g.Covering(ctx, "GreenCastle", func() ([]string, error) { return paths, nil })
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, r := range got {
			if !r.Exclusive || r.Agent != "BlueLake" {
				t.Fatalf("covering %q returned %s's %s (exclusive %v)", paths, r.Agent, r.Pattern, r.Exclusive)
			}
			ids[r.ID] = true
		}
		for _, p := range paths {
			for _, i := range m.Match(p, true) {
				if !ids[active[i].ID] {
					t.Fatalf("covering %q misses %s, which covers %q ignoring case", paths, active[i].Pattern, p)
				}
			}
		}
	}

	// Among many leases in other directories, only the nearby ones are read.
	var many []string
	for i := range 500 {
		many = append(many, fmt.Sprintf("far/d%d/**", i))
	}
	if _, err := w.as("SilverFalcon").Reserve(ctx, many, Options{TTL: time.Hour, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	got, err := g.Covering(ctx, "", func() ([]string, error) { return []string{"FAR/D7/x.go"}, nil })
	if err != nil {
		t.Fatal(err)
	}
	var far []string
	for _, r := range got {
		if r.Agent == "SilverFalcon" {
			far = append(far, r.Pattern)
		}
	}
	if !slices.Equal(far, []string{"far/d7/**"}) {
		t.Errorf("covering FAR/D7/x.go read %q of SilverFalcon's 500, want only far/d7/**", far)
	}
}

// Covering asks for the paths only when an agent other than the one
// named holds something exclusively, and fails when they cannot be known.
func TestCoveringAsksOnlyWhenHeld(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	check := func(except string, want bool) {
		t.Helper()
		asked := false
		rs, err := g.Covering(ctx, except, func() ([]string, error) { asked = true; return []string{"b/x"}, nil })
		if err != nil || asked != want || !want && len(rs) != 0 {
			t.Errorf("Covering(%q): asked %v, %d reservations, %v; want asked %v", except, asked, len(rs), err, want)
		}
	}
	check("", false)
	if _, err := w.as("BlueLake").Reserve(ctx, []string{"a/**"}, Options{TTL: time.Hour, Shared: true}); err != nil {
		t.Fatal(err)
	}
	check("", false) // shared
	if _, err := w.as("BlueLake").Reserve(ctx, []string{"b/**"}, Options{TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	check("", true)
	check("bluelake", false)
	check("GreenCastle", true)
	if _, err := g.Covering(ctx, "", func() ([]string, error) { return nil, errors.New("git failed") }); err == nil || err.Error() != "git failed" {
		t.Errorf("Covering when the paths cannot be known: %v, want git's error", err)
	}
	w.advance(2 * time.Minute)
	check("GreenCastle", false) // expired
}
