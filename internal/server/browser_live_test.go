package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
)

// liveTarget is how long after the write returns a live item must be on
// screen (issue 30: 300 ms).
const liveTarget = 300 * time.Millisecond

// liveTabs are the tabs a live journey is watched in: wide and on a
// phone, light and dark (each one's screenshot is taken once the item is
// there).
var liveTabs = []struct {
	width int
	dark  bool
}{{1400, false}, {1400, true}, {390, false}, {390, true}}

// openStreams counts the event streams open on the server, which a test
// waits for before it writes.
type openStreams struct{ n atomic.Int64 }

// mount puts the counter in front of srv's event stream.
func (o *openStreams) mount(srv *Server) {
	site := srv.http.Handler
	top := http.NewServeMux()
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		o.n.Add(1)
		defer o.n.Add(-1)
		site.ServeHTTP(w, r)
	})
	top.Handle("/", site)
	srv.http.Handler = top
}

// await waits until at least n streams are open (and a moment more, for
// their subscriptions to be registered).
func (o *openStreams) await(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for o.n.Load() < int64(n) {
		if time.Now().After(deadline) {
			t.Fatalf("%d event streams open, want %d", o.n.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
}

// liveCase opens url in every tab of liveTabs, runs write once their
// streams are open, and waits for cond (a JavaScript condition) to hold
// in each: it returns each tab's delay from write's return to cond, and
// writes a screenshot of each tab, named name, to dir.
func liveCase(t *testing.T, c *cdp, streams *openStreams, dir, name, url, cond string, write func()) []time.Duration {
	t.Helper()
	var tabs []*cdpPage
	for _, tab := range liveTabs {
		p := c.page(tab.width, tab.dark)
		p.open(url)
		tabs = append(tabs, p)
	}
	streams.await(t, len(tabs))
	for _, p := range tabs {
		p.watch(cond)
	}
	write()
	returned := time.Now()
	var delays []time.Duration
	for i, p := range tabs {
		at := p.seen(t.Context(), 10*time.Second)
		if at.IsZero() {
			t.Fatalf("%s: after 10 s the open page (tab %d) still lacks it: %.4000s", name, i, p.html())
		}
		delays = append(delays, max(at.Sub(returned), 0))
		scheme := "light"
		if liveTabs[i].dark {
			scheme = "dark"
		}
		p.shot(filepath.Join(dir, fmt.Sprintf("live-%s-%d-%s.png", name, liveTabs[i].width, scheme)))
	}
	for _, p := range tabs {
		c.must(nil, p.session, "Page.close", map[string]any{})
	}
	return delays
}

// New items appear in the open view without a reload, only where they
// belong, in real headless Chromium kept open while another process
// writes: an inbox takes a message to its agent (not one to another); a
// thread takes a reply in it (not a message elsewhere); the tasks board
// moves a card to In progress when an agent claims the task through the
// agentmail command, and to Closed when it closes it; a task created
// joins Ready; the timeline takes a message and a claim at its top, the
// list of threads a new thread.
// Each delay from the write's return to the item on screen
// is logged, held to the 300 ms (at most one sample in five may
// exceed it on a loaded machine), and screenshots of each view at 1400
// and 390 px, light and dark, go to $AGENTMAIL_SCREENSHOTS.
func TestBrowserLive(t *testing.T) {
	path := chromiumPath(t)
	bin := testbin.Agentmail(t)
	h := startServer(t, Config{})
	ids := h.seed([]string{"GreenCastle", "BlueLake", "RedFox"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "Routes are in **src/api**."}},
		mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Schema twelve", Body: "the migrations ran", Importance: "urgent"}},
	)
	ctx := t.Context()
	task, err := h.svc.CreateTask(ctx, h.scope("GreenCastle"), service.CreateTaskRequest{Title: "Login page"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.CreateTask(ctx, h.scope("GreenCastle"), service.CreateTaskRequest{Title: "Document the auth flow", Type: "chore"}); err != nil {
		t.Fatal(err)
	}
	streams := &openStreams{}
	streams.mount(h.srv)
	c := startCDP(t, path)
	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	m := h.base + "/mail/" + h.slug
	send := func(from string, req service.SendRequest) {
		t.Helper()
		req.Body = "x"
		if _, err := h.svc.Send(context.Background(), h.scope(from), req); err != nil {
			t.Fatal(err)
		}
	}
	var all []time.Duration
	report := func(what string, d []time.Duration) {
		t.Logf("%s: on screen %v after the write returned", what, d)
		all = append(all, d...)
	}

	// The inbox: mail to another agent first (it does not come), then
	// BlueLake's.
	d := liveCase(t, c, streams, dir, "inbox", m+"/inbox/BlueLake",
		`[...document.querySelectorAll("[data-region=mailbox] li.fresh .text")].some(e => e.textContent === "For BlueLake, live")`,
		func() {
			send("RedFox", service.SendRequest{To: []string{"GreenCastle"}, Subject: "Not for BlueLake"})
			send("GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "For BlueLake, live"})
		})
	report("inbox: a message to its agent", d)
	p := c.page(1400, false)
	p.open(m + "/inbox/BlueLake")
	if dom := p.html(); !strings.Contains(dom, "For BlueLake, live") || strings.Contains(dom, "Not for BlueLake") {
		t.Errorf("BlueLake's inbox after a reload: %.3000s", dom)
	}
	// Live, the other agent's mail did not come either, and no banner.
	streams.await(t, 1)
	p.watch(`[...document.querySelectorAll("li.fresh .text")].some(e => e.textContent === "Second, live")`)
	send("RedFox", service.SendRequest{To: []string{"GreenCastle"}, Subject: "Again not for BlueLake"})
	send("RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Second, live"})
	if p.seen(ctx, 10*time.Second).IsZero() {
		t.Fatalf("the second message did not come: %.3000s", p.html())
	}
	if dom := p.html(); strings.Contains(dom, "Again not for BlueLake") || !strings.Contains(dom, `id="live" class="live" role="status" hidden=""`) {
		t.Errorf("BlueLake's open inbox shows another's mail, or the reload banner: %.3000s", dom)
	}
	c.must(nil, p.session, "Page.close", map[string]any{})

	// A thread: a reply in it comes; a message in another thread does
	// not.
	d = liveCase(t, c, streams, dir, "thread", m+"/thread/"+ids[0],
		`[...document.querySelectorAll("[data-region=thread] li.post.fresh")].some(e => e.textContent.includes("Reply, live"))`,
		func() {
			send("RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Elsewhere"})
			if _, err := h.svc.Reply(context.Background(), h.scope("BlueLake"), service.ReplyRequest{ID: ids[0], Body: "Reply, live"}); err != nil {
				t.Fatal(err)
			}
		})
	report("thread: a reply", d)

	// The board: the claim through the command line moves the card to In
	// progress.
	claim := func(args ...string) func() {
		return func() {
			cmd := exec.Command(bin, append([]string{"task"}, args...)...)
			cmd.Env = append(os.Environ(), "AGENTMAIL_HOME="+h.store, "AGENTMAIL_PROJECT="+projectKey)
			cmd.Dir = t.TempDir() // no repository: no branch of the test's own on the agent's card
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("agentmail task %v: %v\n%s", args, err, out)
			}
		}
	}
	in := func(column, id string) string {
		return `!!document.querySelector('[data-column=` + column + `] .card.fresh[data-key="` + id + `"]')`
	}
	d = liveCase(t, c, streams, dir, "tasks-claimed", m+"/tasks", in("progress", task.Task.ID)+
		` && !document.querySelector('[data-column=ready] [data-key="`+task.Task.ID+`"]')`,
		claim("claim", task.Task.ID, "--agent", "RedFox"))
	report("board: a claim by the command line", d)
	d = liveCase(t, c, streams, dir, "tasks-closed", m+"/tasks", in("closed", task.Task.ID)+
		` && document.querySelector("[data-column=closed] .count").textContent === "1"`,
		claim("close", task.Task.ID, "--agent", "RedFox", "--reason", "shipped"))
	report("board: a close by the command line", d)
	var created string
	d = liveCase(t, c, streams, dir, "tasks-created", m+"/tasks",
		`[...document.querySelectorAll("[data-column=ready] .card.fresh .title")].some(e => e.textContent === "Session cookie not secure")`,
		func() {
			resp, err := h.svc.CreateTask(context.Background(), h.scope("BlueLake"), service.CreateTaskRequest{Title: "Session cookie not secure", Type: "bug"})
			if err != nil {
				t.Fatal(err)
			}
			created = resp.Task.ID
		})
	report("board: a task created", d)
	if created == "" {
		t.Fatal("no task created")
	}

	// The timeline: a message joins it at the top.
	d = liveCase(t, c, streams, dir, "timeline", m,
		`(e => !!e && e.classList.contains("fresh") && e.textContent.includes("Timeline, live"))(document.querySelector("#timeline li"))`,
		func() { send("RedFox", service.SendRequest{To: []string{"GreenCastle"}, Subject: "Timeline, live"}) })
	report("timeline: a message", d)
	d = liveCase(t, c, streams, dir, "timeline-claim", m,
		`(e => !!e && e.classList.contains("fresh") && e.textContent.includes("claimed Session cookie not secure"))(document.querySelector("#timeline li"))`,
		claim("claim", created, "--agent", "GreenCastle"))
	report("timeline: a claim by the command line", d)

	// The list of threads: a new thread comes at the top.
	d = liveCase(t, c, streams, dir, "threads", m+"/threads",
		`(e => !!e && e.classList.contains("fresh") && e.textContent.includes("A new thread"))(document.querySelector("#threads li"))`,
		func() {
			send("BlueLake", service.SendRequest{To: []string{"RedFox", "GreenCastle"}, Subject: "A new thread"})
		})
	report("threads: a new thread", d)

	slices.Sort(all)
	over := 0
	for _, d := range all {
		if d > liveTarget {
			over++
		}
	}
	t.Logf("live items on screen after the write returned: %d samples, median %v, max %v (target %v)", len(all), all[len(all)/2], all[len(all)-1], liveTarget)
	if over > len(all)/5 {
		t.Errorf("%d of %d live items took more than %v: %v", over, len(all), liveTarget, all)
	}
	t.Logf("screenshots in %s", dir)
}

// An idle page resumes after a restart of the server without missing
// an event: an inbox open in Chromium while the server stops, a message
// is sent, and a new server comes up on the same address, shows that
// message once its stream is back (EventSource reconnects with
// Last-Event-ID, a second later as the stream's retry says), and the
// one sent just after.
func TestBrowserLiveRestart(t *testing.T) {
	path := chromiumPath(t)
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Before the restart", Body: "x"}})
	streams := &openStreams{}
	streams.mount(h.srv)
	c := startCDP(t, path)
	p := c.page(1400, false)
	p.open(h.base + "/mail/" + h.slug + "/inbox/BlueLake")
	streams.await(t, 1)
	// An event seen first, so that the browser resumes by Last-Event-ID.
	p.watch(`document.body.textContent.includes("Seen live")`)
	if _, err := h.svc.Send(t.Context(), h.scope("GreenCastle"), service.SendRequest{To: []string{"BlueLake"}, Subject: "Seen live", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if p.seen(t.Context(), 10*time.Second).IsZero() {
		t.Fatalf("the first live message did not come: %.3000s", p.html())
	}

	addr := h.srv.Addr()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	p.watch(`document.body.textContent.includes("While serve was down")`)
	if _, err := h.svc.Send(ctx, h.scope("GreenCastle"), service.SendRequest{To: []string{"BlueLake"}, Subject: "While serve was down", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // the page tries and fails to reconnect meanwhile
	again, err := Listen(Config{Addr: addr, Store: service.Config{Dir: h.store}, Project: service.ProjectRef{Key: projectKey}})
	if err != nil {
		t.Fatal(err)
	}
	go again.Serve()
	t.Cleanup(func() { again.Shutdown(context.Background()) })
	up := time.Now()
	at := p.seen(t.Context(), 15*time.Second)
	if at.IsZero() {
		t.Fatalf("the message sent while serve was down never came: %.3000s", p.html())
	}
	t.Logf("the message sent while serve was down on screen %v after serve came back", at.Sub(up))
	p.watch(`document.body.textContent.includes("Just after the restart")`)
	if _, err := h.svc.Send(t.Context(), h.scope("GreenCastle"), service.SendRequest{To: []string{"BlueLake"}, Subject: "Just after the restart", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if at = p.seen(t.Context(), 10*time.Second); at.IsZero() {
		t.Fatalf("the message sent after the restart never came: %.3000s", p.html())
	}
	t.Logf("the message sent after the restart on screen %v after the write returned", at.Sub(sent))
	dom := p.html()
	if n := strings.Count(dom, "While serve was down"); n != 1 {
		t.Errorf("the message sent while serve was down shows %d times", n)
	}
	if !strings.Contains(dom, `id="live" class="live" role="status" hidden=""`) {
		t.Errorf("the page shows the reload banner: %.3000s", dom)
	}
}
