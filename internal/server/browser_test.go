package server

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	xhtml "golang.org/x/net/html"
)

// The browser test loads the UI of a seeded real store, served by the real
// server, in headless Chromium (as internal/web's TestBrowser does with
// fixtures): Chromium prints the DOM once the page's scripts ran, and
// takes screenshots. Hostile data would change the title to pwned or
// request /hit if it ever ran or loaded.

const pwned = "PWNED"

// payload is markup that acts if a page lets it through.
const payload = `<script>document.title='` + pwned + `';fetch('/hit?script')</script>` +
	`<img src=x onerror="document.title='` + pwned + `';fetch('/hit?onerror')"><img src="/hit?img">` +
	`<a href="javascript:document.title='` + pwned + `'">click</a> &amp; &lt;b&gt; &#60;i&#62;`

// chromiumPath returns headless Chromium's path; without it the test is
// skipped, loudly, and fails under CI=true.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "headless Chromium is not installed (apt-get install -y chromium): internal/server's browser test did not run"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "SKIP: "+msg)
	t.Skip(msg)
	return ""
}

// activeMarkup says what in a DOM could run or load something other than
// the server's own assets, or "".
func activeMarkup(dom string) string {
	z := xhtml.NewTokenizer(strings.NewReader(dom))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "img", "iframe", "object", "embed", "style", "base", "svg":
				return "has a <" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(a.Key, "on"):
					return "has " + a.Key + " on <" + tok.Data + ">"
				case (a.Key == "href" || a.Key == "src" || a.Key == "action") && strings.HasPrefix(v, "javascript:"),
					a.Key == "src" && strings.Contains(v, "/hit"):
					return "points " + a.Key + " at " + a.Val
				case tok.Data == "script" && a.Key == "src" && !strings.HasPrefix(v, "/static/live.js"):
					return "loads the script " + a.Val
				}
			}
			if tok.Data == "script" && z.Next() == xhtml.TextToken && strings.TrimSpace(string(z.Text())) != "" {
				return "has an inline script"
			}
		}
	}
}

// chrome loads url in a fresh profile and returns the DOM after its
// scripts ran; shot, when set, is a screenshot file to take at width.
func chrome(t *testing.T, path, url, shot string, width int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000", "--dump-dom"}
	if shot != "" {
		args = append(args, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,1000", width))
	}
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, path, append(args, url)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%.2000s", url, err, stderr.String())
	}
	return string(out)
}

// drive loads a driver page in Chromium and returns the DOM it dumps once
// the page's script and the requests it made are done (virtual time lets
// the page run until it is idle).
// Chromium's profile goes in a directory of its own, removed afterwards.
func drive(path, url string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	profile, err := os.MkdirTemp("", "agentmail-drive-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(profile)
	out, _ := exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+profile,
		"--timeout=30000", "--virtual-time-budget=20000", "--dump-dom", url).Output()
	return string(out)
}

var titleTag = regexp.MustCompile(`(?s)<title>(.*?)</title>`)

func title(dom string) string {
	if m := titleTag.FindStringSubmatch(dom); m != nil {
		return m[1]
	}
	return ""
}

// driver is a page of the test's, at the server's origin but outside it,
// whose script posts the compose form as the browser would submit it: it
// loads the compose page (which sets the CSRF cookie), takes its form as
// served, fills it in, posts the form's fields (url-encoded, with the
// browser's cookies) to the form's action, and shows the page the server
// answered in its own body for --dump-dom to print. (A navigating submit
// is not used: headless Chromium's --dump-dom does not wait for it.)
const driverJS = `fetch(location.pathname.replace('/drive', '/mail')).then(r => r.text()).then(html => {
  const form = new DOMParser().parseFromString(html, 'text/html').querySelector('form.compose-form');
  form.elements.to.value = 'BlueLake';
  form.elements.subject.value = 'Browser says stop';
  form.elements.body.value = 'Sent from **Chromium**.';
  return fetch(form.getAttribute('action'), {method: 'POST', body: new URLSearchParams(new FormData(form))});
}).then(r => r.text()).then(answer => {
  document.body.innerHTML = '<div id=answer></div>';
  document.getElementById('answer').innerHTML = new DOMParser().parseFromString(answer, 'text/html').body.innerHTML;
});`

