package record

import (
	"bytes"
	"math/rand"
	"testing"
	"time"
)

var mt0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// someTime is one of a few times, or zero ("not yet").
func someTime(r *rand.Rand) time.Time {
	if r.Intn(3) == 0 {
		return time.Time{}
	}
	return mt0.Add(time.Duration(r.Intn(4)) * time.Minute)
}

// variants returns random versions of one record of each kind, as files.
func variants(r *rand.Rand) map[string]func() File {
	return map[string]func() File{
		"receipt": func() File {
			return (&Receipt{Project: "p", Message: "01JD0000000000000000000000", Agent: "BlueLake", ReadAt: someTime(r), AckedAt: someTime(r)}).Files()[0]
		},
		"reservation": func() File {
			rel := someTime(r)
			by := ""
			if !rel.IsZero() {
				by = []string{"", "RedCat"}[r.Intn(2)]
			}
			return (&Reservation{Project: "p", ID: "01JD0000000000000000000001", Agent: "GreenCastle", Pattern: "src/**", Exclusive: true,
				Created: mt0, Expires: mt0.Add(time.Duration(1+r.Intn(4)) * time.Hour), Released: rel, ReleasedBy: by, Unconfirmed: r.Intn(2) == 0,
				Auto: true, Session: []string{"", "s1", "s2"}[r.Intn(3)]}).Files()[0]
		},
		"lock": func() File {
			return (&Lock{Project: "p", Key: "deploy", Holder: []string{"A", "B"}[r.Intn(2)], Created: mt0.Add(time.Duration(r.Intn(2)) * time.Minute),
				Expires: mt0.Add(time.Duration(1+r.Intn(3)) * time.Hour), Released: someTime(r), Unconfirmed: r.Intn(2) == 0}).Files()[0]
		},
		"port": func() File {
			return (&Port{Project: "p", Host: "build-1", Name: "shop:api", Port: []int{20001, 20002}[r.Intn(2)], Holder: []string{"A", "B"}[r.Intn(2)],
				Created: mt0.Add(time.Duration(r.Intn(2)) * time.Minute), Expires: mt0.Add(time.Duration(1+r.Intn(3)) * time.Hour), Released: someTime(r)}).Files()[0]
		},
		"agent": func() File {
			return (&Agent{Project: "p", Name: "GreenCastle", Program: "claude-code", Task: []string{"a", "b", "c"}[r.Intn(3)],
				Registered: mt0, Updated: mt0.Add(time.Duration(r.Intn(3)) * time.Minute)}).Files()[0]
		},
		"presence": func() File {
			return (&Presence{Project: "p", Agent: "GreenCastle", LastSeen: mt0.Add(time.Duration(r.Intn(3)) * time.Minute)}).Files()[0]
		},
		"subscriptions": func() File {
			topics := []Subscription{{"builds", mt0}, {"jobs", mt0.Add(time.Minute)}}[:r.Intn(3)]
			return (&Subscriptions{Project: "p", Agent: "BlueLake", Topics: topics, Updated: mt0.Add(time.Duration(r.Intn(3)) * time.Minute)}).Files()[0]
		},
		"state": func() File {
			return (&AgentState{Project: "p", Agent: "BlueLake", State: AgentStates[r.Intn(4)], Note: []string{"", "db"}[r.Intn(2)],
				Updated: mt0.Add(time.Duration(r.Intn(3)) * time.Minute)}).Files()[0]
		},
		"control": func() File {
			return (&Control{Project: "p", Agent: "BlueLake", Paused: r.Intn(2) == 0, PauseBy: []string{"A", "B"}[r.Intn(2)],
				PauseReason: []string{"", "x"}[r.Intn(2)], PauseAt: someTime(r), InterruptBy: []string{"", "Human"}[r.Intn(2)],
				InterruptReason: []string{"", "red"}[r.Intn(2)], InterruptAt: someTime(r)}).Files()[0]
		},
		"rules": func() File {
			return (&Rules{Project: "p", Role: "reviewer", Body: []string{"", "a\n", "b"}[r.Intn(3)], By: []string{"A", "Human"}[r.Intn(2)],
				Updated: mt0.Add(time.Duration(r.Intn(3)) * time.Minute)}).Files()[0]
		},
		"contact": func() File {
			st := []string{"requested", "approved", "denied"}[r.Intn(3)]
			req := mt0.Add(time.Duration(r.Intn(3)) * time.Minute)
			var dec, exp time.Time
			if st != "requested" {
				dec = req.Add(time.Duration(r.Intn(2)) * time.Minute)
			}
			if st == "approved" {
				exp = dec.Add(time.Duration(1+r.Intn(2)) * time.Hour)
			}
			return (&Contact{Project: "p", From: "GreenCastle", To: "BlueLake", State: st, Reason: []string{"", "api", "docs"}[r.Intn(3)],
				Requested: req, Decided: dec, Expires: exp}).Files()[0]
		},
	}
}

