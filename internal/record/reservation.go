package record

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Reservation is a lease by an agent on a glob pattern of repository paths.
// Its file is rewritten when it is renewed or released.
type Reservation struct {
	Project       string // slug
	ID            string // ULID
	Agent         string
	Pattern       string
	Exclusive     bool
	Reason        string
	Created       time.Time
	Expires       time.Time
	Released      time.Time // zero while not released
	ReleasedBy    string    // who released it, when not its holder
	ReleaseReason string
	// Unconfirmed marks a lease granted with --offline, which no push
	// has decided: a sync ends it if it lost to one on the remote.
	Unconfirmed bool
	// Auto marks a lease the edit guard took when the agent edited a file
	// nobody held (guard edit --auto-reserve): the agent's session end
	// releases it. Session is the coding agent's session that took or
	// last renewed it ("" when its hook did not say).
	Auto    bool
	Session string
}

// Active reports whether the reservation holds at now.
func (r *Reservation) Active(now time.Time) bool {
	return r.Released.IsZero() && now.Before(r.Expires)
}

type reservationJSON struct {
	ID            string  `json:"id"`
	Agent         string  `json:"agent"`
	Pattern       string  `json:"pattern"`
	Exclusive     bool    `json:"exclusive"`
	Reason        string  `json:"reason"`
	Created       string  `json:"created"`
	Expires       string  `json:"expires"`
	Released      *string `json:"released"`
	ReleasedBy    string  `json:"released_by,omitempty"`
	ReleaseReason string  `json:"release_reason,omitempty"`
	Unconfirmed   bool    `json:"unconfirmed,omitempty"`
	Auto          bool    `json:"auto,omitempty"`
	Session       string  `json:"session,omitempty"`
}

// ReservationsDir is the directory of a project's reservations.
const ReservationsDir = "reservations"

// ReservationFile returns the path, in a project's directory, of the
// reservation with id: reservations/YYYY/MM/DD/HH/MM/SS/mmm/<id>.json,
// the UTC time of the id (a ULID) down to the millisecond. A write
// rewrites the trees on that path: each has at most 1,000 entries (a
// second's milliseconds) but the last, which holds the leases made in one
// millisecond (by one write), whatever the number of reservations the
// project ever had; earlier versions kept every reservation in one
// directory, rewritten whole by every write. An id that is not a ULID
// keeps that flat path (LegacyReservationFile).
func ReservationFile(id string) string {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return LegacyReservationFile(id)
	}
	t := ulid.Time(u.Time()).UTC()
	return fmt.Sprintf("%s/%s/%03d/%s.json", ReservationsDir, t.Format("2006/01/02/15/04/05"), t.Nanosecond()/1e6, id)
}

// LegacyReservationFile returns the path, in a project's directory, that
// versions before ReservationFile's layout gave the reservation with id.
func LegacyReservationFile(id string) string { return ReservationsDir + "/" + id + ".json" }

// RelocateReservation says where the file name, directly in a project's
// reservations directory (the layout of earlier versions), belongs now,
// relative to that directory: false for a file that stays (not a
// reservation's, or its id is not a ULID).
func RelocateReservation(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return "", false
	}
	to, moved := strings.CutPrefix(ReservationFile(id), ReservationsDir+"/")
	return to, moved && to != name
}

// Files implements Record.
func (r *Reservation) Files() []File {
	return []File{{ProjectDir(r.Project) + "/" + ReservationFile(r.ID), r.encode()}}
}

// encode returns the file of r: what marshal makes of its reservationJSON,
// written out directly. A reservation of 50 patterns writes 50 files,
// and json.MarshalIndent's reflection and second pass to indent cost
// more than the rest of the write's encoding.
func (r *Reservation) encode() []byte {
	var o jsonObject
	o.grow(384 + len(r.Session) + len(r.Agent) + len(r.Pattern) + len(r.Reason) + len(r.ReleasedBy) + len(r.ReleaseReason))
	o.str("id", r.ID)
	o.str("agent", r.Agent)
	o.str("pattern", r.Pattern)
	o.boolean("exclusive", r.Exclusive)
	o.str("reason", r.Reason)
	o.str("created", FormatTime(r.Created))
	o.str("expires", FormatTime(r.Expires))
	if r.Released.IsZero() {
		o.null("released")
	} else {
		o.str("released", FormatTime(r.Released))
	}
	if r.ReleasedBy != "" {
		o.str("released_by", r.ReleasedBy)
	}
	if r.ReleaseReason != "" {
		o.str("release_reason", r.ReleaseReason)
	}
	if r.Unconfirmed {
		o.boolean("unconfirmed", true)
	}
	if r.Auto {
		o.boolean("auto", true)
	}
	if r.Session != "" {
		o.str("session", r.Session)
	}
	return o.end()
}

