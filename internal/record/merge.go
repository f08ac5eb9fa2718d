package record

import (
	"bytes"
	"reflect"
	"strings"
	"time"
)

// Merge resolves two versions of the record file at path (as Decode takes
// it) that two histories of a project wrote differently, by a rule per
// record that is commutative, associative and idempotent, so that merging
// histories in any order gives the same archive:
//
//   - a receipt keeps the earliest read_at and the earliest acked_at;
//   - a reservation keeps its latest expiry and its earliest release (and
//     who released it then), and is confirmed once either side confirmed it;
//   - a lock keeps its latest acquisition; one acquisition keeps its latest
//     expiry and its earliest release, and is confirmed once either side
//     confirmed it;
//   - a port claim, like a lock, keeps its latest claim; one claim keeps
//     its latest expiry and its earliest release;
//   - a profile keeps its latest update, a presence its latest time, an
//     idempotency key its latest use (an earlier one is past its window),
//     an agent's subscriptions and its state their latest change;
//   - an agent's control keeps the latest pause or resume and, apart, the
//     latest interrupt;
//   - a contact merges by who may write which field: the requester writes
//     the request (reason, requested), the recipient the answer (state,
//     decided, expires); each keeps its latest version, and an answer
//     older than the request it meets answered an earlier one, so the
//     contact is requested again;
//   - anything else (a message and its copies are immutable, a project's
//     file is written once; files this version does not know) keeps the
//     smaller of the two byte strings.
//
// Ties are broken by the bytes, never by the order of the arguments.
func Merge(path string, a, b []byte) ([]byte, error) {
	m, _, err := MergeVersions(path, a, b)
	return m, err
}

// MergeVersions is Merge, and reports dropped when two different versions
// of a message, or of its copy, were settled by keeping the smaller whole:
// a message never changes, so that is a finding for doctor, not a rule.
// (Two machines each write a project's file, dated differently, before
// they first sync: any one of them will do.)
func MergeVersions(path string, a, b []byte) (merged []byte, dropped bool, err error) {
	if bytes.Compare(a, b) > 0 {
		a, b = b, a
	}
	differ := !bytes.Equal(a, b) && messageFile(path)
	ra, errA := Decode(path, a)
	rb, errB := Decode(path, b)
	if errA != nil || errB != nil || ra == nil || rb == nil || reflect.TypeOf(ra) != reflect.TypeOf(rb) {
		return a, differ, nil
	}
	var m Record
	switch x := ra.(type) {
	case *Receipt:
		y := rb.(*Receipt)
		r := *x
		r.ReadAt, r.AckedAt = earliest(x.ReadAt, y.ReadAt), earliest(x.AckedAt, y.AckedAt)
		m = &r
	case *Reservation:
		y := rb.(*Reservation)
		r := *x
		r.Expires = latest(x.Expires, y.Expires)
		r.Unconfirmed = x.Unconfirmed && y.Unconfirmed // a push decided it
		r.Auto = x.Auto || y.Auto
		if y.Expires.After(x.Expires) || y.Expires.Equal(x.Expires) && y.Session > x.Session {
			r.Session = y.Session // the session that renewed it last (either way round)
		}
		if releasedFirst(y, x) {
			r.Released, r.ReleasedBy, r.ReleaseReason = y.Released, y.ReleasedBy, y.ReleaseReason
		}
		m = &r
	case *Lock:
		y := rb.(*Lock)
		if !x.Created.Equal(y.Created) || x.Holder != y.Holder || x.Run != y.Run {
			return later(a, b, x.Created, y.Created), false, nil
		}
		l := *x
		l.Expires, l.Released = latest(x.Expires, y.Expires), earliest(x.Released, y.Released)
		l.Unconfirmed = x.Unconfirmed && y.Unconfirmed
		m = &l
	case *Port:
		y := rb.(*Port)
		if !x.Created.Equal(y.Created) || x.Holder != y.Holder || x.Port != y.Port {
			return later(a, b, x.Created, y.Created), false, nil
		}
		p := *x
		p.Expires, p.Released = latest(x.Expires, y.Expires), earliest(x.Released, y.Released)
		m = &p
	case *Agent:
		y := rb.(*Agent)
		return later(a, b, x.Updated, y.Updated), false, nil
	case *Contact:
		m = mergeContact(x, rb.(*Contact))
	case *Presence:
		return later(a, b, x.LastSeen, rb.(*Presence).LastSeen), false, nil
	case *Subscriptions:
		return later(a, b, x.Updated, rb.(*Subscriptions).Updated), false, nil
	case *AgentState:
		return later(a, b, x.Updated, rb.(*AgentState).Updated), false, nil
	case *Rules:
		return later(a, b, x.Updated, rb.(*Rules).Updated), false, nil
	case *Control:
		m = mergeControl(x, rb.(*Control))
	case *Idempotency:
		return later(a, b, x.Created, rb.(*Idempotency).Created), false, nil
	default:
		return a, differ, nil
	}
	for _, f := range m.Files() {
		if f.Path == path {
			return f.Data, false, nil
		}
	}
	return a, differ, nil
}

