package server

import (
	"bufio"
	"context"
	"html"
	"net/http"
	"regexp"
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

// An idle page misses no event across a restart of the server: a page
// names the project's head it was made at in its stream's address, so a
// stream opened after the server came back (no event seen, so no
// Last-Event-ID to send) replays what was committed meanwhile; an inbox
// page's stream carries only the mail of its agent.
func TestIdlePageAcrossRestart(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake", "RedFox"})
	page := get(t, http.DefaultClient, h.base+"/mail/"+h.slug+"/inbox/BlueLake")
	m := regexp.MustCompile(`data-events="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the inbox page names no event stream:\n%s", page)
	}
	stream := html.UnescapeString(m[1])
	if !strings.Contains(stream, "agent=BlueLake") || !strings.Contains(stream, "last_event_id=") {
		t.Fatalf("the inbox page's stream %s: not BlueLake's, or from no head", stream)
	}

	// The server goes; mail comes meanwhile; another server comes up.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ from, to, subject string }{
		{"RedFox", "GreenCastle", "not for BlueLake"},
		{"GreenCastle", "BlueLake", "while you were away"},
	} {
		if _, err := h.svc.Send(ctx, h.scope(s.from), service.SendRequest{To: []string{s.to}, Subject: s.subject, Body: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	again, err := Listen(Config{Addr: "127.0.0.1:0", Store: service.Config{Dir: h.store}, Project: service.ProjectRef{Key: projectKey}})
	if err != nil {
		t.Fatal(err)
	}
	go again.Serve()
	t.Cleanup(func() { again.Shutdown(context.Background()) })

	resp, err := http.Get("http://" + again.Addr() + stream)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	retry := false // the stream tells the browser to reconnect a second after it ends
	for line := range waitLines(t, lines) {
		retry = retry || line == "retry: 1000"
		if strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"subject":"while you were away"`) {
				t.Fatalf("the first event of the page's stream: %s", line)
			}
			break
		}
	}
	if !retry {
		t.Error("the stream does not say retry: 1000 before its first event")
	}
}
