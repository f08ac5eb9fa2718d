package server

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// The server mounts the live events at /api/events behind the guard: the
// token is required when the server requires it, a write to the store
// reaches the stream, and Shutdown ends the stream rather than waiting for
// it.
func TestEventsMounted(t *testing.T) {
	h := startServer(t, Config{RequireToken: true, Token: testToken})
	h.seed([]string{"GreenCastle", "BlueLake"})
	path := "/api/events?project=" + h.slug + "&agent=BlueLake&types=message"
	if r := h.do("GET", path, nil); r.status != http.StatusUnauthorized {
		t.Fatalf("without the token: %d %s", r.status, r.body)
	}

	req, _ := http.NewRequestWithContext(context.Background(), "GET", h.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	if _, err := h.svc.Send(context.Background(), h.scope("GreenCastle"),
		service.SendRequest{To: []string{"BlueLake"}, Subject: "over the wire", Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	for line := range waitLines(t, lines) {
		if strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"subject":"over the wire"`) {
				t.Fatalf("event %s", line)
			}
			break
		}
	}

	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- h.srv.Shutdown(ctx)
	}()
	if err := <-done; err != nil {
		t.Fatalf("shutdown with a stream open: %v", err)
	}
	for range waitLines(t, lines) {
	}
}

// waitLines yields the stream's lines until it ends, failing the test if
// none comes for 5 s.
func waitLines(t *testing.T, lines <-chan string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for {
			select {
			case line, ok := <-lines:
				if !ok || !yield(line) {
					return
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the stream went quiet")
			}
		}
	}
}
