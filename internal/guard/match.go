package guard

import (
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/reservations"
)

// Conflict is a path the commit touches that another agent holds.
type Conflict struct {
	Path    string // as git names it
	Holder  string
	Pattern string // the holder's reservation pattern
	Expires time.Time
	ID      string // the reservation
}

// conflicts matches paths against rs, and returns in one pass the
// conflicts of the paths as written and, when fold is set, those ignoring
// case (a superset): one conflict per path and reservation that covers it,
// in the order of paths, then of rs.
func conflicts(rs []reservations.Reservation, paths []string, fold bool) (exact, folded []Conflict) {
	patterns := make([]string, len(rs))
	for i, r := range rs {
		patterns[i] = r.Pattern
	}
	m := glob.NewMatcher(patterns)
	exact, folded = []Conflict{}, []Conflict{}
	for _, p := range paths {
		m.Each(p, fold, func(i int, isExact bool) {
			r := &rs[i]
			c := Conflict{Path: p, Holder: r.Agent, Pattern: r.Pattern, Expires: r.Expires, ID: r.ID}
			if isExact {
				exact = append(exact, c)
			}
			if fold {
				folded = append(folded, c)
			}
		})
	}
	return exact, folded
}

// Conflicts returns, for each path in order, one conflict per reservation
// of rs that covers it; fold ignores case.
func Conflicts(rs []reservations.Reservation, paths []string, fold bool) []Conflict {
	exact, folded := conflicts(rs, paths, fold)
	if fold {
		return folded
	}
	return exact
}

// Blocking keeps the reservations that can stop agent's commit: active at
// now, exclusive, and held by someone else (names compare ignoring case).
// An empty agent is nobody, so every exclusive reservation applies.
func Blocking(rs []reservations.Reservation, agent string, now time.Time) []reservations.Reservation {
	var out []reservations.Reservation
	for _, r := range rs {
		if r.Exclusive && r.Active(now) && (agent == "" || !strings.EqualFold(r.Agent, agent)) {
			out = append(out, r)
		}
	}
	return out
}
