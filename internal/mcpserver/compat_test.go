package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

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
	// Output schemas are outlines (outline): 286k/158k/117k/25k before.
	bound := map[string]int{"full": 150_000, // 142k with 83 tools
		"core": 85_000, "messaging": 70_000, "minimal": 14_000}
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
		// minimal is a list of tools; messaging holds at least these, and
		// whatever else of its clusters is served.
		if w, ok := want[p]; ok && (p == "minimal" && !slices.Equal(names, w) || !containsAll(names, w)) {
			t.Errorf("profile %s: %v, want %v", p, names, w)
		}
		for _, n := range names {
			if c := toolClusters[n]; p == "messaging" && c != clusterIdentity && c != clusterMessaging && c != clusterContact && !slices.Contains(profiles[p].tools, n) {
				t.Errorf("profile messaging holds %s (%s)", n, c)
			}
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

// compatCall is a call written exactly as mcp_agent_mail's README.md or
// SKILL.md shows it, and the fields of mcp_agent_mail's result it must
// have (dot paths). $REPO in an argument is the project's absolute path
// (their /abs/path/to/project), $MSG the id of the message sent.
type compatCall struct {
	as     string // GreenCastle or BlueLake: the session calling
	tool   string
	args   args
	fields []string
	gap    string // a known difference of the result: said, not checked
	before func(h *harness)
}

// compatCalls are every tool of mcp_agent_mail served here, in the order
// of a session. A tool not served (yet) is skipped with a note: add the
// calls of a new tool here, as its documentation shows them.
var compatCalls = []compatCall{
	{as: "GreenCastle", tool: "health_check", args: args{}, fields: []string{"status"}},
	{as: "GreenCastle", tool: "ensure_project", args: args{"human_key": "$REPO"}, fields: []string{"id", "slug", "human_key", "created_at"}},
	{as: "GreenCastle", tool: "register_agent", args: args{"project_key": "$REPO", "program": "claude-code", "model": "opus-4.5", "name": "GreenCastle", "task_description": "Implementing auth module"},
		fields: []string{"id", "name", "program", "model", "task_description", "inception_ts", "last_active_ts", "project_id", "attachments_policy"}},
	{as: "BlueLake", tool: "macro_start_session", args: args{"human_key": "$REPO", "program": "codex", "model": "gpt-5", "task_description": "billing", "agent_name": "BlueLake"},
		fields: []string{"project", "agent", "file_reservations", "inbox"}, gap: "project, agent and inbox are ours inside ({key, slug}, our agent, {messages})"},
	{as: "GreenCastle", tool: "whois", args: args{"project_key": "$REPO", "agent_name": "BlueLake"}, fields: []string{"name", "program", "model", "task_description", "recent_commits"}},
	{as: "GreenCastle", tool: "file_reservation_paths", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "paths": []string{"src/auth/**/*.ts", "src/middleware/auth.ts"}, "ttl_seconds": 3600, "exclusive": true, "reason": "bd-123"},
		fields: []string{"granted.0.id", "granted.0.path_pattern", "granted.0.exclusive", "granted.0.reason", "granted.0.expires_ts", "conflicts"}},
	{as: "GreenCastle", tool: "send_message", args: args{"project_key": "$REPO", "sender_name": "GreenCastle", "to": []string{"BlueLake"}, "subject": "[bd-123] Starting auth refactor",
		"body_md": "Reserving src/auth/**. Will update session handling.", "thread_id": "bd-123", "importance": "normal", "ack_required": true},
		fields: []string{"deliveries.0.project", "deliveries.0.payload.id", "deliveries.0.payload.thread_id", "deliveries.0.payload.subject", "deliveries.0.payload.body_md",
			"deliveries.0.payload.created_ts", "deliveries.0.payload.from", "deliveries.0.payload.to", "deliveries.0.payload.importance", "deliveries.0.payload.ack_required", "count"}},
	{as: "BlueLake", tool: "fetch_inbox", args: args{"project_key": "$REPO", "agent_name": "BlueLake", "limit": 20, "urgent_only": false, "include_bodies": true},
		fields: []string{"result.0.id", "result.0.subject", "result.0.from", "result.0.created_ts", "result.0.importance", "result.0.ack_required", "result.0.kind", "result.0.body_md", "result.0.thread_id"}},
	{as: "BlueLake", tool: "mark_message_read", args: args{"project_key": "$REPO", "agent_name": "BlueLake", "message_id": "$MSG"}, fields: []string{"message_id", "read", "read_at"}},
	{as: "BlueLake", tool: "acknowledge_message", args: args{"project_key": "$REPO", "agent_name": "BlueLake", "message_id": "$MSG"}, fields: []string{"message_id", "acknowledged", "acknowledged_at", "read_at"}},
	{as: "BlueLake", tool: "reply_message", args: args{"project_key": "$REPO", "message_id": "$MSG", "sender_name": "BlueLake", "body_md": "On it."},
		fields: []string{"id", "thread_id", "reply_to", "subject", "body_md", "deliveries.0.payload.id", "count"}},
	{as: "GreenCastle", tool: "search_messages", args: args{"project_key": "$REPO", "query": "auth"}, fields: []string{"result.0.id", "result.0.subject", "result.0.created_ts", "result.0.thread_id", "result.0.from"},
		gap: "no importance or ack_required in a result"},
	{as: "GreenCastle", tool: "summarize_thread", args: args{"project_key": "$REPO", "thread_id": "bd-123", "include_examples": true}, fields: []string{"thread_id", "summary.participants", "summary.total_messages", "summary.key_points", "summary.action_items"},
		gap: "no examples"},
	{as: "GreenCastle", tool: "macro_prepare_thread", args: args{"project_key": "$REPO", "thread_id": "bd-123", "program": "claude-code", "model": "opus-4.5", "agent_name": "GreenCastle"},
		fields: []string{"project", "agent", "thread", "inbox"}, gap: "project, agent, thread and inbox are ours inside"},
	{as: "GreenCastle", tool: "renew_file_reservations", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "extend_seconds": 1800},
		fields: []string{"renewed", "file_reservations.0.id", "file_reservations.0.path_pattern", "file_reservations.0.old_expires_ts", "file_reservations.0.new_expires_ts"}},
	{as: "GreenCastle", tool: "release_file_reservations", args: args{"project_key": "$REPO", "agent_name": "GreenCastle"}, fields: []string{"released", "released_at"}},
	{as: "GreenCastle", tool: "macro_file_reservation_cycle", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "paths": []string{"src/**"}, "ttl_seconds": 3600, "exclusive": true, "reason": "bd-42", "auto_release": true},
		fields: []string{"file_reservations.granted.0.path_pattern", "released.released", "released.released_at"}},
	{as: "BlueLake", tool: "request_contact", args: args{"project_key": "$REPO", "from_agent": "BlueLake", "to_agent": "GreenCastle", "reason": "API contract changes"},
		fields: []string{"from", "to", "status", "expires_ts"}},
	{as: "GreenCastle", tool: "respond_contact", args: args{"project_key": "$REPO", "to_agent": "GreenCastle", "from_agent": "BlueLake", "accept": true}, fields: []string{"from", "to", "approved", "expires_ts"}},
	{as: "BlueLake", tool: "list_contacts", args: args{"project_key": "$REPO", "agent_name": "BlueLake"}, fields: []string{"result.0.to", "result.0.status", "result.0.reason", "result.0.updated_ts", "result.0.expires_ts"}},
	{as: "GreenCastle", tool: "set_contact_policy", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "policy": "contacts_only"}, fields: []string{"agent", "policy"},
		gap: "agent is our agent document, not the name"},
	{as: "BlueLake", tool: "macro_contact_handshake", args: args{"project_key": "$REPO", "requester": "BlueLake", "target": "GreenCastle", "reason": "sync", "welcome_subject": "Hi", "welcome_body": "Hello."},
		fields: []string{"request", "welcome_message.deliveries.0.payload.id"}},
	{as: "GreenCastle", tool: "install_precommit_guard", args: args{"project_key": "$REPO", "code_repo_path": "$REPO"}, fields: []string{"hook"}},
	{as: "GreenCastle", tool: "uninstall_precommit_guard", args: args{"code_repo_path": "$REPO"}, fields: []string{"removed"}},
	{as: "BlueLake", tool: "force_release_file_reservation", before: func(h *harness) { h.clock.Add(3 * time.Hour) },
		args: args{"project_key": "$REPO", "agent_name": "BlueLake", "file_reservation_id": "$LEASE", "note": "stale"}, fields: []string{"released", "released_at", "reservation.id", "reservation.path_pattern"}},
	{as: "GreenCastle", tool: "acquire_build_slot", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "slot": "main", "ttl_seconds": 3600, "exclusive": true}, fields: []string{},
		gap: "a build slot is our lock document ({lock}), not {granted, conflicts}"},
	{as: "GreenCastle", tool: "renew_build_slot", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "slot": "main", "extend_seconds": 1800}, fields: []string{},
		gap: "our lock document, not {renewed, expires_ts}"},
	{as: "GreenCastle", tool: "release_build_slot", args: args{"project_key": "$REPO", "agent_name": "GreenCastle", "slot": "main"}, fields: []string{},
		gap: "our lock document, not {released, released_at}"},
	{as: "GreenCastle", tool: "create_agent_identity", args: args{"project_key": "$REPO", "program": "claude-code", "model": "opus-4.5"},
		fields: []string{"id", "name", "program", "model", "inception_ts"}},
}

