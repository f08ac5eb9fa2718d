package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// TestPages loads every page of the web UI on a seeded store and checks
// that each shows what the service holds.
func TestPages(t *testing.T) {
	h := startServer(t, Config{})
	var msgs []mail
	for i := range pageSize + 3 {
		msgs = append(msgs, mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: fmt.Sprintf("note %03d", i), Body: "body"}})
	}
	msgs = append(msgs, mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Schema twelve", Body: "the *migrations* ran", Ack: true}})
	ids := h.seed([]string{"GreenCastle", "BlueLake", "RedFox"}, msgs...)
	last := ids[len(ids)-1]
	ctx := t.Context()
	if _, err := h.svc.Reserve(ctx, h.scope("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/api/**"}, TTL: 3600e9, Reason: "auth"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.RequestContact(ctx, h.scope("RedFox"), service.ContactRequest{To: "GreenCastle", Reason: "schema questions"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Send(ctx, h.scope("BlueLake"), service.SendRequest{To: []string{"Human"}, Subject: "Re: Schema twelve", Body: "for you"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SetState(ctx, h.scope("RedFox"), "stuck", "need the DB password"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Control(ctx, h.scope("Human"), service.ControlRequest{Agent: "BlueLake", Action: "pause", Reason: "schema first"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Register(ctx, h.scope("RedFox"), service.RegisterRequest{Role: "reviewer"}); err != nil {
		t.Fatal(err)
	}
	task, err := h.svc.CreateTask(ctx, h.scope("RedFox"), service.CreateTaskRequest{Title: "Review the schema"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.ClaimTask(ctx, h.scope("RedFox"), service.ClaimTaskRequest{ID: task.Task.ID}); err != nil {
		t.Fatal(err)
	}
	head, err := h.svc.ArchiveHead(ctx, h.scope(""))
	if err != nil {
		t.Fatal(err)
	}
	show, err := h.svc.Show(ctx, h.scope(""), last)
	if err != nil {
		t.Fatal(err)
	}
	m := "/mail/" + h.slug
	client := &http.Client{}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/mail/", []string{h.slug, projectKey}},
		{m, []string{"GreenCastle", "BlueLake", "RedFox", "src/api/**", `<span class="badge stuck">stuck</span> need the DB password`,
			`<span class="badge stuck">paused</span> by Human: schema first`, `<p class="muted small">reviewer</p>`,
			`href="/mail/` + h.slug + `/task/` + task.Task.ID + `"`, "Review the schema",
			fmt.Sprintf(`<a href="/mail/%s/inbox/BlueLake">%d unread</a> · <span>1 to acknowledge</span>`, h.slug, pageSize+4), ">owed 1 ack</a>"}},
		{m + "/inbox/BlueLake", []string{"Schema twelve", "note 052", "note 004", `rel="next"`}},
		{m + "/inbox/BlueLake?before=" + ids[3], []string{"note 002", "note 000", "← Newest"}},
		{m + "/outbox/GreenCastle", []string{"note 052"}},
		{m + "/message/" + last, []string{"Schema twelve", "<em>migrations</em>", web.ArchiveURL(h.slug, head, show.Message.Path)}},
		{m + "/message/" + last + "?agent=BlueLake", []string{"Schema twelve", "unread"}},
		{m + "/thread/" + last, []string{"Schema twelve", "<em>migrations</em>"}},
		{m + "/search?q=migrations", []string{"Schema twelve", "<mark>migrations</mark>"}},
		{m + "/search?q=note&from=RedFox", []string{"No messages"}},
		{m + "/reservations", []string{"src/api/**", "GreenCastle"}},
		{m + "/reservations?path=src/api/auth.py", []string{"<code>src/api/auth.py</code> is held by:", "<code>src/api/**</code><span class=\"muted small\">exclusive"}},
		{m + "/reservations?path=docs/x.md", []string{"Nobody holds <code>docs/x.md</code>."}},
		{"/mail/", []string{`<a class="latest" href="/mail/` + h.slug + `/message/`, "Re: Schema twelve"}},
		{m, []string{`id="timeline"`, "Re: Schema twelve", "note 052", `rel="next"`}},
		{m + "?agent=BlueLake&awaiting_ack=true", []string{"Schema twelve", `value="true" checked> awaiting ack`, "clear</a>"}},
		{m + "?category=BLOCKED", []string{"Nothing matches these filters."}},
		{m + "/threads", []string{`id="threads"`, `data-region="threads"`, "Schema twelve", "BlueLake, RedFox"}},
		{m + "?kind=lease", []string{`<option selected>lease</option>`, "took <code>src/api/**</code> exclusive", `data-region="timeline"`}},
		{m + "/contacts", []string{"RedFox", "schema questions"}},
		{m + "/acks", []string{"Schema twelve", "BlueLake"}},
		{m + "/compose", []string{`name="csrf"`, `<input type="checkbox" name="to" value="BlueLake">`, `maxlength="200"`, `<textarea name="body" rows="10" required>`}},
		{m + "/compose?reply=" + last, []string{`name="reply" value="` + last + `"`, "Reply to RedFox", "Reply as Human"}},
		{m + "/message/" + last, []string{`href="/mail/` + h.slug + `/compose?reply=` + last + `"`}},
		{m + "/inbox/Human", []string{"Your mail", "Re: Schema twelve", "the overseer"}},
		{m + "/search?q=note", []string{"Results 1–50", `rel="next"`, "page=2"}},
		{m + "/search?q=note&page=2", []string{"Results 51–53", `rel="prev"`}},
	} {
		page := get(t, client, h.base+c.path)
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
	}
	arc := get(t, client, h.base+web.ArchiveURL(h.slug, head, show.Message.Path))
	if !strings.Contains(arc, "id: "+last) || !strings.HasSuffix(arc, "the *migrations* ran") {
		t.Errorf("archive file:\n%s", arc)
	}
	// Error pages: the status, the project's navigation once the project
	// is known, and no command line's instructions.
	nav := `<nav class="tabs" aria-label="Project">`
	for path, status := range map[string]int{
		m + "/inbox/NoSuchAgent":                                   403,
		m + "/message/01AAAAAAAAAAAAAAAAAAAAAAAA":                  404,
		m + "/compose?reply=01AAAAAAAAAAAAAAAAAAAAAAAA":            404,
		m + "/no/such/page":                                        404,
		m + "/search?q=is:unread":                                  400,
		m + "/search?q=note&page=0":                                400,
		"/mail/nothing-00000000":                                   404,
		m + "/archive/" + head + "/projects/other-1234abcd/x.md":   400,
		m + "/archive/HEAD/" + show.Message.Path:                   400,
		m + "/archive/" + head + "/" + show.Message.Path + ".nope": 404,
	} {
		r := h.do("GET", path, nil)
		if r.status != status || !strings.Contains(string(r.body), "<!doctype html>") {
			t.Errorf("%s: %d, want %d and the error page: %.200s", path, r.status, status, r.body)
		}
		text := string(r.body)
		if strings.HasPrefix(path, m+"/") && !strings.Contains(text, nav) {
			t.Errorf("%s: the error page lost the project's navigation:\n%s", path, text)
		}
		if i := strings.Index(text, `<main>`); i >= 0 && speaksCLI(text[i:strings.Index(text, `</main>`)]) {
			t.Errorf("%s: the error page speaks the command line:\n%s", path, text)
		}
	}
	if page := string(h.do("GET", m+"/search?q=is:unread", nil).body); !strings.Contains(page, "no unread state") || strings.Contains(page, "is:unread</code>") {
		t.Errorf("the search page on is:unread:\n%s", page)
	}
	if r := h.do("GET", "/", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/mail/" {
		t.Errorf("/: %d to %s", r.status, r.header.Get("Location"))
	}
}

// A message page lists the messages of its thread around it, and links
// to the thread page for the rest of a long thread.
func TestMessagePageThreadWindow(t *testing.T) {
	h := startServer(t, Config{})
	n := web.ThreadWindow + 10
	var msgs []mail
	for i := range n {
		msgs = append(msgs, mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Thread: "long",
			Subject: fmt.Sprintf("step %03d", i), Body: "body"}})
	}
	ids := h.seed([]string{"GreenCastle", "BlueLake"}, msgs...)
	page := get(t, &http.Client{}, h.base+"/mail/"+h.slug+"/message/"+ids[n/2])
	for _, w := range []string{fmt.Sprintf("%d messages", n), fmt.Sprintf("All %d messages of the thread", n),
		fmt.Sprintf("step %03d", n/2-web.ThreadWindow/2), fmt.Sprintf("step %03d", n/2+web.ThreadWindow/2)} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	for _, far := range []int{0, n - 1} {
		if s := fmt.Sprintf("step %03d", far); strings.Contains(page, s) {
			t.Errorf("the page lists %q, far from the message", s)
		}
	}
}

// The reservations page flags a lease that overlaps another agent's (taken
// with --allow-conflicts), on both leases, naming the other; leases apart
// and a released one are not flagged.
func TestReservationsPageFlagsClashes(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake", "RedFox"})
	ctx := t.Context()
	for _, r := range []struct {
		agent string
		req   service.ReserveRequest
	}{
		{"GreenCastle", service.ReserveRequest{Patterns: []string{"src/api/**"}, TTL: 3600e9}},
		{"BlueLake", service.ReserveRequest{Patterns: []string{"src/api/auth.py"}, TTL: 3600e9, AllowConflicts: true}},
		{"RedFox", service.ReserveRequest{Patterns: []string{"docs/**"}, TTL: 3600e9}},
	} {
		if _, err := h.svc.Reserve(ctx, h.scope(r.agent), r.req); err != nil {
			t.Fatal(err)
		}
	}
	page := get(t, &http.Client{}, h.base+"/mail/"+h.slug+"/reservations")
	for _, want := range []string{
		`<code>src/api/**</code><span class="clash" role="note">overlaps BlueLake's <code>src/api/auth.py</code></span>`,
		`<code>src/api/auth.py</code><span class="clash" role="note">overlaps GreenCastle's <code>src/api/**</code></span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the reservations page lacks %q", want)
		}
	}
	if n := strings.Count(page, `class="clash"`); n != 2 {
		t.Errorf("%d leases flagged, want 2", n)
	}
	if _, err := h.svc.Release(ctx, h.scope("BlueLake"), service.Selection{All: true}); err != nil {
		t.Fatal(err)
	}
	if page := get(t, &http.Client{}, h.base+"/mail/"+h.slug+"/reservations"); strings.Contains(page, `class="clash"`) {
		t.Errorf("a released lease is still flagged")
	}
}
