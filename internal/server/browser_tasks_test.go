package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/events"
	"github.com/agentmail/agentmail/internal/service"
)

// chromeScheme is chrome with the page's colour scheme chosen: dark or
// light.
func chromeScheme(t *testing.T, path, url, shot string, width int, dark bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	scheme := "1"
	if dark {
		scheme = "0"
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000", "--dump-dom",
		"--blink-settings=preferredColorScheme=" + scheme, "--screenshot=" + shot, fmt.Sprintf("--window-size=%d,1000", width), url}
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// columnOf returns the board column (ready, progress, blocked, closed)
// whose section holds the card of task id in a board's DOM, or "".
func columnOf(dom, id string) string {
	for _, sec := range regexp.MustCompile(`(?s)<section class="column[^"]*"[^>]*data-column="([a-z]+)">(.*?)</section>`).FindAllStringSubmatch(dom, -1) {
		if strings.Contains(sec[2], `data-task="`+id+`"`) {
			return sec[1]
		}
	}
	return ""
}

// The tasks board in headless Chromium: each task in its column with its
// holder, priority, type and dependencies; a task moves from ready to in
// progress when an agent claims it (a reload shows it), and on an open
// board the card moves by itself; a task's page
// shows its description (markdown, a hostile one inert), dependencies,
// claim, history and the messages filed under it. Screenshots at 1400 and
// 390 px, light and dark, go to $AGENTMAIL_SCREENSHOTS.
func TestBrowserTasks(t *testing.T) {
	path := chromiumPath(t)
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake", "RedFox"})
	ctx := t.Context()
	create := func(req service.CreateTaskRequest) service.Task {
		t.Helper()
		resp, err := h.svc.CreateTask(ctx, h.scope("GreenCastle"), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Task
	}
	p := func(n int) *int { return &n }
	epic := create(service.CreateTaskRequest{Title: "Auth rework", Type: "epic"})
	schema := create(service.CreateTaskRequest{Title: "Schema for users and sessions", Parent: epic.ID, Priority: p(0), Paths: []string{"db/**"},
		Description: "Tables **users** and `sessions`.\n\n- one\n- two\n\n" + payload})
	api := create(service.CreateTaskRequest{Title: "Login API", Parent: epic.ID, Deps: []string{schema.ID}, Priority: p(1), Type: "feature"})
	ui := create(service.CreateTaskRequest{Title: "Login page with a rather long title that has to wrap on a phone", Parent: epic.ID, Deps: []string{api.ID}})
	docs := create(service.CreateTaskRequest{Title: "Document the auth flow", Type: "chore", Priority: p(3)})
	bug := create(service.CreateTaskRequest{Title: "Session cookie not secure", Type: "bug", Priority: p(1)})
	old := create(service.CreateTaskRequest{Title: "Pick a password hash", Labels: []string{"security"}})
	if _, err := h.svc.ClaimTask(ctx, h.scope("BlueLake"), service.ClaimTaskRequest{ID: schema.ID, Start: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.ClaimTask(ctx, h.scope("RedFox"), service.ClaimTaskRequest{ID: old.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.CloseTask(ctx, h.scope("RedFox"), service.CloseTaskRequest{ID: old.ID, Reason: "argon2id"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Send(ctx, h.scope("BlueLake"), service.SendRequest{To: []string{"GreenCastle"}, Subject: "Schema: which engine?",
		Body: "Postgres, **surely**?", Task: schema.ID}); err != nil {
		t.Fatal(err)
	}

	// The live stream never ends, and headless Chromium's virtual time
	// stands still while a request is open: it answers 204 here (as in
	// TestBrowser), which tells EventSource to stop.
	site := h.srv.http.Handler
	top := http.NewServeMux()
	var live atomic.Pointer[http.HandlerFunc] // a live case's stream, once
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		if f := live.Swap(nil); f != nil {
			(*f)(w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	top.Handle("/", site)
	h.srv.http.Handler = top

	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	board := h.base + "/mail/" + h.slug + "/tasks"
	shot := func(name, url string, width int, dark bool) string {
		scheme := "light"
		if dark {
			scheme = "dark"
		}
		dom := chromeScheme(t, path, url, filepath.Join(dir, fmt.Sprintf("%s-%d-%s.png", name, width, scheme)), width, dark)
		if bad := activeMarkup(dom); bad != "" {
			t.Errorf("%s: the DOM after loading %s", name, bad)
		}
		if title(dom) == pwned {
			t.Errorf("%s: a payload ran", name)
		}
		return dom
	}
	for _, width := range []int{1400, 390} {
		for _, dark := range []bool{false, true} {
			dom := shot("tasks", board, width, dark)
			for id, want := range map[string]string{docs.ID: "ready", bug.ID: "ready", schema.ID: "progress", api.ID: "blocked", ui.ID: "blocked",
				epic.ID: "blocked", old.ID: "closed"} {
				if got := columnOf(dom, id); got != want {
					t.Errorf("board (%d px): task %s in column %q, want %q", width, id, got, want)
				}
			}
			for _, w := range []string{"BlueLake", "P0", "feature", "argon2id", ">Tasks</a>"} {
				if !strings.Contains(dom, w) {
					t.Errorf("board (%d px) lacks %q", width, w)
				}
			}
			page := shot("task", h.base+"/mail/"+h.slug+"/task/"+schema.ID, width, dark)
			for _, w := range []string{"<strong>users</strong>", "<li>one</li>", "Schema: which engine?", "<strong>surely</strong>",
				"claimed by BlueLake", "started", "created", ">Auth rework</a>", "in progress", "&lt;script&gt;", "db/**"} {
				if !strings.Contains(page, w) {
					t.Errorf("task page (%d px) lacks %q", width, w)
				}
			}
		}
	}
	if page := shot("task-epic", h.base+"/mail/"+h.slug+"/task/"+epic.ID, 1400, false); !strings.Contains(page, "Login API") || !strings.Contains(page, `Schema for users and sessions <span class="muted small">in progress</span>`) {
		t.Errorf("an epic's page lacks its tasks")
	}
	dep := shot("task-deps", h.base+"/mail/"+h.slug+"/task/"+ui.ID, 1400, false)
	if !strings.Contains(dep, "Login API") || !strings.Contains(dep, "No messages about this task") {
		t.Errorf("a task's page lacks its dependency or its empty thread: %.3000s", dep)
	}

	// An agent claims the bug through the CLI's service operation: on
	// reload the card is in progress, with its holder.
	if _, err := h.svc.ClaimTask(ctx, h.scope("RedFox"), service.ClaimTaskRequest{ID: bug.ID}); err != nil {
		t.Fatal(err)
	}
	dom := shot("tasks-claimed", board, 1400, false)
	if got := columnOf(dom, bug.ID); got != "progress" {
		t.Errorf("after RedFox's claim the bug is in column %q, want progress", got)
	}
	if !regexp.MustCompile(`(?s)data-task="` + bug.ID + `".*?RedFox.*?</article>`).MatchString(dom) {
		t.Errorf("the claimed card does not name its holder")
	}
	// Live: on an open board the card moves when an agent starts a task
	// (the claim lands while the page has no stream yet; the stream,
	// opened at the head the page was made at, replays it).
	feed := &events.Handler{Feed: h.srv.feed}
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := h.svc.ClaimTask(context.Background(), h.scope("GreenCastle"), service.ClaimTaskRequest{ID: docs.ID, Start: true}); err != nil {
			t.Error(err)
		}
		time.Sleep(400 * time.Millisecond)
		ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
		defer cancel()
		feed.ServeHTTP(w, r.WithContext(ctx))
	})
	live.Store(&stream)
	dom = shot("tasks-live", board, 1400, false)
	if live.Load() != nil {
		t.Fatal("the board opened no event stream")
	}
	if got := columnOf(dom, docs.ID); got != "progress" || !strings.Contains(dom, `<article class="card fresh" data-task="`+docs.ID+`"`) {
		t.Errorf("on the open board the started task is in column %q, want progress, marked fresh: %.1500s", got, dom[strings.Index(dom, "<body"):])
	}

	// A task that is not there is the not-found page.
	if r := h.do("GET", "/mail/"+h.slug+"/task/01M8J00000000000000000000Z", nil); r.status != 404 {
		t.Errorf("a missing task's page: %d", r.status)
	}
	t.Logf("screenshots in %s", dir)
}
