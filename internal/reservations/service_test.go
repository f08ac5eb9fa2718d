package reservations

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/glob/globtest"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/sqlitetest"
	"github.com/agentmail/agentmail/internal/store"
)

// world is a store with a fake clock and a project with two agents.
type world struct {
	t     testing.TB
	st    *store.Store
	mu    sync.Mutex
	clock time.Time
	tick  time.Duration // the clock moves on by this at every reading
}

func newWorld(t testing.TB) *world { return newWorldOpts(t, store.Options{}) }

// newWorldOpts is newWorld with a store opened with opts, whose clock and
// projections it sets.
func newWorldOpts(t testing.TB, opts store.Options) *world {
	w := &world{t: t, clock: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	opts.Now, opts.Projections = w.now, []store.Projection{Projection(), mailbox.Projection()}
	st, err := store.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w.st = st
	err = st.Update(context.Background(), func(tx *store.Tx) error {
		tx.Put(&record.Project{Key: "k", Slug: "shop-00000000", Created: w.clock})
		// Registered: the index keeps no lease of an agent that is not
		// (see mailbox's Admit).
		for _, a := range []string{"GreenCastle", "BlueLake", "RedFox", "SilverFalcon"} {
			tx.Put(&record.Agent{Project: "shop-00000000", Name: a, Registered: w.clock, Updated: w.clock})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clock = w.clock.Add(w.tick)
	return w.clock
}

// The leases one reserve makes share their id's time, however long the
// write takes: one directory of the archive, and short ids that share
// most of a prefix.
func TestReserveIDsShareTheirTime(t *testing.T) {
	w := newWorld(t)
	w.tick = time.Millisecond
	res, err := w.as("GreenCastle").Reserve(context.Background(), []string{"src/a", "src/b", "src/c"}, Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Granted) != 3 {
		t.Fatalf("granted %+v", res.Granted)
	}
	for _, r := range res.Granted[1:] {
		if r.ID[:10] != res.Granted[0].ID[:10] || r.ID == res.Granted[0].ID {
			t.Errorf("ids %s and %s: not one time, or not distinct", res.Granted[0].ID, r.ID)
		}
	}
}

func (w *world) advance(d time.Duration) {
	w.mu.Lock()
	w.clock = w.clock.Add(d)
	w.mu.Unlock()
}

func (w *world) as(agent string) *Service {
	return New(w.st, "shop-00000000", agent, func(rel string) bool { return rel == "src" || rel == "docs" })
}

func TestConflicts(t *testing.T) {
	tests := []struct {
		name           string
		held           string
		heldShared     bool
		heldBy         string
		want           string
		wantShared     bool
		before         func(w *world, s *Service)
		wantConflict   bool
		wantConflictOn string
	}{
		{name: "other agent, same pattern", held: "src/**", want: "src/**", wantConflict: true},
		{name: "own pattern never conflicts", held: "src/**", heldBy: "BlueLake", want: "src/**"},
		{name: "shared and shared", held: "src/**", heldShared: true, want: "src/a.go", wantShared: true},
		{name: "shared held, exclusive wanted", held: "src/**", heldShared: true, want: "src/a.go", wantConflict: true},
		{name: "exclusive held, shared wanted", held: "src/**", want: "src/a.go", wantShared: true, wantConflict: true},
		{name: "expired", held: "src/**", want: "src/a.go", before: func(w *world, _ *Service) { w.advance(2 * time.Hour) }},
		{name: "released", held: "src/**", want: "src/a.go", before: func(w *world, s *Service) {
			if _, err := s.Release(context.Background(), Selector{All: true}); err != nil {
				w.t.Fatal(err)
			}
		}},
		{name: "directory name covers below it", held: "src", want: "src/deep/x.go", wantConflict: true},
		{name: "braces", held: "{src,docs}/*.md", want: "docs/x.md", wantConflict: true},
		{name: "braces, other branch", held: "{src,lib}/*.md", want: "docs/x.md"},
		{name: "star vs prefix star overlap", held: "src/*.py", want: "src/a*", wantConflict: true},
		{name: "different extensions", held: "src/*.py", want: "src/*.go"},
		{name: "double star vs file", held: "**/*.md", want: "docs/x.md", wantConflict: true},
		{name: "disjoint directories", held: "src/api/**", want: "srcx/api/**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			holder := tt.heldBy
			if holder == "" {
				holder = "GreenCastle"
			}
			hs := w.as(holder)
			if _, err := hs.Reserve(ctx, []string{tt.held}, Options{TTL: time.Hour, Shared: tt.heldShared}); err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				tt.before(w, hs)
			}
			res, err := w.as("BlueLake").Reserve(ctx, []string{tt.want}, Options{TTL: time.Hour, Shared: tt.wantShared})
			if got := errors.Is(err, ErrConflict); got != tt.wantConflict {
				t.Fatalf("conflict = %v (%v), want %v", got, err, tt.wantConflict)
			}
			if tt.wantConflict {
				if len(res.Granted) != 0 || len(res.Conflicts) == 0 || res.Conflicts[0].Holder != "GreenCastle" {
					t.Fatalf("result %+v", res)
				}
				all, _ := w.as("").List(ctx, Filter{Agent: "BlueLake", Expired: true})
				if len(all) != 0 {
					t.Fatalf("a refused reservation was written: %+v", all)
				}
			} else if len(res.Granted) != 1 {
				t.Fatalf("granted %+v", res.Granted)
			}
		})
	}
}

func TestAllOrNothing(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if _, err := w.as("GreenCastle").Reserve(ctx, []string{"src/api/**"}, Options{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	res, err := w.as("BlueLake").Reserve(ctx, []string{"docs/**", "src/api/x.go", "src/api/y.go"}, Options{TTL: time.Hour})
	if !errors.Is(err, ErrConflict) || len(res.Conflicts) != 2 {
		t.Fatalf("err %v, conflicts %+v", err, res.Conflicts)
	}
	if held, _ := w.as("").List(ctx, Filter{Agent: "BlueLake"}); len(held) != 0 {
		t.Fatalf("docs/** was granted although the request conflicted: %+v", held)
	}
	res, err = w.as("BlueLake").Reserve(ctx, []string{"docs/**", "src/api/x.go"}, Options{TTL: time.Hour, AllowConflicts: true})
	if err != nil || len(res.Granted) != 2 || len(res.Conflicts) != 1 {
		t.Fatalf("--allow-conflicts: %+v, %v", res, err)
	}
}

func TestTTLRenewAndExpiry(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	if _, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	// Re-reserving one's own pattern extends it instead of adding one.
	w.advance(5 * time.Minute)
	if _, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	held, _ := g.List(ctx, Filter{})
	if len(held) != 1 || !held[0].Expires.Equal(w.now().Add(10*time.Minute)) {
		t.Fatalf("re-reserve: %+v", held)
	}
	renewed, err := g.Renew(ctx, Selector{Patterns: []string{"src/**"}}, 30*time.Minute)
	if err != nil || !renewed[0].Expires.Equal(w.now().Add(40*time.Minute)) {
		t.Fatalf("renew: %+v, %v", renewed, err)
	}
	// Expiry frees the pattern with no command run in between.
	w.advance(41 * time.Minute)
	if res, err := w.as("BlueLake").Reserve(ctx, []string{"src/a.go"}, Options{TTL: time.Hour}); err != nil || len(res.Granted) != 1 {
		t.Fatalf("after expiry: %+v, %v", res, err)
	}
	if _, err := g.Renew(ctx, Selector{Patterns: []string{"src/**"}}, time.Hour); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("renewing an expired lease: %v, want ErrInvalidArgument", err)
	}
	if _, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: 0}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("zero TTL: %v", err)
	}
	if _, err := g.Reserve(ctx, []string{"../x"}, Options{TTL: time.Hour}); !errors.Is(err, glob.ErrInvalidPattern) {
		t.Fatalf("bad pattern: %v", err)
	}
}

// A lease lasts at most MaxTTL from its grant: reserve and renew take no
// more, and a renewal (or a reserve again) ends there, so that every lease
// granted here is one the index admits (see TestAdmission).
func TestMaxTTL(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	if _, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: MaxTTL + time.Second}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "at most 87600h (10 years)") {
		t.Fatalf("TTL over MaxTTL: %v, want ErrInvalidArgument naming the bound", err)
	}
	res, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: MaxTTL})
	if err != nil {
		t.Fatal(err)
	}
	end := res.Granted[0].Created.Add(MaxTTL)
	if _, err := g.Renew(ctx, Selector{}, MaxTTL+time.Second); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("extension over MaxTTL: %v, want ErrInvalidArgument", err)
	}
	w.advance(time.Hour)
	renewed, err := g.Renew(ctx, Selector{}, time.Hour)
	if err != nil || !renewed[0].Expires.Equal(end) {
		t.Fatalf("renew past the end: %+v, %v; want it to end at %s", renewed, err, end)
	}
	again, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: MaxTTL})
	if err != nil || again.Granted[0].ID != res.Granted[0].ID || !again.Granted[0].Expires.Equal(end) {
		t.Fatalf("reserve again past the end: %+v, %v; want %s until %s", again, err, res.Granted[0].ID, end)
	}
	held, err := g.List(ctx, Filter{})
	if err != nil || len(held) != 1 {
		t.Fatalf("held: %+v, %v", held, err)
	}
}