func mustMerge(t *testing.T, p string, a, b []byte) []byte {
	t.Helper()
	m, err := Merge(p, a, b)
	if err != nil {
		t.Fatalf("Merge(%s): %v", p, err)
	}
	return m
}

// Merge is commutative, associative and idempotent for every record kind.
func TestMergeLaws(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for kind, gen := range variants(r) {
		for i := 0; i < 300; i++ {
			x, y, z := gen(), gen(), gen()
			p := x.Path
			if y.Path != p || z.Path != p {
				t.Fatalf("%s: paths differ: %s %s %s", kind, p, y.Path, z.Path)
			}
			if a, b := mustMerge(t, p, x.Data, y.Data), mustMerge(t, p, y.Data, x.Data); !bytes.Equal(a, b) {
				t.Fatalf("%s: not commutative:\n%s\n%s", kind, a, b)
			}
			if a, b := mustMerge(t, p, mustMerge(t, p, x.Data, y.Data), z.Data), mustMerge(t, p, x.Data, mustMerge(t, p, y.Data, z.Data)); !bytes.Equal(a, b) {
				t.Fatalf("%s: not associative:\n%s\n%s", kind, a, b)
			}
			if m := mustMerge(t, p, x.Data, x.Data); !bytes.Equal(m, x.Data) {
				t.Fatalf("%s: not idempotent:\n%s\n%s", kind, m, x.Data)
			}
		}
	}
}

