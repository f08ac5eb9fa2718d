package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.json from the tools the server lists")

// The tools, their descriptions and their schemas are an interface that
// clients and their models read: a change shows as a diff of this golden
// file (go test ./internal/mcpserver -run TestToolsGolden -update).
func TestToolsGolden(t *testing.T) {
	srv := New(Config{Store: service.Config{Dir: t.TempDir()}})
	defer srv.Close()
	tools := listTools(context.Background(), srv)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tools); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the tools differ from %s; if that is meant, run go test -run TestToolsGolden -update and review the diff", golden)
	}
}

// The tools are the list, under mcp_agent_mail's names.
func TestToolNames(t *testing.T) {
	want := strings.Fields(`health_check ensure_project register_agent whois send_message reply_message fetch_inbox
		mark_message_read acknowledge_message search_messages summarize_thread get_thread file_reservation_paths
		release_file_reservations renew_file_reservations force_release_file_reservation request_contact
		respond_contact list_contacts set_contact_policy acquire_build_slot renew_build_slot release_build_slot
		install_precommit_guard uninstall_precommit_guard macro_start_session macro_prepare_thread
		macro_file_reservation_cycle macro_contact_handshake check_mail wait_for_mail acquire_lock renew_lock
		release_lock list_locks check_file_reservations list_agents claim_port get_port release_port list_ports
		fetch_topic get_attachment subscribe_topic unsubscribe_topic set_agent_state control_agent get_rules
		summarize_recent fetch_summary ensure_product products_link search_messages_product fetch_inbox_product
		summarize_thread_product fetch_inbox_events get_message_delivery_receipt check_file_reservation_conflicts
		create_agent_identity retire_agent unretire_agent deregister_agent archive_project unarchive_project
		purge_old_messages hard_delete_agent hard_delete_project list_window_identities rename_window expire_window
		resolve_pane_identity cleanup_pane_identities
		create_task update_task get_task list_tasks list_ready_work claim_task release_task close_task reopen_task
		add_task_dependency remove_task_dependency`)
	srv := New(Config{Store: service.Config{Dir: t.TempDir()}})
	defer srv.Close()
	got := map[string]bool{}
	for _, tl := range listTools(context.Background(), srv) {
		got[tl.Name] = true
		if tl.Description == "" || tl.OutputSchema == nil {
			t.Errorf("%s: no description or output schema", tl.Name)
		}
		schema, _ := json.Marshal(tl.InputSchema)
		var in struct {
			Properties map[string]struct{ Description string }
		}
		if err := json.Unmarshal(schema, &in); err != nil {
			t.Fatal(err)
		}
		for name, p := range in.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %s has no description", tl.Name, name)
			}
		}
	}
	for _, name := range want {
		if !got[name] {
			t.Errorf("no tool %s", name)
		}
		delete(got, name)
	}
	for name := range got {
		t.Errorf("tool %s is not in the issue's list", name)
	}
}

// Arguments that do not fit a tool's schema (misspelt, of the wrong type,
// missing) fail as every other failure does: a JSON error document with a
// code and a hint, here INVALID_ARGUMENT.
func TestBadArguments(t *testing.T) {
	g, _ := twoAgents(t)
	srv := New(Config{Store: service.Config{Dir: t.TempDir()}})
	defer srv.Close()
	for _, tl := range listTools(context.Background(), srv) {
		res := g.call(tl.Name, args{"ttl_second": 60})
		var e struct{ Error ErrorDoc }
		if !res.IsError || json.Unmarshal([]byte(text(res)), &e) != nil || e.Error.Code != "INVALID_ARGUMENT" || e.Error.Hint == "" {
			t.Errorf("%s with a misspelt argument: %v %s", tl.Name, res.IsError, text(res))
		}
	}
	for _, a := range []args{
		{"to": 7, "subject": "x", "body_md": ""}, // a number for names
		{"to": "BlueLake", "body_md": ""},        // no subject
	} {
		res := g.call("send_message", a)
		if !res.IsError || !strings.Contains(text(res), `"code":"INVALID_ARGUMENT"`) {
			t.Errorf("send_message %v: %s", a, text(res))
		}
	}
}

