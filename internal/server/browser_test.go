package server

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
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
				case tok.Data == "script" && a.Key == "src" && !strings.HasPrefix(v, "/static/live.js") && !strings.HasPrefix(v, "/static/keys.js"):
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
func chrome(t *testing.T, path, url, shot string, width int, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000", "--dump-dom"}
	if shot != "" {
		args = append(args, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,1000", width))
	}
	args = append(args, extra...)
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
  form.querySelector('input[name=to][value=BlueLake]').checked = true;
  form.elements.subject.value = 'Browser says stop';
  form.elements.body.value = 'Sent from **Chromium**.';
  return fetch(form.getAttribute('action'), {method: 'POST', body: new URLSearchParams(new FormData(form))});
}).then(r => r.text()).then(answer => {
  document.body.innerHTML = '<div id=answer></div>';
  document.getElementById('answer').innerHTML = new DOMParser().parseFromString(answer, 'text/html').body.innerHTML;
});`

// composeJS is the script of a driver page that loads the compose page at
// the driver's path under /mail (with the driver's query), says what the
// form offers before anything is filled in (the recipients ticked, the
// subject's maxlength, whether the message is required), fills it in as
// FILL (a function of the form, from the driver's ?fill=) does, posts it,
// and shows the page the server answered.
const composeJS = `const fills = {
  several: f => { f.querySelector('input[name=to][value=BlueLake]').checked = true; f.querySelector('input[name=to][value=RedFox]').checked = true;
    f.elements.subject.value = 'To two agents'; f.elements.body.value = 'Both of you.'; },
  everyone: f => { f.querySelector('input[name=to][value=all]').checked = true; f.elements.subject.value = 'To everyone'; f.elements.body.value = 'All hands.'; },
  confirmed: f => { f.querySelector('input[name=to][value=all]').checked = true; f.elements.subject.value = 'To everyone'; f.elements.body.value = 'All hands.';
    const c = document.createElement('input'); c.type = 'checkbox'; c.name = 'confirm_all'; c.checked = true; f.appendChild(c); },
  empty: f => { f.querySelector('input[name=to][value=BlueLake]').checked = true; f.elements.subject.value = 'Nothing'; f.elements.body.value = '  '; },
  reply: f => { f.elements.body.value = 'Reply from **the page**.'; },
};
const q = new URLSearchParams(location.search);
const fill = fills[q.get('fill')];
q.delete('fill');
fetch(location.pathname.replace('/drive-compose', '/mail') + '?' + q).then(r => r.text()).then(html => {
  const form = new DOMParser().parseFromString(html, 'text/html').querySelector('form.compose-form');
  document.body.appendChild(form);
  const offered = {checked: [...form.querySelectorAll('input[name=to]:checked')].map(i => i.value),
    maxlength: form.elements.subject ? form.elements.subject.maxLength : null, bodyRequired: form.elements.body.required};
  fill(form);
  return fetch(form.getAttribute('action'), {method: 'POST', body: new URLSearchParams(new FormData(form))}).then(r => {
    offered.status = r.status;
    return r.text();
  }).then(answer => {
    document.body.innerHTML = '<pre id=offered></pre><div id=answer></div>';
    document.getElementById('offered').textContent = JSON.stringify(offered);
    document.getElementById('answer').innerHTML = new DOMParser().parseFromString(answer, 'text/html').body.innerHTML;
  });
});`

// measureJS is the script of a driver page that lays out the page ?page=
// names with its own stylesheet, as a browser shows it, and writes the
// bounding box of every cell of the rows ?rows= selects: [[left, top,
// width, height]...] per row, with the row's class.
const measureJS = `const q = new URLSearchParams(location.search);
fetch(q.get('page')).then(r => r.text()).then(html => {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = doc.querySelector('link[rel=stylesheet]').getAttribute('href');
  const loaded = new Promise(done => { link.onload = done; link.onerror = done; });
  document.head.appendChild(link);
  document.body.innerHTML = doc.body.innerHTML;
  return loaded;
}).then(() => {
  const rows = [...document.querySelectorAll(q.get('rows'))].map(tr => ({class: tr.className,
    cells: [...tr.children].map(td => { const b = td.getBoundingClientRect(); return [b.left, b.top, b.width, b.height].map(Math.round); })}));
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = JSON.stringify(rows);
  document.body.appendChild(out);
});`

// driverPage is a page of the test's holding script.
func driverPage(script string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>driver</title><body><script>"+script+"</script></body>")
	}
}

// preText returns the text of the <pre id=ID> of a dumped DOM.
func preText(t *testing.T, dom, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre id="` + id + `">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no <pre id=%s> in %.3000s", id, dom)
	}
	return html.UnescapeString(m[1])
}

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
	// Held locks: the locks table must lay each out as a row.
	for _, l := range []struct{ agent, key string }{{"GreenCastle", "deploy/staging"}, {"RedFox", "build/frontend"}} {
		if _, err := h.svc.AcquireLock(t.Context(), h.scope(l.agent), service.LockRequest{Key: l.key, TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	// The human asks; the agents answer it, by reply and by send.
	asked, err := h.svc.Send(t.Context(), h.scope(""), service.SendRequest{To: []string{"GreenCastle", "BlueLake"}, Subject: "Where are we?", Body: "Status, please.", AsHuman: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Reply(t.Context(), h.scope("GreenCastle"), service.ReplyRequest{ID: asked.Message.ID, Body: "Auth is **done**."}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Send(t.Context(), h.scope("BlueLake"), service.SendRequest{To: []string{"Human"}, Subject: "Need a decision", Body: "Postgres or SQLite?"}); err != nil {
		t.Fatal(err)
	}
	// More than a page of search results.
	for i := range searchLimit + 5 {
		if _, err := h.svc.Send(t.Context(), h.scope("RedFox"), service.SendRequest{To: []string{"GreenCastle"}, Subject: fmt.Sprintf("standup %02d", i), Body: "standup notes", Thread: "standups"}); err != nil {
			t.Fatal(err)
		}
	}

	var hits atomic.Int64
	site := h.srv.http.Handler
	top := http.NewServeMux()
	top.HandleFunc("/hit", func(w http.ResponseWriter, r *http.Request) { hits.Add(1); t.Logf("hit: %s", r.URL) })
	top.HandleFunc("/control", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>control</title><body>"+payload+"</body>")
	})
	top.HandleFunc("/drive-compose/", driverPage(composeJS))
	top.HandleFunc("/measure", driverPage(measureJS))
	top.HandleFunc("/drive/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>driver</title><body><script>"+driverJS+"</script></body>")
	})
	// Headless Chromium's virtual time stands still while a request is
	// open, and the live event stream never ends: here it answers 204,
	// which tells EventSource to stop (TestEventsMounted tests the stream).
	// A live case (see below) swaps in a stream of its own.
	var live atomic.Pointer[http.HandlerFunc]
	top.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		if f := live.Swap(nil); f != nil {
			(*f)(w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
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
		{"human-mail", m + "/inbox/Human", []string{"Your mail", "Re: Where are we?", "Need a decision"}},
		{"reply", m + "/compose?reply=" + ids[0], []string{"Reply as Human", "In reply to"}},
		{"search-page-2", m + "/search?q=standup&page=2", []string{"Results 51–55", `rel="prev"`}},
		{"search-unread", m + "/search?q=is:unread", []string{"no unread state", `<nav class="tabs"`}},
		{"error-agent", m + "/inbox/NoSuchAgent", []string{"NoSuchAgent is not registered", `<nav class="tabs"`, "Agents page"}},
	} {
		served := string(h.do("GET", c.path, nil).body)
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

	// The locks table, with locks held, lays each lock out as a row: its
	// cells side by side on one line, not stacked in the first column (the
	// agent cards' .held list style once caught the rows of held locks).
	dom := chrome(t, path, h.base+"/measure?page="+url.QueryEscape(m+"/reservations")+"&rows="+url.QueryEscape("table.locks tbody tr"),
		filepath.Join(dir, "locks-measured-1280.png"), 1280)
	var rows []struct {
		Class string
		Cells [][4]int
	}
	if err := json.Unmarshal([]byte(preText(t, dom, "measured")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("the locks table has %d rows, want the 2 locks: %+v", len(rows), rows)
	}
	for _, row := range rows {
		if len(row.Cells) != 4 {
			t.Fatalf("a lock's row has %d cells: %+v", len(row.Cells), row)
		}
		for i := 1; i < len(row.Cells); i++ {
			prev, c := row.Cells[i-1], row.Cells[i]
			if c[0] < prev[0]+prev[2] || c[1] != prev[1] {
				t.Errorf("a %q lock's cells are not side by side on one line: cell %d at %v after %v", row.Class, i, c, prev)
			}
		}
	}

	// On a phone (390 px) the leases table fits the screen: every cell
	// of every lease inside the window (the width of <body>, measured
	// with them: the first row is <html>'s, <head> and <body>), none cut
	// off to the right.
	dom = chrome(t, path, h.base+"/measure?page="+url.QueryEscape(m+"/reservations")+"&rows="+url.QueryEscape("html, table.leases tbody tr"),
		filepath.Join(dir, "leases-measured-390.png"), 390)
	rows = nil
	if err := json.Unmarshal([]byte(preText(t, dom, "measured")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || len(rows[0].Cells) != 2 {
		t.Fatalf("measured %+v: want <html>'s head and body, then the leases", rows)
	}
	screen := rows[0].Cells[1][0] + rows[0].Cells[1][2]
	for _, row := range rows[1:] {
		for i, c := range row.Cells {
			if c[2] > 0 && (c[0] < 0 || c[0]+c[2] > screen) {
				t.Errorf("a lease's cell %d lies outside the %d px screen: %v (row %v)", i, screen, c, row.Cells)
			}
		}
	}

	// Compose: nothing ticked until the overseer ticks it, the server's
	// subject limit, a message required; several recipients at once; a
	// broadcast only once confirmed; an empty message refused.
	composeCase := func(fill, query string) (offered map[string]any, answer string) {
		t.Helper()
		dom := drive(path, h.base+"/drive-compose/"+h.slug+"/compose?fill="+fill+query)
		if err := json.Unmarshal([]byte(preText(t, dom, "offered")), &offered); err != nil {
			t.Fatal(err)
		}
		return offered, dom[strings.Index(dom, `id="answer"`):]
	}
	offered, answer := composeCase("several", "")
	if fmt.Sprint(offered["checked"]) != "[]" || offered["maxlength"] != 200.0 || offered["bodyRequired"] != true {
		t.Errorf("the compose form offers %v: want nothing ticked, maxlength 200, the message required", offered)
	}
	if !strings.Contains(answer, "Sent: <a") || !strings.Contains(answer, "To two agents</a> to BlueLake, RedFox.") {
		t.Errorf("the compose form to two agents: %.2000s", answer)
	}
	if offered, answer = composeCase("everyone", ""); offered["status"] != 400.0 || strings.Contains(answer, "Sent:") ||
		!strings.Contains(answer, "needs your confirmation") || !strings.Contains(answer, `name="confirm_all"`) {
		t.Errorf("a broadcast not confirmed: %v %.2000s", offered, answer)
	}
	if offered, answer = composeCase("confirmed", ""); offered["status"] != 200.0 || !strings.Contains(answer, "To everyone</a> to BlueLake, GreenCastle, RedFox.") {
		t.Errorf("a confirmed broadcast: %v %.2000s", offered, answer)
	}
	if offered, answer = composeCase("empty", ""); offered["status"] != 400.0 || !strings.Contains(answer, "the message is empty") {
		t.Errorf("an empty message: %v %.2000s", offered, answer)
	}
	// Reply in the thread, from a message's page.
	if offered, answer = composeCase("reply", "&reply="+ids[1]); offered["status"] != 200.0 || !strings.Contains(answer, "Re: Schema twelve</a> to RedFox.") {
		t.Errorf("a reply from the page: %v %.2000s", offered, answer)
	}
	thread, err := h.svc.Thread(t.Context(), h.scope(""), ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := thread.Messages[len(thread.Messages)-1]; got.From != "Human" || got.ReplyTo == nil || *got.ReplyTo != ids[1] || got.Body != "Reply from **the page**." {
		t.Errorf("the thread's last message: %+v", got)
	}

	// Live: an inbox page takes the agent's own new mail in place, and
	// not another's, even mail it missed while its stream was down (it
	// had no event yet, so no Last-Event-ID: it is told on connecting);
	// a message page shows the banner for its own thread only.
	feed := &events.Handler{Feed: h.srv.feed}
	for _, c := range []struct {
		name, page string
		mail       mail
		banner     bool
	}{
		{"inbox, another's mail", m + "/inbox/BlueLake", mail{"RedFox", service.SendRequest{To: []string{"GreenCastle"}, Subject: "not BlueLake's", Body: "x"}}, false},
		{"inbox, its own mail", m + "/inbox/BlueLake", mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "BlueLake's", Body: "x"}}, false}, // in place (below)
		{"message, another thread", m + "/message/" + ids[0] + "?agent=BlueLake", mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "elsewhere", Body: "x"}}, false},
		{"message, its thread", m + "/message/" + ids[0] + "?agent=BlueLake", mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "in the thread", Body: "x", Thread: ids[0]}}, true},
	} {
		stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The mail comes while the page has no stream, and the server
			// has seen it before the stream opens.
			if _, err := h.svc.Send(context.Background(), h.scope(c.mail.from), c.mail.req); err != nil {
				t.Error(err)
			}
			time.Sleep(400 * time.Millisecond)
			ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
			defer cancel()
			feed.ServeHTTP(w, r.WithContext(ctx))
		})
		live.Store(&stream)
		dom := chrome(t, path, h.base+c.page, filepath.Join(dir, "live-"+regexp.MustCompile(`[^a-z]+`).ReplaceAllString(c.name, "-")+"-1280.png"), 1280)
		if live.Load() != nil {
			t.Fatalf("%s: the page opened no event stream", c.name)
		}
		shown := strings.Contains(dom, `<div id="live" class="live" role="status"><span id="live-text">New mail</span>`)
		if shown != c.banner {
			t.Errorf("%s: the New mail banner shown %v, want %v", c.name, shown, c.banner)
		}
		if fresh := strings.Contains(dom, `fresh" data-key=`) && strings.Contains(dom, ">BlueLake's</span>"); c.name == "inbox, its own mail" && !fresh {
			t.Errorf("%s: the message is not in the open inbox: %.3000s", c.name, dom[strings.Index(dom, "<body"):])
		}
	}

	// The project's timeline in both schemes, wide and on a phone.
	for _, width := range []int{1400, 390} {
		for _, dark := range []bool{false, true} {
			name, extra := fmt.Sprintf("timeline-%d", width), []string(nil)
			if dark {
				name, extra = name+"-dark", []string{"--blink-settings=preferredColorScheme=0"}
			}
			if dom := chrome(t, path, h.base+m, filepath.Join(dir, name+".png"), width, extra...); !strings.Contains(dom, `id="timeline"`) {
				t.Errorf("%s: no timeline: %.2000s", name, dom)
			}
		}
	}

	// One click from the projects page to the project's latest message;
	// two (the project, then its timeline) to a named one.
	follow := func(dom, pattern string) string {
		t.Helper()
		mm := regexp.MustCompile(pattern).FindStringSubmatch(dom)
		if mm == nil {
			t.Fatalf("no link %s in %.3000s", pattern, dom)
		}
		return chrome(t, path, h.base+html.UnescapeString(mm[1]), "", 0)
	}
	latest, err := h.svc.Timeline(t.Context(), h.scope(""), service.TimelineRequest{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	top1 := chrome(t, path, h.base+"/", "", 0)
	if dom := follow(top1, `<a class="latest" href="([^"]+)"`); !strings.Contains(dom, html.EscapeString(latest.Messages[0].Subject)) || !strings.Contains(dom, latest.Messages[0].ID) {
		t.Errorf("the latest message, one click from /: %.2000s", dom)
	}
	project := follow(top1, `<a class="title" href="([^"]+)"`)
	if dom := follow(project, `<a class="subject" href="([^"]+)">(?:<span[^>]*>[^<]*</span>)*<span class="text">To two agents</span>`); !strings.Contains(dom, "Both of you.") {
		t.Errorf("a named message, two clicks from /: %.2000s", dom)
	}

	// A message sent while the project's page is open joins its timeline
	// in place, at the top, without a reload and without the banner.
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2000*time.Millisecond)
		defer cancel()
		go func() {
			time.Sleep(300 * time.Millisecond)
			if _, err := h.svc.Send(context.Background(), h.scope("RedFox"), service.SendRequest{To: []string{"BlueLake", "GreenCastle"}, Subject: "Fresh in the timeline", Body: "x"}); err != nil {
				t.Error(err)
			}
		}()
		feed.ServeHTTP(w, r.WithContext(ctx))
	})
	live.Store(&stream)
	dom = chrome(t, path, h.base+m, filepath.Join(dir, "live-timeline-1280.png"), 1280)
	list := dom[strings.Index(dom, `id="timeline"`):]
	if first := strings.Index(list, "<li"); first < 0 || !strings.HasPrefix(list[first:], `<li class="row fresh"`) ||
		strings.Count(list, "Fresh in the timeline") != 1 || !strings.Contains(dom, `<div id="live" class="live" role="status" hidden="">`) {
		t.Errorf("the new message is not at the top of the open timeline once (or the banner shows): %.3000s", list)
	}

	// The health endpoint answers JSON with the store's state.
	if dom := chrome(t, path, h.base+"/health", "", 0); !strings.Contains(dom, `"status":"ok"`) || !strings.Contains(dom, `"projects":1`) {
		t.Errorf("/health: %.500s", dom)
	}
	t.Logf("screenshots in %s", dir)
}
