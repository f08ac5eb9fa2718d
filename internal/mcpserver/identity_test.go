package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session acts as the agents it registered (the first when it names
// none; or the one it was started as, or named first); naming another is
// AUTHENTICATION_REQUIRED, unless the call carries that agent's
// registration token.
func TestSessionActsAsItsAgent(t *testing.T) {
	g := newHarness(t)
	g.fail("fetch_inbox", args{}, "NOT_REGISTERED") // nobody yet
	g.want(g.ok("health_check", args{}), "agent", nil)
	green := g.ok("register_agent", args{"name": "GreenCastle"})
	if tok := green.str("registration_token"); !strings.HasPrefix(tok, "amrt_") {
		t.Errorf("register_agent's registration_token: %q", tok)
	}
	g.want(g.ok("health_check", args{}), "agent", "GreenCastle")
	g.ok("fetch_inbox", args{"agent_name": "greencastle"}) // names ignore case

	e := g.fail("fetch_inbox", args{"agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")
	if e.Type != "AUTHENTICATION_REQUIRED" || !strings.Contains(e.Hint, "registration_token") {
		t.Errorf("acting as another: %+v", e)
	}
	g.fail("send_message", args{"sender_name": "BlueLake", "to": "GreenCastle", "subject": "x", "body_md": ""}, "AUTHENTICATION_REQUIRED")

	// Registering again without a name updates one's own profile.
	g.want(g.ok("register_agent", args{"task_description": "auth"}), "agent.name", "GreenCastle")
	g.want(g.ok("whois", args{}), "agent.task", "auth")
}

// Several agents in one session (an orchestrator driving several): each
// agent a session registers is its; another session acts as one only with
// its registration token, which does not bind it there.
func TestSeveralAgentsInOneSession(t *testing.T) {
	o := newHarness(t)
	greenTok := o.ok("register_agent", args{"name": "GreenCastle"}).str("registration_token")
	blueTok := o.ok("register_agent", args{"name": "BlueLake"}).str("registration_token")
	if greenTok == blueTok || greenTok == "" {
		t.Fatalf("tokens: %q and %q", greenTok, blueTok)
	}
	o.want(o.ok("health_check", args{}), "agent", "GreenCastle") // the first stays the default
	o.want(o.ok("send_message", args{"sender_name": "BlueLake", "to": "GreenCastle", "subject": "from blue", "body_md": ""}), "message.from", "BlueLake")
	o.want(o.ok("fetch_inbox", args{}), "messages.0.subject", "from blue")
	o.want(o.ok("fetch_inbox", args{"agent_name": "BlueLake"}), "messages", []any{})
	created := o.ok("create_agent_identity", args{"program": "codex", "model": "gpt"})
	third := created.str("name")
	o.want(o.ok("check_mail", args{"agent_name": third}), "unread", 0.0)

	// Another session: not without the token, nor with another's.
	x := o.peer("")
	x.ok("register_agent", args{"name": "RedFox"})
	x.fail("fetch_inbox", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
	e := x.fail("register_agent", args{"name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
	if !strings.Contains(e.Message, "registration token") {
		t.Errorf("registering another session's agent: %+v", e)
	}
	x.fail("send_message", args{"sender_name": "GreenCastle", "sender_token": blueTok, "to": "BlueLake", "subject": "x", "body_md": ""}, "AUTHENTICATION_REQUIRED")
	x.fail("send_message", args{"sender_name": "GreenCastle", "sender_token": "amrt_forged", "to": "BlueLake", "subject": "x", "body_md": ""}, "AUTHENTICATION_REQUIRED")
	// With it, the call acts as the agent; the session does not keep it.
	x.want(x.ok("send_message", args{"sender_name": "GreenCastle", "sender_token": greenTok, "to": "BlueLake", "subject": "by token", "body_md": ""}), "message.from", "GreenCastle")
	x.want(x.ok("fetch_inbox", args{"agent_name": "BlueLake", "registration_token": blueTok}), "messages.0.subject", "by token")
	x.fail("fetch_inbox", args{"agent_name": "BlueLake"}, "AUTHENTICATION_REQUIRED")
	x.want(x.ok("health_check", args{}), "agent", "RedFox")
	// Registering with the token takes the agent up in this session.
	x.want(x.ok("register_agent", args{"name": "BlueLake", "registration_token": blueTok, "task_description": "moved"}), "agent.task", "moved")
	x.ok("fetch_inbox", args{"agent_name": "BlueLake"})
	// The same agent gets the same token from the same store.
	if tok := x.ok("register_agent", args{"name": "BlueLake"}).str("registration_token"); tok != blueTok {
		t.Errorf("BlueLake's token changed: %q, was %q", tok, blueTok)
	}
}

// A server started as an agent (AGENTMAIL_AGENT) is that agent from the
// first call.
func TestStartedAsAnAgent(t *testing.T) {
	g, b := twoAgents(t)
	b.fail("register_agent", args{"name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
	b.fail("fetch_inbox", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
	g.ok("send_message", args{"to": "BlueLake", "subject": "hi", "body_md": ""})
	b.want(b.ok("fetch_inbox", args{}), "messages.0.subject", "hi")
}

// An unbound session takes on the first agent a successful call names; a
// failed call binds nothing.
func TestFirstNamedAgentBinds(t *testing.T) {
	g, _ := twoAgents(t)
	s := g.peer("")
	s.fail("fetch_inbox", args{"agent_name": "PurpleRain"}, "NOT_REGISTERED")
	s.ok("fetch_inbox", args{"agent_name": "BlueLake"})
	s.ok("check_mail", args{}) // as BlueLake, named no more
	s.fail("fetch_inbox", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
}

// An overseer's session acts as any agent, and as nobody: mail from the
// human, searches of the whole project.
func TestOverseer(t *testing.T) {
	g, b := twoAgents(t)
	o := g.peer("", overseer)
	o.want(o.ok("send_message", args{"sender_name": "BlueLake", "to": "GreenCastle", "subject": "as Blue", "body_md": ""}), "message.from", "BlueLake")
	o.want(o.ok("send_message", args{"to": "GreenCastle", "subject": "from a human", "body_md": ""}), "message.from", "Human")
	o.want(o.ok("fetch_inbox", args{"agent_name": "GreenCastle"}), "messages.0.subject", "from a human")
	if n := len(o.ok("search_messages", args{"query": "human OR Blue", "all": true}).list("results")); n != 2 {
		t.Errorf("an overseer's search of the whole project: %d results, want 2", n)
	}
	o.ok("fetch_inbox", args{"agent_name": "BlueLake"}) // binds nothing
	o.want(o.ok("health_check", args{}), "overseer", true)
	b.want(b.ok("health_check", args{}), "overseer", false)
}

// project_key is an absolute path (any directory of the repository), a
// project key, or nothing: the server's project.
func TestProjectKey(t *testing.T) {
	g, b := twoAgents(t)
	sub := filepath.Join(g.repo, "src", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	g.ok("send_message", args{"project_key": sub, "to": "BlueLake", "subject": "from a subdirectory", "body_md": ""})
	b.want(b.ok("fetch_inbox", args{}), "messages.0.subject", "from a subdirectory")

	// Paths are relative to project_key's directory, as in git.
	g.want(g.ok("file_reservation_paths", args{"project_key": sub, "paths": []string{"*.go"}}), "granted.0.pattern", "src/api/*.go")

	// A slug, or a prefix of one reaching into its hash, names its
	// project, as in mcp_agent_mail.
	slug := g.ok("health_check", args{}).str("project.slug")
	b.want(b.ok("fetch_inbox", args{"project_key": slug}), "messages.0.subject", "from a subdirectory")
	b.want(b.ok("fetch_inbox", args{"project_key": slug[:len(slug)-3]}), "messages.0.subject", "from a subdirectory")

	// A key no project has, a bare word, a placeholder from an example, a
	// path outside any repository: refused, with the projects there are,
	// not taken as a new project. ensure_project makes a new one.
	name, _, _ := strings.Cut(slug, "-")
	for _, key := range []string{"github.com/acme/other", name, "YOUR_PROJECT", "/abs/path/to/project", "/path/to/your/repo", "<project_key>"} {
		e := b.fail("fetch_inbox", args{"project_key": key}, "NO_PROJECT")
		if !strings.Contains(e.Message, slug) || !strings.Contains(e.Hint, "ensure_project") {
			t.Errorf("project_key %q: %+v", key, e)
		}
	}
	g.fail("ensure_project", args{"human_key": "YOUR_PROJECT"}, "NO_PROJECT")
	g.fail("ensure_project", args{"human_key": "/abs/path/to/project"}, "NO_PROJECT")
	g.want(g.ok("ensure_project", args{"human_key": "github.com/acme/other"}), "project.key", "github.com/acme/other")

	// A key names another project, where nobody is registered.
	b.fail("fetch_inbox", args{"project_key": "github.com/acme/other"}, "NOT_REGISTERED")
	g.fail("health_check", args{"project_key": "../repo"}, "INVALID_ARGUMENT")
	g.fail("health_check", args{"format": "toon"}, "INVALID_ARGUMENT")
	g.want(g.ok("health_check", args{"project_key": "github.com/acme/other"}), "project.key", "github.com/acme/other")

	// A directory outside any repository is a key of its own.
	outside := t.TempDir()
	g.want(g.ok("ensure_project", args{"human_key": outside}), "project.key", outside)
	g.want(g.ok("ensure_project", args{"human_key": sub}), "project.key", g.repo)
	g.fail("ensure_project", args{"human_key": "./here"}, "INVALID_ARGUMENT")
}
