package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// A faceDefault is one default of a request as each face shows it: the
// command line's flag (its help says "(default: …)") and the MCP tool's
// argument (its schema's "default", and the end of its description). The
// HTTP API's fields left out are compared by the parity table: reserve,
// renew, lock and port claim there name no duration, and their documents
// must be the command line's.
type faceDefault struct {
	value any      // the service's: a time.Duration or an int
	cmd   []string // the command, and its flag
	flag  string
	tools map[string]string // MCP tool -> argument (durations in seconds)
}

func faceDefaults() []faceDefault {
	return []faceDefault{
		{service.DefaultReserveTTL, []string{"reserve"}, "ttl", map[string]string{
			"file_reservation_paths": "ttl_seconds", "macro_file_reservation_cycle": "ttl_seconds", "macro_start_session": "file_reservation_ttl_seconds"}},
		{service.DefaultRenewExtend, []string{"renew"}, "extend", map[string]string{"renew_file_reservations": "extend_seconds"}},
		{service.DefaultLockTTL, []string{"lock", "acquire"}, "ttl", map[string]string{"acquire_lock": "ttl_seconds", "renew_lock": "ttl_seconds"}},
		{service.DefaultLockTTL, []string{"lock", "renew"}, "ttl", nil},
		{service.DefaultPortTTL, []string{"port", "claim"}, "ttl", map[string]string{"claim_port": "ttl_seconds"}},
		{service.DefaultClaimTTL, []string{"task", "claim"}, "ttl", map[string]string{"claim_task": "ttl_seconds"}},
		{service.DefaultPurgeAge, []string{"purge"}, "older-than-days", nil},
		{service.DefaultListLimit, []string{"inbox"}, "limit", map[string]string{"fetch_inbox": "limit"}},
		{service.DefaultListLimit, []string{"outbox"}, "limit", nil},
		{service.DefaultListLimit, []string{"search"}, "limit", map[string]string{"search_messages": "limit"}},
		{service.DefaultListLimit, []string{"topic", "show"}, "limit", nil},
		{service.DefaultTaskLimit, []string{"task", "list"}, "limit", map[string]string{"list_tasks": "limit"}},
		{service.DefaultReadyLimit, []string{"work"}, "limit", map[string]string{"list_ready_work": "limit"}},
		{service.DefaultPriority, []string{"task", "create"}, "priority", map[string]string{"create_task": "priority"}},
		{service.DefaultCheckNewest, nil, "", map[string]string{"check_mail": "newest"}},
		{int(service.DefaultSummaryWindow / time.Hour), nil, "", map[string]string{"fetch_summary": "since_hours"}},
	}
}

// TestFaceDefaults fails when a face's default is not the service's:
// the command line's flag, the MCP schema, and what a lease left to its
// default lasts.
func TestFaceDefaults(t *testing.T) {
	w := newWorld(t)
	w.ok(nil, "--agent", "BlueLake", "register", "--program", "parity")
	schemas := map[string]map[string]any{}
	for tl, err := range w.session("BlueLake").Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tl.InputSchema)
		var s struct{ Properties map[string]any }
		_ = json.Unmarshal(b, &s)
		schemas[tl.Name] = s.Properties
	}
	for _, d := range faceDefaults() {
		text, number := fmt.Sprint(d.value), d.value
		if dur, ok := d.value.(time.Duration); ok {
			text, number = dur.String(), int(dur/time.Second)
		}
		if d.cmd != nil {
			help := w.help(d.cmd...)
			re := regexp.MustCompile(`(?m)^\s+--` + regexp.QuoteMeta(d.flag) + `\b.*\(default: ([^)]*)\)$`)
			m := re.FindStringSubmatch(help)
			switch {
			case m == nil:
				t.Errorf("agentmail %s --help shows no default of --%s", strings.Join(d.cmd, " "), d.flag)
			case m[1] != text:
				t.Errorf("agentmail %s --%s defaults to %s, the service to %s", strings.Join(d.cmd, " "), d.flag, m[1], text)
			}
		}
		for tool, arg := range d.tools {
			p, _ := schemas[tool][arg].(map[string]any)
			if p == nil {
				t.Errorf("MCP %s has no argument %s", tool, arg)
				continue
			}
			if !equalJSON(p["default"], number) {
				t.Errorf("MCP %s's %s defaults to %v, the service to %v", tool, arg, p["default"], number)
			}
			if desc, _ := p["description"].(string); !strings.HasSuffix(desc, fmt.Sprintf("; default %v", number)) {
				t.Errorf("MCP %s's %s says %q, not its default %v", tool, arg, desc, number)
			}
		}
	}

	// What a lease, a lock and a port claim left to their defaults last.
	var r struct {
		Granted []struct{ Created, Expires time.Time }
		Renewed []struct{ Created, Expires time.Time }
		Lock    struct{ Created, Expires time.Time }
		Port    struct{ Created, Expires time.Time }
	}
	lasts := func(what string, got, want time.Duration) {
		if got != want {
			t.Errorf("%s lasts %s, the service's default is %s", what, got, want)
		}
	}
	w.ok(&r, "--agent", "BlueLake", "reserve", "src/**")
	lasts("reserve", r.Granted[0].Expires.Sub(r.Granted[0].Created), service.DefaultReserveTTL)
	w.ok(&r, "--agent", "BlueLake", "renew")
	lasts("renew", r.Renewed[0].Expires.Sub(r.Renewed[0].Created), service.DefaultReserveTTL+service.DefaultRenewExtend)
	w.ok(&r, "--agent", "BlueLake", "lock", "acquire", "deploy")
	lasts("lock acquire", r.Lock.Expires.Sub(r.Lock.Created), service.DefaultLockTTL)
	w.ok(&r, "--agent", "BlueLake", "port", "claim", "web")
	lasts("port claim", r.Port.Expires.Sub(r.Port.Created), service.DefaultPortTTL)
}

// help returns agentmail CMD... --help.
func (w *world) help(cmd ...string) string {
	w.t.Helper()
	out, err := w.command(append(cmd, "--help")...).Output()
	if err != nil {
		w.t.Fatalf("agentmail %s --help: %v", strings.Join(cmd, " "), err)
	}
	return string(out)
}
