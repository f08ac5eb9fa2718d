package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// The text of a reserve, renewal or release of several leases says their
// shared terms once, then an id and a pattern a line: the ids and
// patterns of the document, in its order.
func TestReservationTextShort(t *testing.T) {
	g, _ := twoAgents(t)
	paths := []string{"src/a/*.go", "src/b/*.go", "docs/**"}
	res := g.call("file_reservation_paths", args{"paths": paths, "reason": "auth rewrite"})
	if res.IsError {
		t.Fatal(text(res))
	}
	granted := doc(res.StructuredContent.(map[string]any))
	want := fmt.Sprintf("granted 3 reservations by GreenCastle (exclusive, expires %s): auth rewrite",
		g.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	for i, p := range paths {
		want += "\n" + granted.str(fmt.Sprintf("granted.%d.id", i)) + " " + p
	}
	if got := text(res); got != want {
		t.Errorf("text of the grant:\n%s\nwant:\n%s", got, want)
	}
	g.clock.Add(time.Minute)
	res = g.call("release_file_reservations", args{"paths": paths})
	if got := text(res); !strings.HasPrefix(got, "released 3 reservations by GreenCastle (exclusive, expires ") ||
		!strings.Contains(got, "), released "+g.clock.Now().UTC().Format(time.RFC3339)+": auth rewrite\n") || strings.Count(got, "\n") != 3 {
		t.Errorf("text of the release:\n%s", got)
	}
}

// Leases that differ in their terms keep a whole line each.
func TestReservationListing(t *testing.T) {
	at := service.Time{Time: time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)}
	a := service.Reservation{ID: "01A", Agent: "GreenCastle", Pattern: "src/**", Exclusive: true, Expires: at}
	b := service.Reservation{ID: "01B", Agent: "GreenCastle", Pattern: "docs/**", Exclusive: true, Expires: at}
	c := b
	c.Exclusive = false
	for _, tt := range []struct {
		list []service.Reservation
		want string
	}{
		{nil, "held: none"},
		{[]service.Reservation{a}, "held:\n01A src/** by GreenCastle (exclusive, expires 2026-11-25T08:00:00Z)"},
		{[]service.Reservation{a, b}, "held by GreenCastle (exclusive, expires 2026-11-25T08:00:00Z)\n01A src/**\n01B docs/**"},
		{[]service.Reservation{a, c}, "held:\n01A src/** by GreenCastle (exclusive, expires 2026-11-25T08:00:00Z)\n" +
			"01B docs/** by GreenCastle (shared, expires 2026-11-25T08:00:00Z)"},
	} {
		if got := reservationListing("held", tt.list); got != tt.want {
			t.Errorf("reservationListing(%v):\n%s\nwant:\n%s", tt.list, got, tt.want)
		}
	}
}
