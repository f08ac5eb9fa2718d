package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// mergeHistory makes random histories of every record type for one
// project: the records of a shared past, then what either side writes on
// top of it.
type mergeHistory struct {
	slug   string
	r      *rand.Rand
	t0     time.Time
	agents []string
	shared []*record.Message // in the base: receipts may name them
}

const mergeSlug = "merge-00000000"

func newMergeHistory(seed uint64) *mergeHistory {
	h := &mergeHistory{slug: mergeSlug, r: rand.New(rand.NewPCG(seed, 7)), t0: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC),
		agents: []string{"GreenCastle", "BlueLake", "RedCat"}}
	for i := 0; i < 4; i++ {
		h.shared = append(h.shared, h.message(i))
	}
	return h
}

func (h *mergeHistory) at(m int) time.Time { return h.t0.Add(time.Duration(m) * time.Minute) }

// message n: the same n makes the same message, whichever side writes it.
func (h *mergeHistory) message(n int) *record.Message {
	created := h.at(n)
	var entropy [10]byte
	entropy[8], entropy[9] = byte(n>>8), byte(n)
	id := ulid.MustNew(ulid.Timestamp(created), strings.NewReader(string(entropy[:]))).String()
	from, to := h.agents[n%3], h.agents[(n+1)%3]
	return &record.Message{Project: h.slug, ID: id, From: from, To: []string{to}, Subject: fmt.Sprintf("message %d", n),
		Importance: "normal", Created: created, Body: fmt.Sprintf("body %d about merges", n)}
}

func (h *mergeHistory) base() []record.Record {
	recs := []record.Record{&record.Project{Key: "github.com/org/merge", Slug: h.slug, Created: h.t0}}
	for _, a := range h.agents {
		recs = append(recs, &record.Agent{Project: h.slug, Name: a, Program: "p", Registered: h.t0, Updated: h.t0})
	}
	for _, m := range h.shared {
		recs = append(recs, m)
	}
	return recs
}

// maybe returns a time of a few, or zero ("not yet").
func (h *mergeHistory) maybe() time.Time {
	if h.r.IntN(3) == 0 {
		return time.Time{}
	}
	return h.at(10 + h.r.IntN(20))
}

// write returns a random batch of records one side writes: a new message
// (side tells the sides' messages apart), and new versions of receipts,
// reservations, locks, profiles, contacts and presence that both sides
// may write.
func (h *mergeHistory) write(side, n int) []record.Record {
	pick := func(s []string) string { return s[h.r.IntN(len(s))] }
	var recs []record.Record
	switch h.r.IntN(7) {
	case 0:
		recs = append(recs, h.message(100+side*100+n))
	case 1:
		m := h.shared[h.r.IntN(len(h.shared))]
		recs = append(recs, &record.Receipt{Project: h.slug, Message: m.ID, Agent: m.To[0], ReadAt: h.maybe(), AckedAt: h.maybe()})
	case 2:
		id := fmt.Sprintf("01JD00000000000000000000%02d", h.r.IntN(3))
		recs = append(recs, &record.Reservation{Project: h.slug, ID: id, Agent: "GreenCastle", Pattern: "src/" + id + "/**", Exclusive: true,
			Created: h.t0, Expires: h.at(60 + h.r.IntN(60)), Released: h.maybe(), ReleasedBy: "GreenCastle", Unconfirmed: h.r.IntN(2) == 0})
	case 3:
		recs = append(recs, &record.Lock{Project: h.slug, Key: pick([]string{"deploy", "build/x"}), Holder: pick(h.agents),
			Created: h.at(h.r.IntN(3)), Expires: h.at(60), Released: h.maybe()})
	case 4:
		recs = append(recs, &record.Agent{Project: h.slug, Name: pick(h.agents), Program: "p", Task: pick([]string{"a", "b"}),
			Registered: h.t0, Updated: h.at(h.r.IntN(5))})
	case 5:
		c := &record.Contact{Project: h.slug, From: "GreenCastle", To: "BlueLake", State: "requested", Reason: pick([]string{"x", "y"}), Requested: h.at(h.r.IntN(3))}
		if h.r.IntN(2) == 0 {
			c.State, c.Decided = pick([]string{"approved", "denied"}), c.Requested.Add(time.Minute)
			if c.State == "approved" {
				c.Expires = c.Decided.Add(time.Hour)
			}
		}
		recs = append(recs, c)
	case 6:
		recs = append(recs, &record.Presence{Project: h.slug, Agent: pick(h.agents), LastSeen: h.at(h.r.IntN(30))})
	}
	return recs
}

// changes are the archive changes of recs, relative to the project's
// branch.
func changes(recs []record.Record) []archive.Change {
	var out []archive.Change
	for _, r := range recs {
		for _, f := range r.Files() {
			out = append(out, archive.Change{Path: strings.TrimPrefix(f.Path, "projects/"+mergeSlug+"/"), Data: f.Data})
		}
	}
	return out
}