// Every tool of mcp_agent_mail served here, called as its README and
// SKILL.md show, answers with mcp_agent_mail's result fields (beside
// ours). Known differences are listed (and in docs/mcp-tools.md).
func TestMCPAgentMailCalls(t *testing.T) {
	h := newHarness(t)
	served := map[string]bool{}
	for _, tl := range listTools(context.Background(), h.srv) {
		served[tl.Name] = true
	}
	peers := map[string]*harness{"GreenCastle": h.peer(""), "BlueLake": h.peer("")}
	vars := map[string]string{"$REPO": h.repo}
	for _, c := range compatCalls {
		if !served[c.tool] {
			t.Logf("%s: not served on this branch, not checked", c.tool)
			continue
		}
		if c.tool == "force_release_file_reservation" {
			// GreenCastle's lease, held past its expiry: taken by BlueLake.
			vars["$LEASE"] = peers["GreenCastle"].ok("file_reservation_paths", args{"agent_name": "GreenCastle", "paths": []string{"docs/**"}, "ttl_seconds": 60}).str("granted.0.id")
		}
		if c.before != nil {
			c.before(h)
		}
		a := args{}
		for k, v := range c.args {
			if s, ok := v.(string); ok && vars[s] != "" {
				v = vars[s]
			}
			a[k] = v
		}
		d := peers[c.as].ok(c.tool, a)
		for _, f := range c.fields {
			if d.get(f) == nil && !hasNull(d, f) {
				t.Errorf("%s: no %s in %v", c.tool, f, d)
			}
		}
		if c.gap != "" {
			t.Logf("%s: known difference: %s", c.tool, c.gap)
		}
		if c.tool == "send_message" {
			vars["$MSG"] = d.str("deliveries.0.payload.id")
		}
	}
}

