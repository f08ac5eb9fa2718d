package server

import (
	"net/url"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
)

// TestAPI calls every route of the JSON API on a seeded store, in order
// (the writes build on each other), checking the status, the document's
// keys and, for errors, the code.
func TestAPI(t *testing.T) {
	h := startServer(t, Config{})
	gittest.Env(t)
	repo, plain := t.TempDir(), t.TempDir()
	gittest.Run(t, repo, "init", "-q")
	ids := h.seed([]string{"GreenCastle", "BlueLake", "RedFox"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "Routes are in **src/api**.", Ack: true}},
		mail{"RedFox", service.SendRequest{To: []string{"BlueLake"}, Subject: "Schema 12", Body: "migrations done", Importance: "urgent"}},
	)
	p := "/api/projects/" + h.slug
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		code               string // the error's code
		check              func(t *testing.T, doc map[string]any)
	}{
		{"projects", "GET", "/api/projects", nil, 200, "", func(t *testing.T, d map[string]any) {
			ps := list(t, d, "projects")
			if len(ps) != 1 || ps[0].(map[string]any)["key"] != projectKey {
				t.Errorf("projects: %v", ps)
			}
		}},
		{"agents", "GET", p + "/agents", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "agents", 3) }},
		{"agents with their mail", "GET", p + "/agents?mail=true", nil, 200, "", func(t *testing.T, d map[string]any) {
			mail, _ := d["mail"].(map[string]any)
			for _, a := range list(t, d, "agents") {
				name := a.(map[string]any)["name"].(string)
				m, ok := mail[name].(map[string]any)
				if !ok || m["unread"] == nil || m["urgent"] == nil || m["awaiting_ack"] == nil || m["acks_owed"] == nil {
					t.Errorf("agent %s has no mail counts in %v", name, mail)
					continue
				}
				if name == "BlueLake" && m["unread"].(float64) == 0 {
					t.Errorf("BlueLake's mail counts %v: nothing unread", m)
				}
			}
		}},
		{"agents with mail=maybe", "GET", p + "/agents?mail=maybe", nil, 400, "INVALID_ARGUMENT", nil},
		{"agents of no project", "GET", "/api/projects/nothing-00000000/agents", nil, 404, "NOT_FOUND", nil},
		{"inbox", "GET", p + "/agents/BlueLake/inbox", nil, 200, "", func(t *testing.T, d map[string]any) {
			ms := wantLen(t, d, "messages", 2)
			if ms[0].(map[string]any)["id"] != ids[1] || ms[0].(map[string]any)["body"] != nil {
				t.Errorf("inbox: newest first, no bodies: %v", ms[0])
			}
		}},
		{"inbox with bodies, one page", "GET", p + "/agents/BlueLake/inbox?bodies=true&limit=1", nil, 200, "", func(t *testing.T, d map[string]any) {
			if m := wantLen(t, d, "messages", 1)[0].(map[string]any); m["body"] != "migrations done" {
				t.Errorf("body: %v", m)
			}
		}},
		{"inbox before the newest", "GET", p + "/agents/BlueLake/inbox?before=" + ids[1], nil, 200, "", func(t *testing.T, d map[string]any) {
			if m := wantLen(t, d, "messages", 1)[0].(map[string]any); m["id"] != ids[0] {
				t.Errorf("older page: %v", m)
			}
		}},
		{"inbox urgent", "GET", p + "/agents/BlueLake/inbox?urgent=true", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "messages", 1) }},
		{"inbox bad flag", "GET", p + "/agents/BlueLake/inbox?unread=perhaps", nil, 400, "INVALID_ARGUMENT", nil},
		{"inbox bad limit", "GET", p + "/agents/BlueLake/inbox?limit=-1", nil, 400, "INVALID_ARGUMENT", nil},
		{"inbox of nobody", "GET", p + "/agents/NoSuchAgent/inbox", nil, 403, "NOT_REGISTERED", nil},
		{"timeline", "GET", p + "/timeline", nil, 200, "", func(t *testing.T, d map[string]any) {
			ms := wantLen(t, d, "messages", 2)
			if ms[0].(map[string]any)["id"] != ids[1] || d["next"] != "" {
				t.Errorf("timeline: newest first, no next page: %v next %v", ms[0], d["next"])
			}
		}},
		{"timeline one page", "GET", p + "/timeline?limit=1", nil, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "messages", 1)
			if d["next"] != ids[1] {
				t.Errorf("next %v, want %s", d["next"], ids[1])
			}
		}},
		{"timeline the next page", "GET", p + "/timeline?limit=1&before=" + ids[1], nil, 200, "", func(t *testing.T, d map[string]any) {
			if m := wantLen(t, d, "messages", 1)[0].(map[string]any); m["id"] != ids[0] || d["next"] != "" {
				t.Errorf("second page: %v next %v", m, d["next"])
			}
		}},
		{"timeline filtered", "GET", p + "/timeline?agent=RedFox&importance=urgent&awaiting_ack=false", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "messages", 1) }},
		{"timeline awaiting ack", "GET", p + "/timeline?awaiting_ack=true", nil, 200, "", func(t *testing.T, d map[string]any) {
			if m := wantLen(t, d, "messages", 1)[0].(map[string]any); m["id"] != ids[0] {
				t.Errorf("awaiting ack: %v", m)
			}
		}},
		{"timeline of messages and posts", "GET", p + "/timeline?kinds=message,post", nil, 200, "", func(t *testing.T, d map[string]any) {
			if items, ms := d["items"].([]any), d["messages"].([]any); len(items) == 0 || len(items) != len(ms) {
				t.Errorf("timeline of messages: %d items, %d messages", len(items), len(ms))
			}
		}},
		{"threads", "GET", p + "/threads?limit=1", nil, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "threads", 1)
			if th := d["threads"].([]any)[0].(map[string]any); th["messages"] == nil || len(th["participants"].([]any)) == 0 {
				t.Errorf("a thread of the list: %v", th)
			}
		}},
		{"threads bad limit", "GET", p + "/threads?limit=1000", nil, 400, "USAGE", nil},
		{"timeline of no task", "GET", p + "/timeline?task=01ZZZZZZZZZZZZZZZZZZZZZZZZ", nil, 404, "NOT_FOUND", nil},
		{"timeline bad kind", "GET", p + "/timeline?kinds=message,gossip", nil, 400, "USAGE", nil},
		{"timeline bad flag", "GET", p + "/timeline?unread=perhaps", nil, 400, "INVALID_ARGUMENT", nil},
		{"timeline bad limit", "GET", p + "/timeline?limit=many", nil, 400, "INVALID_ARGUMENT", nil},
		{"timeline limit too large", "GET", p + "/timeline?limit=100000", nil, 400, "USAGE", nil},
		{"timeline bad importance", "GET", p + "/timeline?importance=critical", nil, 400, "INVALID_ARGUMENT", nil},
		{"timeline of no agent", "GET", p + "/timeline?agent=Nobody", nil, 404, "NOT_FOUND", nil},
		{"outbox", "GET", p + "/agents/GreenCastle/outbox", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "messages", 1) }},
		{"message", "GET", p + "/messages/" + ids[0], nil, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["body"] != "Routes are in **src/api**." {
				t.Errorf("message: %v", m)
			}
		}},
		{"message by prefix as an agent", "GET", p + "/messages/" + ids[0][:10] + "?agent=BlueLake", nil, 200, "", nil},
		{"no message", "GET", p + "/messages/01AAAAAAAAAAAAAAAAAAAAAAAA", nil, 404, "NOT_FOUND", nil},
		{"thread", "GET", p + "/threads/" + ids[0], nil, 200, "", func(t *testing.T, d map[string]any) {
			if d["thread"] != ids[0] {
				t.Errorf("thread: %v", d["thread"])
			}
			wantLen(t, d, "messages", 1)
		}},
		{"no thread", "GET", p + "/threads/nothing-here", nil, 404, "NOT_FOUND", nil},
		{"search", "GET", p + "/search?q=" + url.QueryEscape("migrations"), nil, 200, "", func(t *testing.T, d map[string]any) {
			r := wantLen(t, d, "results", 1)[0].(map[string]any)
			if r["id"] != ids[1] || !strings.Contains(r["snippet"].(string), "[migrations]") {
				t.Errorf("result: %v", r)
			}
		}},
		{"search as an agent", "GET", p + "/search?q=migrations&agent=GreenCastle", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "results", 0) }},
		{"send", "POST", p + "/messages", map[string]any{"agent": "BlueLake", "to": []string{"GreenCastle"}, "subject": "Thanks", "body": "wiring it"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["from"] != "BlueLake" {
				t.Errorf("sent: %v", m)
			}
		}},
		{"send as Human", "POST", p + "/messages", map[string]any{"to": []string{"all"}, "subject": "Standup", "body": "status?"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["from"] != "Human" || len(m["to"].([]any)) != 3 {
				t.Errorf("sent as Human: %v", m)
			}
		}},
		{"send to nobody known", "POST", p + "/messages", map[string]any{"agent": "BlueLake", "to": []string{"NoOne"}, "subject": "x", "body": "x"}, 400, "UNKNOWN_RECIPIENT", nil},
		{"send with an unknown field", "POST", p + "/messages", map[string]any{"agent": "BlueLake", "sender": "x"}, 400, "INVALID_ARGUMENT", nil},
		{"send no body", "POST", p + "/messages", "", 400, "INVALID_ARGUMENT", nil},
		{"send bad JSON", "POST", p + "/messages", "{", 400, "INVALID_ARGUMENT", nil},
		{"reply", "POST", p + "/messages/" + ids[0] + "/reply", map[string]any{"agent": "BlueLake", "body": "on it"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["thread"] != ids[0] || m["subject"] != "Re: Auth API ready" {
				t.Errorf("reply: %v", m)
			}
		}},
		{"reply without an agent is Human's", "POST", p + "/messages/" + ids[0] + "/reply", map[string]any{"body": "x"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["from"] != "Human" || m["thread"] != ids[0] {
				t.Errorf("reply as Human: %v", m)
			}
		}},
		{"send to Human", "POST", p + "/messages", map[string]any{"agent": "BlueLake", "to": []string{"human"}, "subject": "Done", "body": "x"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); len(m["to"].([]any)) != 1 || m["to"].([]any)[0] != "Human" {
				t.Errorf("sent to Human: %v", m)
			}
		}},
		{"health", "GET", "/api/health", nil, 200, "", func(t *testing.T, d map[string]any) {
			if d["status"] != "ok" || d["projects"] != 1.0 || d["agents"] != 3.0 || d["store"] == "" || d["read_only"] != false {
				t.Errorf("health: %v", d)
			}
		}},
		{"health at /health", "GET", "/health", nil, 200, "", func(t *testing.T, d map[string]any) {
			if d["status"] != "ok" {
				t.Errorf("health: %v", d)
			}
		}},
		{"read", "POST", p + "/messages/" + ids[1] + "/read", map[string]any{"agent": "BlueLake"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["read_at"] == nil || m["acked_at"] != nil {
				t.Errorf("read: %v", m)
			}
		}},
		{"awaiting acks", "GET", p + "/acks", nil, 200, "", func(t *testing.T, d map[string]any) {
			m := wantLen(t, d, "messages", 1)[0].(map[string]any)
			if m["id"] != ids[0] || len(m["waiting_for"].([]any)) != 1 {
				t.Errorf("awaiting: %v", m)
			}
		}},
		{"pending acks of an agent", "GET", p + "/acks?agent=BlueLake", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "messages", 1) }},
		{"ack", "POST", p + "/messages/" + ids[0] + "/ack", map[string]any{"agent": "BlueLake"}, 200, "", func(t *testing.T, d map[string]any) {
			if m := d["message"].(map[string]any); m["acked_at"] == nil {
				t.Errorf("ack: %v", m)
			}
		}},
		{"no acks awaited", "GET", p + "/acks", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "messages", 0) }},
		{"ack no message", "POST", p + "/messages/01AAAAAAAAAAAAAAAAAAAAAAAA/ack", map[string]any{"agent": "BlueLake"}, 404, "NOT_FOUND", nil},
		{"reserve", "POST", p + "/reservations", map[string]any{"agent": "GreenCastle", "patterns": []string{"src/api/**"}, "reason": "auth"}, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "granted", 1)
		}},
		{"reserve a conflict", "POST", p + "/reservations", map[string]any{"agent": "BlueLake", "patterns": []string{"src/api/x.go"}}, 409, "RESERVATION_CONFLICT", func(t *testing.T, d map[string]any) {
			c := wantLen(t, d, "conflicts", 1)[0].(map[string]any)
			if c["holder"] != "GreenCastle" {
				t.Errorf("conflict: %v", c)
			}
			// The error document carries the holder as data, and the hint
			// speaks the API's fields, not the command line's flags.
			e := d["error"].(map[string]any)
			if v, _ := e["values"].(map[string]any); v["holder"] != "GreenCastle" || v["holder_pattern"] != "src/api/**" ||
				!strings.Contains(e["hint"].(string), `"allow_conflicts"`) || strings.Contains(e["hint"].(string), "--") {
				t.Errorf("conflict's error: %v", e)
			}
		}},
		{"reserve a bad ttl", "POST", p + "/reservations", map[string]any{"agent": "BlueLake", "patterns": []string{"docs/"}, "ttl": "soon"}, 400, "INVALID_ARGUMENT", nil},
		{"reserve a bad pattern", "POST", p + "/reservations", map[string]any{"agent": "BlueLake", "patterns": []string{"src/[a"}}, 400, "INVALID_ARGUMENT", nil},
		{"reservations", "GET", p + "/reservations", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "reservations", 1) }},
		{"reservations of an agent", "GET", p + "/reservations?agent=BlueLake", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "reservations", 0) }},
		{"renew", "POST", p + "/reservations/renew", map[string]any{"agent": "GreenCastle", "extend": "2h"}, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "renewed", 1) }},
		{"release", "POST", p + "/reservations/release", map[string]any{"agent": "GreenCastle", "all": true}, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "released", 1) }},
		{"reservations, expired too", "GET", p + "/reservations?expired=true", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "reservations", 1) }},
		{"reserve a broad pattern", "POST", p + "/reservations", map[string]any{"agent": "BlueLake", "patterns": []string{"**"}, "shared": true}, 200, "", func(t *testing.T, d map[string]any) {
			if w := wantLen(t, d, "warnings", 1); !strings.Contains(w[0].(string), "covers nearly the whole repository") {
				t.Errorf("warnings: %v", w)
			}
		}},
		{"release the broad pattern", "POST", p + "/reservations/release", map[string]any{"agent": "BlueLake", "all": true}, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "released", 1) }},
		{"claim a port", "POST", p + "/ports/claim", map[string]any{"agent": "GreenCastle", "name": "shop:api", "ttl": "10m"}, 200, "", func(t *testing.T, d map[string]any) {
			if l := d["port"].(map[string]any); l["holder"] != "GreenCastle" || l["here"] != true || l["port"].(float64) < 20000 {
				t.Errorf("port: %v", l)
			}
		}},
		{"a port held", "POST", p + "/ports/claim", map[string]any{"agent": "BlueLake", "name": "shop:api"}, 409, "PORT_HELD", func(t *testing.T, d map[string]any) {
			if l := d["port"].(map[string]any); l["holder"] != "GreenCastle" {
				t.Errorf("port: %v", l)
			}
		}},
		{"a bad port name", "POST", p + "/ports/claim", map[string]any{"agent": "BlueLake", "name": "a b"}, 400, "INVALID_ARGUMENT", nil},
		{"ports", "GET", p + "/ports", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "ports", 1) }},
		{"get a port", "GET", p + "/ports/shop:api", nil, 200, "", func(t *testing.T, d map[string]any) {
			if l := d["port"].(map[string]any); l["name"] != "shop:api" {
				t.Errorf("port: %v", l)
			}
		}},
		{"release a port not held", "POST", p + "/ports/release", map[string]any{"agent": "BlueLake", "name": "shop:api"}, 404, "NOT_FOUND", nil},
		{"release a port", "POST", p + "/ports/release", map[string]any{"agent": "GreenCastle", "name": "shop:api"}, 200, "", nil},
		{"get a released port", "GET", p + "/ports/shop:api", nil, 404, "NOT_FOUND", nil},
		{"lock", "POST", p + "/locks/acquire", map[string]any{"agent": "GreenCastle", "key": "deploy/staging", "ttl": "10m"}, 200, "", func(t *testing.T, d map[string]any) {
			if l := d["lock"].(map[string]any); l["holder"] != "GreenCastle" {
				t.Errorf("lock: %v", l)
			}
		}},
		{"lock held", "POST", p + "/locks/acquire", map[string]any{"agent": "BlueLake", "key": "deploy/staging"}, 409, "LOCK_HELD", func(t *testing.T, d map[string]any) {
			if l := d["lock"].(map[string]any); l["holder"] != "GreenCastle" {
				t.Errorf("holder: %v", l)
			}
		}},
		{"renew lock", "POST", p + "/locks/renew", map[string]any{"agent": "GreenCastle", "key": "deploy/staging"}, 200, "", nil},
		{"locks", "GET", p + "/locks?prefix=deploy/", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "locks", 1) }},
		{"release lock not held", "POST", p + "/locks/release", map[string]any{"agent": "BlueLake", "key": "deploy/staging"}, 0, "", nil},
		{"release lock", "POST", p + "/locks/release", map[string]any{"agent": "GreenCastle", "key": "deploy/staging"}, 200, "", func(t *testing.T, d map[string]any) {
			if l := d["lock"].(map[string]any); l["released"] == nil {
				t.Errorf("released: %v", l)
			}
		}},
		{"contact request", "POST", p + "/contacts/request", map[string]any{"agent": "RedFox", "to": "GreenCastle", "reason": "schema"}, 200, "", func(t *testing.T, d map[string]any) {
			if c := d["contact"].(map[string]any); c["state"] != "requested" {
				t.Errorf("contact: %v", c)
			}
		}},
		{"contact respond", "POST", p + "/contacts/respond", map[string]any{"agent": "GreenCastle", "from": "RedFox", "approve": true}, 200, "", func(t *testing.T, d map[string]any) {
			if c := d["contact"].(map[string]any); c["state"] != "approved" {
				t.Errorf("contact: %v", c)
			}
		}},
		{"contact respond to no request", "POST", p + "/contacts/respond", map[string]any{"agent": "GreenCastle", "from": "BlueLake", "approve": true}, 404, "NOT_FOUND", nil},
		{"contacts", "GET", p + "/contacts", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "contacts", 1) }},
		{"contacts of an agent", "GET", p + "/contacts?agent=BlueLake", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "contacts", 0) }},
		{"guard status", "GET", "/api/guard/status?repo=" + url.QueryEscape(repo), nil, 200, "", func(t *testing.T, d map[string]any) {
			for _, hk := range list(t, d, "hooks") {
				if hk.(map[string]any)["state"] != "missing" {
					t.Errorf("hook: %v", hk)
				}
			}
		}},
		{"guard status of no repository", "GET", "/api/guard/status?repo=" + url.QueryEscape(plain), nil, 400, "NO_PROJECT", nil},
		{"guard status relative", "GET", "/api/guard/status?repo=src", nil, 400, "INVALID_ARGUMENT", nil},
		{"no route", "GET", "/api/nothing", nil, 404, "NOT_FOUND", nil},
		{"wrong method", "DELETE", p + "/messages", nil, 404, "NOT_FOUND", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, c.body)
			if c.status == 0 { // only an error with a hint
				if r.status < 400 || r.code(t) == "" {
					t.Fatalf("%s %s: %d %s, want an error", c.method, c.path, r.status, r.body)
				}
				return
			}
			if r.status != c.status {
				t.Fatalf("%s %s: status %d, want %d: %s", c.method, c.path, r.status, c.status, r.body)
			}
			if got := r.code(t); got != c.code {
				t.Fatalf("%s %s: code %q, want %q: %s", c.method, c.path, got, c.code, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if c.check != nil {
				c.check(t, r.doc(t))
			} else if d := r.doc(t); c.code != "" && len(d) != 1 {
				t.Errorf("the error document has more than the error: %s", r.body)
			}
		})
	}
}

// list returns the list under key.
func list(t *testing.T, d map[string]any, key string) []any {
	t.Helper()
	l, ok := d[key].([]any)
	if !ok {
		t.Fatalf("no list %q in %v", key, d)
	}
	return l
}

// wantLen returns the list under key, failing unless it has n items.
func wantLen(t *testing.T, d map[string]any, key string, n int) []any {
	t.Helper()
	l := list(t, d, key)
	if len(l) != n {
		t.Fatalf("%s: %d items, want %d: %v", key, len(l), n, l)
	}
	return l
}