// The rules themselves, on the fields each record merges.
func TestMergeRules(t *testing.T) {
	at := func(m int) time.Time { return mt0.Add(time.Duration(m) * time.Minute) }
	merged := func(a, b Record) Record {
		fa, fb := a.Files()[0], b.Files()[0]
		rec, err := Decode(fa.Path, mustMerge(t, fa.Path, fa.Data, fb.Data))
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	rc := merged(&Receipt{Project: "p", Message: "01JD0000000000000000000000", Agent: "B", ReadAt: at(2)},
		&Receipt{Project: "p", Message: "01JD0000000000000000000000", Agent: "B", ReadAt: at(1), AckedAt: at(3)}).(*Receipt)
	if !rc.ReadAt.Equal(at(1)) || !rc.AckedAt.Equal(at(3)) {
		t.Errorf("receipt: read %v acked %v, want the earliest of each", rc.ReadAt, rc.AckedAt)
	}
	res := func(exp, rel int, by string) *Reservation {
		r := &Reservation{Project: "p", ID: "01JD0000000000000000000001", Agent: "G", Pattern: "src/**", Created: mt0, Expires: at(exp), ReleasedBy: by}
		if rel > 0 {
			r.Released = at(rel)
		}
		return r
	}
	rs := merged(res(60, 0, ""), res(90, 30, "RedCat")).(*Reservation)
	if !rs.Expires.Equal(at(90)) || !rs.Released.Equal(at(30)) || rs.ReleasedBy != "RedCat" {
		t.Errorf("reservation: expires %v released %v by %q", rs.Expires, rs.Released, rs.ReleasedBy)
	}
	off := res(60, 0, "")
	off.Unconfirmed = true
	if rs := merged(off, res(60, 0, "")).(*Reservation); rs.Unconfirmed {
		t.Errorf("reservation: still unconfirmed after merging a confirmed version")
	}
	s1, s2 := res(60, 0, ""), res(90, 0, "")
	s1.Auto, s1.Session, s2.Auto, s2.Session = true, "first", true, "second"
	if rs := merged(s1, s2).(*Reservation); !rs.Auto || rs.Session != "second" {
		t.Errorf("auto reservation: auto %v session %q, want the session that renewed it last (second)", rs.Auto, rs.Session)
	}
	offLock := &Lock{Project: "p", Key: "k", Holder: "A", Created: at(0), Expires: at(10), Unconfirmed: true}
	if lk := merged(offLock, &Lock{Project: "p", Key: "k", Holder: "A", Created: at(0), Expires: at(10)}).(*Lock); lk.Unconfirmed {
		t.Errorf("lock: still unconfirmed after merging a confirmed version")
	}
	ag := merged(&Agent{Project: "p", Name: "G", Task: "new", Registered: mt0, Updated: at(5)},
		&Agent{Project: "p", Name: "G", Task: "old", Registered: mt0, Updated: at(1)}).(*Agent)
	if ag.Task != "new" {
		t.Errorf("profile: task %q, want the latest update's", ag.Task)
	}
	lk := merged(&Lock{Project: "p", Key: "k", Holder: "A", Created: at(0), Expires: at(10)},
		&Lock{Project: "p", Key: "k", Holder: "B", Created: at(1), Expires: at(5)}).(*Lock)
	if lk.Holder != "B" {
		t.Errorf("lock: holder %q, want the latest acquisition's", lk.Holder)
	}
	ctl := merged(&Control{Project: "p", Agent: "B", Paused: true, PauseBy: "A", PauseAt: at(5), InterruptBy: "A", InterruptAt: at(1)},
		&Control{Project: "p", Agent: "B", Paused: false, PauseBy: "C", PauseAt: at(2), InterruptBy: "Human", InterruptReason: "red", InterruptAt: at(3)}).(*Control)
	if !ctl.Paused || ctl.PauseBy != "A" || ctl.InterruptBy != "Human" || ctl.InterruptReason != "red" {
		t.Errorf("control: %+v, want the latest pause and, apart, the latest interrupt", ctl)
	}
	sub := merged(&Subscriptions{Project: "p", Agent: "B", Topics: []Subscription{{"jobs", at(1)}}, Updated: at(4)},
		&Subscriptions{Project: "p", Agent: "B", Updated: at(2)}).(*Subscriptions)
	if len(sub.Topics) != 1 {
		t.Errorf("subscriptions: %+v, want the latest change", sub)
	}
	pr := merged(&Presence{Project: "p", Agent: "G", LastSeen: at(7)}, &Presence{Project: "p", Agent: "G", LastSeen: at(2)}).(*Presence)
	if !pr.LastSeen.Equal(at(7)) {
		t.Errorf("presence: last seen %v, want the latest", pr.LastSeen)
	}
	contact := func(state, reason string, req, dec int) *Contact {
		c := &Contact{Project: "p", From: "G", To: "B", State: state, Reason: reason, Requested: at(req)}
		if dec >= 0 {
			c.Decided = at(dec)
		}
		if state == "approved" {
			c.Expires = at(dec + 60)
		}
		return c
	}
	for _, tt := range []struct {
		name       string
		a, b, want *Contact
	}{
		{"the recipient's answer to the request", contact("requested", "api", 0, -1), contact("approved", "api", 0, 1), contact("approved", "api", 0, 1)},
		// The requester asked again (a new reason) while the recipient
		// answered the first request: the new request stands, unanswered.
		{"a request newer than the answer", contact("requested", "docs", 5, -1), contact("denied", "api", 0, 1), contact("requested", "docs", 5, -1)},
		// The recipient answered the second request on one machine; the
		// other machine still has the first one, unanswered.
		{"an answer to the latest request", contact("approved", "docs", 5, 6), contact("requested", "api", 0, -1), contact("approved", "docs", 5, 6)},
		{"the latest of two answers", contact("denied", "api", 0, 2), contact("approved", "api", 0, 1), contact("denied", "api", 0, 2)},
	} {
		got := merged(tt.a, tt.b).(*Contact)
		if *got != *tt.want {
			t.Errorf("contact, %s: got %+v, want %+v", tt.name, *got, *tt.want)
		}
	}
}

// Only a message (or its copy) found in two versions is a finding: a
// project's file, written on each machine before the first sync, is not,
// nor is any record merged by its rule.
func TestMergeVersionsDropped(t *testing.T) {
	m := &Message{Project: "p", ID: "01JD0000000000000000000000", From: "A", To: []string{"B"}, Subject: "s", Importance: "normal", Created: mt0, Body: "one"}
	other := *m
	other.Body = "two"
	mf, of := m.Files(), other.Files()
	tests := []struct {
		name string
		a, b File
		want bool
	}{
		{"message", mf[0], of[0], true},
		{"sender's copy", mf[1], of[1], true},
		{"recipient's copy", mf[2], of[2], true},
		{"project file", (&Project{Key: "k", Slug: "p", Created: mt0}).Files()[0], (&Project{Key: "k", Slug: "p", Created: mt0.Add(time.Minute)}).Files()[0], false},
		{"receipt", (&Receipt{Project: "p", Message: m.ID, Agent: "B", ReadAt: mt0}).Files()[0], (&Receipt{Project: "p", Message: m.ID, Agent: "B"}).Files()[0], false},
	}
	for _, tt := range tests {
		if tt.a.Path != tt.b.Path {
			t.Fatalf("%s: paths differ: %s %s", tt.name, tt.a.Path, tt.b.Path)
		}
		if _, dropped, err := MergeVersions(tt.a.Path, tt.a.Data, tt.b.Data); err != nil || dropped != tt.want {
			t.Errorf("%s: dropped %v, %v; want %v", tt.name, dropped, err, tt.want)
		}
	}
}
