package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"
)

// chromium returns the path of a headless-capable Chromium. Without one the
// test is skipped, loudly; on CI (CI=true) it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "headless Chromium is not installed (apt-get install -y chromium): the browser tests of internal/web did not run"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "SKIP: "+msg)
	t.Skip(msg)
	return ""
}

// browser runs headless Chromium on one page at a time.
type browser struct {
	t    *testing.T
	path string
	dir  string // profile directories
}

func newBrowser(t *testing.T) *browser {
	return &browser{t: t, path: chromium(t), dir: t.TempDir()}
}

// run runs Chromium with args and the given page and returns its output.
// Each run has its own profile, so no cookie or cache leaks between
// pages.
func (b *browser) run(url string, args ...string) string {
	b.t.Helper()
	profile, err := os.MkdirTemp(b.dir, "profile")
	if err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir=" + profile, "--virtual-time-budget=3000"}
	cmd := exec.CommandContext(ctx, b.path, append(append(base, args...), url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.t.Fatalf("chromium %s %s: %v\n%s", strings.Join(args, " "), url, err, stderr.String())
	}
	return string(out)
}

// dumpDOM returns the page's DOM once loaded and its scripts run.
func (b *browser) dumpDOM(url string) string { return b.run(url, "--dump-dom") }

// screenshot saves the page as file, at width×height, dark or light.
func (b *browser) screenshot(url, file string, width, height int, dark bool) {
	b.t.Helper()
	args := []string{"--screenshot=" + file, fmt.Sprintf("--window-size=%d,%d", width, height)}
	if dark {
		args = append(args, "--blink-settings=preferredColorScheme=0", "--force-dark-mode")
	}
	b.run(url, args...)
	if st, err := os.Stat(file); err != nil || st.Size() == 0 {
		b.t.Fatalf("no screenshot %s: %v", file, err)
	}
}

// preview is a test server of the fixture pages behind the guard, with
// an endpoint that counts the requests a payload would make.
type preview struct {
	*httptest.Server
	hits atomic.Int64
}

func startPreview(t *testing.T) *preview {
	t.Helper()
	pages := newTestPages(t)
	p := &preview{Server: httptest.NewUnstartedServer(nil)}
	guard, err := NewGuard(Options{Addr: p.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	guard.ErrorPage = pages.ErrorPage
	site := http.NewServeMux()
	site.Handle(RouteStatic, StaticHandler())
	for name, v := range fixtureViews() {
		site.HandleFunc("GET /preview/"+name, func(w http.ResponseWriter, r *http.Request) { pages.Serve(w, http.StatusOK, v) })
	}
	site.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\nevent: message\ndata: {}\n\n")
	})
	top := http.NewServeMux()
	top.HandleFunc(hitPath, func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		t.Logf("hit: %s", r.URL)
	})
	// The same pages without the guard, so without the CSP: what protects
	// them there is the escaping alone.
	top.Handle("/bare/", http.StripPrefix("/bare", site))
	// A page that puts the payload in as markup: it shows that the
	// harness sees a payload that runs.
	top.HandleFunc("/control", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>control</title><body>"+payload+"</body>")
	})
	top.Handle("/", guard.Handler(site))
	p.Config.Handler = top
	p.Start()
	t.Cleanup(p.Close)
	return p
}

// domTitle returns the document's title in a dumped DOM.
func domTitle(t *testing.T, dom string) string {
	t.Helper()
	doc, err := xhtml.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	var title string
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.Data == "title" && n.FirstChild != nil {
			title = n.FirstChild.Data
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return title
}

// TestBrowserInert loads the pages that carry hostile data in Chromium,
// with and without the CSP, and checks that nothing ran and nothing was
// fetched: the title stays the server's, the counting endpoint counts 0.
func TestBrowserInert(t *testing.T) {
	b := newBrowser(t)
	p := startPreview(t)

	// First, the harness must see a payload that does run.
	if title := domTitle(t, b.dumpDOM(p.URL+"/control")); title != pwnedTitle || p.hits.Load() == 0 {
		t.Fatalf("the control page: title %q, %d hits; the harness cannot see a payload run", title, p.hits.Load())
	}
	p.hits.Store(0)

	pages := newTestPages(t)
	views := fixtureViews()
	for _, name := range []string{"message-hostile", "thread-hostile", "inbox", "project", "search",
		"reservations", "contacts", "compose-error", "projects"} {
		want := domTitle(t, render(t, pages, views[name]))
		for _, prefix := range []string{"", "/bare"} {
			dom := b.dumpDOM(p.URL + prefix + "/preview/" + name)
			if got := domTitle(t, dom); got != want {
				t.Errorf("%s%s: the title became %q, want %q", prefix, name, got, want)
			}
			if err := activeMarkup(dom); err != "" {
				t.Errorf("%s%s: the DOM after loading %s", prefix, name, err)
			}
		}
	}
	if n := p.hits.Load(); n != 0 {
		t.Errorf("the hostile pages made %d requests to %s", n, hitPath)
	}
}

// TestBrowserLive checks that live.js runs under the CSP and shows the
// banner when the event stream sends an event of the page's types.
func TestBrowserLive(t *testing.T) {
	b := newBrowser(t)
	p := startPreview(t)
	dom := b.dumpDOM(p.URL + "/preview/inbox")
	if !strings.Contains(dom, `<div id="live" class="live" role="status"><span id="live-text">New mail</span>`) {
		t.Errorf("the inbox shows no live banner after a message event:\n%s", dom)
	}
	dom = b.dumpDOM(p.URL + "/preview/search")
	if !strings.Contains(dom, `<div id="live" class="live" role="status" hidden="">`) {
		t.Errorf("a page without an event stream shows the live banner:\n%s", dom)
	}
}

// TestBrowserScreenshots takes screenshots of the main pages: wide, narrow
// and dark, under $AGENTMAIL_SCREENSHOTS or the test's directory.
func TestBrowserScreenshots(t *testing.T) {
	b := newBrowser(t)
	p := startPreview(t)
	dir := previewDir(t)
	shots := []struct {
		page          string
		width, height int
		dark          bool
	}{
		{"projects", 1280, 700, false},
		{"project", 1280, 900, false},
		{"inbox", 1280, 700, false},
		{"message", 1280, 1000, false},
		{"message-hostile", 1280, 1100, false},
		{"thread", 1280, 1100, false},
		{"search", 1280, 900, false},
		{"reservations", 1280, 800, false},
		{"contacts", 1280, 500, false},
		{"acks", 1280, 500, false},
		{"compose", 1280, 900, false},
		{"inbox", 390, 844, false},
		{"message", 390, 1400, false},
		{"project", 390, 1400, false},
		{"inbox", 1280, 700, true},
		{"message", 1280, 1000, true},
		{"reservations", 1280, 800, true},
		{"inbox", 390, 844, true},
	}
	for _, s := range shots {
		name := fmt.Sprintf("%s-%d", s.page, s.width)
		if s.dark {
			name += "-dark"
		}
		b.screenshot(p.URL+"/preview/"+s.page, filepath.Join(dir, name+".png"), s.width, s.height, s.dark)
	}
	t.Logf("screenshots in %s", dir)
}
