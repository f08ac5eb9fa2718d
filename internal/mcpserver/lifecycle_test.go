package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// create_agent_identity always makes a new agent, and the session acts as
// it too; a name hint must be free and valid.
func TestCreateAgentIdentity(t *testing.T) {
	g, _ := twoAgents(t)
	a := g.ok("create_agent_identity", args{"program": "codex", "model": "gpt-5", "task_description": "spike"})
	name := a.str("name")
	if name == "" || name == "GreenCastle" || a.str("agent.name") != name || a.str("id") != name || a.str("task_description") != "spike" ||
		a.str("inception_ts") == "" || !strings.HasPrefix(a.str("registration_token"), "amrt_") {
		t.Errorf("create_agent_identity: %v", a)
	}
	b := g.ok("create_agent_identity", args{})
	if b.str("name") == name {
		t.Errorf("two identities, one name %s", name)
	}
	g.want(g.ok("create_agent_identity", args{"name_hint": "RedFox"}), "name", "RedFox")
	g.fail("create_agent_identity", args{"name_hint": "RedFox"}, "NAME_TAKEN")
	g.fail("create_agent_identity", args{"name_hint": "GreenCastle"}, "NAME_TAKEN") // not an update, unlike register_agent
	g.fail("create_agent_identity", args{"name_hint": "backend-bot!"}, "INVALID_NAME")
	g.want(g.ok("fetch_inbox", args{"agent_name": "RedFox"}), "messages", []any{})
	g.want(g.ok("health_check", args{}), "agent", "GreenCastle")
}

