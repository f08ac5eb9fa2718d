package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// flat returns the archive changes of reservations as a release before
// record.ReservationFile's layout wrote them: reservations/<id>.json.
func flat(rs ...*record.Reservation) []archive.Change {
	var out []archive.Change
	for _, r := range rs {
		out = append(out, archive.Change{Path: record.LegacyReservationFile(r.ID), Data: r.Files()[0].Data})
	}
	return out
}

// reservationFiles returns the path of every file under reservations/ in
// commit rev of the merge project's branch.
func reservationFiles(t *testing.T, st *store.Store, rev string) []string {
	t.Helper()
	var paths []string
	err := st.Archive().Changes("", rev, nil, func(p string, _ []byte) error {
		if strings.HasPrefix(p, record.ReservationsDir+"/") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// indexed returns the reservation id as the index has it.
func indexed(t *testing.T, st *store.Store, id string) (expires string, released *string) {
	t.Helper()
	err := st.Index().QueryRowContext(context.Background(), `SELECT expires, released FROM reservations WHERE id = ?`, id).Scan(&expires, &released)
	if err != nil {
		t.Fatalf("reservation %s in the index: %v", id, err)
	}
	return expires, released
}

// A store whose branch holds reservations in the flat layout of earlier
// releases moves them once, on open, in one commit; a remote written by
// such a release, with the old path of a reservation this side moved and
// renewed, merges into one record of it (latest expiry, earliest
// release) at its new path, and its new reservation comes along, moved.
func TestRelayoutOnOpenAndMerge(t *testing.T) {
	ctx := context.Background()
	h := newMergeHistory(5)
	dir := t.TempDir()
	st, err := store.Open(dir, store.Options{Projections: projections()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(h.base()...); return nil }); err != nil {
		t.Fatal(err)
	}
	kept := &record.Reservation{Project: mergeSlug, ID: "01JD0000000000000000000001", Agent: "GreenCastle", Pattern: "src/**",
		Exclusive: true, Created: h.t0, Expires: h.at(60)}
	old, err := st.ProjectHead(mergeSlug)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Archive().CommitOnto(old, flat(kept), archive.Author{Name: "GreenCastle", Email: "x@agentmail", When: h.at(1)}, "reserve: old layout", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Archive().MoveProject(mergeSlug, old, res.Head); err != nil {
		t.Fatal(err)
	}
	past := res.Head // what both sides had
	st.Close()

	// The store's first open recorded that its reservations are in place,
	// and no open looks again: the commit above, which only a release
	// before the layout would make, stays as it is.
	done := filepath.Join(dir, "archive.git", store.LayoutDone)
	if _, err := os.Stat(done); err != nil {
		t.Fatalf("the first open recorded no layout: %v", err)
	}
	st, err = store.Open(dir, store.Options{Projections: projections()})
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := st.ProjectHead(mergeSlug); head != past {
		t.Fatalf("a store recorded as laid out was looked at again: branch at %s, want %s", head, past)
	}
	st.Close()

	// A store an earlier release wrote has no record: its open moves them,
	// and records it.
	if err := os.Remove(done); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(dir, store.Options{Projections: projections()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := os.Stat(done); err != nil {
		t.Fatalf("the migration recorded no layout: %v", err)
	}
	migrated, _ := st.ProjectHead(mergeSlug)
	if c, err := st.Archive().ReadCommit(migrated); err != nil || len(c.Parents) != 1 || c.Parents[0] != past {
		t.Fatalf("after open the branch is at %s (%+v, %v); want one commit on %s", migrated, c, err, past)
	}
	if got, want := reservationFiles(t, st, migrated), []string{record.ReservationFile(kept.ID)}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after the migration: %q, want %q", got, want)
	}
	if notes := st.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "moved the 1 reservations of project "+mergeSlug) {
		t.Errorf("notes %q, want one about the move", notes)
	}

	// Here: the reservation renewed. There, a release of the old version
	// releases it, at its old path, and takes another.
	renewed := *kept
	renewed.Expires = h.at(120)
	if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(&renewed); return nil }); err != nil {
		t.Fatal(err)
	}
	released := *kept
	released.Released, released.ReleasedBy = h.at(30), "GreenCastle"
	taken := &record.Reservation{Project: mergeSlug, ID: "01JD0000000000000000000002", Agent: "BlueLake", Pattern: "docs/**",
		Created: h.at(31), Expires: h.at(90)}
	theirs, err := st.Archive().CommitOnto(past, flat(&released, taken), archive.Author{Name: "BlueLake", Email: "x@agentmail", When: h.at(31)}, "release and reserve: old layout", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.MergeProject(ctx, mergeSlug, theirs.Head); err != nil {
		t.Fatal(err)
	}
	head, _ := st.ProjectHead(mergeSlug)
	want := []string{record.ReservationFile(kept.ID), record.ReservationFile(taken.ID)}
	if got := reservationFiles(t, st, head); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after the merge: %q, want each reservation once, at its new path: %q", got, want)
	}
	data, err := st.Archive().ReadFile(head, record.ReservationFile(kept.ID))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Decode(record.ProjectDir(mergeSlug)+"/"+record.ReservationFile(kept.ID), data)
	if err != nil {
		t.Fatal(err)
	}
	if r := rec.(*record.Reservation); !r.Expires.Equal(renewed.Expires) || !r.Released.Equal(released.Released) {
		t.Errorf("merged reservation expires %v, released %v; want the latest expiry %v and the release %v", r.Expires, r.Released, renewed.Expires, released.Released)
	}
	if expires, rel := indexed(t, st, kept.ID); expires != record.FormatTime(renewed.Expires) || rel == nil || *rel != record.FormatTime(released.Released) {
		t.Errorf("index: expires %s, released %v", expires, rel)
	}
	indexed(t, st, taken.ID)
	if problems, err := st.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("doctor --check: %v %q", err, problems)
	}
}
