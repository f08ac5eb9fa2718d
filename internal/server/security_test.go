package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

const testToken = "0123456789abcdef0123456789abcdef"

func TestListenRefusesBeyondLoopbackWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		_, err := Listen(Config{Addr: addr, Store: service.Config{Dir: t.TempDir()}})
		if !errors.Is(err, web.ErrTokenRequired) {
			t.Errorf("%s without a token: %v, want ErrTokenRequired", addr, err)
		}
	}
	if _, err := Listen(Config{Addr: "127.0.0.1:0", Token: "short", Store: service.Config{Dir: t.TempDir()}}); !errors.Is(err, web.ErrWeakToken) {
		t.Errorf("a short token: %v", err)
	}
	if _, err := Listen(Config{Addr: "127.0.0.1:0", RequireToken: true, Store: service.Config{Dir: t.TempDir()}}); !errors.Is(err, web.ErrTokenRequired) {
		t.Errorf("--require-token without a token: %v", err)
	}
}

// TestToken checks the token on the API, MCP and pages of a server that
// needs one: beyond loopback (every interface, reached here through
// 127.0.0.1), and on loopback with RequireToken.
func TestToken(t *testing.T) {
	for name, cfg := range map[string]Config{
		"every interface": {Addr: "0.0.0.0:0", Token: testToken},
		"require-token":   {Token: testToken, RequireToken: true},
	} {
		t.Run(name, func(t *testing.T) {
			h := startServer(t, cfg)
			h.seed([]string{"GreenCastle"})
			if cfg.Addr != "" { // every interface: reach it on loopback
				h.base = "http://127.0.0.1:" + h.srv.Addr()[strings.LastIndex(h.srv.Addr(), ":")+1:]
			}
			for _, path := range []string{"/api/projects", "/mcp/"} {
				if r := h.do("GET", path, nil); r.status != 401 || r.code(t) != web.CodeUnauthorized {
					t.Errorf("%s without the token: %d %s", path, r.status, r.body)
				}
				if r := h.do("GET", path, nil, "Authorization", "Bearer "+testToken+"x"); r.status != 401 || r.code(t) != web.CodeUnauthorized {
					t.Errorf("%s with a wrong token: %d %s", path, r.status, r.body)
				}
			}
			if r := h.do("GET", "/api/projects", nil, "Authorization", "Bearer "+testToken); r.status != 200 {
				t.Errorf("with the token: %d %s", r.status, r.body)
			}
			if r := h.do("GET", "/mail/", nil); r.status != 401 {
				t.Errorf("a page without the token: %d", r.status)
			}
			// The printed link logs a browser in: a cookie, then the pages.
			jar, _ := cookiejar.New(nil)
			client := &http.Client{Jar: jar}
			u := h.base + "/mail/?token=" + url.QueryEscape(testToken)
			if u != strings.Replace(h.srv.URL(), "http://"+h.srv.Addr(), h.base, 1) {
				t.Errorf("URL %s, want the token link", h.srv.URL())
			}
			resp, err := client.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
				t.Errorf("the token link: %d at %s", resp.StatusCode, resp.Request.URL)
			}
		})
	}
}

