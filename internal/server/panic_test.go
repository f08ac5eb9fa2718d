package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestPanicLeavesServerServing: a request whose handler panics is answered
// with an error (a JSON document under /api/, a page elsewhere), not a
// dropped connection, and the server goes on serving.
func TestPanicLeavesServerServing(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle"})
	panicHook = func(r *http.Request) {
		if r.URL.Query().Get("boom") != "" {
			panic("injected by the test")
		}
	}
	t.Cleanup(func() { panicHook = nil })

	r := h.do("GET", "/api/projects?boom=1", nil)
	if r.status != http.StatusInternalServerError || r.code(t) != "ERROR" || !strings.Contains(string(r.body), "injected by the test") {
		t.Errorf("a panicking API request: %d %s", r.status, r.body)
	}
	r = h.do("GET", "/mail/?boom=1", nil)
	if r.status != http.StatusInternalServerError || !strings.Contains(string(r.body), "<html") {
		t.Errorf("a panicking page: %d %.300s", r.status, r.body)
	}
	if r := h.do("GET", "/api/projects", nil); r.status != http.StatusOK {
		t.Errorf("after the panics: %d %s", r.status, r.body)
	}
}
