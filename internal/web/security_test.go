package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
)

const testToken = "0123456789abcdef0123456789abcdef"

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"[::1]", true},
		{"localhost", true},
		{"LocalHost", true},
		{"::ffff:127.0.0.1", true},
		{"", false},
		{"0.0.0.0", false},
		{"::", false},
		{"192.168.1.5", false},
		{"example.com", false},
		{"localhost.example.com", false},
	}
	for _, tt := range tests {
		if got := IsLoopback(tt.host); got != tt.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestCheckListen(t *testing.T) {
	tests := []struct {
		addr, token string
		want        error // nil, a sentinel, or errAny
	}{
		{"127.0.0.1:8765", "", nil},
		{"localhost:8765", "", nil},
		{"[::1]:0", "", nil},
		{"127.0.0.1:8765", testToken, nil},
		{"0.0.0.0:8765", testToken, nil},
		{"0.0.0.0:8765", "", ErrTokenRequired},
		{":8765", "", ErrTokenRequired},
		{"[::]:8765", "", ErrTokenRequired},
		{"192.168.1.5:8765", "", ErrTokenRequired},
		{"myhost:8765", "", ErrTokenRequired},
		{"0.0.0.0:8765", "short", ErrWeakToken},
		{"127.0.0.1:8765", "short", ErrWeakToken},
		{"127.0.0.1", "", errAny},
	}
	for _, tt := range tests {
		err := CheckListen(tt.addr, tt.token)
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("CheckListen(%q, %q) = %v, want nil", tt.addr, tt.token, err)
		case tt.want == nil:
		case err == nil:
			t.Errorf("CheckListen(%q, %q) = nil, want %v", tt.addr, tt.token, tt.want)
		case tt.want != errAny && !errors.Is(err, tt.want):
			t.Errorf("CheckListen(%q, %q) = %v, want %v", tt.addr, tt.token, err, tt.want)
		case fault.Hint(err) == "":
			t.Errorf("CheckListen(%q, %q) = %v, which has no hint", tt.addr, tt.token, err)
		}
	}
}

var errAny = errors.New("any error")

func TestNewGuardRefuses(t *testing.T) {
	for _, o := range []Options{
		{Addr: "0.0.0.0:8765"},
		{Addr: "127.0.0.1:8765", RequireToken: true},
	} {
		if _, err := NewGuard(o); !errors.Is(err, ErrTokenRequired) || fault.Hint(err) == "" {
			t.Errorf("NewGuard(%+v) = %v, want ErrTokenRequired with a hint", o, err)
		}
	}
}

// request is a request to a guarded server and what must come of it.
type request struct {
	name    string
	method  string
	target  string
	header  map[string]string
	form    url.Values
	status  int
	code    string // the JSON error's code, for refusals of machine routes
	headers map[string]string
}