// earliest returns the earlier of two times, a zero time meaning "not
// yet".
func earliest(x, y time.Time) time.Time {
	switch {
	case x.IsZero():
		return y
	case y.IsZero() || x.Before(y):
		return x
	}
	return y
}

func latest(x, y time.Time) time.Time {
	if y.After(x) {
		return y
	}
	return x
}

// later returns the version of the later time, b (the greater bytes) on a
// tie.
func later(a, b []byte, ta, tb time.Time) []byte {
	if ta.After(tb) {
		return a
	}
	return b
}

// releasedFirst orders releases: the earlier one first (none is last),
// then by who released it and why, so that a tie has one winner.
func releasedFirst(x, y *Reservation) bool {
	switch {
	case x.Released.IsZero() || y.Released.IsZero():
		return !x.Released.IsZero() && y.Released.IsZero()
	case !x.Released.Equal(y.Released):
		return x.Released.Before(y.Released)
	case x.ReleasedBy != y.ReleasedBy:
		return x.ReleasedBy < y.ReleasedBy
	}
	return x.ReleaseReason < y.ReleaseReason
}

// mergeContact merges two versions of one contact field by field: the
// latest request (as its requester wrote it) and the latest answer (as
// its recipient did), which stands only if it is not older than that
// request. Ties are broken by the fields' values.
func mergeContact(x, y *Contact) *Contact {
	req, ans := x, y
	if y.Requested.After(x.Requested) || (y.Requested.Equal(x.Requested) && y.Reason > x.Reason) {
		req = y
	}
	if answeredFirst(y, x) {
		ans = x
	}
	c := *req
	c.State, c.Decided, c.Expires = "requested", time.Time{}, time.Time{}
	if !ans.Decided.IsZero() && !ans.Decided.Before(req.Requested) {
		c.State, c.Decided, c.Expires = ans.State, ans.Decided, ans.Expires
	}
	return &c
}

// answeredFirst orders contact answers: none first, then by the time of
// the decision, then by its values, so that a tie has one winner.
func answeredFirst(x, y *Contact) bool {
	switch {
	case x.Decided.IsZero() || y.Decided.IsZero():
		return x.Decided.IsZero() && !y.Decided.IsZero()
	case !x.Decided.Equal(y.Decided):
		return x.Decided.Before(y.Decided)
	case !x.Expires.Equal(y.Expires):
		return x.Expires.Before(y.Expires)
	}
	return x.State < y.State
}

// messageFile reports whether path is a message's canonical file or one
// of its copies (projects/<slug>/messages/..., .../agents/<Name>/inbox/...
// or outbox/...).
func messageFile(path string) bool {
	parts := strings.Split(path, "/")
	switch {
	case len(parts) < 3 || parts[0] != "projects":
		return false
	case parts[2] == "messages":
		return true
	}
	return len(parts) > 4 && parts[2] == "agents" && (parts[4] == "inbox" || parts[4] == "outbox")
}
