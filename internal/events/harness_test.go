package events

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
)

// The tests run the feed and the handler over a real store written by the
// service (and by agentmail processes), as serve will.

const projectKey = "github.com/acme/shop"

// clock is a time source the tests move by hand.
type clock struct {
	base   time.Time
	offset atomic.Int64
}

func (c *clock) Now() time.Time      { return c.base.Add(time.Duration(c.offset.Load())) }
func (c *clock) Add(d time.Duration) { c.offset.Add(int64(d)) }

// fixture is a service on a fresh store, a feed on its archive, told of
// the service's commits, and an HTTP server with the handler: serve's
// wiring.
type fixture struct {
	t     testing.TB
	dir   string
	clock *clock
	svc   *service.Service
	feed  *Feed
	srv   *httptest.Server
	slug  string

	mu    sync.Mutex
	notes []string // what the feed noted
}

// newFixture makes a store with the agents names registered (open
// policy), then starts the feed and the server.
func newFixture(t testing.TB, names ...string) *fixture {
	t.Helper()
	gittest.Env(t)
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), "store"),
		clock: &clock{base: time.Now().UTC().Truncate(time.Second)}}
	f.svc = service.New(service.Config{Dir: f.dir, Now: f.clock.Now})
	t.Cleanup(func() { f.svc.Close() })
	f.register(names...)
	resp, err := f.svc.Project(context.Background(), as(""))
	if err != nil {
		t.Fatal(err)
	}
	f.slug = resp.Project.Slug
	f.start(0)
	return f
}

// start starts the feed and the server, with heartbeat (0: the default).
func (f *fixture) start(heartbeat time.Duration) {
	f.t.Helper()
	var err error
	f.feed, err = FollowService(f.svc, Options{Poll: 20 * time.Millisecond, Now: f.clock.Now,
		Note: func(s string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.notes = append(f.notes, s)
		}})
	if err != nil {
		f.t.Fatal(err)
	}
	f.srv = httptest.NewServer(&Handler{Feed: f.feed, Heartbeat: heartbeat})
	f.t.Cleanup(func() {
		f.feed.Close()
		f.srv.Close()
	})
}

func as(agent string) service.Scope {
	return service.Scope{Project: service.ProjectRef{Key: projectKey}, Agent: agent}
}

func (f *fixture) register(names ...string) {
	f.t.Helper()
	for _, n := range names {
		if _, err := f.svc.Register(context.Background(), as(""), service.RegisterRequest{Name: &n, Policy: "open"}); err != nil {
			f.t.Fatalf("register %s: %v", n, err)
		}
	}
}

func (f *fixture) send(from string, to []string, subject string) service.Message {
	f.t.Helper()
	resp, err := f.svc.Send(context.Background(), as(from), service.SendRequest{To: to, Subject: subject, Body: subject})
	if err != nil {
		f.t.Fatalf("send: %v", err)
	}
	return resp.Message
}

// url is the stream's address for the fixture's project, with more query.
func (f *fixture) url(query string) string {
	u := f.srv.URL + "/api/events?project=" + f.slug
	if query != "" {
		u += "&" + query
	}
	return u
}

// frame is one thing read from a stream: an event, or a comment.
type frame struct {
	id, name string
	event    Event
	comment  string
}

func (fr frame) String() string {
	if fr.comment != "" {
		return ": " + fr.comment
	}
	return fmt.Sprintf("%s %s/%s %s", fr.name, fr.event.Agent, fr.event.State, fr.id)
}

// client is a subscriber reading a stream.
type client struct {
	t      *testing.T
	frames chan frame // closed at the end of the stream
	cancel context.CancelFunc
}

// connect opens a stream at url, resuming after lastID if it is set; the
// response must be a stream.
func connect(t *testing.T, url, lastID string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("GET %s: %s %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	c := &client{t: t, frames: make(chan frame, 1000), cancel: cancel}
	t.Cleanup(cancel)
	go c.read(resp)
	return c
}

// read parses the stream into frames.
func (c *client) read(resp *http.Response) {
	defer close(c.frames)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var fr frame
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if fr.name != "" || fr.comment != "" {
				c.frames <- fr
			}
			fr = frame{}
		case strings.HasPrefix(line, ": "):
			fr.comment = strings.TrimPrefix(line, ": ")
		case strings.HasPrefix(line, "retry: "):
			if line != fmt.Sprintf("retry: %d", Retry.Milliseconds()) { // a client reconnects a second after its stream ends
				c.t.Errorf("the stream says %q", line)
			}
		case strings.HasPrefix(line, "id: "):
			fr.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			fr.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &fr.event); err != nil {
				c.t.Errorf("data %q: %v", line, err)
			}
		default:
			c.t.Errorf("unexpected line %q", line)
		}
	}
}

// next returns the next event, skipping comments; it fails the test after
// wait or at the end of the stream.
func (c *client) next(wait time.Duration) frame {
	c.t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case fr, ok := <-c.frames:
			if !ok {
				c.t.Fatal("the stream ended")
			}
			if fr.comment == "" {
				return fr
			}
		case <-timeout:
			c.t.Fatalf("no event within %s", wait)
		}
	}
}

// until returns the events up to and including the first for which last
// is true.
func (c *client) until(last func(frame) bool) []frame {
	c.t.Helper()
	var out []frame
	for {
		fr := c.next(5 * time.Second)
		out = append(out, fr)
		if last(fr) {
			return out
		}
	}
}

// quiet checks that no event arrives within d.
func (c *client) quiet(d time.Duration) {
	c.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case fr, ok := <-c.frames:
			if ok && fr.comment == "" {
				c.t.Fatalf("unexpected event %s", fr)
			}
			if !ok {
				return
			}
		case <-timeout:
			return
		}
	}
}

// subject returns a frame matcher for the message with subject to agent.
func subject(agent, s string) func(frame) bool {
	return func(fr frame) bool {
		return fr.name == TypeMessage && fr.event.Agent == agent && fr.event.Message.Subject == s
	}
}

// summary is each event as "type agent state".
func summary(frames []frame) []string {
	out := make([]string, len(frames))
	for i, fr := range frames {
		out[i] = strings.TrimSpace(fmt.Sprintf("%s %s %s", fr.name, fr.event.Agent, fr.event.State))
	}
	return out
}

func wantSummary(t *testing.T, frames []frame, want ...string) {
	t.Helper()
	if got := summary(frames); !slices.Equal(got, want) {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// noted returns what the feed noted so far.
func (f *fixture) noted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.notes)
}
