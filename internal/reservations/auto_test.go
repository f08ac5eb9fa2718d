package reservations

import (
	"context"
	"errors"
	"testing"
	"time"
)

// AutoReserve takes a lease of a free file, renews the agent's automatic
// lease (not more than once a minute), leaves the agent's own reservation
// and other agents' shared ones alone, and stops at another agent's
// exclusive one; ReleaseAuto ends the session's automatic leases only.
func TestAutoReserve(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	green, blue := w.as("GreenCastle"), w.as("BlueLake")

	res, err := green.AutoReserve(ctx, []string{"src/a.go"}, AutoTTL, "s1")
	if err != nil || len(res.Taken) != 1 || len(res.Renewed) != 0 {
		t.Fatalf("first edit: %+v, %v; want one lease taken", res, err)
	}
	taken := res.Taken[0]
	if !taken.Auto || taken.Session != "s1" || !taken.Exclusive || taken.Pattern != "src/a.go" || !taken.Expires.Equal(w.clock.Add(AutoTTL)) {
		t.Fatalf("lease taken: %+v", taken)
	}

	// Another agent's edit: a conflict naming the holder, nothing taken.
	if _, err := blue.AutoReserve(ctx, []string{"src/a.go"}, AutoTTL, "s9"); !errors.As(err, new(*ConflictError)) {
		t.Fatalf("BlueLake's edit of GreenCastle's file: %v, want a ConflictError", err)
	} else if c := err.(*ConflictError).Conflicts; len(c) != 1 || c[0].Holder != "GreenCastle" {
		t.Fatalf("conflicts %+v", c)
	}

	// Edits in the same minute write nothing; later ones renew.
	w.advance(30 * time.Second)
	if res, err := green.AutoReserve(ctx, []string{"src/a.go"}, AutoTTL, "s1"); err != nil || res.Wrote() {
		t.Fatalf("edit 30s later: %+v, %v; want nothing written", res, err)
	}
	w.advance(5 * time.Minute)
	res, err = green.AutoReserve(ctx, []string{"src/a.go"}, AutoTTL, "s2")
	if err != nil || len(res.Renewed) != 1 || len(res.Taken) != 0 || res.Renewed[0].ID != taken.ID ||
		!res.Renewed[0].Expires.Equal(w.clock.Add(AutoTTL)) || res.Renewed[0].Session != "s2" {
		t.Fatalf("edit 5m later: %+v, %v; want the lease renewed to 15m from now, in session s2", res, err)
	}

	// The agent's own reservation covers a file: nothing taken, nothing
	// renewed. Another agent's shared one: edited without a lease.
	if _, err := green.Reserve(ctx, []string{"docs/**"}, Options{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := blue.Reserve(ctx, []string{"lib/**"}, Options{TTL: time.Hour, Shared: true}); err != nil {
		t.Fatal(err)
	}
	res, err = green.AutoReserve(ctx, []string{"docs/guide.md", "lib/x.go", "src/b.go"}, AutoTTL, "s1")
	if err != nil || len(res.Taken) != 1 || res.Taken[0].Pattern != "src/b.go" || len(res.Shared) != 1 || res.Shared[0] != "lib/x.go" {
		t.Fatalf("edit under its own lease and a shared one: %+v, %v", res, err)
	}

	// Session s1 ends: src/b.go goes; src/a.go (renewed in s2) and
	// docs/** stay.
	released, err := green.ReleaseAuto(ctx, "s1")
	if err != nil || len(released) != 1 || released[0].Pattern != "src/b.go" {
		t.Fatalf("end of s1 released %+v, %v; want src/b.go", released, err)
	}
	left, err := green.List(ctx, Filter{Agent: "GreenCastle"})
	if err != nil || len(left) != 2 {
		t.Fatalf("left %+v, %v; want src/a.go and docs/**", left, err)
	}
	// Without a session, every automatic lease of the agent's goes.
	if released, err := green.ReleaseAuto(ctx, ""); err != nil || len(released) != 1 || released[0].Pattern != "src/a.go" {
		t.Fatalf("release of every session: %+v, %v", released, err)
	}
	if res, err := blue.AutoReserve(ctx, []string{"src/a.go"}, AutoTTL, "s9"); err != nil || len(res.Taken) != 1 {
		t.Fatalf("BlueLake's edit once released: %+v, %v", res, err)
	}

	// A file whose name holds glob characters is leased as itself: the
	// pattern matches it alone, and an edit again finds the lease.
	res, err = green.AutoReserve(ctx, []string{"app/[slug]/page.tsx"}, AutoTTL, "s3")
	if err != nil || len(res.Taken) != 1 || res.Taken[0].Pattern != `app/\[slug\]/page.tsx` {
		t.Fatalf("edit of app/[slug]/page.tsx: %+v, %v; want the literal pattern", res, err)
	}
	if _, err := blue.AutoReserve(ctx, []string{"app/[slug]/page.tsx"}, AutoTTL, "s9"); !errors.As(err, new(*ConflictError)) {
		t.Fatalf("BlueLake's edit of app/[slug]/page.tsx: %v, want a ConflictError", err)
	}
	if _, err := blue.AutoReserve(ctx, []string{"app/s/page.tsx"}, AutoTTL, "s9"); err != nil {
		t.Fatalf("app/s/page.tsx is not app/[slug]/page.tsx: %v", err)
	}
	w.advance(5 * time.Minute)
	if res, err := green.AutoReserve(ctx, []string{"app/[slug]/page.tsx"}, AutoTTL, "s3"); err != nil || len(res.Renewed) != 1 || len(res.Taken) != 0 {
		t.Fatalf("edit of app/[slug]/page.tsx again: %+v, %v; want its lease renewed", res, err)
	}
}

// Two agents editing one free file at once: the project's lock decides,
// and exactly one holds it; the other is told who does.
func TestAutoReserveRace(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	agents := []string{"GreenCastle", "BlueLake", "RedFox", "SilverFalcon"}
	errs := make([]error, len(agents))
	done := make(chan int)
	for i, a := range agents {
		go func() {
			_, errs[i] = w.as(a).AutoReserve(ctx, []string{"src/hot.go"}, AutoTTL, "s-"+a)
			done <- i
		}()
	}
	for range agents {
		<-done
	}
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.As(err, new(*ConflictError)):
			t.Errorf("%s: %v, want a lease or a ConflictError", agents[i], err)
		}
	}
	held, err := w.as("GreenCastle").List(ctx, Filter{})
	if won != 1 || err != nil || len(held) != 1 {
		t.Fatalf("%d agents took src/hot.go, %d leases (%v); want exactly one", won, len(held), err)
	}
}
