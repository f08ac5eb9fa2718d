package web

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

// previewDir is where the preview writes pages and screenshots:
// $AGENTMAIL_SCREENSHOTS when set, else a directory of the test's.
func previewDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newTestPages renders bodies with GitHub's extensions, as the serve
// command will (with fts's parser, which builds the same nodes).
func newTestPages(t *testing.T) *Pages {
	t.Helper()
	p, err := NewPages(NewMarkdown(gfmParser()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// render returns the page of v.
func render(t *testing.T, p *Pages, v View) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Render(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestRenderPages renders every page of the fixtures into a directory (go
// test -run TestRenderPages with AGENTMAIL_SCREENSHOTS=DIR keeps them, to
// open in a browser), and checks that no page holds markup that could run
// or load anything but the server's own assets.
func TestRenderPages(t *testing.T) {
	p := newTestPages(t)
	dir := previewDir(t)
	views := fixtureViews()
	names := make([]string, 0, len(views))
	for name := range views {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		page := render(t, p, views[name])
		if err := os.WriteFile(filepath.Join(dir, name+".html"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := activeMarkup(page); err != "" {
			t.Errorf("page %s: %s", name, err)
		}
		// The first thing Tab reaches is the skip link to the page's
		// content, which is there.
		body := page[strings.Index(page, "<body"):]
		if first := strings.Index(body, "<a "); first < 0 || !strings.HasPrefix(body[first:], `<a class="skip" href="#content">`) ||
			!strings.Contains(page, `<main id="content" tabindex="-1">`) {
			t.Errorf("page %s: the first link is not the skip link to <main id=content>", name)
		}
	}
	t.Logf("pages written to %s", dir)
}

// TestPagesShowData checks that each page shows what its view holds, the
// hostile payloads as the text they are.
func TestPagesShowData(t *testing.T) {
	p := newTestPages(t)
	views := fixtureViews()
	tests := []struct {
		page string
		want []string
	}{
		{"projects", []string{"shop-3fa1c2d9", "github.com/acme/shop", "1284 messages", "github.com/acme/<script>document.title='PWNED'</script>"}},
		{"project", []string{"GreenCastle", "claude-code · opus-4", "Auth API: sessions, tokens and the login routes", "src/api/**",
			"exclusive · expires in 15m", "Task " + payload, "retired", "deploy/staging", "active Auth API", "opencode stale", "seen 26h ago"}},
		{"inbox", []string{"BlueLake", "Migration 12 is BLOCKED on the session table", "BLOCKED", "urgent", "ack pending",
			"acked", "Subject " + payload, "Older →", "5m ago"}},
		{"inbox-older", []string{"← Newest", "Typo sweep of the README"}},
		{"outbox", []string{"Sent", "to BlueLake"}},
		{"message", []string{"Auth API ready for the login form", "HANDOFF", "sets the session cookie", "rate limits (next)",
			"projects/shop-3fa1c2d9/messages/2026/11/22/01JD3Y01Q8R7T6Y5U4I3O2P1A-auth-api-ready.md", "9f1c2e3d4b",
			`git --git-dir "$(agentmail archive path)" show 9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6:projects/shop-3fa1c2d9/messages/2026/11/22/01JD3Y01Q8R7T6Y5U4I3O2P1A-auth-api-ready.md`,
			"Thread", "3 messages", "read 3h ago · acked 2h ago"}},
		{"message-hostile", []string{"Subject " + payload, hostileThread, "<script>document.title='PWNED'</script>",
			"<iframe src=\"/hit?iframe\"></iframe>", "a link", "<script> stays text", "RedCat"}},
		{"thread", []string{"Auth API ready for the login form", "3 messages", "does /logout clear the CSRF cookie too?"}},
		{"thread-hostile", []string{hostileThread, "Subject " + payload}},
		{"search", []string{"session login", "3 results", "sets the session cookie", `ignored "NEAR(": not supported`, "<img src=x onerror=\"fetch('/hit?snippet')\">"}},
		{"search-empty", []string{payload, "No messages match."}},
		{"reservations", []string{"src/api/**", "migrations/", "expired 2h ago", "released 28h ago", "build/frontend", "schema 12"}},
		{"contacts", []string{"need the session schema", "requested", "denied", "approved", payload}},
		{"acks", []string{"waiting for BlueLake, GreenCastle", "Migration 12 is BLOCKED"}},
		{"compose", []string{"Send as Human", "All agents", "BlueLake — Frontend login form and session handling"}},
		{"compose-sent", []string{"Sent: Auth API ready for the login form to BlueLake."}},
		{"compose-error", []string{"invalid form: the subject is empty (write a subject)", "Please stop " + payload}},
		{"error", []string{"no message " + payload, "check the id", "404 · NOT_FOUND"}},
	}
	for _, tt := range tests {
		text := visibleText(t, render(t, p, views[tt.page]))
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("page %s does not show %q; it shows:\n%s", tt.page, w, text)
			}
		}
	}
	// The compose form carries its CSRF token, and the message page marks
	// the message being read in its thread.
	if page := render(t, p, views["compose"]); !strings.Contains(page, `<input type="hidden" name="csrf" value="fixture-csrf-token">`) {
		t.Errorf("the compose form has no CSRF field:\n%s", page)
	}
	if page := render(t, p, views["message"]); strings.Count(page, `class="current"`) != 1 {
		t.Errorf("the thread beside a message does not mark it once")
	}
}

// TestMessageAttachments: the message page shows its topic and lists its
// attachments, raster images inline (an <img> from this server) and every
// one as a download link; an SVG (which may hold scripts) and a hostile
// name are never shown as images or markup.
func TestMessageAttachments(t *testing.T) {
	p := newTestPages(t)
	v := fixtureViews()["message-attachments"].(MessageView)
	page := render(t, p, v)
	id := v.Message.ID
	imgs := 0
	z := xhtml.NewTokenizer(strings.NewReader(page))
	var downloads []string
	for tt := z.Next(); tt != xhtml.ErrorToken; tt = z.Next() {
		tok := z.Token()
		switch {
		case tok.Data == "img" && tt != xhtml.EndTagToken:
			imgs++
			if want := "/mail/shop-3fa1c2d9/message/" + id + "/attachment/shot.png?agent=BlueLake&inline=1"; attr(tok, "src") != want || attr(tok, "alt") != "shot.png" {
				t.Errorf("img src %q alt %q, want %q", attr(tok, "src"), attr(tok, "alt"), want)
			}
		case tok.Data == "a" && attr(tok, "download") != "":
			downloads = append(downloads, attr(tok, "href"))
		}
	}
	if imgs != 1 {
		t.Errorf("%d images, want 1 (shot.png; not the SVG)", imgs)
	}
	want := []string{
		"/mail/shop-3fa1c2d9/message/" + id + "/attachment/shot.png?agent=BlueLake",
		"/mail/shop-3fa1c2d9/message/" + id + "/attachment/diagram.svg?agent=BlueLake",
		"/mail/shop-3fa1c2d9/message/" + id + "/attachment/%3Cscript%3Ealert%281%29%3C%2Fscript%3E.txt?agent=BlueLake",
	}
	if strings.Join(downloads, "\n") != strings.Join(want, "\n") {
		t.Errorf("download links\n%s\nwant\n%s", strings.Join(downloads, "\n"), strings.Join(want, "\n"))
	}
	text := visibleText(t, page)
	for _, w := range []string{"#ui-bugs", "Attachments", "shot.png", "image/png · 2 KiB", "diagram.svg", "<script>alert(1)</script>.txt", "text/plain; charset=utf-8 · 15 bytes"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not show %q:\n%s", w, text)
		}
	}
	if err := activeMarkup(page); err != "" {
		t.Error(err)
	}
	// The thread page lists them too.
	thread := render(t, p, ThreadView{Page: v.Page, Thread: v.Message.Thread, Agent: "BlueLake", Messages: []FullMessage{v.Message}})
	if strings.Count(thread, "<img ") != 1 || strings.Count(thread, `download="`) != 3 || !strings.Contains(visibleText(t, thread), "#ui-bugs") {
		t.Errorf("the thread page does not list the attachments and topic:\n%s", visibleText(t, thread))
	}
	if err := activeMarkup(thread); err != "" {
		t.Error(err)
	}
}

// TestServeAttachment: what an attachment is served as.
func TestServeAttachment(t *testing.T) {
	for _, tt := range []struct {
		name, mediaType string
		inline          bool
		ctype, disp     string
	}{
		{"shot.png", "image/png", true, "image/png", `inline; filename=shot.png`},
		{"shot.png", "image/png", false, "image/png", `attachment; filename=shot.png`},
		{"page.html", "text/html; charset=utf-8", true, "application/octet-stream", `attachment; filename=page.html`},
		{"d.svg", "image/svg+xml", true, "application/octet-stream", `attachment; filename=d.svg`},
		{"notes.txt", "text/plain; charset=utf-8", false, "text/plain; charset=utf-8", `attachment; filename=notes.txt`},
		{"résumé \"x\".pdf", "application/pdf", false, "application/pdf", `attachment; filename*=utf-8''r%C3%A9sum%C3%A9%20%22x%22.pdf`},
		{"odd", "not a type", false, "application/octet-stream", `attachment; filename=odd`},
	} {
		w := httptest.NewRecorder()
		ServeAttachment(w, tt.name, tt.mediaType, []byte("data"), tt.inline)
		h := w.Result().Header
		if h.Get("Content-Type") != tt.ctype || h.Get("Content-Disposition") != tt.disp || h.Get("X-Content-Type-Options") != "nosniff" || w.Body.String() != "data" {
			t.Errorf("%s %s inline %v: type %q disposition %q nosniff %q body %q; want %q %q", tt.name, tt.mediaType, tt.inline,
				h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("X-Content-Type-Options"), w.Body.String(), tt.ctype, tt.disp)
		}
	}
}

// TestMailboxPager checks the cursor links of a mailbox page.
func TestMailboxPager(t *testing.T) {
	p := newTestPages(t)
	v := fixtureViews()["inbox"].(MailboxView)
	page := render(t, p, v)
	if older := `href="/mail/shop-3fa1c2d9/inbox/BlueLake?before=` + v.Older + `"`; !strings.Contains(page, older) {
		t.Errorf("the inbox has no link %s", older)
	}
	if strings.Contains(page, "Newest") {
		t.Error("the newest page links to the newest page")
	}
	v.Older = ""
	if page := render(t, p, v); strings.Contains(page, "Older") {
		t.Error("the last page links to older messages")
	}
}

func TestStaticHandler(t *testing.T) {
	for _, tt := range []struct{ file, ctype string }{
		{"style.css", "text/css"}, {"live.js", "text/javascript"}, {"favicon.svg", "image/svg+xml"},
	} {
		w := httptest.NewRecorder()
		StaticHandler().ServeHTTP(w, httptest.NewRequest("GET", StaticURL(tt.file), nil))
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), tt.ctype) || w.Body.Len() == 0 {
			t.Errorf("%s: %d %q, %d bytes", tt.file, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
	}
	if u := StaticURL("style.css"); !strings.Contains(u, "?v=") || len(u) < len("/static/style.css?v=")+8 {
		t.Errorf("StaticURL(style.css) = %q carries no version", u)
	}
}

// visibleText returns the text of a page as a reader sees it, its title
// included.
func visibleText(t *testing.T, page string) string {
	t.Helper()
	doc, err := xhtml.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		switch {
		case n.Type == xhtml.TextNode:
			b.WriteString(n.Data)
		case n.Type == xhtml.ElementNode && (n.Data == "script" || n.Data == "style"):
			return
		case n.Type == xhtml.ElementNode && (n.Data == "input" || n.Data == "textarea"):
			for _, a := range n.Attr {
				if a.Key == "value" {
					b.WriteString(a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(b.String()), " ")
}

// activeMarkup parses a page as a browser would and says what in it could
// run or load something other than the server's own assets, or "".
func activeMarkup(page string) string {
	z := xhtml.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return ""
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		switch tok.Data {
		case "img":
			// An attachment shown in the message page, from this server.
			if src := attr(tok, "src"); !strings.HasPrefix(src, "/mail/") || !strings.Contains(src, "/attachment/") || !strings.Contains(src, "inline=1") {
				return "has an <img> element that is no attachment: " + src
			}
		case "iframe", "frame", "object", "embed", "base", "style", "svg", "math", "video", "audio", "source", "picture":
			return "has a <" + tok.Data + "> element"
		case "script":
			if src := attr(tok, "src"); src != StaticURL("live.js") && src != StaticURL("keys.js") {
				return "has a script other than live.js and keys.js"
			}
			if z.Next() == xhtml.TextToken && strings.TrimSpace(string(z.Text())) != "" {
				return "has an inline script"
			}
		case "link":
			if !strings.HasPrefix(attr(tok, "href"), StaticPrefix) {
				return "links " + attr(tok, "href")
			}
		case "meta":
			if attr(tok, "http-equiv") != "" {
				return "has a meta http-equiv"
			}
		}
		for _, a := range tok.Attr {
			switch {
			case strings.HasPrefix(a.Key, "on"):
				return "has an " + a.Key + " attribute on <" + tok.Data + ">"
			case a.Key == "style":
				return "has an inline style on <" + tok.Data + ">"
			case (a.Key == "href" || a.Key == "action" || a.Key == "formaction" || a.Key == "src") && !SafeURL(a.Val):
				return "points " + a.Key + " at " + a.Val
			}
		}
	}
}

func attr(tok xhtml.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Around keeps the messages of a thread nearest a message, as many before
// it as after where the thread allows.
func TestAround(t *testing.T) {
	thread := make([]Received, 10)
	for i := range thread {
		thread[i].ID = fmt.Sprint(i)
	}
	ids := func(rs []Received) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		id   string
		n    int
		want string
	}{
		{"4", 10, "0 1 2 3 4 5 6 7 8 9"},
		{"4", 20, "0 1 2 3 4 5 6 7 8 9"},
		{"5", 3, "4 5 6"},
		{"5", 4, "3 4 5 6"},
		{"0", 3, "0 1 2"},
		{"1", 3, "0 1 2"},
		{"9", 3, "7 8 9"},
		{"8", 4, "6 7 8 9"},
		{"none", 3, "7 8 9"},
	} {
		if got := ids(Around(thread, tc.id, tc.n)); got != tc.want {
			t.Errorf("Around(%s, %d) = %s, want %s", tc.id, tc.n, got, tc.want)
		}
	}
}
