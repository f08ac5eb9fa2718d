package server

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestAPITopicsAndAttachments: a send with a topic and attachments by
// content, the topic's routes, and the attachment served back byte for
// byte over the API and the message page's link, as safe downloads.
func TestAPITopicsAndAttachments(t *testing.T) {
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	p := "/api/projects/" + h.slug
	png := "\x89PNG\r\n\x1a\n\x00\x01\x02"
	r := h.do("POST", p+"/messages", map[string]any{"agent": "GreenCastle", "to": []string{"BlueLake"}, "subject": "shots", "body": "see",
		"topic": "UI", "attachments": []map[string]any{
			{"name": "a.png", "content_base64": base64.StdEncoding.EncodeToString([]byte(png))},
			{"name": "page.html", "content_base64": base64.StdEncoding.EncodeToString([]byte("<script>alert(1)</script>"))},
		}})
	if r.status != 200 {
		t.Fatalf("send: %d %s", r.status, r.body)
	}
	m := r.doc(t)["message"].(map[string]any)
	id := m["id"].(string)
	if m["topic"] != "ui" || len(m["attachments"].([]any)) != 2 {
		t.Errorf("sent: %v", m)
	}
	if r := h.do("POST", p+"/messages", map[string]any{"agent": "GreenCastle", "subject": "post", "body": "to all", "topic": "ui"}); r.status != 200 {
		t.Errorf("post: %d %s", r.status, r.body)
	}
	if r := h.do("POST", p+"/messages", map[string]any{"agent": "GreenCastle", "subject": "x", "body": "", "topic": "no way"}); r.status != 400 || r.code(t) != "INVALID_TOPIC" {
		t.Errorf("bad topic: %d %s", r.status, r.body)
	}

	if d := h.do("GET", p+"/topics?agent=BlueLake", nil).doc(t); len(d["topics"].([]any)) != 1 || d["topics"].([]any)[0].(map[string]any)["messages"] != 2.0 {
		t.Errorf("topics: %v", d)
	}
	if d := h.do("GET", p+"/topics/UI?agent=BlueLake&bodies=true", nil).doc(t); d["topic"] != "ui" || len(d["messages"].([]any)) != 2 ||
		d["messages"].([]any)[0].(map[string]any)["body"] != "to all" {
		t.Errorf("topic: %v", d)
	}
	if d := h.do("GET", p+"/agents/BlueLake/inbox?topic=ui", nil).doc(t); len(d["messages"].([]any)) != 1 {
		t.Errorf("inbox?topic: %v", d)
	}

	for _, tt := range []struct{ path, ctype, disp, body string }{
		{p + "/messages/" + id + "/attachments/a.png?agent=BlueLake", "image/png", "attachment; filename=a.png", png},
		{p + "/messages/" + id + "/attachments/page.html", "application/octet-stream", "attachment; filename=page.html", "<script>alert(1)</script>"},
		{"/mail/" + h.slug + "/message/" + id + "/attachment/a.png?agent=BlueLake&inline=1", "image/png", "inline; filename=a.png", png},
		{"/mail/" + h.slug + "/message/" + id + "/attachment/page.html?inline=1", "application/octet-stream", "attachment; filename=page.html", "<script>alert(1)</script>"},
	} {
		r := h.do("GET", tt.path, nil)
		if r.status != 200 || r.header.Get("Content-Type") != tt.ctype || r.header.Get("Content-Disposition") != tt.disp || string(r.body) != tt.body ||
			r.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("GET %s: %d %v %q", tt.path, r.status, r.header, r.body)
		}
	}
	if r := h.do("GET", p+"/messages/"+id+"/attachments/nope.png", nil); r.status != 404 || r.code(t) != "NOT_FOUND" {
		t.Errorf("no such attachment: %d %s", r.status, r.body)
	}
	// The message page shows the image inline and links both.
	page := string(h.do("GET", "/mail/"+h.slug+"/message/"+id+"?agent=BlueLake", nil).body)
	for _, want := range []string{`<img src="/mail/` + h.slug + `/message/` + id + `/attachment/a.png?agent=BlueLake&amp;inline=1"`, `download="page.html"`, "#ui"} {
		if !strings.Contains(page, want) {
			t.Errorf("message page lacks %q", want)
		}
	}
}
