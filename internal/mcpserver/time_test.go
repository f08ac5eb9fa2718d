package mcpserver

import (
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// FuzzAfter: no since_ts panics, and every one accepted becomes a --since
// the inbox accepts or refuses with an error, never a panic.
func FuzzAfter(f *testing.F) {
	for _, s := range []string{"", "2h", "3d", "2026-11-22T10:00:00Z", "2026-11-22T10:00:00", "9999-12-31T23:59:59",
		"0001-01-01T00:00:00", "-1h", "99999999999d", "2026-11-01"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		since, err := after(s, now)
		if err != nil {
			return
		}
		if _, err := service.ParseSince(since, now); err != nil {
			if c := service.Describe(err).Code; c != "USAGE" && c != "INVALID_ARGUMENT" {
				t.Fatalf("after(%q) = %q: %v (%s)", s, since, err, c)
			}
		}
	})
}
