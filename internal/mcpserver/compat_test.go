package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every tool takes format, as every one of mcp_agent_mail's does, and
// answers "toon" with a tool error that says JSON is what there is, before
// anything else of the call is looked at (no schema error for the
// arguments left out).
func TestFormatToon(t *testing.T) {
	h := newHarness(t)
	for _, tl := range listTools(context.Background(), h.srv) {
		e := h.fail(tl.Name, args{"format": "toon"}, "INVALID_ARGUMENT")
		if !strings.Contains(e.Message, `format "toon" is not supported`) || !strings.Contains(e.Hint, `"json"`) {
			t.Errorf("%s(format=toon): %+v", tl.Name, e)
		}
	}
	h.fail("health_check", args{"format": 3}, "INVALID_ARGUMENT")
	h.ok("health_check", args{"format": "JSON"})
}

// The tool profiles hold what mcp_agent_mail's hold, of the tools served
// here; every tool has a cluster (a tool added without one would be in
// the full profile only: give it its row in toolClusters). The bytes of
// tools/list of each profile are docs/mcp-tools.md's figures (go test -v
// -run TestProfiles prints them); each profile must stay within its
// bound, so that a change that makes the definitions much longer is seen.
func TestProfiles(t *testing.T) {
	ctx := context.Background()
	want := map[string][]string{
		"minimal": {"acknowledge_message", "ensure_project", "fetch_inbox", "health_check", "register_agent", "send_message"},
		"messaging": {"acknowledge_message", "check_mail", "ensure_project", "fetch_inbox", "health_check", "list_agents", "list_contacts",
			"mark_message_read", "register_agent", "reply_message", "request_contact", "respond_contact", "search_messages", "send_message",
			"set_contact_policy", "wait_for_mail", "whois"},
	}
	bound := map[string]int{"full": 200_000, "core": 110_000, "messaging": 70_000, "minimal": 25_000}
	sizes := map[string]int{}
	for _, p := range Profiles {
		srv := New(Config{Store: service.Config{Dir: t.TempDir()}, Tools: p})
		tools := listTools(ctx, srv)
		b, err := json.Marshal(mcp.ListToolsResult{Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		sizes[p] = len(b)
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
			if p == "full" && toolClusters[tl.Name] == "" {
				t.Errorf("tool %s has no cluster: add it to toolClusters (profiles.go)", tl.Name)
			}
		}
		if w, ok := want[p]; ok && !slices.Equal(names, w) {
			t.Errorf("profile %s: %v, want %v", p, names, w)
		}
		if p == "core" && (slices.Contains(names, "request_contact") || !slices.Contains(names, "file_reservation_paths") || !slices.Contains(names, "macro_start_session")) {
			t.Errorf("profile core: %v", names)
		}
		if len(b) > bound[p] {
			t.Errorf("profile %s: tools/list is %d bytes, over %d", p, len(b), bound[p])
		}
		t.Logf("profile %-9s %2d tools, tools/list %6d bytes", p, len(tools), len(b))
		srv.Close()
	}
	if !(sizes["minimal"] < sizes["messaging"] && sizes["messaging"] < sizes["core"] && sizes["core"] < sizes["full"]) {
		t.Errorf("profile sizes out of order: %v", sizes)
	}
	if err := CheckProfile("tiny"); err == nil {
		t.Error("CheckProfile(tiny) passed")
	}
}
