package web

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRoutes checks that the route patterns live together on one
// ServeMux and that each address builder leads back to its route with
// the values it was given, whatever characters they hold.
func TestRoutes(t *testing.T) {
	mux := http.NewServeMux()
	var got string
	for _, pattern := range []string{RouteStatic, RouteProjects, RouteProject, RouteInbox, RouteOutbox, RouteMessage,
		RouteThread, RouteSearch, RouteReservations, RouteContacts, RouteAcks, RouteCompose, RouteSend, RouteArchive} {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			got = pattern
			for _, k := range []string{"project", "agent", "id", "thread", "commit", "path", "file"} {
				if v := r.PathValue(k); v != "" {
					got += " " + k + "=" + v
				}
			}
			for _, k := range []string{"before", "agent", "q"} {
				if v := r.URL.Query().Get(k); v != "" {
					got += " ?" + k + "=" + v
				}
			}
		})
	}
	const odd = "a/b?c#d e%2F<x>"
	tests := []struct{ url, want string }{
		{"/mail/", RouteProjects},
		{ProjectURL("shop-3fa1c2d9"), RouteProject + " project=shop-3fa1c2d9"},
		{InboxURL("p", "BlueLake", ""), RouteInbox + " project=p agent=BlueLake"},
		{InboxURL("p", "BlueLake", "01JD3Y"), RouteInbox + " project=p agent=BlueLake ?before=01JD3Y"},
		{OutboxURL("p", "BlueLake", "01JD3Y"), RouteOutbox + " project=p agent=BlueLake ?before=01JD3Y"},
		{MessageURL("p", "01JD3Y", "BlueLake"), RouteMessage + " project=p id=01JD3Y ?agent=BlueLake"},
		{ThreadURL("p", odd), RouteThread + " project=p thread=" + odd},
		{SearchURL("p", odd), RouteSearch + " project=p ?q=" + odd},
		{mailURL("p", "reservations"), RouteReservations + " project=p"},
		{mailURL("p", "contacts"), RouteContacts + " project=p"},
		{mailURL("p", "acks"), RouteAcks + " project=p"},
		{mailURL("p", "compose"), RouteCompose + " project=p"},
		{ArchiveURL("p", "9f1c2e", "projects/p/messages/2026/11/22/01JD-a b.md"),
			RouteArchive + " project=p commit=9f1c2e path=projects/p/messages/2026/11/22/01JD-a b.md"},
		{StaticURL("style.css"), RouteStatic + " file=style.css"},
	}
	for _, tt := range tests {
		got = ""
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tt.url, nil))
		if got != tt.want {
			t.Errorf("GET %s reached %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestComposeFlow runs the compose form as serve will: a page with the
// guard's CSRF token, posted back by a browser that keeps cookies, and a
// post without the token refused with the error page.
func TestComposeFlow(t *testing.T) {
	pages := newTestPages(t)
	srv := httptest.NewUnstartedServer(nil)
	guard, err := NewGuard(Options{Addr: srv.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	guard.ErrorPage = pages.ErrorPage
	page := fixturePage()
	mux := http.NewServeMux()
	mux.HandleFunc(RouteCompose, func(w http.ResponseWriter, r *http.Request) {
		pages.Serve(w, http.StatusOK, ComposeView{Page: page, Agents: fixtureAgents, CSRF: guard.CSRFToken(w, r)})
	})
	var sent []ComposeForm
	mux.HandleFunc(RouteSend, func(w http.ResponseWriter, r *http.Request) {
		v := ComposeView{Page: page, Agents: fixtureAgents, CSRF: guard.CSRFToken(w, r)}
		form, err := ReadCompose(r.PostForm, 200)
		v.Form = form
		if err != nil {
			v.Error = err.Error()
			pages.Serve(w, http.StatusBadRequest, v)
			return
		}
		sent = append(sent, form)
		v.Sent = &Message{ID: "01JD3Y", Subject: form.Subject, To: form.To}
		pages.Serve(w, http.StatusOK, v)
	})
	srv.Config.Handler = guard.Handler(mux)
	srv.Start()
	defer srv.Close()

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	composeURL := srv.URL + mailURL(page.Project.Slug, "compose")
	body := get(t, browser, composeURL, http.StatusOK)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the compose page has no CSRF field:\n%s", body)
	}
	form := url.Values{"to": {"BlueLake"}, "subject": {"Stop and rebase"}, "body": {"main moved"}, "importance": {"high"}}

	post(t, &http.Client{}, composeURL, form, http.StatusForbidden, "the form has no valid CSRF token") // no cookie, no token
	post(t, browser, composeURL, form, http.StatusForbidden, "the form has no valid CSRF token")        // cookie, no token
	form.Set(CSRFField, m[1])
	post(t, browser, composeURL, form, http.StatusOK, "Sent: Stop and rebase to BlueLake.")
	form.Set("subject", "")
	post(t, browser, composeURL, form, http.StatusBadRequest, "the subject is empty")
	if len(sent) != 1 || !slices.Equal(sent[0].To, []string{"BlueLake"}) || sent[0].Importance != "high" {
		t.Errorf("sent %+v, want the one form with its token", sent)
	}
}

func get(t *testing.T, c *http.Client, u string, status int) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s = %d, want %d:\n%s", u, resp.StatusCode, status, b)
	}
	return string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values, status int, want string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := visibleText(t, string(b))
	if resp.StatusCode != status || !strings.Contains(text, want) {
		t.Errorf("POST %s %v = %d %q, want %d with %q", u, form, resp.StatusCode, text, status, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("POST %s answered %q", u, ct)
	}
}
