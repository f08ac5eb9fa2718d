package reservations

import (
	"strings"

	"github.com/agentmail/agentmail/internal/glob"
)

// Lease is what Clashes needs of an active lease.
type Lease struct {
	ID, Agent, Pattern string
	Exclusive          bool
}

// Clashes returns, for each lease of list that overlaps another agent's
// (either of the two exclusive: what a grant refuses, which
// --allow-conflicts lets through), the ids of those other leases, in
// list's order. Only leases whose literal directories meet are compared
// (glob.DirsMeet): a lease looks up the leases in its own directory and in
// each directory above it, so the work grows with the leases and their
// depth, not with every pair.
func Clashes(list []Lease) map[string][]string {
	byDir := map[string][]int{}
	dirs := make([]string, len(list))
	for i, l := range list {
		dirs[i] = glob.LiteralDir(l.Pattern)
		byDir[dirs[i]] = append(byDir[dirs[i]], i)
	}
	out := map[string][]string{}
	clash := func(i, j int) {
		a, b := list[i], list[j]
		if i == j || a.Agent == b.Agent || !a.Exclusive && !b.Exclusive || !glob.Overlap(a.Pattern, b.Pattern) {
			return
		}
		out[a.ID] = append(out[a.ID], b.ID)
		out[b.ID] = append(out[b.ID], a.ID)
	}
	for i := range list {
		// The leases in i's directory (each pair once) and in the
		// directories above it; those below are met from their side.
		for _, j := range byDir[dirs[i]] {
			if j > i {
				clash(i, j)
			}
		}
		for d := dirs[i]; d != ""; {
			d = parent(d)
			for _, j := range byDir[d] {
				clash(i, j)
			}
		}
	}
	return out
}

// parent is the directory above dir, "" for the root.
func parent(dir string) string {
	if k := strings.LastIndexByte(dir, '/'); k >= 0 {
		return dir[:k]
	}
	return ""
}