// After merging random histories of every record type, the index, caught
// up across the merge, equals an index rebuilt from the merged archive
// (what doctor --reindex would make): doctor --check finds nothing.
func TestMergeIndexEqualsRebuild(t *testing.T) {
	ctx := context.Background()
	for trial := uint64(0); trial < 12; trial++ {
		h := newMergeHistory(trial)
		st, err := store.Open(t.TempDir(), store.Options{Projections: projections()})
		if err != nil {
			t.Fatal(err)
		}
		write := func(recs []record.Record) {
			if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(recs...); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		write(h.base())
		theirs, err := st.ProjectHead(mergeSlug)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 1+h.r.IntN(12); n++ {
			res, err := st.Archive().CommitOnto(theirs, changes(h.write(1, n)), archive.Author{Name: "X", Email: "x@agentmail", When: h.at(n)}, "theirs", nil)
			if err != nil {
				t.Fatal(err)
			}
			theirs = res.Head
		}
		for n := 0; n < 1+h.r.IntN(12); n++ {
			write(h.write(0, n))
		}
		if _, _, err := st.MergeProject(ctx, mergeSlug, theirs); err != nil {
			t.Fatalf("trial %d: merge: %v", trial, err)
		}
		problems, err := st.Check(ctx)
		if err != nil || len(problems) > 0 {
			t.Fatalf("trial %d: after the merge, doctor --check: %v %q", trial, err, problems)
		}
		st.Close()
	}
}

// A message written with different bytes on two sides is never silently
// dropped: the merge keeps one, and doctor --check names it, with the
// parents that hold both.
func TestMergeReportsDifferingMessage(t *testing.T) {
	ctx := context.Background()
	h := newMergeHistory(1)
	st, err := store.Open(t.TempDir(), store.Options{Projections: projections()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(h.base()...); return nil }); err != nil {
		t.Fatal(err)
	}
	base, err := st.ProjectHead(mergeSlug)
	if err != nil {
		t.Fatal(err)
	}
	ours, other := h.message(50), h.message(50)
	other.Body = "the same id, other bytes"
	theirs, err := st.Archive().CommitOnto(base, changes([]record.Record{other}), archive.Author{Name: "X", Email: "x@agentmail", When: h.t0}, "theirs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(ours); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.MergeProject(ctx, mergeSlug, theirs.Head); err != nil {
		t.Fatal(err)
	}
	problems, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	canonical := strings.TrimPrefix(ours.Files()[0].Path, "projects/"+mergeSlug+"/")
	found := false
	for _, p := range problems {
		found = found || strings.Contains(p, canonical) && strings.Contains(p, "kept one of two different versions")
	}
	if !found {
		t.Fatalf("doctor --check says %q, want the message %s named", problems, canonical)
	}
}

// A proposed commit, adopted while the branch has not moved, is indexed
// as a write is; adopted after another write, it is merged. Either way
// the index equals a rebuild and holds both.
func TestAdopt(t *testing.T) {
	ctx := context.Background()
	for _, moved := range []bool{false, true} {
		h := newMergeHistory(3)
		st, err := store.Open(t.TempDir(), store.Options{Projections: projections()})
		if err != nil {
			t.Fatal(err)
		}
		put := func(recs ...record.Record) {
			if err := st.Update(ctx, func(tx *store.Tx) error { tx.Put(recs...); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		put(h.base()...)
		proposed, other := h.message(60), h.message(61)
		p, err := st.Propose(ctx, mergeSlug, func(tx *store.Tx) error { tx.Put(proposed); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if head, _ := st.ProjectHead(mergeSlug); head != p.Parent {
			t.Fatalf("Propose moved the branch to %s", head)
		}
		if moved {
			put(other)
		}
		if err := st.Adopt(ctx, p); err != nil {
			t.Fatalf("moved=%v: %v", moved, err)
		}
		head, _ := st.ProjectHead(mergeSlug)
		if !moved && head != p.Commit {
			t.Errorf("branch at %s, want the proposed commit %s", head, p.Commit)
		}
		if problems, err := st.Check(ctx); err != nil || len(problems) > 0 {
			t.Fatalf("moved=%v: doctor --check: %v %q", moved, err, problems)
		}
		for _, m := range []*record.Message{proposed, other} {
			if !moved && m == other {
				continue
			}
			if _, err := st.Archive().ReadFile(head, strings.TrimPrefix(m.Files()[0].Path, "projects/"+mergeSlug+"/")); err != nil {
				t.Errorf("moved=%v: %s not on the branch: %v", moved, m.ID, err)
			}
		}
		st.Close()
	}
}