func TestForgedHost(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle"})
	for _, path := range []string{"/api/projects", "/mail/", "/mcp/"} {
		r := h.do("GET", path, nil, "Host", "attacker.example:"+strings.Split(h.srv.Addr(), ":")[1])
		if r.status != 403 {
			t.Errorf("%s with a forged Host: %d %s", path, r.status, r.body)
		}
	}
	if r := h.do("GET", "/api/projects", nil, "Host", "localhost:"+strings.Split(h.srv.Addr(), ":")[1]); r.status != 200 {
		t.Errorf("Host localhost: %d", r.status)
	}
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// TestComposeCSRF posts the compose form without its CSRF token (refused,
// nothing sent), then as a browser would, with the cookie and token the
// form page gave: delivered, from Human.
func TestComposeCSRF(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	compose := h.base + "/mail/" + h.slug + "/compose"
	form := url.Values{"to": {"BlueLake"}, "subject": {"From the overseer"}, "body": {"Stop **now**."}, "importance": {"high"}}

	resp, err := http.PostForm(compose, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("a form post without the CSRF token: %d", resp.StatusCode)
	}
	inbox := func() []service.InboxMessage {
		r, err := h.svc.Inbox(context.Background(), h.scope("BlueLake"), service.InboxRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Messages
	}
	if n := len(inbox()); n != 0 {
		t.Fatalf("the refused post delivered %d messages", n)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	page := get(t, client, compose)
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in the compose page:\n%s", page)
	}
	form.Set("csrf", m[1])
	resp, err = client.PostForm(compose, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the compose post: %d", resp.StatusCode)
	}
	got := inbox()
	if len(got) != 1 || got[0].From != "Human" || got[0].Subject != "From the overseer" || got[0].Importance != "high" {
		t.Fatalf("BlueLake's inbox: %+v", got)
	}
}

// TestSteerFromInbox: the overseer pauses an agent from its inbox page, as
// a browser would (the form's CSRF token and cookie; without them,
// refused and nothing recorded): the agent's writes are then PAUSED and its
// check shows who paused it and why; Resume lifts it; an unknown action is
// shown on the page, status 400.
func TestSteerFromInbox(t *testing.T) {
	ctx := context.Background()
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	inbox := h.base + "/mail/" + h.slug + "/inbox/BlueLake"
	steer := inbox + "/control"
	paused := func() bool {
		r, err := h.svc.Check(ctx, h.scope("BlueLake"), service.CheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Steering.Paused != nil
	}

	resp, err := http.PostForm(steer, url.Values{"action": {"pause"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || paused() {
		t.Fatalf("a steering post without the CSRF token: %d, paused %v", resp.StatusCode, paused())
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	post := func(form url.Values) (int, string) {
		t.Helper()
		m := csrfInput.FindStringSubmatch(get(t, client, inbox))
		if m == nil {
			t.Fatal("no steering form on the inbox page")
		}
		form.Set("csrf", m[1])
		resp, err := client.PostForm(steer, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, page := post(url.Values{"action": {"pause"}, "reason": {"hold until the schema lands"}})
	if status != 200 || !strings.Contains(page, "Paused BlueLake.") || !strings.Contains(page, `value="resume"`) {
		t.Fatalf("pause: %d\n%s", status, page)
	}
	c, err := h.svc.Check(ctx, h.scope("BlueLake"), service.CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Steering.Paused; p == nil || p.PauseBy != "Human" || p.PauseReason != "hold until the schema lands" {
		t.Fatalf("BlueLake's check: %+v", c.Steering)
	}
	if _, err := h.svc.Send(ctx, h.scope("BlueLake"), service.SendRequest{To: []string{"GreenCastle"}, Subject: "s", Body: "b"}); !errors.Is(err, service.ErrPaused) {
		t.Fatalf("a paused agent's send: %v", err)
	}

	if status, page = post(url.Values{"action": {"freeze"}}); status != 400 || !strings.Contains(page, "Pause, Resume or Interrupt") {
		t.Fatalf("an unknown action: %d\n%s", status, page)
	}
	if status, page = post(url.Values{"action": {"resume"}}); status != 200 || !strings.Contains(page, "Resumed BlueLake.") || paused() {
		t.Fatalf("resume: %d, paused %v\n%s", status, paused(), page)
	}
}

// TestChannelPages: the channels page lists the project's topics; a
// channel's page shows its posts, and its form posts as Human (with the
// form's CSRF token): the post is a message of the channel from Human, with
// no recipients. An empty post is shown again on the page, status 400; a
// name that cannot be a topic is an error page.
func TestChannelPages(t *testing.T) {
	ctx := context.Background()
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	if _, err := h.svc.Publish(ctx, h.scope("GreenCastle"), service.PublishRequest{Topic: "builds", Body: "main is green at 4f2c1e0"}); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	m := h.base + "/mail/" + h.slug
	if page := get(t, client, m+"/channels"); !strings.Contains(page, `href="/mail/`+h.slug+`/channel/builds"`) || !strings.Contains(page, "1 message") {
		t.Fatalf("the channels page:\n%s", page)
	}
	channel := m + "/channel/builds"
	post := func(form url.Values) (int, string) {
		t.Helper()
		page := get(t, client, channel)
		if !strings.Contains(page, "main is green at 4f2c1e0") {
			t.Fatalf("the channel page lacks its post:\n%s", page)
		}
		form.Set("csrf", csrfInput.FindStringSubmatch(page)[1])
		resp, err := client.PostForm(channel, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, page := post(url.Values{"body": {"Deploy **frozen** until 18:00"}}); status != 200 || !strings.Contains(page, "Posted:") {
		t.Fatalf("a post: %d\n%s", status, page)
	}
	got, err := h.svc.Topic(ctx, h.scope("BlueLake"), service.TopicRequest{Topic: "builds"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0].From != "Human" || len(got.Messages[0].To) != 0 || got.Messages[0].Subject != "Deploy **frozen** until 18:00" {
		t.Fatalf("#builds as BlueLake sees it: %+v", got.Messages)
	}
	if status, page := post(url.Values{"body": {"  "}}); status != 400 || !strings.Contains(page, "write the post") {
		t.Fatalf("an empty post: %d\n%s", status, page)
	}
	resp, err := client.Get(m + "/channel/" + url.PathEscape("no such topic!"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("a channel that cannot be: %d", resp.StatusCode)
	}
}
