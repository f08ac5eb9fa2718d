package record

import (
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
)

// Earliest and Latest bound every time agentmail accepts or computes: a
// record's times are written with four-digit years and read back, and ids
// (ULIDs) carry their time in milliseconds since 1970. The clock
// (AGENTMAIL_NOW) must lie between them, and a write whose times (an
// expiry: now plus a TTL) fall outside is refused.
var (
	Earliest = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	Latest   = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// InRange reports whether t lies between Earliest and Latest.
func InRange(t time.Time) bool { return !t.Before(Earliest) && !t.After(Latest) }

// CheckTimes returns an error wrapping fault.ErrInvalidArgument when one
// of r's times (the zero time aside: "not yet") is outside Earliest to
// Latest, naming it.
func CheckTimes(r Record) error {
	var times []struct {
		name string
		t    time.Time
	}
	add := func(name string, t time.Time) {
		times = append(times, struct {
			name string
			t    time.Time
		}{name, t})
	}
	switch x := r.(type) {
	case *Message:
		add("the message's time", x.Created)
	case *Reservation:
		add("the reservation's start", x.Created)
		add("the reservation's expiry", x.Expires)
		add("the reservation's release", x.Released)
	case *Lock:
		add("the lock's start", x.Created)
		add("the lock's expiry", x.Expires)
		add("the lock's release", x.Released)
	case *Contact:
		add("the contact's request", x.Requested)
		add("the contact's answer", x.Decided)
		add("the contact's expiry", x.Expires)
	case *Receipt:
		add("the read time", x.ReadAt)
		add("the acknowledgement's time", x.AckedAt)
	case *Agent:
		add("the registration", x.Registered)
		add("the profile's update", x.Updated)
	case *Presence:
		add("the last-seen time", x.LastSeen)
	case *Idempotency:
		add("the idempotency key's time", x.Created)
	case *Project:
		add("the project's creation", x.Created)
	}
	for _, v := range times {
		if !v.t.IsZero() && !InRange(v.t) {
			return fault.WithHint(fmt.Errorf("%w: %s would be %s, outside %d to %d", fault.ErrInvalidArgument, v.name,
				v.t.UTC().Format(time.RFC3339), Earliest.Year(), Latest.Year()),
				"check the clock (AGENTMAIL_NOW) and the durations given: times must fall between 1970 and 9999")
		}
	}
	return nil
}