// serve sends each request to a test handler behind a guard with o.
func serve(t *testing.T, o Options, reqs []request) {
	t.Helper()
	g, err := NewGuard(o)
	if err != nil {
		t.Fatal(err)
	}
	h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	for _, rq := range reqs {
		var body *strings.Reader
		if rq.form != nil {
			body = strings.NewReader(rq.form.Encode())
		} else {
			body = strings.NewReader("")
		}
		r := httptest.NewRequest(rq.method, rq.target, body)
		r.Host = strings.TrimPrefix(strings.TrimPrefix(o.Addr, "0.0.0.0"), "[::]")
		if rq.form != nil {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range rq.header {
			if k == "Host" {
				r.Host = v
			} else {
				r.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		checkResponse(t, rq, w)
	}
}

func checkResponse(t *testing.T, rq request, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code != rq.status {
		t.Errorf("%s: %s %s = %d %q, want %d", rq.name, rq.method, rq.target, w.Code, w.Body, rq.status)
		return
	}
	for k, v := range rq.headers {
		if got := w.Header().Get(k); !strings.Contains(got, v) || k == "Location" && got != v {
			t.Errorf("%s: header %s = %q, want %q", rq.name, k, got, v)
		}
	}
	if rq.code == "" {
		return
	}
	var doc ErrorDocument
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Errorf("%s: body %q is not an error document: %v", rq.name, w.Body, err)
		return
	}
	if doc.Error.Code != rq.code || doc.Error.Message == "" || doc.Error.Hint == "" {
		t.Errorf("%s: error %+v, want code %s with a message and a hint", rq.name, doc.Error, rq.code)
	}
}

func TestGuardHost(t *testing.T) {
	serve(t, Options{Addr: "127.0.0.1:8765"}, []request{
		{name: "ip", method: "GET", target: "/api/inbox", header: map[string]string{"Host": "127.0.0.1:8765"}, status: 200},
		{name: "localhost", method: "GET", target: "/mail/", header: map[string]string{"Host": "localhost:8765"}, status: 200},
		{name: "LOCALHOST", method: "GET", target: "/mail/", header: map[string]string{"Host": "LOCALHOST:8765"}, status: 200},
		{name: "ipv6", method: "GET", target: "/mcp/", header: map[string]string{"Host": "[::1]:8765"}, status: 200},
		{name: "rebinding", method: "GET", target: "/api/inbox", header: map[string]string{"Host": "evil.example:8765"},
			status: 403, code: CodeForbidden},
		{name: "rebinding page", method: "GET", target: "/mail/", header: map[string]string{"Host": "evil.example"}, status: 403},
		{name: "other port", method: "GET", target: "/api/inbox", header: map[string]string{"Host": "127.0.0.1:9999"},
			status: 403, code: CodeForbidden},
		{name: "no port", method: "GET", target: "/api/inbox", header: map[string]string{"Host": "localhost"},
			status: 403, code: CodeForbidden},
		{name: "static too", method: "GET", target: "/static/style.css", header: map[string]string{"Host": "evil.example:8765"},
			status: 403},
	})
	serve(t, Options{Addr: "127.0.0.1:80"}, []request{
		{name: "port 80 may be left out", method: "GET", target: "/mail/", header: map[string]string{"Host": "localhost"}, status: 200},
	})
	serve(t, Options{Addr: "0.0.0.0:8765", Token: testToken}, []request{
		{name: "any host beyond loopback", method: "GET", target: "/api/inbox",
			header: map[string]string{"Host": "mail.example.com", "Authorization": "Bearer " + testToken}, status: 200},
	})
}

func TestGuardToken(t *testing.T) {
	bearer := map[string]string{"Authorization": "Bearer " + testToken}
	unauthorized := map[string]string{"WWW-Authenticate": "Bearer"}
	cases := []request{
		{name: "api without token", method: "GET", target: "/api/inbox", status: 401, code: CodeUnauthorized, headers: unauthorized},
		{name: "mcp without token", method: "POST", target: "/mcp/", status: 401, code: CodeUnauthorized},
		{name: "mcp bare path", method: "POST", target: "/mcp", status: 401, code: CodeUnauthorized},
		{name: "wrong token", method: "GET", target: "/api/inbox", header: map[string]string{"Authorization": "Bearer " + testToken + "x"},
			status: 401, code: CodeUnauthorized},
		{name: "prefix of the token", method: "GET", target: "/api/inbox", header: map[string]string{"Authorization": "Bearer " + testToken[:20]},
			status: 401, code: CodeUnauthorized},
		{name: "basic auth", method: "GET", target: "/api/inbox", header: map[string]string{"Authorization": "Basic " + testToken},
			status: 401, code: CodeUnauthorized},
		{name: "api", method: "GET", target: "/api/inbox", header: bearer, status: 200},
		{name: "bearer in any case", method: "GET", target: "/api/inbox", header: map[string]string{"Authorization": "bearer " + testToken}, status: 200},
		{name: "mcp", method: "POST", target: "/mcp/", header: bearer, status: 200},
		{name: "page without token", method: "GET", target: "/mail/", status: 401},
		{name: "page with bearer", method: "GET", target: "/mail/", header: bearer, status: 200},
		{name: "static", method: "GET", target: "/static/style.css", status: 200},
	}
	serve(t, Options{Addr: "0.0.0.0:8765", Token: testToken}, cases)
	serve(t, Options{Addr: "127.0.0.1:8765", Token: testToken, RequireToken: true}, cases)
	serve(t, Options{Addr: "127.0.0.1:8765", Token: testToken}, []request{
		{name: "loopback needs no token unless required", method: "GET", target: "/api/inbox", status: 200},
	})
}

func TestGuardLogIn(t *testing.T) {
	session := mac([]byte(testToken), "agentmail session")
	cookie := map[string]string{"Cookie": SessionCookie + "=" + session}
	serve(t, Options{Addr: "0.0.0.0:8765", Token: testToken}, []request{
		{name: "log in", method: "GET", target: "/mail/p-12345678?token=" + testToken + "&x=1", status: 303,
			headers: map[string]string{"Location": "/mail/p-12345678?x=1", "Set-Cookie": SessionCookie + "=" + session}},
		{name: "log in stays on this host", method: "GET", target: "//evil.example/x?token=" + testToken, status: 303,
			headers: map[string]string{"Location": "/evil.example/x"}},
		{name: "wrong token in the link", method: "GET", target: "/mail/?token=nope", status: 401},
		{name: "token in an api link", method: "GET", target: "/api/inbox?token=" + testToken, status: 401, code: CodeUnauthorized},
		{name: "page with the cookie", method: "GET", target: "/mail/", header: cookie, status: 200},
		{name: "event stream with the cookie", method: "GET", target: "/api/events", header: cookie, status: 200},
		{name: "api write with the cookie alone", method: "POST", target: "/api/send", header: cookie, status: 401, code: CodeUnauthorized},
		{name: "forged cookie", method: "GET", target: "/mail/", header: map[string]string{"Cookie": SessionCookie + "=" + mac([]byte("other"), "agentmail session")},
			status: 401},
	})
}

func TestGuardCSRF(t *testing.T) {
	g, err := NewGuard(Options{Addr: "127.0.0.1:8765"})
	if err != nil {
		t.Fatal(err)
	}
	// A page hands out the form's token, and the browser its id.
	w := httptest.NewRecorder()
	token := g.CSRFToken(w, httptest.NewRequest("GET", "/mail/p/compose", nil))
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != CSRFCookie || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("CSRFToken set cookies %v, want one HttpOnly SameSite=Strict %s", cookies, CSRFCookie)
	}
	id := CSRFCookie + "=" + cookies[0].Value
	other := CSRFCookie + "=" + strings.Repeat("A", 43)

	// The same browser asking again gets the same token, and no new cookie.
	r := httptest.NewRequest("GET", "/mail/p/compose", nil)
	r.Header.Set("Cookie", id)
	w = httptest.NewRecorder()
	if again := g.CSRFToken(w, r); again != token || len(w.Result().Cookies()) != 0 {
		t.Errorf("CSRFToken for the same browser = %q and cookies %v, want %q and none", again, w.Result().Cookies(), token)
	}

	form := func(csrf string) url.Values {
		v := url.Values{"to": {"all"}, "subject": {"hi"}}
		if csrf != "" {
			v.Set(CSRFField, csrf)
		}
		return v
	}
	serve2 := func(reqs []request) {
		t.Helper()
		h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
		for _, rq := range reqs {
			r := httptest.NewRequest(rq.method, rq.target, strings.NewReader(rq.form.Encode()))
			r.Host = "127.0.0.1:8765"
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range rq.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			checkResponse(t, rq, w)
		}
	}
	serve2([]request{
		{name: "form with its token", method: "POST", target: "/mail/p/compose", form: form(token), header: map[string]string{"Cookie": id}, status: 200},
		{name: "form without a token", method: "POST", target: "/mail/p/compose", form: form(""), header: map[string]string{"Cookie": id}, status: 403},
		{name: "form without the cookie", method: "POST", target: "/mail/p/compose", form: form(token), status: 403},
		{name: "another browser's token", method: "POST", target: "/mail/p/compose", form: form(token), header: map[string]string{"Cookie": other}, status: 403},
		{name: "wrong token", method: "POST", target: "/mail/p/compose", form: form(token[1:] + "A"), header: map[string]string{"Cookie": id}, status: 403},
		{name: "token in the query only", method: "POST", target: "/mail/p/compose?" + CSRFField + "=" + token, form: form(""),
			header: map[string]string{"Cookie": id}, status: 403},
		{name: "api posts need no form token", method: "POST", target: "/api/send", form: form(""), status: 200},
	})

	// Another process's guard (a restarted server) does not take the token.
	g2, _ := NewGuard(Options{Addr: "127.0.0.1:8765"})
	r = httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Cookie", id)
	if g2.CSRFToken(httptest.NewRecorder(), r) == token {
		t.Error("two guards sign CSRF tokens alike: the secret is not per process")
	}
}

func TestGuardCrossOrigin(t *testing.T) {
	serve(t, Options{Addr: "127.0.0.1:8765"}, []request{
		{name: "cross-site fetch", method: "POST", target: "/api/send", header: map[string]string{"Sec-Fetch-Site": "cross-site"},
			status: 403, code: CodeForbidden},
		{name: "foreign origin", method: "POST", target: "/api/send", header: map[string]string{"Origin": "http://evil.example"},
			status: 403, code: CodeForbidden},
		{name: "same origin", method: "POST", target: "/api/send", header: map[string]string{"Origin": "http://127.0.0.1:8765"}, status: 200},
		{name: "no browser", method: "POST", target: "/api/send", status: 200},
		{name: "cross-site read", method: "GET", target: "/api/inbox", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 200},
	})
}

func TestGuardHeaders(t *testing.T) {
	want := map[string]string{
		"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	}
	serve(t, Options{Addr: "127.0.0.1:8765", Token: testToken, RequireToken: true}, []request{
		{name: "served", method: "GET", target: "/static/style.css", status: 200, headers: want},
		{name: "refused", method: "GET", target: "/api/inbox", status: 401, headers: want},
		{name: "forged host", method: "GET", target: "/api/inbox", header: map[string]string{"Host": "evil.example:8765"}, status: 403, headers: want},
	})
}

func TestGuardErrorPage(t *testing.T) {
	g, err := NewGuard(Options{Addr: "127.0.0.1:8765"})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	g.ErrorPage = func(w http.ResponseWriter, _ *http.Request, status int, code, message, hint string) {
		got = code + ": " + message + " (" + hint + ")"
		w.WriteHeader(status)
	}
	h := g.Handler(http.NotFoundHandler())
	r := httptest.NewRequest("POST", "/mail/p/compose", nil)
	r.Host = "127.0.0.1:8765"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 403 || !strings.HasPrefix(got, CodeForbidden+": the form has no valid CSRF token (") {
		t.Errorf("a refused form post = %d, error page %q", w.Code, got)
	}
}

func TestTokenURL(t *testing.T) {
	if got := TokenURL("http://127.0.0.1:8765/mail/", "a b+c"); got != "http://127.0.0.1:8765/mail/?token=a+b%2Bc" {
		t.Errorf("TokenURL = %q", got)
	}
	if got := TokenURL("http://127.0.0.1:8765/mail/", ""); got != "http://127.0.0.1:8765/mail/" {
		t.Errorf("TokenURL without a token = %q", got)
	}
}
