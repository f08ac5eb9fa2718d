package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// ContentSecurityPolicy is sent with every response: scripts, styles,
// images and connections from the server itself only (nothing inline, no
// eval), no frames, forms posted to the server only.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// MinTokenLength is the shortest token the server accepts: a token guards
// every message of the store.
const MinTokenLength = 16

// Cookie and form field names.
const (
	// SessionCookie holds proof that a browser was given the token (through
	// ?token=T), so that pages and the event stream work off loopback.
	SessionCookie = "agentmail_session"
	// CSRFCookie holds a browser's random CSRF id.
	CSRFCookie = "agentmail_csrf"
	// CSRFField is the hidden form field that carries the CSRF token.
	CSRFField = "csrf"
	// TokenParam is the query parameter that logs a browser in.
	TokenParam = "token"
)

// maxFormBytes bounds a form post (a message body is at most this long
// through the web form).
const maxFormBytes = 4 << 20

var (
	// ErrTokenRequired is returned when the server would be reachable
	// without a token: listening beyond loopback, or asked to require one.
	ErrTokenRequired = errors.New("a token is required")
	// ErrWeakToken is returned for a token shorter than MinTokenLength.
	ErrWeakToken = errors.New("the token is too short")
)

// Error codes of the responses the guard refuses.
const (
	CodeUnauthorized = "UNAUTHORIZED"
	CodeForbidden    = "FORBIDDEN"
)

// IsLoopback reports whether host, a host name or IP address without a
// port, reaches this machine's loopback interface only: localhost,
// 127.0.0.0/8 or ::1. An empty host (every interface) is not loopback.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// CheckListen returns an error unless the server may listen on addr
// (host:port) with token: beyond loopback a token is required, and a token
// given must be at least MinTokenLength long. The serve command calls it
// before it listens.
func CheckListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fault.WithHint(fmt.Errorf("listen address %q: %w", addr, err),
			"give a host and port, such as 127.0.0.1:8765")
	}
	if token != "" && len(token) < MinTokenLength {
		return fault.WithHint(fmt.Errorf("%w: %d characters, at least %d needed", ErrWeakToken, len(token), MinTokenLength),
			"make one with: openssl rand -hex 32 > token && chmod 600 token")
	}
	if token == "" && !IsLoopback(host) {
		return fault.WithHint(fmt.Errorf("%w to listen on %s, which is not loopback", ErrTokenRequired, addr),
			"pass --token-file FILE or set AGENTMAIL_TOKEN, or listen on 127.0.0.1")
	}
	return nil
}

// Options say how the server is reached and who may use it.
type Options struct {
	// Addr is the address the server listens on, host:port, with the port
	// the listener was given (not 0).
	Addr string
	// Token, when set, is the bearer token of the API and MCP routes, and
	// logs browsers in (a link with ?token=T).
	Token string
	// RequireToken requires the token on loopback too; it is always
	// required beyond loopback.
	RequireToken bool
}

// Guard is the server's outer handler: it sets the security headers of
// every response and refuses, before any route sees them, requests with a
// forged Host (on loopback), without the token where one is needed, from
// another origin, or form posts without the CSRF token.
type Guard struct {
	token    string
	session  string // the session cookie's value: an HMAC of the token
	needAuth bool
	hosts    map[string]bool // allowed Host headers; nil beyond loopback
	secret   []byte          // signs CSRF tokens; new in every process
	origin   *http.CrossOriginProtection

	// ErrorPage, when set, writes the refusals of page routes (the API and
	// MCP routes always get a JSON error document). The default is a line
	// of text.
	ErrorPage func(w http.ResponseWriter, r *http.Request, status int, code, message, hint string)
}

// NewGuard returns the guard of a server listening as o says.
func NewGuard(o Options) (*Guard, error) {
	if err := CheckListen(o.Addr, o.Token); err != nil {
		return nil, err
	}
	if o.RequireToken && o.Token == "" {
		return nil, fault.WithHint(fmt.Errorf("%w: --require-token without a token", ErrTokenRequired),
			"pass --token-file FILE or set AGENTMAIL_TOKEN")
	}
	host, port, _ := net.SplitHostPort(o.Addr)
	g := &Guard{
		token:    o.Token,
		needAuth: o.RequireToken || !IsLoopback(host),
		secret:   make([]byte, 32),
		origin:   http.NewCrossOriginProtection(),
	}
	if _, err := rand.Read(g.secret); err != nil {
		return nil, fmt.Errorf("csrf secret: %w", err)
	}
	if o.Token != "" {
		g.session = mac([]byte(o.Token), "agentmail session")
	}
	if IsLoopback(host) {
		g.hosts = loopbackHosts(host, port)
	}
	return g, nil
}

// loopbackHosts returns the Host headers a browser sends to a server bound
// to host:port on loopback. A DNS-rebinding page sends its own name.
func loopbackHosts(host, port string) map[string]bool {
	hosts := map[string]bool{}
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]", strings.ToLower(host)} {
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			h = "[" + h + "]"
		}
		hosts[h+":"+port] = true
		if port == "80" {
			hosts[h] = true
		}
	}
	return hosts
}

