package guard

import (
	"slices"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/reservations"
)

func res(agent, pattern string) reservations.Reservation {
	return reservations.Reservation{ID: agent + ":" + pattern, Agent: agent, Pattern: pattern, Exclusive: true,
		Expires: time.Now().Add(time.Hour)}
}

func holders(rs []reservations.Reservation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Pattern)
	}
	return out
}

// TestConflicts: each path is reported once per reservation that covers
// it, with its holder, in the order of the paths and then of the
// reservations; ignoring case adds the paths that match only so.
func TestConflicts(t *testing.T) {
	rs := []reservations.Reservation{res("A", "src/api/**"), res("B", "Config/**"), res("C", "src/api/**")}
	paths := []string{"src/api/x.go", "config/app.yml", "docs/readme.md", "./Config/b.yml"}
	for _, tt := range []struct {
		fold bool
		want []string
	}{
		{false, []string{"src/api/x.go A", "src/api/x.go C", "./Config/b.yml B"}},
		{true, []string{"src/api/x.go A", "src/api/x.go C", "config/app.yml B", "./Config/b.yml B"}},
	} {
		var got []string
		for _, c := range Conflicts(rs, paths, tt.fold) {
			i := slices.IndexFunc(rs, func(r reservations.Reservation) bool { return r.ID == c.ID })
			if i < 0 || c.Pattern != rs[i].Pattern || c.Holder != rs[i].Agent || !c.Expires.Equal(rs[i].Expires) {
				t.Errorf("conflict %+v does not describe its reservation", c)
			}
			got = append(got, c.Path+" "+c.Holder)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Conflicts(fold=%v) = %q, want %q", tt.fold, got, tt.want)
		}
	}
}

func TestBlocking(t *testing.T) {
	now := time.Now()
	mk := func(agent, pattern string, exclusive bool, expires time.Time, released bool) reservations.Reservation {
		r := reservations.Reservation{Agent: agent, Pattern: pattern, Exclusive: exclusive, Expires: expires}
		if released {
			r.Released = now.Add(-time.Minute)
		}
		return r
	}
	rs := []reservations.Reservation{
		mk("BlueLake", "held", true, now.Add(time.Hour), false),
		mk("BlueLake", "shared", false, now.Add(time.Hour), false),
		mk("BlueLake", "expired", true, now.Add(-time.Second), false),
		mk("BlueLake", "released", true, now.Add(time.Hour), true),
		mk("GreenCastle", "mine", true, now.Add(time.Hour), false),
	}
	for _, tt := range []struct {
		agent string
		want  []string
	}{
		{"GreenCastle", []string{"held"}},
		{"greencastle", []string{"held"}},
		{"BlueLake", []string{"mine"}},
		{"", []string{"held", "mine"}}, // nobody: every exclusive reservation
		{"RedFox", []string{"held", "mine"}},
	} {
		if got := holders(Blocking(rs, tt.agent, now)); !slices.Equal(got, tt.want) {
			t.Errorf("Blocking(%q) = %q, want %q", tt.agent, got, tt.want)
		}
	}
}
