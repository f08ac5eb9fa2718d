package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// projectKey is the seeded project's key: no repository needed.
const projectKey = "github.com/acme/shop"

// harness is a real server on a loopback port, serving a real store in a
// temporary directory, and a service of the same store to seed it and to
// look at it afterwards, as another process would.
type harness struct {
	t     *testing.T
	srv   *Server
	base  string // http://127.0.0.1:PORT
	slug  string
	store string
	svc   *service.Service
}

// startServer starts a server on 127.0.0.1 with cfg's token settings on a
// fresh store.
func startServer(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, store: filepath.Join(t.TempDir(), "store")}
	h.svc = service.New(service.Config{Dir: h.store})
	t.Cleanup(func() { h.svc.Close() })
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	cfg.Store.Dir = h.store
	cfg.Project = service.ProjectRef{Key: projectKey}
	srv, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv, h.base = srv, "http://"+srv.Addr()
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return h
}

// scope is the seeded project, acting as agent.
func (h *harness) scope(agent string) service.Scope {
	return service.Scope{Project: service.ProjectRef{Key: projectKey}, Agent: agent}
}

// mail is a message to seed: from an agent.
type mail struct {
	from string
	req  service.SendRequest
}

// seed registers agents and sends the messages, returning their ids.
func (h *harness) seed(agents []string, msgs ...mail) []string {
	h.t.Helper()
	ctx := context.Background()
	for _, n := range agents {
		if _, err := h.svc.Register(ctx, h.scope(""), service.RegisterRequest{Name: &n}); err != nil {
			h.t.Fatalf("register %s: %v", n, err)
		}
	}
	var ids []string
	for _, m := range msgs {
		resp, err := h.svc.Send(ctx, h.scope(m.from), m.req)
		if err != nil {
			h.t.Fatalf("send %+v: %v", m, err)
		}
		ids = append(ids, resp.Message.ID)
	}
	list, err := h.svc.Projects(ctx, true)
	if err != nil || len(list.Projects) != 1 {
		h.t.Fatalf("projects: %+v, %v", list, err)
	}
	h.slug = list.Projects[0].Slug
	return ids
}

// response is an answer of the server.
type response struct {
	status int
	header http.Header
	body   []byte
}

// doc decodes the body as a JSON object.
func (r response) doc(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not a JSON document (%d): %s", r.status, r.body)
	}
	return m
}

// code is the error document's code, "" when there is none.
func (r response) code(t *testing.T) string {
	e, _ := r.doc(t)["error"].(map[string]any)
	if e == nil {
		return ""
	}
	if h, _ := e["hint"].(string); h == "" {
		t.Errorf("error without a hint: %s", r.body)
	}
	c, _ := e["code"].(string)
	return c
}

// do sends a request; body, when not nil, is sent as JSON (or as is, for
// a string). Header pairs follow.
func (h *harness) do(method, path string, body any, header ...string) response {
	h.t.Helper()
	req, err := newRequest(method, h.base+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

// newRequest returns a request; body, when not nil, is sent as JSON (or
// as is, for a string).
func newRequest(method, url string, body any) (*http.Request, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(j)
	}
	return http.NewRequest(method, url, rd)
}

// get returns the body of a page that must answer 200.
func get(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, b)
	}
	return string(b)
}
