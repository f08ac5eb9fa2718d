package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// TestBrowserTimeTravel: in Chromium, the reservations page as of the
// commit that took a lease shows it held, with the banner naming the
// commit and a link back to now, though it has since been released.
func TestBrowserTimeTravel(t *testing.T) {
	path := chromiumPath(t)
	ctx := context.Background()
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle"})
	r, err := h.svc.Reserve(ctx, h.scope("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/api/**"}, TTL: time.Hour, Reason: "auth"})
	if err != nil {
		t.Fatal(err)
	}
	taken, err := h.svc.ArchiveHead(ctx, h.scope(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Release(ctx, h.scope("GreenCastle"), service.Selection{IDs: []string{r.Granted[0].ID}}); err != nil {
		t.Fatal(err)
	}
	site := h.srv.http.Handler
	top := http.NewServeMux()
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	top.Handle("/", site)
	h.srv.http.Handler = top

	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	leases := h.base + "/mail/" + h.slug + "/reservations"
	then := chrome(t, path, leases+"?at="+taken, filepath.Join(dir, "time-travel-1400.png"), 1400)
	for _, w := range []string{"As of commit <code>" + taken[:7], "<code>src/api/**</code>", `href="/mail/` + h.slug + `/reservations">Now →</a>`} {
		if !strings.Contains(then, w) {
			t.Errorf("the page as of the reserve lacks %s:\n%.3000s", w, then)
		}
	}
	if strings.Contains(then, "released") {
		t.Errorf("the page as of the reserve shows the lease released:\n%.3000s", then)
	}
	if now := chrome(t, path, leases, "", 0); !strings.Contains(now, "released") {
		t.Errorf("the page now does not show the lease released:\n%.3000s", now)
	}
}
