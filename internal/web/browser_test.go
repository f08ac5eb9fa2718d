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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir=" + profile, "--virtual-time-budget=3000"}
	cmd := exec.CommandContext(ctx, b.path, append(append(base, args...), url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tail := stderr.String()
		if len(tail) > 2000 {
			tail = "..." + tail[len(tail)-2000:]
		}
		b.t.Fatalf("chromium %s %s: %v\n%s", strings.Join(args, " "), url, err, tail)
	}
	return string(out)
}

// dumpDOM returns the page's DOM once loaded and its scripts run.
func (b *browser) dumpDOM(url string) string { return b.run(url, "--dump-dom") }

// capture saves a screenshot of the page as file, at width×height, dark
// or light, and returns its DOM as dumpDOM does.
func (b *browser) capture(url, file string, width, height int, dark bool) string {
	b.t.Helper()
	args := []string{"--dump-dom", "--screenshot=" + file, fmt.Sprintf("--window-size=%d,%d", width, height)}
	if dark {
		args = append(args, "--blink-settings=preferredColorScheme=0")
	}
	dom := b.run(url, args...)
	if st, err := os.Stat(file); err != nil || st.Size() == 0 {
		b.t.Fatalf("no screenshot %s: %v", file, err)
	}
	return dom
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
	// The inbox's live region is fetched again from the inbox's address.
	inbox := fixtureViews()["inbox"].(MailboxView)
	site.HandleFunc("GET "+InboxURL(inbox.Project.Slug, inbox.Agent.Name, ""), func(w http.ResponseWriter, r *http.Request) {
		pages.Serve(w, http.StatusOK, inbox)
	})
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

// shots are the screenshots TestBrowser takes.
var shots = []struct {
	page          string
	width, height int
	dark          bool
}{
	{"projects", 1280, 700, false},
	{"project", 1280, 1500, false},
	{"inbox", 1280, 700, false},
	{"message", 1280, 1000, false},
	{"message-hostile", 1280, 1100, false},
	{"thread", 1280, 1100, false},
	{"thread-hostile", 1280, 1100, false},
	{"search", 1280, 900, false},
	{"reservations", 1280, 800, false},
	{"contacts", 1280, 500, false},
	{"acks", 1280, 500, false},
	{"compose", 1280, 900, false},
	{"compose-error", 1280, 900, false},
	{"channel", 1280, 800, false},
	{"history", 1280, 700, false},
	{"history", 390, 844, true},
	{"channel", 390, 844, true},
	{"inbox", 390, 844, false},
	{"message", 390, 1400, false},
	{"project", 390, 1400, false},
	{"inbox", 1280, 700, true},
	{"message", 1280, 1000, true},
	{"reservations", 1280, 800, true},
	{"inbox", 390, 844, true},
}

// bare are the pages TestBrowser loads without the CSP too: those whose
// data is hostile.
var bare = []string{"message-hostile", "thread-hostile", "inbox", "project", "search", "reservations",
	"contacts", "compose-error", "projects"}

// TestBrowser loads the fixture pages in headless Chromium and takes
// screenshots of them (wide, narrow, dark) under $AGENTMAIL_SCREENSHOTS or
// the test's directory. It checks that no hostile data ran or loaded
// anything, with the CSP and without it (the escaping alone): the title
// stays the server's, the DOM after loading holds no active markup, and
// the counting endpoint counts nothing; a control page first shows that
// the harness sees a payload that does run. It also checks that live.js
// runs under the CSP: a page with an event stream shows the banner once
// an event of its types arrives, a page without one does not, and a page
// with live regions takes it in place (fetching itself again).
func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	p := startPreview(t)
	dir := previewDir(t)

	if title := domTitle(t, b.dumpDOM(p.URL+"/control")); title != pwnedTitle || p.hits.Load() == 0 {
		t.Fatalf("the control page: title %q, %d hits; the harness cannot see a payload run", title, p.hits.Load())
	}
	p.hits.Store(0)

	pages := newTestPages(t)
	views := fixtureViews()
	check := func(label, name, dom string) {
		t.Helper()
		if got, want := domTitle(t, dom), domTitle(t, render(t, pages, views[name])); got != want {
			t.Errorf("%s: the title became %q, want %q", label, got, want)
		}
		if err := activeMarkup(dom); err != "" {
			t.Errorf("%s: the DOM after loading %s", label, err)
		}
	}
	for _, s := range shots {
		file := fmt.Sprintf("%s-%d", s.page, s.width)
		if s.dark {
			file += "-dark"
		}
		dom := b.capture(p.URL+"/preview/"+s.page, filepath.Join(dir, file+".png"), s.width, s.height, s.dark)
		check(file, s.page, dom)
		banner := strings.Contains(dom, `<div id="live" class="live" role="status"><span id="live-text">New mail</span>`)
		hidden := strings.Contains(dom, `<div id="live" class="live" role="status" hidden="">`)
		// A page with live regions takes the event in place: it fetches
		// itself again, and shows no banner.
		regions := strings.Contains(render(t, pages, views[s.page]), "data-region=")
		if live := views[s.page].(interface{ events() string }).events() != "" && !regions; live != banner || live == hidden {
			t.Errorf("%s: live updates %v (regions %v), but the banner is shown %v, hidden %v", s.page, live, regions, banner, hidden)
		}
		if regions && !strings.Contains(dom, "data-region=") {
			t.Errorf("%s: the page lost its live regions", s.page)
		}
	}
	for _, name := range bare {
		check(name+" without the CSP", name, b.dumpDOM(p.URL+"/bare/preview/"+name))
	}
	if n := p.hits.Load(); n != 0 {
		t.Errorf("the hostile pages made %d requests to %s", n, hitPath)
	}
	t.Logf("screenshots in %s", dir)
}

// events is the page's event stream, for the views that embed it.
func (p Page) events() string { return p.Events }