// The spellings of widely copied tutorials hear, in their first error,
// the name of every argument they meant.
func TestOtherSpellings(t *testing.T) {
	g, _ := twoAgents(t)
	e := g.fail("send_message", args{"from_agent": "GreenCastle", "to_agents": []string{"BlueLake"}, "subject": "hi", "body": "x"}, "INVALID_ARGUMENT")
	for _, want := range []string{"from_agent: did you mean sender_name?", "to_agents: did you mean to?", "body: did you mean body_md?"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("send_message in a tutorial's spelling: %q does not say %q", e.Message, want)
		}
	}
	e = g.fail("register_agent", args{"agent_name": "GreenCastle"}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, "agent_name: did you mean name?") {
		t.Errorf("register_agent(agent_name): %q", e.Message)
	}
	e = g.fail("ensure_project", args{"project_key": g.repo}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, "project_key: did you mean human_key?") {
		t.Errorf("ensure_project(project_key): %q", e.Message)
	}
	// An argument nobody spells so is named, with the tool's arguments.
	e = g.fail("fetch_inbox", args{"nonsense": 1}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, "fetch_inbox does not take nonsense") || !strings.Contains(e.Hint, "include_bodies") {
		t.Errorf("fetch_inbox(nonsense): %+v", e)
	}
	// A tool that takes from_agent takes it.
	g.fail("respond_contact", args{"from_agent": "RedFox", "accept": true}, "NOT_FOUND")
}

// Arguments as models send them: a number as a string, a list as a
// string of JSON, a null for an argument left out.
func TestArgumentsAsModelsSendThem(t *testing.T) {
	g, b := twoAgents(t)
	for i := range 3 {
		g.ok("send_message", args{"to": `["BlueLake"]`, "subject": fmt.Sprint("s", i), "body_md": "", "thread_id": nil})
	}
	in := b.ok("fetch_inbox", args{"limit": "2", "include_bodies": "true", "since_ts": nil})
	if n := len(in.list("messages")); n != 2 {
		t.Errorf("fetch_inbox(limit: \"2\"): %d messages", n)
	}
	b.want(in, "messages.0.to.0", "BlueLake")
	b.fail("fetch_inbox", args{"limit": "two"}, "INVALID_ARGUMENT")
	g.fail("send_message", args{"to": `["BlueLake"`, "subject": "x", "body_md": ""}, "UNKNOWN_RECIPIENT")
}

// No input or output schema has a list for a type, which many clients
// (and MCP Inspector's checks) cannot read.
func TestSchemasPortable(t *testing.T) {
	srv := New(Config{Store: service.Config{Dir: t.TempDir()}})
	defer srv.Close()
	var walk func(tool string, v any)
	walk = func(tool string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["type"].([]any); ok {
				t.Errorf("%s: a type list: %v", tool, v)
			}
			for _, x := range v {
				walk(tool, x)
			}
		case []any:
			for _, x := range v {
				walk(tool, x)
			}
		}
	}
	for _, tl := range listTools(context.Background(), srv) {
		b, _ := json.Marshal(tl)
		var m any
		json.Unmarshal(b, &m)
		walk(tl.Name, m)
	}
}

// A tool's schema shows the default of a duration the service's requests
// define (service.DefaultReserveTTL, ...), not one of its own.
func TestToolDefaults(t *testing.T) {
	srv := New(Config{Store: service.Config{Dir: t.TempDir()}})
	defer srv.Close()
	want := map[string]map[string]int{
		"file_reservation_paths":  {"ttl_seconds": int(service.DefaultReserveTTL.Seconds())},
		"macro_start_session":     {"file_reservation_ttl_seconds": int(service.DefaultReserveTTL.Seconds())},
		"renew_file_reservations": {"extend_seconds": int(service.DefaultRenewExtend.Seconds())},
		"acquire_lock":            {"ttl_seconds": int(service.DefaultLockTTL.Seconds())},
		"claim_port":              {"ttl_seconds": int(service.DefaultPortTTL.Seconds())},
	}
	for _, tool := range listTools(context.Background(), srv) {
		args, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Default     *int   `json:"default"`
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for arg, def := range args {
			p := schema.Properties[arg]
			if p.Default == nil || *p.Default != def || !strings.HasSuffix(p.Description, fmt.Sprintf("; default %d", def)) {
				t.Errorf("%s %s: default %v, description %q; want %d", tool.Name, arg, p.Default, p.Description, def)
			}
		}
	}
	for name := range want {
		t.Errorf("no tool %s", name)
	}
}
