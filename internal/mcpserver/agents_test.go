package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgents(t *testing.T) {
	g, b := twoAgents(t)
	e := g.peer("").fail("register_agent", args{"name": "cc-0"}, "INVALID_NAME")
	if e.Type != "INVALID_AGENT_NAME" {
		t.Errorf("type %q, want INVALID_AGENT_NAME", e.Type)
	}
	gen := g.peer("").ok("register_agent", args{"program": "gemini"}) // a free generated name
	if name := gen.str("agent.name"); name == "" || name == "GreenCastle" || name == "BlueLake" {
		t.Errorf("generated name %q", name)
	}

	g.want(g.ok("whois", args{}), "agent.program", "claude-code")
	blue := g.ok("whois", args{"agent_name": "bluelake"}) // anyone may look anyone up
	g.want(blue, "agent.name", "BlueLake")
	g.want(blue, "agent.task", "billing")
	e = b.fail("whois", args{"agent_name": "PurpleRain"}, "NOT_FOUND")
	if !strings.Contains(e.Hint, "GreenCastle") {
		t.Errorf("whois of nobody does not list the agents: %q", e.Hint)
	}

	list := g.ok("list_agents", args{})
	if n := len(list.list("agents")); n != 3 {
		t.Errorf("%d agents, want 3", n)
	}
	g.want(list, "agents.0.state", "active")
	g.fail("list_agents", args{"project_key": "./x"}, "INVALID_ARGUMENT")
}