// The index keeps out a lease no command here would have granted, which
// another store wrote (a live write applies the same rule, which the
// records below go through): of an agent not registered, lasting longer
// than MaxTTL, on an invalid pattern. A later version that is refused
// drops the row an earlier one made; one admitted after a refusal is no
// longer listed. After each step the index is the one a rebuild makes
// (Check), and Refused lists what is kept out.
func TestAdmission(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := w.now()
	lease := func(id, agent, pattern string, expires time.Time) *record.Reservation {
		return &record.Reservation{Project: "shop-00000000", ID: id, Agent: agent, Pattern: pattern, Exclusive: true,
			Created: now, Expires: expires}
	}
	put := func(recs ...record.Record) {
		t.Helper()
		if err := w.st.Update(ctx, func(tx *store.Tx) error {
			for _, r := range recs {
				tx.Put(r)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, active []string, refused ...string) {
		t.Helper()
		if problems, err := w.st.Check(ctx); err != nil || len(problems) > 0 {
			t.Fatalf("%s: check: %v %v", step, problems, err)
		}
		held, err := w.as("").List(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range held {
			ids = append(ids, r.ID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, active) {
			t.Errorf("%s: active %v, want %v", step, ids, active)
		}
		lines, err := w.st.Refused(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != len(refused) {
			t.Fatalf("%s: refused %q, want %d lines", step, lines, len(refused))
		}
		for i, want := range refused {
			if !strings.Contains(lines[i], want) {
				t.Errorf("%s: refused %q, want %q", step, lines[i], want)
			}
		}
	}
	ids := []string{"01M81B5H80AAAAAAAAAAAAAAA1", "01M81B5H80AAAAAAAAAAAAAAA2", "01M81B5H80AAAAAAAAAAAAAAA3"}
	put(lease(ids[0], "Ghost", "**", now.Add(time.Hour)),
		lease(ids[1], "GreenCastle", "**", now.Add(MaxTTL+time.Second)),
		lease(ids[2], "BlueLake", "../etc/**", now.Add(time.Hour)))
	check("hostile", nil, "held by Ghost, who is not registered", "lasts at most 87600h", "invalid pattern")

	// A valid version of the long one is admitted, and no longer listed.
	put(lease(ids[1], "GreenCastle", "**", now.Add(time.Hour)))
	check("admitted", []string{ids[1]}, "Ghost", "invalid pattern")
	// A version stretched to 2099 takes its row away.
	put(lease(ids[1], "GreenCastle", "**", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)))
	check("stretched", nil, "Ghost", "expires 2099-01-01T00:00:00Z", "invalid pattern")
	if _, err := w.st.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	check("reindexed", nil, "Ghost", "expires 2099-01-01T00:00:00Z", "invalid pattern")
	// Once Ghost registers, a new version of its lease is admitted.
	put(&record.Agent{Project: "shop-00000000", Name: "Ghost", Registered: now, Updated: now},
		lease(ids[0], "Ghost", "**", now.Add(2*time.Hour)))
	check("registered", []string{ids[0]}, "expires 2099", "invalid pattern")
}

// TestRenewAfterAnExpiredTwin: an expired, never released reservation of
// a pattern must not stand in the way of renewing the agent's newer, active
// reservation of the same pattern, nor of renewing all of its reservations.
func TestRenewAfterAnExpiredTwin(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	for _, p := range []string{"src/**", "docs/**"} {
		if _, err := g.Reserve(ctx, []string{p}, Options{TTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	w.advance(2 * time.Minute)
	if _, err := g.Reserve(ctx, []string{"src/**"}, Options{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []Selector{{Patterns: []string{"src/**"}}, {All: true}, {}} {
		renewed, err := g.Renew(ctx, sel, 30*time.Minute)
		if err != nil || len(renewed) != 1 || renewed[0].Pattern != "src/**" || !renewed[0].Active(w.now()) {
			t.Fatalf("renew %+v: %+v, %v; want the active src/** only", sel, renewed, err)
		}
	}
	if _, err := g.Renew(ctx, Selector{Patterns: []string{"docs/**"}}, time.Hour); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("renewing the expired docs/**: %v, want an error saying it expired", err)
	}
	if _, err := g.Renew(ctx, Selector{Patterns: []string{"src/**", "docs/**"}}, time.Hour); err == nil || !strings.Contains(err.Error(), "docs/**") {
		t.Fatalf("renewing src/** and the expired docs/**: %v, want an error naming docs/**", err)
	}
	if _, err := g.Renew(ctx, Selector{Patterns: []string{"lib/**"}}, time.Hour); !errors.Is(err, ErrNotFound) {
		t.Fatalf("renewing what was never reserved: %v, want ErrNotFound", err)
	}
}

func TestForceRelease(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	res, err := w.as("GreenCastle").Reserve(ctx, []string{"src/**"}, Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Granted[0].ID
	// A holder that ran a command (here: whoami) less than StaleAfter ago
	// is live: its presence, the mailbox's, is found through the store.
	mb, err := mailbox.Open(ctx, w.st, project.Project{Key: "k", Slug: "shop-00000000"}, "GreenCastle")
	if err != nil {
		t.Fatal(err)
	}
	w.advance(time.Minute) // a presence older than a registration is refreshed
	if _, err := mb.Whoami(ctx); err != nil {
		t.Fatal(err)
	}
	b := w.as("BlueLake")
	for op, err := range map[string]error{
		"release": second(b.Release(ctx, Selector{IDs: []string{id}})),
		"renew":   second(b.Renew(ctx, Selector{IDs: []string{id}}, time.Hour)),
	} {
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "is held by GreenCastle") {
			t.Fatalf("%s of another's lease by id: %v", op, err)
		}
	}
	if _, err := b.ForceRelease(ctx, id, "stuck"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("force release of a live holder: %v", err)
	}
	if _, err := b.ForceRelease(ctx, id, ""); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("force release without a reason: %v", err)
	}
	w.advance(StaleAfter + time.Minute)
	r, err := b.ForceRelease(ctx, id, "holder silent")
	if err != nil || r.ReleasedBy != "BlueLake" || r.Released.IsZero() {
		t.Fatalf("force release of a stale holder: %+v, %v", r, err)
	}
	if _, err := b.ForceRelease(ctx, "01ZZZZZZZZ", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestCheckAndReindex(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if _, err := w.as("GreenCastle").Reserve(ctx, []string{"src/**", "docs/*.md"}, Options{TTL: time.Hour, Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.as("BlueLake").Reserve(ctx, []string{"src/x.go"}, Options{TTL: time.Hour, Shared: true, AllowConflicts: true}); err != nil {
		t.Fatal(err)
	}
	check := func() []int {
		held, err := w.as("").Check(ctx, []string{"src/x.go", "docs/a.md", "README.md"})
		if err != nil {
			t.Fatal(err)
		}
		var n []int
		for _, h := range held {
			n = append(n, len(h.Holders))
		}
		return n
	}
	want := []int{2, 1, 0}
	if got := check(); !slices.Equal(got, want) {
		t.Fatalf("check = %v, want %v", got, want)
	}
	if _, err := w.st.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := check(); !slices.Equal(got, want) {
		t.Fatalf("after reindex, check = %v, want %v", got, want)
	}
	if problems, err := w.st.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("doctor check: %v, %v", problems, err)
	}
}

func TestLocks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g, b := w.as("GreenCastle"), w.as("BlueLake")
	if _, err := g.Acquire(ctx, "deploy/staging", 5*time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	var held *HeldError
	if _, err := b.Acquire(ctx, "deploy/staging", time.Minute, 0); !errors.As(err, &held) || held.Lock.Holder != "GreenCastle" {
		t.Fatalf("second acquire: %v", err)
	}
	// Re-acquiring one's own lock extends it.
	w.advance(time.Minute)
	l, err := g.Acquire(ctx, "deploy/staging", 5*time.Minute, 0)
	if err != nil || !l.Expires.Equal(w.now().Add(5*time.Minute)) {
		t.Fatalf("re-acquire: %+v, %v", l, err)
	}
	if _, err := b.RenewLock(ctx, "deploy/staging", time.Minute); !errors.Is(err, ErrLockHeld) {
		t.Fatalf("renew by a non-holder: %v", err)
	}
	if _, err := b.ReleaseLock(ctx, "deploy/staging"); !errors.Is(err, ErrLockHeld) {
		t.Fatalf("release by a non-holder: %v", err)
	}
	if list, err := g.Locks(ctx, "deploy/"); err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	// The TTL lapses with no command run.
	w.advance(6 * time.Minute)
	if list, _ := g.Locks(ctx, ""); len(list) != 0 {
		t.Fatalf("an expired lock is listed: %+v", list)
	}
	if _, err := g.RenewLock(ctx, "deploy/staging", time.Minute); !errors.Is(err, ErrNotFound) {
		t.Fatalf("renewing a lapsed lock: %v", err)
	}
	if _, err := b.Acquire(ctx, "deploy/staging", time.Minute, 0); err != nil {
		t.Fatalf("acquire after expiry: %v", err)
	}
	if _, err := b.ReleaseLock(ctx, "deploy/staging"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Acquire(ctx, "deploy/staging", time.Minute, 0); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	for _, bad := range []string{"", "/x", "x/", "a b", "x//y", ".", "..", "a/../b", "./a", "a/.", "deploy/.."} {
		if _, err := g.Acquire(ctx, bad, time.Minute, 0); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("key %q: %v", bad, err)
		}
	}
	for _, good := range []string{"a.b", "...", "v1.2/.hidden", "x/..y"} {
		if _, err := g.Acquire(ctx, good, time.Minute, 0); err != nil {
			t.Errorf("key %q: %v", good, err)
		}
	}
}

// A lock taken by a run belongs to that run: the same agent's other runs
// and plain commands find it held, and only its token renews or releases
// it.
func TestLockRuns(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		first string // "acquire" or "run"
		then  func(s *Service, first Lock) (Lock, error)
		held  bool // then fails with ErrLockHeld
	}{
		{"run after run", "run", func(s *Service, _ Lock) (Lock, error) { return s.AcquireRun(ctx, "k", time.Minute, 0) }, true},
		{"acquire after run", "run", func(s *Service, _ Lock) (Lock, error) { return s.Acquire(ctx, "k", time.Minute, 0) }, true},
		{"run after acquire", "acquire", func(s *Service, _ Lock) (Lock, error) { return s.AcquireRun(ctx, "k", time.Minute, 0) }, true},
		{"acquire after acquire", "acquire", func(s *Service, _ Lock) (Lock, error) { return s.Acquire(ctx, "k", time.Minute, 0) }, false},
		{"plain renew of a run's lock", "run", func(s *Service, _ Lock) (Lock, error) { return s.RenewLock(ctx, "k", time.Minute) }, true},
		{"plain release of a run's lock", "run", func(s *Service, _ Lock) (Lock, error) { return s.ReleaseLock(ctx, "k") }, true},
		{"another run's token", "run", func(s *Service, l Lock) (Lock, error) { l.Run = "0000000000000000"; return s.ReleaseRun(ctx, l) }, true},
		{"the run renews", "run", func(s *Service, l Lock) (Lock, error) { return s.RenewRun(ctx, l, time.Hour) }, false},
		{"the run releases", "run", func(s *Service, l Lock) (Lock, error) { return s.ReleaseRun(ctx, l) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			g := w.as("GreenCastle")
			take := g.Acquire
			if tt.first == "run" {
				take = g.AcquireRun
			}
			first, err := take(ctx, "k", time.Minute, 0)
			if err != nil {
				t.Fatal(err)
			}
			if (tt.first == "run") != (first.Run != "") {
				t.Fatalf("%s gave a lock with run token %q", tt.first, first.Run)
			}
			_, err = tt.then(g, first)
			var held *HeldError
			if got := errors.As(err, &held); got != tt.held {
				t.Fatalf("err = %v, want held: %v", err, tt.held)
			}
			if d := fault.DetailOf(err); tt.held && (held.Lock.Run != first.Run || d.String("holder") != "GreenCastle" || !d.Bool("yours") || d.Bool("by_run") != (first.Run != "")) {
				t.Errorf("held error %+v (detail %+v) does not describe the first holder", held.Lock, d)
			}
			if !tt.held && err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A run waits for another run of the same agent to release the lock.
func TestLockRunWaits(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	g := w.as("GreenCastle")
	first, err := g.AcquireRun(ctx, "k", time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		g.ReleaseRun(ctx, first)
	}()
	second, err := g.AcquireRun(ctx, "k", time.Minute, 5*time.Second)
	if err != nil || second.Run == "" || second.Run == first.Run {
		t.Fatalf("waiting run: %+v, %v", second, err)
	}
}

// Check answers as reading every active reservation in full and matching
// the paths against them would, holders oldest first: reading whole
// reservations only for the patterns that match changes nothing. (The
// matching itself is glob.Matcher's, tested against doublestar in
// match_test.go.)
func TestCheckMatchesAllActive(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 8))
	agents := []string{"GreenCastle", "BlueLake", "RedFox"}
	for i := range 120 {
		var pats []string
		for range 1 + rng.IntN(3) {
			pats = append(pats, globtest.RandomPattern(rng))
		}
		ttl := time.Hour
		if i%5 == 0 {
			ttl = time.Minute // expired below
		}
		o := Options{TTL: ttl, Shared: i%3 == 0, AllowConflicts: true}
		svc := w.as(agents[i%len(agents)])
		res, err := svc.Reserve(ctx, pats, o)
		if err != nil {
			continue // an invalid random pattern
		}
		if i%7 == 0 {
			if _, err := svc.Release(ctx, Selector{IDs: []string{res.Granted[0].ID}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.advance(2 * time.Minute)
	active, err := w.as("").List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	m := glob.NewMatcher(patternsOf(active))
	paths := make([]string, 400)
	for i := range paths {
		paths[i] = globtest.RandomPath(rng)
	}
	got, err := w.as("").Check(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for i, p := range paths {
		want := []Reservation{}
		for _, j := range m.Match(p, false) {
			want = append(want, active[j])
		}
		matched += len(want)
		if got[i].Path != p || !reflect.DeepEqual(got[i].Holders, want) {
			t.Fatalf("check %q: holders %v, want %v", p, got[i].Holders, want)
		}
	}
	if len(active) < 50 || matched < 100 {
		t.Fatalf("too easy: %d active reservations, %d holders in all", len(active), matched)
	}
}

// TestIDPrefixes: renew, release and a forced release take an id or a
// prefix of one; a prefix of several reservations is ambiguous and changes
// nothing (it used to pick the oldest), a short one says how long it must
// be, an unknown one is not found.
// second returns the error of a call's results.
func second[T any](_ T, err error) error { return err }

func TestIDPrefixes(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	// One command, one clock reading: the ids share their time prefix.
	res, err := g.Reserve(ctx, []string{"src/a/**", "src/b/**", "src/c/**"}, Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := res.Granted[0], res.Granted[1], res.Granted[2]
	shared := a.ID[:commonLen(a.ID, c.ID)] // ids grow: what a and c share, b does
	if len(shared) < 10 {
		t.Fatalf("ids %s and %s of one clock reading share only %q", a.ID, c.ID, shared)
	}
	w.advance(time.Minute)
	tests := []struct {
		name    string
		op      func(id string) error
		id      string
		wantErr error
		say     string
	}{
		{"release ambiguous", func(id string) error { _, err := g.Release(ctx, Selector{IDs: []string{id}}); return err }, shared, ErrAmbiguousID, "src/a/** by GreenCastle"},
		{"renew ambiguous", func(id string) error { _, err := g.Renew(ctx, Selector{IDs: []string{id}}, time.Hour); return err }, shared, ErrAmbiguousID, "src/b/** by GreenCastle"},
		{"force ambiguous", func(id string) error { _, err := w.as("BlueLake").ForceRelease(ctx, id, "x"); return err }, shared, ErrAmbiguousID, "matches 3 reservations"},
		{"release too short", func(id string) error { _, err := g.Release(ctx, Selector{IDs: []string{id}}); return err }, a.ID[:5], ErrInvalidArgument, "too short"},
		{"force too short", func(id string) error { _, err := w.as("BlueLake").ForceRelease(ctx, id, "x"); return err }, a.ID[:5], ErrInvalidArgument, "too short"},
		{"renew unknown", func(id string) error { _, err := g.Renew(ctx, Selector{IDs: []string{id}}, time.Hour); return err }, "01ZZZZZZZZ", ErrNotFound, "no reservation 01ZZZZZZZZ"},
	}
	for _, tt := range tests {
		err := tt.op(tt.id)
		if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("%s %s: %v; want %v saying %q", tt.name, tt.id, err, tt.wantErr, tt.say)
		}
	}
	held, err := g.List(ctx, Filter{})
	if err != nil || len(held) != 3 || !held[0].Expires.Equal(a.Expires) {
		t.Fatalf("after the refused calls: %+v, %v; want all three as they were", held, err)
	}
	// A prefix of one is enough, whatever its length, and a whole id too.
	bPrefix := ids.Abbrev(b.ID, a.ID, c.ID)
	if rs, err := g.Renew(ctx, Selector{IDs: []string{strings.ToLower(bPrefix)}}, time.Hour); err != nil || len(rs) != 1 || rs[0].ID != b.ID {
		t.Fatalf("renew %s: %+v, %v; want %s", bPrefix, rs, err, b.ID)
	}
	if rs, err := g.Release(ctx, Selector{IDs: []string{a.ID}}); err != nil || len(rs) != 1 || rs[0].ID != a.ID {
		t.Fatalf("release %s: %+v, %v", a.ID, rs, err)
	}
	// A released reservation keeps its id: it still counts for ambiguity,
	// and naming it says it is not active.
	if _, err := g.Release(ctx, Selector{IDs: []string{a.ID}}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "not active") {
		t.Fatalf("releasing %s again: %v", a.ID, err)
	}
	if _, err := w.as("BlueLake").ForceRelease(ctx, a.ID, "x"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "released already") {
		t.Fatalf("forcing the released %s: %v", a.ID, err)
	}
}

// TestShortIDs: every displayed id names its reservation when pasted back,
// is as short as it can be, and never shorter than 8 characters.
func TestShortIDs(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	var all []Reservation
	for i := range 4 {
		res, err := g.Reserve(ctx, []string{"src/" + string(rune('a'+i)) + "/**", "docs/" + string(rune('a'+i))}, Options{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, res.Granted...)
		w.advance(time.Hour) // the first ids expire: still listed with --expired, still abbreviated
	}
	list := make([]string, len(all))
	for i, r := range all {
		list[i] = r.ID
	}
	short, err := g.ShortIDs(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		s := short.Of(r.ID)
		if len(s) < 8 {
			t.Errorf("%s shown as %s", r.ID, s)
		}
		sc, err := g.scope(ctx, w.st.Index())
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.resolveID(ctx, sc, s)
		if err != nil || got != r.ID {
			t.Errorf("%s shown as %s, which names %q, %v", r.ID, s, got, err)
		}
		if len(s) > 8 {
			if _, err := g.resolveID(ctx, sc, s[:len(s)-1]); !errors.Is(err, ErrAmbiguousID) {
				t.Errorf("%s shown as %s, but %s is unique already (%v)", r.ID, s, s[:len(s)-1], err)
			}
		}
	}
}

func commonLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestQueriesNotRecompiled: no query of a reserve, release, check or lock
// listing is compiled again when it runs again, with other arguments or
// the same (see store.JoinParam).
func TestQueriesNotRecompiled(t *testing.T) {
	w := newWorld(t)
	g := w.as("GreenCastle")
	sc, err := g.scope(t.Context(), w.st.Index())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Acquire(t.Context(), "deploy/prod", time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	res, err := g.Reserve(t.Context(), []string{"src/a/*.go", "src/b/**", "docs/x.md"}, Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Granted[0], res.Granted[1]
	now := record.FormatTime(w.now())
	list := jsonArray([]string{a.ID, b.ID})
	sqlitetest.CompiledOnce(t, filepath.Join(w.st.Dir(), "index.db"), []sqlitetest.Query{
		{Name: "near", Query: nearQuery, Args: [][]any{{sc.pid, now, jsonArray([]string{"src", "src/a"}), jsonArray([]string{"src/a"})},
			{sc.pid, now, jsonArray([]string{"docs"}), jsonArray([]string{"docs", "src"})}}},
		{Name: "active", Query: eachQuery(activeWhere), Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "mine", Query: eachQuery(mineWhere), Args: [][]any{{sc.pid, now, "GreenCastle"}, {sc.pid, now, "GreenCastle"}}},
		{Name: "by id", Query: eachQuery(`id = ?`), Args: [][]any{{sc.pid, a.ID}, {sc.pid, b.ID}}},
		{Name: "by row id", Query: eachQuery(rowidIn), Args: [][]any{{sc.pid, "[1]"}, {sc.pid, "[1,2,3]"}}},
		{Name: "patterns", Query: patternsQuery(activeWhere), Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "id matches", Query: idMatches, Args: [][]any{{sc.pid, a.ID[:8], a.ID[:8] + "~", 1}, {sc.pid, "0", "~", 5}}},
		{Name: "id neighbours", Query: idNeighbours, Args: [][]any{{sc.pid, list}, {sc.pid, jsonArray([]string{a.ID})}}},
		{Name: "active counts", Query: activeCounts, Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "active patterns", Query: activePatternsOf, Args: [][]any{{sc.pid, "GreenCastle", now}, {sc.pid, "GreenCastle", record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "lock", Query: lockQuery, Args: [][]any{{sc.pid, "deploy/prod"}}},
		{Name: "locks by prefix", Query: locksByPrefix, Args: [][]any{{sc.pid, now, "deploy/", "deploy/"}, {sc.pid, now, "", ""}}},
	})
}
