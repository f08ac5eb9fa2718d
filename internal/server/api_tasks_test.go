package server

import (
	"sync"
	"testing"
)

// TestTaskAPI: the work items' routes: create (an epic, children with a
// dependency), list, ready work, a claim and a second claimer refused
// (409 TASK_CLAIMED), a cycle refused, unclaim, close (the epic with its
// last child), reopen refused under it; then ten claimers of one task at
// once over HTTP: one holder.
func TestTaskAPI(t *testing.T) {
	h := startServer(t, Config{})
	names := []string{"GreenCastle", "BlueLake", "RedFox", "AmberFox", "SilverLake", "GoldenRiver", "QuietOtter", "BraveFalcon", "CalmHarbor", "SwiftCastle"}
	h.seed(names)
	p := "/api/projects/" + h.slug
	ok := func(method, path string, body any) map[string]any {
		t.Helper()
		r := h.do(method, path, body)
		if r.status != 200 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		return r.doc(t)
	}
	fail := func(method, path string, body any, status int, code string) {
		t.Helper()
		r := h.do(method, path, body)
		if r.status != status || r.code(t) != code {
			t.Fatalf("%s %s: %d %s, want %d %s", method, path, r.status, r.body, status, code)
		}
	}
	id := func(d map[string]any) string { return d["task"].(map[string]any)["id"].(string) }
	epic := id(ok("POST", p+"/tasks", map[string]any{"title": "Auth", "type": "epic"}))
	t1 := id(ok("POST", p+"/tasks", map[string]any{"agent": "GreenCastle", "title": "Schema", "parent": epic, "paths": []string{"db/**"}}))
	t2 := id(ok("POST", p+"/tasks", map[string]any{"agent": "GreenCastle", "title": "API", "parent": epic, "deps": []string{t1}}))
	fail("POST", p+"/tasks", map[string]any{"title": "x", "priority": 9}, 400, "INVALID_ARGUMENT")
	fail("POST", p+"/tasks/"+t1+"/deps", map[string]any{"dep": t2}, 409, "DEPENDENCY_CYCLE")
	if l := wantLen(t, ok("GET", p+"/work?agent=BlueLake", nil), "ready", 1); l[0].(map[string]any)["id"] != t1 {
		t.Errorf("ready: %v", l)
	}
	wantLen(t, ok("GET", p+"/tasks?blocked=true", nil), "tasks", 1)
	claim := ok("POST", p+"/tasks/"+t1+"/claim", map[string]any{"agent": "BlueLake", "start": true})
	wantLen(t, claim, "reserved", 1)
	fail("POST", p+"/tasks/"+t1+"/claim", map[string]any{"agent": "RedFox"}, 409, "TASK_CLAIMED")
	fail("POST", p+"/tasks/"+t1+"/claim", map[string]any{}, 403, "NOT_REGISTERED")
	ok("POST", p+"/tasks/"+t1+"/unclaim", map[string]any{"agent": "BlueLake"})
	ok("POST", p+"/tasks/"+t1+"/update", map[string]any{"priority": 0})
	fail("POST", p+"/tasks/"+t1+"/update", map[string]any{}, 400, "INVALID_ARGUMENT")
	ok("POST", p+"/tasks/"+t1+"/close", map[string]any{"agent": "BlueLake", "reason": "done"})
	wantLen(t, ok("POST", p+"/tasks/"+t2+"/close", map[string]any{}), "closed", 1)
	if d := ok("GET", p+"/tasks/"+epic, nil); d["task"].(map[string]any)["status"] != "closed" {
		t.Errorf("epic: %v", d)
	}
	fail("POST", p+"/tasks/"+t2+"/reopen", map[string]any{}, 400, "INVALID_ARGUMENT")
	ok("POST", p+"/tasks/"+t2+"/deps/remove", map[string]any{"dep": t1})
	fail("GET", p+"/tasks/01ZZZZZZ", nil, 404, "NOT_FOUND")

	hot := id(ok("POST", p+"/tasks", map[string]any{"title": "hot"}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.do("POST", p+"/tasks/"+hot+"/claim", map[string]any{"agent": n})
			mu.Lock()
			codes[r.status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 1 || codes[409] != 9 {
		t.Errorf("ten claimers over HTTP: %v", codes)
	}
	wantLen(t, ok("GET", p+"/tasks?all=true&limit=2", nil), "tasks", 2)
}