// retire_agent: no new mail (AGENT_RETIRED, naming what to do), hidden
// from list_agents, leases released; unretire_agent brings it back;
// deregister_agent is retire plus block_all. Only the agent's session or
// its token may do it.
func TestRetireAgent(t *testing.T) {
	g, b := twoAgents(t)
	blueTok := b.ok("register_agent", args{}).str("registration_token")
	b.ok("file_reservation_paths", args{"paths": []string{"src/**"}})
	b.ok("acquire_lock", args{"key": "deploy"})

	// Not another session's agent without its token.
	g.fail("retire_agent", args{"agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")
	g.fail("retire_agent", args{"agent_name": "BlueLake", "registration_token": "amrt_nope"}, "AUTHENTICATION_REQUIRED")
	g.fail("retire_agent", args{"agent_name": ""}, "USAGE")
	fresh := g.peer("")
	fresh.fail("retire_agent", args{"agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")

	r := g.ok("retire_agent", args{"agent_name": "BlueLake", "registration_token": blueTok})
	if r.str("status") != "retired" || r.str("agent_name") != "BlueLake" || r.str("project_key") == "" ||
		len(r.list("released_reservations")) != 1 || r.str("released_locks.0.key") != "deploy" || r.get("agent.retired") != true {
		t.Errorf("retire_agent: %v", r)
	}
	if n := len(g.ok("check_file_reservations", args{"paths": []string{"src/a.go"}}).list("paths.0.holders")); n != 0 {
		t.Errorf("a retired agent still holds %d reservations", n)
	}
	g.want(g.ok("list_locks", args{}), "locks", []any{})
	for _, a := range g.ok("list_agents", args{}).list("agents") {
		if a.(map[string]any)["name"] == "BlueLake" {
			t.Error("list_agents lists a retired agent")
		}
	}
	if n := len(g.ok("list_agents", args{"include_retired": true}).list("agents")); n != 2 {
		t.Errorf("list_agents with include_retired: %d agents, want 2", n)
	}
	g.want(g.ok("whois", args{"agent_name": "BlueLake"}), "agent.retired", true)

	e := g.fail("send_message", args{"to": "BlueLake", "subject": "hi", "body_md": ""}, "AGENT_RETIRED")
	if !strings.Contains(e.Message, "BlueLake is retired") || !strings.Contains(e.Hint, "unretire_agent") {
		t.Errorf("sending to a retired agent: %+v", e)
	}

	// Its own session brings it back.
	b.want(b.ok("unretire_agent", args{"agent_name": "BlueLake"}), "status", "active")
	g.ok("send_message", args{"to": "BlueLake", "subject": "back", "body_md": ""})
	g.fail("unretire_agent", args{"agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")

	d := b.ok("deregister_agent", args{"agent_name": "BlueLake"})
	if d.str("status") != "deregistered" || d.str("agent.policy") != "block_all" || !strings.HasPrefix(d.str("agent.task"), "[deregistered at ") {
		t.Errorf("deregister_agent: %v", d)
	}
	g.fail("send_message", args{"to": "BlueLake", "subject": "again", "body_md": ""}, "AGENT_RETIRED")
	g.fail("deregister_agent", args{"agent_name": "Nobody"}, "AUTHENTICATION_REQUIRED")
	b.want(b.ok("fetch_inbox", args{}), "messages.0.subject", "back") // its mail stays
}

// archive_project: writes refused with PROJECT_ARCHIVED (naming
// unarchive_project), reads go on; unarchive_project brings it back. It
// needs an agent of the project: the session's, or a token's.
func TestArchiveProject(t *testing.T) {
	g, b := twoAgents(t)
	blueTok := b.ok("register_agent", args{}).str("registration_token")
	g.ok("send_message", args{"to": "BlueLake", "subject": "before", "body_md": ""})
	g.peer("").fail("archive_project", args{}, "AUTHENTICATION_REQUIRED")
	g.peer("").fail("archive_project", args{"registration_token": "amrt_nope"}, "AUTHENTICATION_REQUIRED")

	a := g.peer("").ok("archive_project", args{"registration_token": blueTok})
	if a.str("status") != "archived" || a.str("slug") == "" || a.str("project_key") == "" || a.get("archived_at") == nil || a.get("changed") != true {
		t.Errorf("archive_project: %v", a)
	}
	e := g.fail("send_message", args{"to": "BlueLake", "subject": "after", "body_md": ""}, "PROJECT_ARCHIVED")
	if !strings.Contains(e.Message, "takes no writes") || !strings.Contains(e.Hint, "unarchive_project") {
		t.Errorf("a write to an archived project: %+v", e)
	}
	g.fail("file_reservation_paths", args{"paths": []string{"src/**"}}, "PROJECT_ARCHIVED")
	g.fail("create_agent_identity", args{}, "PROJECT_ARCHIVED")
	b.want(b.ok("fetch_inbox", args{}), "messages.0.subject", "before")
	g.want(g.ok("archive_project", args{}), "changed", false)

	u := g.ok("unarchive_project", args{})
	if u.str("status") != "active" || u.get("archived_at") != nil {
		t.Errorf("unarchive_project: %v", u)
	}
	g.ok("send_message", args{"to": "BlueLake", "subject": "after", "body_md": ""})
	g.fail("unarchive_project", args{"project_key": "github.com/acme/none"}, "NO_PROJECT")
}

// purge_old_messages is a dry run unless told otherwise; hard deletes need
// their confirmation word for word and an agent of the project; what they
// take out is gone from every view.
func TestPurgeAndHardDelete(t *testing.T) {
	g, b := twoAgents(t)
	g.ok("send_message", args{"to": "BlueLake", "subject": "old news", "body_md": "zebra"})
	g.clock.Add(40 * 24 * time.Hour)
	b.ok("send_message", args{"to": "GreenCastle", "subject": "new news", "body_md": "zebra"})

	dry := g.peer("").ok("purge_old_messages", args{"older_than_days": 30})
	if dry.str("status") != "dry_run" || dry.num("messages_affected") != 1 || dry.str("messages.0.subject") != "old news" || dry.get("history_kept") != true {
		t.Errorf("a dry run: %v", dry)
	}
	g.peer("").fail("purge_old_messages", args{"max_age_days": 30, "dry_run": false}, "AUTHENTICATION_REQUIRED")
	g.fail("purge_old_messages", args{"max_age_days": -3}, "USAGE")
	done := g.ok("purge_old_messages", args{"max_age_days": 30, "dry_run": false})
	if done.str("status") != "purged" || done.num("messages_affected") != 1 || done.str("cutoff_date") == "" || done.num("max_age_days") != 30 {
		t.Errorf("purge: %v", done)
	}
	b.want(b.ok("fetch_inbox", args{}), "messages", []any{})
	if n := len(b.ok("search_messages", args{"query": "zebra"}).list("results")); n != 1 {
		t.Errorf("search after a purge: %d results, want 1", n)
	}

	e := b.fail("hard_delete_agent", args{"agent_name": "BlueLake", "confirmation": "yes"}, "INVALID_ARGUMENT")
	if !strings.Contains(e.Message, `"I UNDERSTAND"`) {
		t.Errorf("a wrong confirmation: %+v", e)
	}
	g.fail("hard_delete_agent", args{"agent_name": "BlueLake", "confirmation": "I UNDERSTAND"}, "AUTHENTICATION_REQUIRED")
	d := b.ok("hard_delete_agent", args{"agent_name": "BlueLake", "confirmation": "I UNDERSTAND"})
	if d.str("status") != "hard_deleted" || d.str("agent_name") != "BlueLake" || d.num("deleted_counts.messages") != 1 || d.get("filesystem_errors") == nil || d.get("history_kept") != true {
		t.Errorf("hard_delete_agent: %v", d)
	}
	g.want(g.ok("fetch_inbox", args{}), "messages", []any{})
	g.fail("whois", args{"agent_name": "BlueLake"}, "NOT_FOUND")
	g.fail("send_message", args{"to": "BlueLake", "subject": "x", "body_md": ""}, "UNKNOWN_RECIPIENT")

	g.fail("hard_delete_project", args{"confirmation": "I understand"}, "INVALID_ARGUMENT")
	g.peer("").fail("hard_delete_project", args{"confirmation": "I UNDERSTAND"}, "AUTHENTICATION_REQUIRED")
	p := g.ok("hard_delete_project", args{"confirmation": "I UNDERSTAND"})
	if p.str("status") != "hard_deleted" || p.num("deleted_counts.agents") != 1 || p.str("slug") == "" {
		t.Errorf("hard_delete_project: %v", p)
	}
	if n := len(g.peer("").ok("list_agents", args{"include_retired": true}).list("agents")); n != 0 {
		t.Errorf("%d agents after the project's hard delete", n)
	}
}