// jsonObject writes a JSON object as marshal does (json.MarshalIndent with
// an indent of two spaces, and a final newline), one member after another.
type jsonObject struct{ b []byte }

func (o *jsonObject) grow(n int) { o.b = make([]byte, 0, n) }

// key starts the member named k, a plain ASCII word, which JSON takes as
// it is.
func (o *jsonObject) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, "\n  \""...)
	o.b = append(o.b, k...)
	o.b = append(o.b, "\": "...)
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *jsonObject) boolean(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *jsonObject) null(k string) {
	o.key(k)
	o.b = append(o.b, "null"...)
}

// end closes the object and returns it.
func (o *jsonObject) end() []byte { return append(o.b, "\n}\n"...) }

// appendJSONString appends s as encoding/json encodes it: plain ASCII as it
// is, quoted; anything else (escapes, HTML characters, non-ASCII) through
// encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil {
				panic(err) // a string always marshals
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func decodeReservation(slug string, data []byte) (*Reservation, error) {
	var v reservationJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	r := &Reservation{Project: slug, ID: v.ID, Agent: v.Agent, Pattern: v.Pattern, Exclusive: v.Exclusive,
		Reason: v.Reason, ReleasedBy: v.ReleasedBy, ReleaseReason: v.ReleaseReason, Unconfirmed: v.Unconfirmed,
		Auto: v.Auto, Session: v.Session}
	var err error
	if r.Created, err = ParseTime(v.Created); err != nil {
		return nil, err
	}
	if r.Expires, err = ParseTime(v.Expires); err != nil {
		return nil, err
	}
	if v.Released != nil {
		if r.Released, err = ParseTime(*v.Released); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Lock is the current or last holder of a named lock.
type Lock struct {
	Project  string // slug
	Key      string
	Holder   string
	Created  time.Time
	Expires  time.Time
	Released time.Time // zero while held
	// Run is the token of the `lock run` that holds the lock, "" for a
	// lock taken by `lock acquire`. Sub-agents of one agent share its
	// name: the token is what tells their runs apart.
	Run string
	// Unconfirmed marks a lock taken with --offline, which no push has
	// decided yet (see Reservation.Unconfirmed).
	Unconfirmed bool
}

// Held reports whether the lock is held at now.
func (l *Lock) Held(now time.Time) bool { return l.Released.IsZero() && now.Before(l.Expires) }

type lockJSON struct {
	Key      string  `json:"key"`
	Holder   string  `json:"holder"`
	Created  string  `json:"created"`
	Expires  string  `json:"expires"`
	Released *string `json:"released"`
	Run      string  `json:"run,omitempty"`

	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

// LockFileName escapes a lock key ("deploy/staging") into one file name.
func LockFileName(key string) string {
	return strings.ReplaceAll(url.PathEscape(key), "%2F", "~") + ".json"
}

// Files implements Record.
func (l *Lock) Files() []File {
	return []File{{ProjectDir(l.Project) + "/locks/" + LockFileName(l.Key), marshal(lockJSON{
		l.Key, l.Holder, FormatTime(l.Created), FormatTime(l.Expires), optTime(l.Released), l.Run, l.Unconfirmed,
	})}}
}

func decodeLock(slug string, data []byte) (*Lock, error) {
	var v lockJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	l := &Lock{Project: slug, Key: v.Key, Holder: v.Holder, Run: v.Run, Unconfirmed: v.Unconfirmed}
	var err error
	if l.Created, err = ParseTime(v.Created); err != nil {
		return nil, err
	}
	if l.Expires, err = ParseTime(v.Expires); err != nil {
		return nil, err
	}
	if v.Released != nil {
		if l.Released, err = ParseTime(*v.Released); err != nil {
			return nil, err
		}
	}
	return l, nil
}