func TestBrowser(t *testing.T) {
	path := chromiumPath(t)
	h := startServer(t, Config{})
	hostileThread := `thread-<script>document.title='` + pwned + `'</script>/x y`
	ids := h.seed([]string{"GreenCastle", "BlueLake", "RedFox"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "Routes are in **src/api**.", Ack: true}},
		mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Schema twelve", Body: "the migrations ran", Importance: "urgent"}},
		mail{"RedFox", service.SendRequest{To: []string{"BlueLake", "GreenCastle"}, Subject: "Hostile <script>document.title='" + pwned + "'</script><img src=x onerror=\"fetch('/hit?subject')\"> &amp;", Thread: hostileThread,
			Body: "Hello " + payload + "\n\n<script>document.title='" + pwned + "'</script>\n\n[a link](javascript:document.title='" + pwned + "') ![x](/hit?md)\n"}},
	)
	me := "RedFox"
	if _, err := h.svc.Register(t.Context(), h.scope(me), service.RegisterRequest{Name: &me, Task: "Task " + payload}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Reserve(t.Context(), h.scope("RedFox"), service.ReserveRequest{Patterns: []string{"db/**"}, TTL: time.Hour, Reason: payload}); err != nil {
		t.Fatal(err)
	}

	var hits atomic.Int64
	site := h.srv.http.Handler
	top := http.NewServeMux()
	top.HandleFunc("/hit", func(w http.ResponseWriter, r *http.Request) { hits.Add(1); t.Logf("hit: %s", r.URL) })
	top.HandleFunc("/control", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>control</title><body>"+payload+"</body>")
	})
	top.HandleFunc("/drive/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>driver</title><body><script>"+driverJS+"</script></body>")
	})
	// Headless Chromium's virtual time stands still while a request is
	// open, and the live event stream never ends: here it answers 204,
	// which tells EventSource to stop (TestEventsMounted tests the stream).
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	top.Handle("/", site)
	h.srv.http.Handler = top

	if dom := chrome(t, path, h.base+"/control", "", 0); title(dom) != pwned || hits.Load() == 0 {
		t.Fatalf("the control page: title %q, %d hits: the harness cannot see a payload run", title(dom), hits.Load())
	}
	hits.Store(0)

	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	m := "/mail/" + h.slug
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"projects", "/mail/", []string{h.slug}},
		{"project", m, []string{"GreenCastle", "RedFox", "db/**", "Task &lt;script&gt;"}},
		{"inbox", m + "/inbox/BlueLake", []string{"Auth API ready", "Schema twelve", "Hostile &lt;script&gt;"}},
		{"message", m + "/message/" + ids[0] + "?agent=BlueLake", []string{"<strong>src/api</strong>", "ack pending"}},
		{"message-hostile", m + "/message/" + ids[2], []string{"Hostile &lt;script&gt;", "&lt;img src=x onerror="}},
		{"thread-hostile", m + "/thread/" + ids[2], []string{"thread-&lt;script&gt;", "Hello &lt;script&gt;"}},
		{"search", m + "/search?q=migrations", []string{"Schema twelve", "<mark>migrations</mark>"}},
		{"search-hostile", m + "/search?q=hostile&from=RedFox", []string{"Hostile &lt;script&gt;"}},
		{"reservations", m + "/reservations", []string{"db/**"}},
		{"acks", m + "/acks", []string{"Auth API ready"}},
		{"compose", m + "/compose", []string{"Send as Human"}},
	} {
		served := get(t, http.DefaultClient, h.base+c.path)
		widths := []int{1280}
		if c.name == "inbox" || c.name == "message" || c.name == "project" {
			widths = append(widths, 390) // a narrow window
		}
		for _, width := range widths {
			dom := chrome(t, path, h.base+c.path, filepath.Join(dir, fmt.Sprintf("%s-%d.png", c.name, width)), width)
			if got, want := html.UnescapeString(title(dom)), html.UnescapeString(title(served)); got != want || got == "" {
				t.Errorf("%s: the title became %q, want %q", c.name, got, want)
			}
			for _, w := range c.want {
				if !strings.Contains(dom, w) {
					t.Errorf("%s (%d px) lacks %q", c.name, width, w)
				}
			}
			if bad := activeMarkup(dom); bad != "" {
				t.Errorf("%s: the DOM after loading %s", c.name, bad)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the hostile pages made %d requests to /hit", n)
	}

	// The compose form, sent by the browser, delivers as Human: the page
	// the server answers says so, and the store has it.
	answer := drive(path, h.base+"/drive/"+h.slug+"/compose")
	if !strings.Contains(answer, `id="answer"`) || !strings.Contains(answer, "Sent: <a") || !strings.Contains(answer, "Browser says stop") {
		t.Errorf("the page answering the compose form: %.3000s", answer)
	}
	inbox, err := h.svc.Inbox(t.Context(), h.scope("BlueLake"), service.InboxRequest{Bodies: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := inbox.Messages[0]; got.From != "Human" || got.Subject != "Browser says stop" || *got.Body != "Sent from **Chromium**." {
		t.Fatalf("BlueLake's newest message: %+v", got)
	}
	found, err := h.svc.Search(t.Context(), h.scope(""), service.SearchRequest{Query: "chromium from:Human", All: true})
	if err != nil || len(found.Results) != 1 || found.Results[0].ID != inbox.Messages[0].ID {
		t.Fatalf("the index does not find the message from Human: %+v, %v", found, err)
	}
	t.Logf("screenshots in %s", dir)
}