func TestContacts(t *testing.T) {
	g, b := twoAgents(t)
	b.want(b.ok("set_contact_policy", args{"policy": "contacts_only"}), "agent.policy", "contacts_only")
	b.fail("set_contact_policy", args{"policy": "nobody"}, "INVALID_ARGUMENT")
	g.fail("send_message", args{"to": "BlueLake", "subject": "hello", "body_md": ""}, "CONTACT_REQUIRED")

	g.want(g.ok("request_contact", args{"to_agent": "BlueLake", "reason": "API handoff"}), "contact.state", "requested")
	g.fail("request_contact", args{"to_agent": "BlueLake", "to_project": "github.com/acme/other"}, "NO_PROJECT")
	g.ok("ensure_project", args{"human_key": "github.com/acme/other"})
	g.fail("request_contact", args{"to_agent": "BlueLake", "to_project": "github.com/acme/other"}, "INVALID_ARGUMENT")
	b.want(b.ok("list_contacts", args{}), "contacts.0.from", "GreenCastle")
	b.fail("list_contacts", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
	b.want(b.ok("respond_contact", args{"from_agent": "GreenCastle", "accept": true}), "contact.state", "approved")
	b.fail("respond_contact", args{"from_agent": "RedFox", "accept": true}, "NOT_FOUND")
	g.ok("send_message", args{"to": "BlueLake", "subject": "hello", "body_md": ""})
}

func TestContactHandshake(t *testing.T) {
	g, b := twoAgents(t)
	b.ok("set_contact_policy", args{"policy": "contacts_only"})
	// Approving for the target is acting as the target: not for this
	// session, which says so instead of failing the request.
	hs := g.ok("macro_contact_handshake", args{"target": "BlueLake", "reason": "review", "auto_accept": true, "welcome_subject": "Hi", "welcome_body": "Let's talk."})
	g.want(hs, "request.contact.state", "requested")
	g.want(hs, "response", nil)
	g.want(hs, "response_error.code", "AUTHENTICATION_REQUIRED")
	g.want(hs, "welcome_message", nil)
	g.want(hs, "welcome_error.code", "CONTACT_REQUIRED")
	g.fail("macro_contact_handshake", args{"reason": "no target"}, "USAGE")
	g.fail("macro_contact_handshake", args{"target": "BlueLake", "welcome_subject": "half"}, "INVALID_ARGUMENT")

	// An overseer may.
	o := g.peer("", overseer)
	hs = o.ok("macro_contact_handshake", args{"requester": "GreenCastle", "to_agent": "BlueLake", "auto_accept": true, "welcome_subject": "Hi", "welcome_body": "Approved."})
	o.want(hs, "response.contact.state", "approved")
	o.want(hs, "welcome_message.message.from", "GreenCastle")
	b.want(b.ok("fetch_inbox", args{}), "messages.0.subject", "Hi")
}

func TestGuard(t *testing.T) {
	g, _ := twoAgents(t)
	inst := g.ok("install_precommit_guard", args{"code_repo_path": g.repo})
	g.want(inst, "mode", "block")
	g.want(inst, "store", g.store)
	hook := filepath.Join(g.repo, ".git", "hooks", "pre-commit")
	if b, err := os.ReadFile(hook); err != nil || !strings.Contains(string(b), "guard check") {
		t.Fatalf("pre-commit hook: %v\n%s", err, b)
	}
	g.fail("install_precommit_guard", args{"code_repo_path": "repo"}, "INVALID_ARGUMENT")

	g.want(g.ok("uninstall_precommit_guard", args{"code_repo_path": g.repo}), "hooks.0.action", "removed")
	if _, err := os.Stat(hook); !os.IsNotExist(err) {
		t.Errorf("pre-commit hook still there: %v", err)
	}
	g.fail("uninstall_precommit_guard", args{"code_repo_path": t.TempDir()}, "NO_PROJECT")
}

func TestStartSession(t *testing.T) {
	g, b := twoAgents(t)
	g.ok("file_reservation_paths", args{"paths": []string{"src/**"}})
	g.ok("send_message", args{"to": "BlueLake", "subject": "welcome back", "body_md": ""})

	// A new session takes BlueLake up again; its reservation conflicts,
	// which the result lists instead of failing.
	s := g.peer("")
	res := s.ok("macro_start_session", args{"human_key": g.repo, "program": "codex", "model": "gpt", "agent_name": "BlueLake",
		"file_reservation_paths": []string{"src/web/**", "docs/**"}})
	s.want(res, "project.key", g.repo)
	s.want(res, "agent.name", "BlueLake")
	s.want(res, "agent.program", "codex")
	s.want(res, "file_reservations.granted", []any{})
	s.want(res, "file_reservations.conflicts.0.holder", "GreenCastle")
	s.want(res, "inbox.messages.0.subject", "welcome back")
	s.want(s.ok("health_check", args{}), "agent", "BlueLake")

	fresh := g.peer("").ok("macro_start_session", args{"program": "gemini", "file_reservation_paths": []string{"docs/**"}, "file_reservation_ttl_seconds": 60})
	g.want(fresh, "file_reservations.granted.0.reason", "macro-session")
	g.peer("").fail("macro_start_session", args{"agent_name": "cc-0"}, "INVALID_NAME")
	b.fail("macro_start_session", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
}

func TestPrepareThread(t *testing.T) {
	g, b := twoAgents(t)
	id := g.ok("send_message", args{"to": "BlueLake", "subject": "plan", "body_md": "- [ ] schema", "thread_id": "plan-q4"}).str("message.id")
	b.ok("reply_message", args{"message_id": id, "body_md": "on it"})

	// A new session joins as BlueLake, named.
	s := g.peer("")
	res := s.ok("macro_prepare_thread", args{"thread_id": "plan-q4", "agent_name": "BlueLake"})
	s.want(res, "thread.thread", "plan-q4")
	s.want(res, "thread.participants", []any{"GreenCastle", "BlueLake"})
	s.want(res, "thread.messages.1.body", "on it")
	s.want(res, "project.key", g.repo)
	s.want(res, "agent.name", "BlueLake")
	s.want(res, "inbox.messages.0.body", nil)
	s.want(s.ok("health_check", args{}), "agent", "BlueLake")
	s.want(s.ok("macro_prepare_thread", args{"thread_id": id, "include_inbox_bodies": true, "register_if_missing": false}), "inbox.messages.0.body", "- [ ] schema")

	// An agent not registered yet is, unless register_if_missing is
	// false; a newcomer does not see the thread, though.
	g.peer("").fail("macro_prepare_thread", args{"thread_id": "plan-q4", "agent_name": "RedFox", "register_if_missing": false}, "NOT_REGISTERED")
	g.peer("").fail("macro_prepare_thread", args{"thread_id": "plan-q4", "agent_name": "RedFox", "program": "codex"}, "NOT_FOUND")
	g.want(g.ok("whois", args{"agent_name": "RedFox"}), "agent.program", "codex")
	b.fail("macro_prepare_thread", args{"thread_id": "01ZZZZZZZZZZ"}, "NOT_FOUND")
}

func TestReservationCycle(t *testing.T) {
	g, b := twoAgents(t)
	cycle := g.ok("macro_file_reservation_cycle", args{"paths": []string{"src/**"}, "auto_release": true})
	g.want(cycle, "file_reservations.granted.0.reason", "macro-file_reservation")
	g.want(cycle, "released.released", 1)
	kept := g.ok("macro_file_reservation_cycle", args{"paths": []string{"src/**"}})
	g.want(kept, "released", nil)
	e := b.fail("macro_file_reservation_cycle", args{"paths": []string{"src/a.go"}, "auto_release": true}, "RESERVATION_CONFLICT")
	if len(e.Conflicts) != 1 {
		t.Errorf("conflicts: %+v", e.Conflicts)
	}
}
