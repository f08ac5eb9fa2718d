package server

import (
	"context"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// TestAPIProductsReceiptsConflicts calls the routes of products, delivery
// receipts, conflict checks and summaries.
func TestAPIProductsReceiptsConflicts(t *testing.T) {
	h := startServer(t, Config{})
	ids := h.seed([]string{"GreenCastle", "BlueLake"},
		mail{"GreenCastle", service.SendRequest{To: []string{"BlueLake"}, Subject: "Auth", Body: "- pelican routes", Ack: true}})
	ctx := context.Background()
	billing := service.Scope{Project: service.ProjectRef{Key: "github.com/acme/billing"}}
	for _, n := range []string{"GreenCastle", "BlueLake"} {
		if _, err := h.svc.Register(ctx, billing, service.RegisterRequest{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	billing.Agent = "GreenCastle"
	if _, err := h.svc.Send(ctx, billing, service.SendRequest{To: []string{"BlueLake"}, Subject: "Invoices", Body: "pelican invoices"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.Reserve(ctx, h.scope("GreenCastle"), service.ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	projects, err := h.svc.Projects(ctx, false)
	if err != nil || len(projects.Projects) != 2 {
		t.Fatalf("projects: %+v %v", projects, err)
	}
	var billingSlug string
	for _, p := range projects.Projects {
		if p.Key == "github.com/acme/billing" {
			billingSlug = p.Slug
		}
	}
	p := "/api/projects/" + h.slug
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		code               string
		check              func(t *testing.T, doc map[string]any)
	}{
		{"link before ensure", "POST", "/api/projects/" + billingSlug + "/products", map[string]any{"product": "shop", "create": false}, 404, "NOT_FOUND", nil},
		{"ensure", "POST", p + "/products", map[string]any{"product": "Shop"}, 200, "", func(t *testing.T, d map[string]any) {
			if d["key"] != "shop" || d["created"] != true {
				t.Errorf("ensure: %v", d)
			}
		}},
		{"link", "POST", "/api/projects/" + billingSlug + "/products", map[string]any{"product": "shop", "agent": "GreenCastle"}, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "projects", 2)
		}},
		{"link as nobody registered", "POST", p + "/products", map[string]any{"product": "shop", "agent": "NoSuchAgent"}, 403, "NOT_REGISTERED", nil},
		{"products", "GET", "/api/products", nil, 200, "", func(t *testing.T, d map[string]any) { wantLen(t, d, "products", 1) }},
		{"product search", "GET", "/api/products/shop/search?q=pelican&agent=BlueLake", nil, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "results", 2)
		}},
		{"product search, no product", "GET", "/api/products/nope/search?q=pelican", nil, 404, "NOT_FOUND", nil},
		{"product inbox", "GET", "/api/products/shop/agents/BlueLake/inbox", nil, 200, "", func(t *testing.T, d map[string]any) {
			wantLen(t, d, "messages", 2)
		}},
		{"receipt", "GET", p + "/messages/" + ids[0] + "/receipt", nil, 200, "", func(t *testing.T, d map[string]any) {
			if r := wantLen(t, d, "recipients", 1)[0].(map[string]any); r["recipient"] != "BlueLake" || r["acknowledged"] != false {
				t.Errorf("receipt: %v", r)
			}
		}},
		{"no receipt", "GET", p + "/messages/01AAAAAAAAAAAAAAAAAAAAAAAA/receipt", nil, 404, "NOT_FOUND", nil},
		{"conflicts", "GET", p + "/reservations/conflicts?agent=BlueLake&path=src/a.go&path=docs/x.md", nil, 200, "", func(t *testing.T, d map[string]any) {
			if d["conflict_free"] != false {
				t.Errorf("conflicts: %v", d)
			}
			wantLen(t, d, "conflicts", 1)
		}},
		{"conflicts without an agent", "GET", p + "/reservations/conflicts?path=src/a.go", nil, 403, "NOT_REGISTERED", nil},
		{"summary", "GET", p + "/summary?hours=1", nil, 200, "", func(t *testing.T, d map[string]any) {
			if d["source_message_count"] != float64(1) {
				t.Errorf("summary: %v", d)
			}
		}},
		{"summary bad hours", "GET", p + "/summary?hours=x", nil, 400, "INVALID_ARGUMENT", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, c.body)
			if r.status != c.status {
				t.Fatalf("%s %s: status %d, want %d: %s", c.method, c.path, r.status, c.status, r.body)
			}
			if code := r.code(t); code != c.code {
				t.Fatalf("code %q, want %q: %s", code, c.code, r.body)
			}
			if c.check != nil {
				c.check(t, r.doc(t))
			}
		})
	}
}
