package tasks

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{Projections: []store.Projection{Projection()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Update(context.Background(), func(tx *store.Tx) error {
		tx.Put(&record.Project{Key: "github.com/acme/shop", Slug: "shop-1234abcd", Created: st.Now()})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return st
}

func mk(t *testing.T, ts *Service, title string, d Draft) Task {
	t.Helper()
	d.Title = title
	task, err := ts.Create(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestFoldAnyOrder: a task's log folds to one state whatever order its
// changes arrive in; of two claims, the earlier stands.
func TestFoldAnyOrder(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	title, prio := "Fix login", 1
	id := "01JD0000000000000000000000"
	op := func(n int, kind string) *record.TaskOp {
		return &record.TaskOp{Project: "p", Task: id, ID: "01JD00000000000000000000" + string("0123456789"[n/10]) + string("0123456789"[n%10]),
			Op: kind, By: "GreenCastle", At: at.Add(time.Duration(n) * time.Minute)}
	}
	c := op(0, record.TaskCreate)
	c.Title, c.Priority = &title, &prio
	claimA, claimB := op(1, record.TaskClaim), op(2, record.TaskClaim)
	claimA.Agent, claimB.Agent = "BlueLake", "RedFox"
	status := op(3, record.TaskStatus)
	status.Status = InProgress
	p3 := 3
	set := op(4, record.TaskSet)
	set.Priority = &p3
	dep := op(5, record.TaskDepAdd)
	dep.Dep = "01JC0000000000000000000000"
	ops := []*record.TaskOp{c, claimA, claimB, status, set, dep}
	want, ok := Fold(ops)
	if !ok || want.Claim != "BlueLake" || want.Priority != 3 || want.Status != InProgress || len(want.Deps) != 1 {
		t.Fatalf("folded %+v", want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		shuffled := append([]*record.TaskOp{}, ops...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got, _ := Fold(shuffled); !reflect.DeepEqual(got, want) {
			t.Fatalf("order %v folds to %+v, want %+v", shuffled, got, want)
		}
	}
	if _, ok := Fold([]*record.TaskOp{claimA}); ok {
		t.Error("a log with no creation folded to a task")
	}
}

// TestClaimRace: ten agents claiming one task at once: exactly one holds
// it, the others get ErrClaimed naming the holder.
func TestClaimRace(t *testing.T) {
	for round := range 5 {
		st := newStore(t)
		ctx := context.Background()
		task := mk(t, New(st, "shop-1234abcd", "GreenCastle"), "race", Draft{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := []string{}, 0
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := []string{"BlueLake", "RedFox", "AmberCat", "SilverOwl", "GoldBee", "TealFox", "PinkCow", "GrayElk", "OakFern", "IvyMoss"}[i]
				got, _, err := New(st, "shop-1234abcd", agent).Claim(ctx, task.ID[:8], ClaimOptions{})
				mu.Lock()
				defer mu.Unlock()
				var ce *ClaimedError
				switch {
				case err == nil:
					won = append(won, got.Claim)
				case errors.As(err, &ce) && ce.Task.Claim != "":
					lost++
				default:
					t.Errorf("claim: %v", err)
				}
			}()
		}
		wg.Wait()
		now, _ := New(st, "shop-1234abcd", "").Get(ctx, task.ID)
		if len(won) != 1 || lost != 9 || now.Claim != won[0] {
			t.Fatalf("round %d: winners %v, %d refused, holder %q", round, won, lost, now.Claim)
		}
	}
}

// TestDependencies: a cycle is refused, directly and through others, and
// of two opposite edges added at once exactly one is.
func TestDependencies(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	ts := New(st, "shop-1234abcd", "GreenCastle")
	a, b, c := mk(t, ts, "a", Draft{}), mk(t, ts, "b", Draft{}), mk(t, ts, "c", Draft{})
	if _, err := ts.AddDep(ctx, b.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.AddDep(ctx, c.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.AddDep(ctx, a.ID, c.ID); !errors.Is(err, ErrCycle) {
		t.Errorf("a -> c closing a -> c -> b -> a: %v", err)
	}
	if _, err := ts.AddDep(ctx, a.ID, a.ID); !errors.Is(err, ErrCycle) {
		t.Errorf("a -> a: %v", err)
	}
	ready, err := ts.List(ctx, Filter{Ready: true})
	if err != nil || len(ready) != 1 || ready[0].ID != a.ID {
		t.Errorf("ready = %v, %v; want a alone", ready, err)
	}
	blocked, _ := ts.List(ctx, Filter{Blocked: true})
	if len(blocked) != 2 {
		t.Errorf("blocked = %v, want b and c", blocked)
	}
	for round := range 10 {
		x, y := mk(t, ts, "x", Draft{}), mk(t, ts, "y", Draft{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, e := range [][2]string{{x.ID, y.ID}, {y.ID, x.ID}} {
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = New(st, "shop-1234abcd", "RedFox").AddDep(ctx, e[0], e[1]) }()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errors.Join(errs...), ErrCycle) {
			t.Fatalf("round %d: opposite edges at once: %v", round, errs)
		}
	}
}

// TestEpic: closing an epic's last open child closes the epic; closing an
// epic closes its open children; a child is not reopened under a closed
// epic.
func TestEpic(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	ts := New(st, "shop-1234abcd", "GreenCastle")
	epic := mk(t, ts, "epic", Draft{Type: Epic})
	k1, k2 := mk(t, ts, "k1", Draft{Parent: epic.ID}), mk(t, ts, "k2", Draft{Parent: epic.ID})
	if c, err := ts.Close(ctx, k1.ID, "", nil); err != nil || len(c.Along) != 0 {
		t.Fatalf("close k1: %+v %v", c, err)
	}
	c, err := ts.Close(ctx, k2.ID, "shipped", nil)
	if err != nil || len(c.Along) != 1 || c.Along[0].ID != epic.ID {
		t.Fatalf("closing the last child: %+v %v", c, err)
	}
	if _, err := ts.Reopen(ctx, k1.ID); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("reopen under a closed epic: %v", err)
	}
	if _, err := ts.Reopen(ctx, epic.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Reopen(ctx, k1.ID); err != nil {
		t.Fatal(err)
	}
	c, err = ts.Close(ctx, epic.ID, "dropped", nil)
	if err != nil || len(c.Along) != 1 || c.Along[0].ID != k1.ID || c.Along[0].Status != Closed {
		t.Fatalf("closing the epic: %+v %v", c, err)
	}
	got, _ := ts.Get(ctx, k1.ID)
	if got.Status != Closed || got.Reason == "" {
		t.Errorf("k1 after its epic closed: %+v", got)
	}
	if _, _, err := ts.Claim(ctx, epic.ID, ClaimOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("claiming an epic: %v", err)
	}
}

// TestOrderWithinAMillisecond: a change is ordered after every change of
// its task the index holds, even one another process made in the same
// millisecond with a greater random part (the clock stands still here):
// ULIDs alone would order them at random.
func TestOrderWithinAMillisecond(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	st, err := store.Open(t.TempDir(), store.Options{Now: func() time.Time { return at }, Projections: []store.Projection{Projection()}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Update(ctx, func(tx *store.Tx) error {
		tx.Put(&record.Project{Key: "k", Slug: "shop-1234abcd", Created: at})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ts := New(st, "shop-1234abcd", "BlueLake")
	task := mk(t, ts, "t", Draft{})
	// Another process closed it in this millisecond, with the greatest
	// random part there is.
	var high ulid.ULID
	if err := high.SetTime(ulid.Timestamp(at)); err != nil {
		t.Fatal(err)
	}
	for i := 6; i < len(high); i++ {
		high[i] = 0xff
	}
	high[15] = 0xf0
	if err := st.UpdateProject(ctx, "shop-1234abcd", func(tx *store.Tx) error {
		tx.Put(&record.TaskOp{Project: "shop-1234abcd", Task: task.ID, ID: high.String(), Op: record.TaskStatus, By: "RedFox", At: at, Status: Closed})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Reopen(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := ts.Get(ctx, task.ID); got.Status != Open {
		t.Fatalf("reopened after a close of the same millisecond: %+v", got)
	}
}

// TestWaitingAnyOrder: the count of dependencies not closed that ready and
// blocked read is kept for a task and for those depending on it, whatever
// order their changes arrive in (a dependency first seen after the task
// that waits for it), and equals a rebuild's.
func TestWaitingAnyOrder(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	ts := New(st, "shop-1234abcd", "")
	at := st.Now()
	a := ulid.MustNew(ulid.Timestamp(at), ulid.DefaultEntropy()).String()
	b := ulid.MustNew(ulid.Timestamp(at.Add(time.Second)), ulid.DefaultEntropy()).String()
	put := func(ops ...*record.TaskOp) {
		t.Helper()
		if err := st.Update(ctx, func(tx *store.Tx) error {
			for _, o := range ops {
				tx.Put(o)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(f Filter) []string {
		t.Helper()
		list, err := ts.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, x := range list {
			out = append(out, x.ID)
		}
		return out
	}
	title := "t"
	// B waits for A, which the index has not seen yet.
	put(&record.TaskOp{Project: "shop-1234abcd", Task: b, ID: b, Op: record.TaskCreate, At: at, Title: &title, Deps: []string{a}})
	if got := ids(Filter{Ready: true}); len(got) != 0 {
		t.Fatalf("ready before A arrived: %v", got)
	}
	if got := ids(Filter{Blocked: true}); !reflect.DeepEqual(got, []string{b}) {
		t.Fatalf("blocked before A arrived: %v, want B", got)
	}
	put(&record.TaskOp{Project: "shop-1234abcd", Task: a, ID: a, Op: record.TaskCreate, At: at, Title: &title})
	if got := ids(Filter{Ready: true}); !reflect.DeepEqual(got, []string{a}) {
		t.Fatalf("ready with A open: %v, want A only", got)
	}
	if _, err := ts.Close(ctx, a, "", nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(Filter{Ready: true}); !reflect.DeepEqual(got, []string{b}) {
		t.Fatalf("ready with A closed: %v, want B", got)
	}
	if _, err := ts.Reopen(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := ids(Filter{Blocked: true}); !reflect.DeepEqual(got, []string{b}) {
		t.Fatalf("blocked with A reopened: %v, want B", got)
	}
	if diffs, err := st.Check(ctx); err != nil || len(diffs) > 0 {
		t.Fatalf("index and rebuild differ: %v %v", diffs, err)
	}
}

// TestWaiting: check's question, whether the agent holds a task and how
// many are ready, over the index of claims, not every task.
func TestWaiting(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	gc, bl := New(st, "shop-1234abcd", "GreenCastle"), New(st, "shop-1234abcd", "BlueLake")
	if held, ready, err := bl.Waiting(ctx); err != nil || held || ready != 0 {
		t.Fatalf("no tasks: %v %d %v", held, ready, err)
	}
	a := mk(t, gc, "A", Draft{})
	mk(t, gc, "B", Draft{Deps: []string{a.ID}})
	mk(t, gc, "C", Draft{})
	if held, ready, err := bl.Waiting(ctx); err != nil || held || ready != 2 {
		t.Fatalf("two ready: %v %d %v", held, ready, err)
	}
	if _, _, err := bl.Claim(ctx, a.ID, ClaimOptions{}); err != nil {
		t.Fatal(err)
	}
	if held, ready, err := bl.Waiting(ctx); err != nil || !held || ready != 0 {
		t.Fatalf("holding A: %v %d %v", held, ready, err)
	}
	if held, ready, err := gc.Waiting(ctx); err != nil || held || ready != 1 {
		t.Fatalf("another agent: %v %d %v", held, ready, err)
	}
	rows, err := st.Index().QueryContext(ctx, `EXPLAIN QUERY PLAN `+heldQuery, 1, "BlueLake")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if got := strings.Join(plan, "\n"); !strings.Contains(got, "INDEX tasks_claim") {
		t.Errorf("the held query reads every task:\n%s", got)
	}
}