// mac returns the HMAC-SHA256 of msg under key, base64url-encoded.
func mac(key []byte, msg string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// equal compares two secrets in constant time, whatever their lengths.
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// IsMachineRoute reports whether path belongs to the JSON API, the MCP
// endpoint or /health, whose errors are JSON documents and whose callers
// send the token as a bearer token.
func IsMachineRoute(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/mcp" || strings.HasPrefix(path, "/mcp/") || path == "/health"
}

// isPublic reports whether path is served to anyone who reaches the
// server: the embedded stylesheet, script and icon hold no data.
func isPublic(path string) bool { return strings.HasPrefix(path, StaticPrefix) }

// Handler returns next behind the guard.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if g.hosts != nil && !g.hosts[strings.ToLower(r.Host)] {
			g.refuse(w, r, http.StatusForbidden, fmt.Sprintf("Host %q is not this server's loopback address", r.Host),
				"open the server as http://localhost:PORT or http://127.0.0.1:PORT")
			return
		}
		if err := g.origin.Check(r); err != nil {
			g.refuse(w, r, http.StatusForbidden, "a cross-origin "+r.Method+" request is refused",
				"send it from the server's own pages, or from a program that sends no Origin header")
			return
		}
		if !isPublic(r.URL.Path) && !g.authorized(w, r) {
			return
		}
		if !IsMachineRoute(r.URL.Path) && !isSafeMethod(r.Method) && !g.checkCSRF(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// setSecurityHeaders sets the headers of every response. Cache-Control
// keeps mail out of the browser's disk cache; a handler of embedded assets
// may set its own.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// authorized reports whether r may go on, having answered it otherwise.
// Where the token is needed, a request proves it has it by a bearer token,
// or (pages, and reads of the API such as the event stream, which a
// browser's EventSource cannot send headers with) by the session cookie; a
// page request with ?token=T is given the cookie and sent on without it.
func (g *Guard) authorized(w http.ResponseWriter, r *http.Request) bool {
	if !g.needAuth {
		return true
	}
	if bearer, ok := bearerToken(r); ok {
		if equal(bearer, g.token) {
			return true
		}
		g.refuse(w, r, http.StatusUnauthorized, "the bearer token is wrong", "send the token the server was started with")
		return false
	}
	if c, err := r.Cookie(SessionCookie); err == nil && equal(c.Value, g.session) &&
		(isSafeMethod(r.Method) || !IsMachineRoute(r.URL.Path)) {
		return true
	}
	if t := r.URL.Query().Get(TokenParam); t != "" && !IsMachineRoute(r.URL.Path) && r.Method == http.MethodGet {
		if !equal(t, g.token) {
			g.refuse(w, r, http.StatusUnauthorized, "the token in the link is wrong", "open the link the server printed when it started")
			return false
		}
		g.logIn(w, r)
		return false
	}
	if IsMachineRoute(r.URL.Path) {
		g.refuse(w, r, http.StatusUnauthorized, "this request needs the server's token",
			"send the header Authorization: Bearer TOKEN")
	} else {
		g.refuse(w, r, http.StatusUnauthorized, "this page needs the server's token",
			"open the link the server printed when it started (it ends in ?token=...)")
	}
	return false
}

// bearerToken returns the token of an Authorization: Bearer header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// logIn gives the browser the session cookie and sends it to the same
// address without the token, so that the token stays out of its history.
func (g *Guard) logIn(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: g.session, Path: "/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	q := r.URL.Query()
	q.Del(TokenParam)
	// One leading slash: "//host/..." would send the browser to another host.
	target := "/" + strings.TrimLeft(r.URL.EscapedPath(), "/")
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// CSRFToken returns the token a form of this browser must carry in its
// CSRFField, giving the browser a CSRF id first if it has none. Call it
// before writing the response.
func (g *Guard) CSRFToken(w http.ResponseWriter, r *http.Request) string {
	id := csrfID(r)
	if id == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		id = base64.RawURLEncoding.EncodeToString(b)
		http.SetCookie(w, &http.Cookie{Name: CSRFCookie, Value: id, Path: "/",
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
		r.AddCookie(&http.Cookie{Name: CSRFCookie, Value: id})
	}
	return mac(g.secret, id)
}

// csrfID returns the browser's CSRF id, or "" when it has none.
func csrfID(r *http.Request) string {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || len(c.Value) < 32 {
		return ""
	}
	return c.Value
}

// checkCSRF reports whether a form post carries this browser's CSRF
// token, having refused it otherwise.
func (g *Guard) checkCSRF(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseMultipartForm(maxFormBytes); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		g.refuse(w, r, http.StatusBadRequest, "the form cannot be read: "+err.Error(),
			fmt.Sprintf("send at most %d MiB", maxFormBytes>>20))
		return false
	}
	id, sent := csrfID(r), r.PostFormValue(CSRFField)
	if id == "" || sent == "" || !equal(sent, mac(g.secret, id)) {
		g.refuse(w, r, http.StatusForbidden, "the form has no valid CSRF token",
			"reload the page and send the form again (forms expire when the server restarts)")
		return false
	}
	return true
}

// refuse answers r with an error: a JSON document on the API and MCP
// routes, the ErrorPage elsewhere.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, status int, message, hint string) {
	code := CodeForbidden
	if status == http.StatusUnauthorized {
		code = CodeUnauthorized
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentmail"`)
	} else if status == http.StatusBadRequest {
		code = CodeInvalidArgument
	}
	if IsMachineRoute(r.URL.Path) || g.ErrorPage == nil {
		if IsMachineRoute(r.URL.Path) {
			WriteJSONError(w, status, service.ErrorDoc{Code: code, Message: message, Hint: hint})
		} else {
			http.Error(w, message+" ("+hint+")", status)
		}
		return
	}
	g.ErrorPage(w, r, status, code, message, hint)
}

// TokenURL returns the address of the server's first page with the token
// that logs a browser in, for the startup message.
func TokenURL(base, token string) string {
	if token == "" {
		return base
	}
	return base + "?" + TokenParam + "=" + url.QueryEscape(token)
}