// hasNull reports whether path is present in d with the value null.
func hasNull(d doc, path string) bool {
	parent, key := "", path
	if i := strings.LastIndex(path, "."); i >= 0 {
		parent, key = path[:i], path[i+1:]
	}
	var m map[string]any = d
	if parent != "" {
		m, _ = d.get(parent).(map[string]any)
	}
	v, ok := m[key]
	return ok && v == nil
}

// The spellings of mcp_agent_mail's SKILL.md tool table and of tutorials
// hear the argument meant in the first error.
func TestMCPAgentMailSpellings(t *testing.T) {
	h := newHarness(t)
	g := h.peer("GreenCastle")
	g.ok("register_agent", args{"program": "claude-code"})
	for _, c := range []struct {
		tool string
		args args
		want []string
	}{
		{"fetch_inbox", args{"agent": "GreenCastle", "limit": 5}, []string{"agent: did you mean agent_name?"}},
		{"file_reservation_paths", args{"agent": "GreenCastle", "paths": []string{"a/**"}, "ttl": 3600}, []string{"agent: did you mean agent_name?", "ttl: did you mean ttl_seconds?"}},
		{"force_release_file_reservation", args{"agent": "GreenCastle", "reservation_id": "01ABCDEF"}, []string{"reservation_id: did you mean file_reservation_id?"}},
		{"release_file_reservations", args{"reservation_ids": []string{"01ABCDEF"}}, []string{"reservation_ids: did you mean file_reservation_ids?"}},
		{"renew_file_reservations", args{"extend": 60}, []string{"extend: did you mean extend_seconds?"}},
		{"send_message", args{"sender": "GreenCastle", "to": "BlueLake", "subject": "s", "body_md": ""}, []string{"sender: did you mean sender_name?"}},
		{"send_message", args{"from": "GreenCastle", "to_agents": []string{"BlueLake"}, "subject": "s", "body": "b"}, []string{"from: did you mean sender_name?", "to_agents: did you mean to?", "body: did you mean body_md?"}},
		{"register_agent", args{"agent": "GreenCastle"}, []string{"agent: did you mean name?"}},
		{"mark_message_read", args{"agent": "GreenCastle", "message_id": "01ABCDEF"}, []string{"agent: did you mean agent_name?"}},
	} {
		e := g.fail(c.tool, c.args, "INVALID_ARGUMENT")
		for _, w := range c.want {
			if !strings.Contains(e.Message, w) {
				t.Errorf("%s %v: %q does not say %q", c.tool, c.args, e.Message, w)
			}
		}
	}
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}
