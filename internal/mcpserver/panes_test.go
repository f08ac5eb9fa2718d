package mcpserver

import (
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// livePanesForTest makes fn list tmux's panes, until the returned
// function restores the real one.
func livePanesForTest(fn func() ([]string, bool)) (restore func()) {
	was := service.LivePanes
	service.LivePanes = fn
	return func() { service.LivePanes = was }
}

// A server running in a tmux pane records which agent registered there;
// the window and pane tools list, rename, expire, resolve and clean up
// those identities, kept in the store directory.
func TestPaneIdentities(t *testing.T) {
	g := newHarness(t, func(c *Config) { c.Pane = "%7" })
	g.ok("register_agent", args{"name": "GreenCastle"})
	g.ok("create_agent_identity", args{"name_hint": "BlueLake"})
	list := g.ok("list_window_identities", args{})
	if list.num("count") != 1 || list.str("identities.0.window_uuid") != "%7" || list.str("identities.0.display_name") != "BlueLake" {
		t.Errorf("list_window_identities: %v", list) // the pane's last registration stands
	}
	r := g.ok("resolve_pane_identity", args{})
	if r.str("agent_name") != "BlueLake" || r.str("pane_id") != "%7" || r.str("identity_path") == "" {
		t.Errorf("resolve_pane_identity: %v", r)
	}
	g.fail("resolve_pane_identity", args{"pane_id": "%99"}, "NOT_FOUND")

	n := g.ok("rename_window", args{"window_uuid": "%7", "new_display_name": "GreenCastle"})
	if n.str("display_name") != "GreenCastle" || n.str("old_display_name") != "BlueLake" {
		t.Errorf("rename_window: %v", n)
	}
	g.fail("rename_window", args{"window_uuid": "%7", "new_display_name": "RedFox"}, "NOT_FOUND") // no such agent
	g.fail("rename_window", args{"window_uuid": "%7", "new_display_name": "backend-bot"}, "INVALID_NAME")

	// Another pane: a server elsewhere.
	p := g.peer("", func(c *Config) { c.Pane = "%8" })
	p.ok("register_agent", args{"name": "RedFox"})
	p.want(p.ok("resolve_pane_identity", args{}), "agent_name", "RedFox")
	g.want(g.ok("resolve_pane_identity", args{"pane_id": "%8"}), "agent_name", "RedFox")

	e := g.ok("expire_window", args{"window_uuid": "%8"})
	if e.get("expired") != true || e.str("expired_at") == "" {
		t.Errorf("expire_window: %v", e)
	}
	g.fail("expire_window", args{"window_uuid": "%8"}, "NOT_FOUND")
	g.want(g.ok("list_window_identities", args{}), "count", 1.0)

	// Clean-up: dead panes go when tmux answers, expired ones always.
	livePanesWas := livePanesForTest(func() ([]string, bool) { return []string{"%1"}, true })
	defer livePanesWas()
	c := g.ok("cleanup_pane_identities", args{})
	if c.num("removed_count") != 2 || c.get("tmux_running") != true { // %7 dead, %8 expired
		t.Errorf("cleanup_pane_identities: %v", c)
	}
	g.want(g.ok("list_window_identities", args{}), "count", 0.0)
	g.fail("resolve_pane_identity", args{}, "NOT_FOUND")

	// A server in no pane has no pane to resolve.
	h := newHarness(t)
	h.fail("resolve_pane_identity", args{}, "USAGE")
	h.clock.Add(time.Second)
	h.want(h.ok("cleanup_pane_identities", args{}), "removed_count", 0.0)
}
