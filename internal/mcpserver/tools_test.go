package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
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
		release_lock list_locks check_file_reservations list_agents`)
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
