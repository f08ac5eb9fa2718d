package parity

import (
	"fmt"
	"strings"
)

// channels counts the channels the table's polls made.
var channels int

// ops is the table of operations the faces share.
func ops() []op {
	msg := func(to string, extra ...string) func(w *world) map[string]string {
		return func(w *world) map[string]string {
			args := append([]string{"--agent", to, "send", "--to", "BlueLake", "--subject", "please look", "--body", "at this"}, extra...)
			return map[string]string{"id": w.cliID(args...)}
		}
	}
	releaseAll := func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "release", "--all") }
	// newcomer registers an agent with a generated name, {name}, then
	// runs the commands given as it.
	newcomer := func(then ...[]string) func(w *world) map[string]string {
		return func(w *world) map[string]string {
			var doc struct{ Agent struct{ Name string } }
			w.ok(&doc, "register", "--program", "parity")
			for _, c := range then {
				args := []string{"--agent", doc.Agent.Name}
				for _, a := range c {
					args = append(args, strings.ReplaceAll(a, "{name}", doc.Agent.Name))
				}
				w.ok(nil, args...)
			}
			return map[string]string{"name": doc.Agent.Name}
		}
	}
	// task makes a task of GreenCastle's, then runs the commands given
	// on it (as BlueLake; {id} is the task).
	task := func(then ...[]string) func(w *world) map[string]string {
		return func(w *world) map[string]string {
			id := w.cliID("--agent", "GreenCastle", "task", "create", "Some work")
			for _, c := range then {
				args := []string{"--agent", "BlueLake"}
				for _, a := range c {
					args = append(args, expand(a, map[string]string{"id": id, "T0": w.shared["T0"]}))
				}
				w.ok(nil, args...)
			}
			return map[string]string{"id": id}
		}
	}
	return []op{
		// Agents.
		{name: "agents/all", agent: "BlueLake", cli: []string{"agents", "--all"}, tool: "list_agents", args: map[string]any{"include_retired": true},
			method: "GET", path: "/agents"},
		{name: "agents", agent: "BlueLake", cli: []string{"agents"}, tool: "list_agents", args: map[string]any{},
			method: "GET", path: "/agents"},

		{name: "register", agent: "GentleBobcat", cli: []string{"register", "--program", "parity", "--model", "test", "--task", "the lexer"},
			tool: "register_agent", args: map[string]any{"program": "parity", "model": "test", "task_description": "the lexer"}},
		{name: "register/bad-name", agent: "GentleBobcat", cli: []string{"register", "--name", "RedCat"},
			tool: "register_agent", args: map[string]any{"name": "RedCat"}, code: "INVALID_NAME", field: "name"},
		{name: "inbox/not-registered", agent: "WhiteOtter", cli: []string{"inbox"}, tool: "fetch_inbox", args: map[string]any{},
			method: "GET", path: "/agents/WhiteOtter/inbox", code: "NOT_REGISTERED"},

		// Each face retires an agent of its own, registered for it.
		{name: "retire", agent: "{name}", fresh: true, vary: []string{"name"}, setup: newcomer(),
			cli: []string{"agents", "retire", "{name}"}, tool: "retire_agent", args: map[string]any{"agent_name": "{name}"}},
		{name: "unretire", agent: "{name}", fresh: true, vary: []string{"name"}, setup: newcomer([]string{"agents", "retire", "{name}"}),
			cli: []string{"agents", "unretire", "{name}"}, tool: "unretire_agent", args: map[string]any{"agent_name": "{name}"}},
		{name: "deregister", agent: "{name}", fresh: true, vary: []string{"name"}, setup: newcomer(),
			cli: []string{"agents", "deregister", "{name}"}, tool: "deregister_agent", args: map[string]any{"agent_name": "{name}"}},
		{name: "purge", agent: "BlueLake", cli: []string{"purge"}, tool: "purge_old_messages", args: map[string]any{}},
		{name: "contacts/deny", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				w.ok(nil, "--agent", "GentleBobcat", "contacts", "request", "BlueLake", "--reason", "the parser")
				return nil
			},
			cli:  []string{"contacts", "deny", "GentleBobcat"},
			tool: "respond_contact", args: map[string]any{"from_agent": "GentleBobcat", "accept": false},
			method: "POST", path: "/contacts/respond", body: `{"agent":"BlueLake","from":"GentleBobcat","approve":false}`},
		{name: "rules", agent: "BlueLake", cli: []string{"rules", "show"}, tool: "get_rules", args: map[string]any{}},
		{name: "rules/bad-role", agent: "BlueLake", cli: []string{"rules", "show", "--role", "no role"}, tool: "get_rules", args: map[string]any{"role": "no role"},
			code: "INVALID_ARGUMENT", field: "role"},
		{name: "policy", agent: "BlueLake", cli: []string{"policy", "set", "open"}, tool: "set_contact_policy", args: map[string]any{"policy": "open"}},
		{name: "policy/bad", agent: "BlueLake", cli: []string{"policy", "set", "nobody"}, tool: "set_contact_policy", args: map[string]any{"policy": "nobody"},
			code: "INVALID_ARGUMENT", field: "policy"},
		{name: "contacts/request", agent: "BlueLake", fresh: true,
			cli:  []string{"contacts", "request", "GentleBobcat", "--reason", "the lexer"},
			tool: "request_contact", args: map[string]any{"to_agent": "GentleBobcat", "reason": "the lexer"},
			method: "POST", path: "/contacts/request", body: `{"agent":"BlueLake","to":"GentleBobcat","reason":"the lexer"}`},
		{name: "contacts/approve", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				w.ok(nil, "--agent", "GentleBobcat", "contacts", "request", "BlueLake", "--reason", "the parser")
				return nil
			},
			cli:  []string{"contacts", "approve", "GentleBobcat"},
			tool: "respond_contact", args: map[string]any{"from_agent": "GentleBobcat", "accept": true},
			method: "POST", path: "/contacts/respond", body: `{"agent":"BlueLake","from":"GentleBobcat","approve":true}`},
		{name: "contacts", agent: "BlueLake", cli: []string{"contacts", "list"}, tool: "list_contacts", args: map[string]any{},
			method: "GET", path: "/contacts?agent=BlueLake"},

		// Mail.
		{name: "inbox", agent: "BlueLake", cli: []string{"inbox"}, tool: "fetch_inbox", args: map[string]any{},
			method: "GET", path: "/agents/BlueLake/inbox"},
		{name: "inbox/bodies-unread", agent: "BlueLake", cli: []string{"inbox", "--bodies", "--unread", "--limit", "5"},
			tool: "fetch_inbox", args: map[string]any{"include_bodies": true, "unread_only": true, "limit": 5},
			method: "GET", path: "/agents/BlueLake/inbox?bodies=true&unread=true&limit=5"},
		{name: "inbox/urgent", agent: "BlueLake", cli: []string{"inbox", "--urgent"}, tool: "fetch_inbox", args: map[string]any{"urgent_only": true},
			method: "GET", path: "/agents/BlueLake/inbox?urgent=true"},
		{name: "inbox/bad-since", agent: "BlueLake", cli: []string{"inbox", "--since", "yesterday-ish"}, tool: "fetch_inbox", args: map[string]any{"since_ts": "yesterday-ish"},
			method: "GET", path: "/agents/BlueLake/inbox?since=yesterday-ish", code: "USAGE"},
		{name: "search/all", agent: "BlueLake", cli: []string{"search", "plan", "--all"},
			why:    "MCP: only an overseer's server searches the whole project (an agent's answers AUTHENTICATION_REQUIRED)",
			method: "GET", path: "/search?q=plan"},
		{name: "show", agent: "BlueLake", cli: []string{"show", "{M0}"}, uri: "resource://message/{M0}",
			method: "GET", path: "/messages/{M0}?agent=BlueLake"},
		{name: "show/not-found", agent: "BlueLake", cli: []string{"show", "01M8JBXZ41GYFGY202BPFSTDBN"}, uri: "resource://message/01M8JBXZ41GYFGY202BPFSTDBN",
			method: "GET", path: "/messages/01M8JBXZ41GYFGY202BPFSTDBN?agent=BlueLake", code: "NOT_FOUND"},
		{name: "thread", agent: "BlueLake", cli: []string{"thread", "{M0}"}, tool: "get_thread", args: map[string]any{"thread_id": "{M0}"},
			method: "GET", path: "/threads/{M0}?agent=BlueLake"},
		{name: "search", agent: "BlueLake", cli: []string{"search", "parser"}, tool: "search_messages", args: map[string]any{"query": "parser"},
			method: "GET", path: "/search?q=parser&agent=BlueLake"},
		{name: "send", agent: "BlueLake", fresh: true,
			cli:  []string{"send", "--to", "GreenCastle", "--subject", "status", "--body", "all good"},
			tool: "send_message", args: map[string]any{"to": []string{"GreenCastle"}, "subject": "status", "body_md": "all good"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","to":["GreenCastle"],"subject":"status","body":"all good"}`},
		{name: "send/full", agent: "BlueLake", fresh: true,
			cli: []string{"send", "--to", "GreenCastle", "--cc", "GentleBobcat", "--subject", "handoff", "--body", "yours now",
				"--importance", "high", "--category", "HANDOFF", "--thread", "parser-work"},
			tool: "send_message", args: map[string]any{"to": []string{"GreenCastle"}, "cc": []string{"GentleBobcat"}, "subject": "handoff", "body_md": "yours now",
				"importance": "high", "category": "HANDOFF", "thread_id": "parser-work"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","to":["GreenCastle"],"cc":["GentleBobcat"],"subject":"handoff","body":"yours now","importance":"high","category":"HANDOFF","thread":"parser-work"}`},
		{name: "send/bad-importance", agent: "BlueLake",
			cli:  []string{"send", "--to", "GreenCastle", "--subject", "x", "--body", "y", "--importance", "extreme"},
			tool: "send_message", args: map[string]any{"to": []string{"GreenCastle"}, "subject": "x", "body_md": "y", "importance": "extreme"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","to":["GreenCastle"],"subject":"x","body":"y","importance":"extreme"}`, code: "INVALID_ARGUMENT", field: "importance"},
		{name: "thread/by-name", agent: "BlueLake",
			cli: []string{"thread", "lexer-talk"}, tool: "get_thread", args: map[string]any{"thread_id": "lexer-talk"},
			method: "GET", path: "/threads/lexer-talk?agent=BlueLake"},
		{name: "reply/all", agent: "BlueLake", fresh: true,
			cli:  []string{"reply", "{M0}", "--all", "--body", "to all"},
			tool: "reply_message", args: map[string]any{"message_id": "{M0}", "body_md": "to all", "all": true},
			method: "POST", path: "/messages/{M0}/reply", body: `{"agent":"BlueLake","body":"to all","all":true}`},
		{name: "send/unknown-recipient", agent: "BlueLake",
			cli:  []string{"send", "--to", "NoSuchAgent", "--subject", "status", "--body", "all good"},
			tool: "send_message", args: map[string]any{"to": []string{"NoSuchAgent"}, "subject": "status", "body_md": "all good"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","to":["NoSuchAgent"],"subject":"status","body":"all good"}`,
			code: "UNKNOWN_RECIPIENT", field: "to"},
		{name: "send/no-subject", agent: "BlueLake",
			cli:  []string{"send", "--to", "GreenCastle", "--subject", " ", "--body", "all good"},
			tool: "send_message", args: map[string]any{"to": []string{"GreenCastle"}, "subject": " ", "body_md": "all good"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","to":["GreenCastle"],"subject":" ","body":"all good"}`,
			code: "INVALID_ARGUMENT", field: "subject"},
		{name: "reply", agent: "BlueLake", fresh: true,
			cli:  []string{"reply", "{M0}", "--body", "on it"},
			tool: "reply_message", args: map[string]any{"message_id": "{M0}", "body_md": "on it"},
			method: "POST", path: "/messages/{M0}/reply", body: `{"agent":"BlueLake","body":"on it"}`},
		{name: "ack", agent: "BlueLake", fresh: true, setup: msg("GreenCastle", "--ack"),
			cli: []string{"ack", "{id}"}, tool: "acknowledge_message", args: map[string]any{"message_id": "{id}"},
			method: "POST", path: "/messages/{id}/ack", body: `{"agent":"BlueLake"}`},
		{name: "read", agent: "BlueLake", fresh: true, setup: msg("GreenCastle"),
			cli: []string{"read", "{id}"}, tool: "mark_message_read", args: map[string]any{"message_id": "{id}"},
			method: "POST", path: "/messages/{id}/read", body: `{"agent":"BlueLake"}`},
		{name: "read/not-found", agent: "BlueLake",
			cli: []string{"read", "01M8JBXZ41GYFGY202BPFSTDBN"}, tool: "mark_message_read", args: map[string]any{"message_id": "01M8JBXZ41GYFGY202BPFSTDBN"},
			method: "POST", path: "/messages/01M8JBXZ41GYFGY202BPFSTDBN/read", body: `{"agent":"BlueLake"}`, code: "NOT_FOUND", field: "message_id"},

		{name: "outbox", agent: "GreenCastle", cli: []string{"outbox"}, uri: "resource://outbox/GreenCastle?project={slug}",
			method: "GET", path: "/agents/GreenCastle/outbox"},
		{name: "receipt", agent: "GreenCastle", cli: []string{"receipt", "{M0}"}, tool: "get_message_delivery_receipt", args: map[string]any{"message_id": "{M0}"},
			method: "GET", path: "/messages/{M0}/receipt?agent=GreenCastle"},
		{name: "reply/not-found", agent: "BlueLake",
			cli:  []string{"reply", "01M8JBXZ41GYFGY202BPFSTDBN", "--body", "on it"},
			tool: "reply_message", args: map[string]any{"message_id": "01M8JBXZ41GYFGY202BPFSTDBN", "body_md": "on it"},
			method: "POST", path: "/messages/01M8JBXZ41GYFGY202BPFSTDBN/reply", body: `{"agent":"BlueLake","body":"on it"}`, code: "NOT_FOUND", field: "message_id"},

		{name: "topics", agent: "BlueLake", cli: []string{"topic", "list"}, method: "GET", path: "/topics?agent=BlueLake"},
		{name: "acks/pending", agent: "BlueLake", cli: []string{"acks", "pending"}, method: "GET", path: "/acks?agent=BlueLake"},
		{name: "unsubscribe", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "subscribe", "deploys"); return nil },
			cli:   []string{"unsubscribe", "deploys"}, tool: "unsubscribe_topic", args: map[string]any{"topic": "deploys"}},
		{name: "subscribe", agent: "BlueLake", fresh: true,
			after: func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "unsubscribe", "builds") },
			cli:   []string{"subscribe", "builds"}, tool: "subscribe_topic", args: map[string]any{"topic": "builds"}},

		// Leases.
		{name: "reserve", agent: "BlueLake", fresh: true, after: releaseAll,
			cli:  []string{"reserve", "src/**", "--reason", "parser"},
			tool: "file_reservation_paths", args: map[string]any{"paths": []string{"src/**"}, "reason": "parser"},
			method: "POST", path: "/reservations", body: `{"agent":"BlueLake","patterns":["src/**"],"reason":"parser"}`},
		// A broad pattern's warning is in the document on every face.
		{name: "reserve/broad", agent: "BlueLake", fresh: true, after: releaseAll,
			cli:  []string{"reserve", "**", "--allow-conflicts"},
			tool: "file_reservation_paths", args: map[string]any{"paths": []string{"**"}, "allow_conflicts": true},
			method: "POST", path: "/reservations", body: `{"agent":"BlueLake","patterns":["**"],"allow_conflicts":true}`},
		{name: "reserve/conflict", agent: "BlueLake", after: releaseAll,
			cli:  []string{"reserve", "docs/api.md"},
			tool: "file_reservation_paths", args: map[string]any{"paths": []string{"docs/api.md"}},
			method: "POST", path: "/reservations", body: `{"agent":"BlueLake","patterns":["docs/api.md"]}`, code: "RESERVATION_CONFLICT"},
		{name: "reserve/bad-ttl", agent: "BlueLake",
			cli:  []string{"reserve", "src/**", "--ttl", "-5m"},
			tool: "file_reservation_paths", args: map[string]any{"paths": []string{"src/**"}, "ttl_seconds": -300},
			method: "POST", path: "/reservations", body: `{"agent":"BlueLake","patterns":["src/**"],"ttl":"-5m"}`, code: "INVALID_ARGUMENT", field: "ttl"},
		{name: "release", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "reserve", "lib/**"); return nil },
			pick:  map[string]func(any) any{faceMCP: rename("file_reservations", "released")},
			why:   "MCP: mcp_agent_mail's released is a count; the leases are under file_reservations",
			cli:   []string{"release", "lib/**"}, tool: "release_file_reservations", args: map[string]any{"paths": []string{"lib/**"}},
			method: "POST", path: "/reservations/release", body: `{"agent":"BlueLake","patterns":["lib/**"]}`},
		{name: "release/not-found", agent: "BlueLake",
			cli: []string{"release", "--id", "01M8JBXZ41GYFGY202BPFSTDBN"}, tool: "release_file_reservations", args: map[string]any{"file_reservation_ids": []string{"01M8JBXZ41GYFGY202BPFSTDBN"}},
			method: "POST", path: "/reservations/release", body: `{"agent":"BlueLake","ids":["01M8JBXZ41GYFGY202BPFSTDBN"]}`, code: "NOT_FOUND", field: "reservation_id"},
		{name: "renew", agent: "BlueLake", fresh: true, after: releaseAll,
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "reserve", "lib/**"); return nil },
			pick:  map[string]func(any) any{faceMCP: rename("file_reservations", "renewed")},
			why:   "MCP: mcp_agent_mail's renewed is a count; the leases are under file_reservations",
			cli:   []string{"renew"}, tool: "renew_file_reservations", args: map[string]any{},
			method: "POST", path: "/reservations/renew", body: `{"agent":"BlueLake"}`},
		{name: "reservations", agent: "BlueLake", cli: []string{"reservations"}, uri: "resource://file_reservations/{slug}",
			method: "GET", path: "/reservations"},
		{name: "reservations/check", agent: "BlueLake", cli: []string{"reservations", "check", "docs/api.md"},
			tool: "check_file_reservations", args: map[string]any{"paths": []string{"docs/api.md"}}},
		{name: "reservations/conflicts", agent: "BlueLake", cli: []string{"reservations", "conflicts", "docs/**"},
			tool: "check_file_reservation_conflicts", args: map[string]any{"paths": []string{"docs/**"}},
			method: "GET", path: "/reservations/conflicts?agent=BlueLake&path=docs/**"},

		{name: "renew/bad-extend", agent: "BlueLake", after: releaseAll,
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "reserve", "lib/**"); return nil },
			cli:   []string{"renew", "--extend", "-5m"}, tool: "renew_file_reservations", args: map[string]any{"extend_seconds": -300},
			method: "POST", path: "/reservations/renew", body: `{"agent":"BlueLake","extend":"-5m"}`, code: "INVALID_ARGUMENT", field: "extend"},
		{name: "reservations/check/no-paths", agent: "BlueLake", cli: []string{"reservations", "check"},
			tool: "check_file_reservations", args: map[string]any{"paths": []string{}}, code: "USAGE", field: "paths"},

		// Locks.
		{name: "lock", agent: "BlueLake", fresh: true,
			after: func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "lock", "release", "deploy") },
			cli:   []string{"lock", "acquire", "deploy"}, tool: "acquire_lock", args: map[string]any{"key": "deploy"},
			method: "POST", path: "/locks/acquire", body: `{"agent":"BlueLake","key":"deploy"}`},
		{name: "lock/held", agent: "BlueLake",
			cli: []string{"lock", "acquire", "gate"}, tool: "acquire_lock", args: map[string]any{"key": "gate"},
			method: "POST", path: "/locks/acquire", body: `{"agent":"BlueLake","key":"gate"}`, code: "LOCK_HELD"},
		{name: "unlock", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				w.ok(nil, "--agent", "BlueLake", "lock", "acquire", "deploy")
				return nil
			},
			cli: []string{"lock", "release", "deploy"}, tool: "release_lock", args: map[string]any{"key": "deploy"},
			method: "POST", path: "/locks/release", body: `{"agent":"BlueLake","key":"deploy"}`},
		{name: "locks", agent: "BlueLake", cli: []string{"lock", "list"}, tool: "list_locks", args: map[string]any{},
			method: "GET", path: "/locks"},

		{name: "lock/bad-ttl", agent: "BlueLake",
			cli: []string{"lock", "acquire", "deploy", "--ttl", "-1m"}, tool: "acquire_lock", args: map[string]any{"key": "deploy", "ttl_seconds": -60},
			method: "POST", path: "/locks/acquire", body: `{"agent":"BlueLake","key":"deploy","ttl":"-1m"}`, code: "INVALID_ARGUMENT", field: "ttl"},
		{name: "unlock/not-held", agent: "BlueLake",
			cli: []string{"lock", "release", "nothing"}, tool: "release_lock", args: map[string]any{"key": "nothing"},
			method: "POST", path: "/locks/release", body: `{"agent":"BlueLake","key":"nothing"}`, code: "NOT_FOUND", field: "key"},

		// Ports.
		{name: "port/claim", agent: "BlueLake", fresh: true,
			after: func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "port", "release", "web") },
			cli:   []string{"port", "claim", "web"}, tool: "claim_port", args: map[string]any{"name": "web"},
			method: "POST", path: "/ports/claim", body: `{"agent":"BlueLake","name":"web"}`},
		{name: "port/bad-ttl", agent: "BlueLake",
			cli: []string{"port", "claim", "web", "--ttl", "-1m"}, tool: "claim_port", args: map[string]any{"name": "web", "ttl_seconds": -60},
			method: "POST", path: "/ports/claim", body: `{"agent":"BlueLake","name":"web","ttl":"-1m"}`, code: "INVALID_ARGUMENT", field: "ttl"},
		{name: "lock/renew", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				w.ok(nil, "--agent", "BlueLake", "lock", "acquire", "deploy")
				return nil
			},
			after: func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "lock", "release", "deploy") },
			cli:   []string{"lock", "renew", "deploy"}, tool: "renew_lock", args: map[string]any{"key": "deploy"},
			method: "POST", path: "/locks/renew", body: `{"agent":"BlueLake","key":"deploy"}`},
		{name: "port/release", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "port", "claim", "web"); return nil },
			cli:   []string{"port", "release", "web"}, tool: "release_port", args: map[string]any{"name": "web"},
			method: "POST", path: "/ports/release", body: `{"agent":"BlueLake","name":"web"}`},
		{name: "port/get", agent: "BlueLake",
			setup: func(w *world) map[string]string { w.ok(nil, "--agent", "BlueLake", "port", "claim", "db"); return nil },
			after: func(w *world, _ map[string]string) { w.ok(nil, "--agent", "BlueLake", "port", "release", "db") },
			cli:   []string{"port", "get", "db"}, tool: "get_port", args: map[string]any{"name": "db"},
			method: "GET", path: "/ports/db"},
		{name: "port/get/not-found", agent: "BlueLake",
			cli: []string{"port", "get", "nothing"}, tool: "get_port", args: map[string]any{"name": "nothing"},
			method: "GET", path: "/ports/nothing", code: "NOT_FOUND"},
		{name: "ports", agent: "BlueLake", cli: []string{"port", "list"}, tool: "list_ports", args: map[string]any{},
			method: "GET", path: "/ports"},

		// Tasks.
		{name: "task/create", agent: "BlueLake", fresh: true,
			cli: []string{"task", "create", "Fix the lexer"}, tool: "create_task", args: map[string]any{"title": "Fix the lexer"},
			method: "POST", path: "/tasks", body: `{"agent":"BlueLake","title":"Fix the lexer"}`},
		{name: "task/claim", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				return map[string]string{"id": w.cliID("--agent", "GreenCastle", "task", "create", "Claim me")}
			},
			after: func(w *world, v map[string]string) { w.ok(nil, "--agent", "BlueLake", "task", "close", v["id"]) },
			cli:   []string{"task", "claim", "{id}"}, tool: "claim_task", args: map[string]any{"task_id": "{id}"},
			method: "POST", path: "/tasks/{id}/claim", body: `{"agent":"BlueLake"}`},
		{name: "task/close", agent: "BlueLake", fresh: true,
			setup: func(w *world) map[string]string {
				return map[string]string{"id": w.cliID("--agent", "GreenCastle", "task", "create", "Close me")}
			},
			cli: []string{"task", "close", "{id}"}, tool: "close_task", args: map[string]any{"task_id": "{id}"},
			method: "POST", path: "/tasks/{id}/close", body: `{"agent":"BlueLake"}`},
		{name: "task/not-found", agent: "BlueLake",
			cli: []string{"task", "show", "01M8JBXZ41GYFGY202BPFSTDBN"}, tool: "get_task", args: map[string]any{"task_id": "01M8JBXZ41GYFGY202BPFSTDBN"},
			method: "GET", path: "/tasks/01M8JBXZ41GYFGY202BPFSTDBN", code: "NOT_FOUND", field: "task_id"},
		{name: "task/bad-priority", agent: "BlueLake",
			cli: []string{"task", "create", "Too urgent", "--priority", "9"}, tool: "create_task", args: map[string]any{"title": "Too urgent", "priority": 9},
			method: "POST", path: "/tasks", body: `{"agent":"BlueLake","title":"Too urgent","priority":9}`, code: "INVALID_ARGUMENT", field: "priority"},
		{name: "task/list/ready", agent: "BlueLake", cli: []string{"task", "list", "--ready"}, tool: "list_tasks", args: map[string]any{"ready": true},
			method: "GET", path: "/tasks?ready=true"},
		{name: "task/list/all", agent: "BlueLake", cli: []string{"task", "list", "--all"}, tool: "list_tasks", args: map[string]any{"include_closed": true},
			method: "GET", path: "/tasks?all=true"},
		{name: "task/list/bad-status", agent: "BlueLake", cli: []string{"task", "list", "--status", "sleeping"}, tool: "list_tasks", args: map[string]any{"status": "sleeping"},
			method: "GET", path: "/tasks?status=sleeping", code: "INVALID_ARGUMENT", field: "status"},
		{name: "task/list", agent: "BlueLake", cli: []string{"task", "list"}, tool: "list_tasks", args: map[string]any{},
			method: "GET", path: "/tasks"},
		{name: "task/ready", agent: "BlueLake", cli: []string{"work"}, tool: "list_ready_work", args: map[string]any{},
			method: "GET", path: "/work?agent=BlueLake"},

		{name: "task/show", agent: "BlueLake", cli: []string{"task", "show", "{T0}"}, tool: "get_task", args: map[string]any{"task_id": "{T0}"},
			method: "GET", path: "/tasks/{T0}"},
		{name: "task/claim/bad-ttl", agent: "BlueLake",
			cli: []string{"task", "claim", "{T0}", "--ttl", "-1m"}, tool: "claim_task", args: map[string]any{"task_id": "{T0}", "ttl_seconds": -60},
			method: "POST", path: "/tasks/{T0}/claim", body: `{"agent":"BlueLake","ttl":"-1m"}`, code: "INVALID_ARGUMENT", field: "ttl"},
		{name: "task/claim/claimed", agent: "BlueLake",
			setup: func(w *world) map[string]string {
				id := w.cliID("--agent", "GreenCastle", "task", "create", "Mine")
				w.ok(nil, "--agent", "GreenCastle", "task", "claim", id)
				return map[string]string{"id": id}
			},
			cli: []string{"task", "claim", "{id}"}, tool: "claim_task", args: map[string]any{"task_id": "{id}"},
			method: "POST", path: "/tasks/{id}/claim", body: `{"agent":"BlueLake"}`, code: "TASK_CLAIMED"},

		{name: "task/update", agent: "BlueLake", fresh: true, setup: task(),
			cli: []string{"task", "update", "{id}", "--title", "Renamed"}, tool: "update_task", args: map[string]any{"task_id": "{id}", "title": "Renamed"},
			method: "POST", path: "/tasks/{id}/update", body: `{"agent":"BlueLake","title":"Renamed"}`},
		{name: "task/unclaim", agent: "BlueLake", fresh: true, setup: task([]string{"task", "claim", "{id}"}),
			cli: []string{"task", "unclaim", "{id}"}, tool: "release_task", args: map[string]any{"task_id": "{id}"},
			method: "POST", path: "/tasks/{id}/unclaim", body: `{"agent":"BlueLake"}`},
		{name: "task/reopen", agent: "BlueLake", fresh: true, setup: task([]string{"task", "close", "{id}"}),
			cli: []string{"task", "reopen", "{id}"}, tool: "reopen_task", args: map[string]any{"task_id": "{id}"},
			method: "POST", path: "/tasks/{id}/reopen", body: `{"agent":"BlueLake"}`},
		{name: "task/dep", agent: "BlueLake", fresh: true, setup: task(),
			cli: []string{"task", "dep", "add", "{id}", "{T0}"}, tool: "add_task_dependency", args: map[string]any{"task_id": "{id}", "depends_on_id": "{T0}"},
			method: "POST", path: "/tasks/{id}/deps", body: `{"agent":"BlueLake","dep":"{T0}"}`},
		{name: "task/dep/rm", agent: "BlueLake", fresh: true, setup: task([]string{"task", "dep", "add", "{id}", "{T0}"}),
			cli: []string{"task", "dep", "rm", "{id}", "{T0}"}, tool: "remove_task_dependency", args: map[string]any{"task_id": "{id}", "depends_on_id": "{T0}"},
			method: "POST", path: "/tasks/{id}/deps/remove", body: `{"agent":"BlueLake","dep":"{T0}"}`},
		{name: "task/dep/cycle", agent: "BlueLake",
			setup: func(w *world) map[string]string {
				id := task()(w)["id"]
				w.ok(nil, "--agent", "BlueLake", "task", "dep", "add", id, w.cliID("--agent", "GreenCastle", "task", "create", "Before"))
				return map[string]string{"id": id}
			},
			cli: []string{"task", "dep", "add", "{id}", "{id}"}, tool: "add_task_dependency", args: map[string]any{"task_id": "{id}", "depends_on_id": "{id}"},
			method: "POST", path: "/tasks/{id}/deps", body: `{"agent":"BlueLake","dep":"{id}"}`, code: "DEPENDENCY_CYCLE"},

		// Channels.
		{name: "publish", agent: "BlueLake", fresh: true,
			cli:  []string{"publish", "news", "--subject", "release", "--body", "v2 is out"},
			tool: "send_message", args: map[string]any{"topic": "news", "to": []string{}, "subject": "release", "body_md": "v2 is out"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","topic":"news","subject":"release","body":"v2 is out"}`},
		{name: "publish/bad-channel", agent: "BlueLake",
			cli:  []string{"publish", "no news", "--subject", "release", "--body", "v2 is out"},
			tool: "send_message", args: map[string]any{"topic": "no news", "to": []string{}, "subject": "release", "body_md": "v2 is out"},
			method: "POST", path: "/messages", body: `{"agent":"BlueLake","topic":"no news","subject":"release","body":"v2 is out"}`, code: "INVALID_TOPIC"},
		// fetch_topic's defaults are mcp_agent_mail's (50, with bodies):
		// the call gives the command line's.
		{name: "topic", agent: "BlueLake", cli: []string{"topic", "show", "news"},
			tool: "fetch_topic", args: map[string]any{"topic_name": "news", "limit": 20, "include_bodies": false},
			method: "GET", path: "/topics/news?agent=BlueLake"},
		// Each face waits on a channel of its own: posts made in the same
		// second (the clock is stopped) have no order a cursor can tell
		// apart. (poll, which marks the post read, is the command line's
		// alone.)
		{name: "wait/topic", agent: "BlueLake", fresh: true, vary: []string{"channel"},
			setup: func(w *world) map[string]string {
				channels++
				ch := fmt.Sprintf("poll%d", channels)
				w.ok(nil, "--agent", "BlueLake", "subscribe", ch)
				w.ok(nil, "--agent", "GentleBobcat", "publish", ch, "--subject", "hello", "--body", "a post")
				return map[string]string{"channel": ch}
			},
			cli: []string{"wait", "--topic", "{channel}", "--timeout", "0"}, tool: "wait_for_mail", args: map[string]any{"topic": "{channel}", "timeout_seconds": 0}},

		// Attention.
		{name: "state", agent: "BlueLake", fresh: true,
			cli: []string{"state", "running", "--note", "parsing"}, tool: "set_agent_state", args: map[string]any{"state": "running", "note": "parsing"}},
		{name: "control/pause", agent: "BlueLake", fresh: true,
			after: func(w *world, _ map[string]string) {
				w.ok(nil, "--agent", "BlueLake", "control", "resume", "GentleBobcat", "--reason", "go on")
			},
			cli:  []string{"control", "pause", "GentleBobcat", "--reason", "hold on"},
			tool: "control_agent", args: map[string]any{"action": "pause", "target": "GentleBobcat", "reason": "hold on"}},
		{name: "control/paused", agent: "GentleBobcat",
			setup: func(w *world) map[string]string {
				w.ok(nil, "--agent", "BlueLake", "control", "pause", "GentleBobcat", "--reason", "hold on")
				return nil
			},
			after: func(w *world, _ map[string]string) {
				w.ok(nil, "--agent", "BlueLake", "control", "resume", "GentleBobcat", "--reason", "go on")
			},
			cli:  []string{"send", "--to", "BlueLake", "--subject", "may I", "--body", "?"},
			tool: "send_message", args: map[string]any{"to": []string{"BlueLake"}, "subject": "may I", "body_md": "?"},
			method: "POST", path: "/messages", body: `{"agent":"GentleBobcat","to":["BlueLake"],"subject":"may I","body":"?"}`, code: "PAUSED"},
		{name: "state/bad", agent: "BlueLake", cli: []string{"state", "sleepy"}, tool: "set_agent_state", args: map[string]any{"state": "sleepy"},
			code: "INVALID_ARGUMENT", field: "state"},
		{name: "control/unknown-agent", agent: "BlueLake", cli: []string{"control", "pause", "WhiteOtter", "--reason", "hold on"},
			tool: "control_agent", args: map[string]any{"action": "pause", "target": "WhiteOtter", "reason": "hold on"}, code: "UNKNOWN_RECIPIENT"},
		// The digest of the last 24 hours (the command line has none).
		{name: "summary", agent: "BlueLake", tool: "fetch_summary", args: map[string]any{},
			pick:   map[string]func(any) any{faceMCP: func(doc any) any { return key("result")(doc).([]any)[0] }},
			why:    "MCP: fetch_summary's list under result is mcp_agent_mail's",
			method: "GET", path: "/summary?agent=BlueLake"},
		{name: "check", agent: "BlueLake", cli: []string{"check"}, tool: "check_mail", args: map[string]any{}},
	}
}
