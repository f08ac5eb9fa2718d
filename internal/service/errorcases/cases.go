// Package errorcases lists failures as the domain reports them, with the
// detail (field and values) from which each face words its hint: the
// faces' tests check their words against it, so that every face has words
// for every case and none borrows another's vocabulary.
package errorcases

import (
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/ports"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
)

// Case is one failure: its name, the error, and the words a face's hint
// must contain for each face ("cli", "mcp", "api"): the field's name or
// the value that matters, spelled as that face spells it.
type Case struct {
	Name string
	Err  error
	Want map[string]string
}

// msgID is the error of a message id with the problem, as ids words it.
func msgID(problem string) error {
	kind := service.ErrInvalidArgument
	if problem == "not_found" {
		kind = service.ErrNotFound
	}
	err := fault.WithField(fmt.Errorf("%w: message id 01K", kind), "message_id", "noun", "message", "min", 6, "problem", problem)
	return fault.WithHint(err, ids.Advice(fault.DetailOf(err), "the inbox or the outbox"))
}

var expires = time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)

// Cases are the failures whose advice the faces word from data.
func Cases() []Case {
	return []Case{
		{"reserve ttl", fault.WithField(fmt.Errorf("%w: the TTL must be positive, got 0s", service.ErrInvalidArgument), "ttl", "example", "1h"),
			map[string]string{"cli": "--ttl 1h", "mcp": "ttl_seconds", "api": `"ttl"`}},
		{"renew extend", fault.WithField(fmt.Errorf("%w: the extension must be positive, got 0s", service.ErrInvalidArgument), "extend", "example", "30m"),
			map[string]string{"cli": "--extend 30m", "mcp": "extend_seconds", "api": `"extend"`}},
		{"lock wait", fault.WithField(fmt.Errorf("%w: the wait must not be negative, got -1s", service.ErrInvalidArgument), "wait", "example", "5m"),
			map[string]string{"cli": "--wait 5m", "mcp": "wait_seconds", "api": ""}},
		{"empty subject", fault.WithField(fmt.Errorf("%w: the subject is empty", service.ErrInvalidArgument), "subject", "problem", "empty"),
			map[string]string{"cli": "--subject", "mcp": "subject", "api": `"subject"`}},
		{"no recipients", fault.WithField(fmt.Errorf("%w: no recipients", service.ErrInvalidArgument), "to", "problem", "empty"),
			map[string]string{"cli": "--to", "mcp": "to", "api": `"to"`}},
		{"no patterns", service.UsageField("patterns", "no patterns given"),
			map[string]string{"cli": "agentmail reserve PATTERN", "mcp": "paths", "api": `"patterns"`}},
		{"conflict", &reservations.ConflictError{Conflicts: []reservations.Conflict{{Pattern: "src/a.go", Holder: "GreenCastle", HolderPattern: "src/**", Exclusive: true, Expires: expires}}},
			map[string]string{"cli": "--allow-conflicts", "mcp": "allow_conflicts", "api": `"allow_conflicts"`}},
		{"lock held", &reservations.HeldError{Lock: reservations.Lock{Key: "deploy", Holder: "GreenCastle", Expires: expires}, Agent: "BlueLake"},
			map[string]string{"cli": "agentmail lock acquire deploy --wait 5m", "mcp": "wait_seconds", "api": "ask the holder"}},
		{"port held", &ports.HeldError{Port: ports.Port{Name: "shop:api", Port: 7001, Host: "h", Holder: "GreenCastle", Expires: expires}},
			map[string]string{"cli": "agentmail port get shop:api", "mcp": "get_port", "api": "/ports/"}},
		{"port not claimed", fault.WithField(fmt.Errorf("%w named shop:api on h", service.ErrNotFound), "name", "port", "shop:api", "host", "h"),
			map[string]string{"cli": "agentmail port claim shop:api", "mcp": "claim_port", "api": ""}},
		{"grant unreachable", fault.WithValues(fmt.Errorf("not granted: %w", archive.ErrUnreachable), "remote", "/r.git", "operation", "grant"),
			map[string]string{"cli": "--offline", "mcp": "offline: true", "api": ""}},
		{"no agent", fault.WithField(fmt.Errorf("%w: no agent given", service.ErrNotRegistered), "agent", "problem", "missing"),
			map[string]string{"cli": "--agent NAME", "mcp": "register_agent", "api": `"agent"`}},
		{"unregistered agent", fault.WithField(fmt.Errorf("%w: PinkPanda is not registered", service.ErrNotRegistered), "agent", "problem", "unregistered", "name", "PinkPanda"),
			map[string]string{"cli": "agentmail register --name PinkPanda", "mcp": "register_agent", "api": `"agent"`}},
		{"name taken", fault.WithField(fmt.Errorf("%w: GreenCastle is already registered", mailbox.ErrNameTaken), "name", "name", "GreenCastle", "free", "SavvyDrum"),
			map[string]string{"cli": "--name SavvyDrum", "mcp": "SavvyDrum", "api": ""}},
		{"empty name", fault.WithField(fmt.Errorf("%w: the name is empty", mailbox.ErrInvalidName), "name", "problem", "empty"),
			map[string]string{"cli": "omit --name", "mcp": "leave the name out", "api": ""}},
		{"negative limit", service.UsageField("limit", "the limit must not be negative").With("all", "messages"),
			map[string]string{"cli": "--limit 0 for all messages", "mcp": "limit 0", "api": ""}},
		{"negative timeout", service.UsageField("timeout", "the timeout must not be negative, got -1s").With("example", "5m"),
			map[string]string{"cli": "--timeout 5m", "mcp": "timeout_seconds", "api": ""}},
		{"mark nothing", service.UsageField("ids", "no message ids given").With("verb", "ack"),
			map[string]string{"cli": "agentmail ack ID... or agentmail ack --all", "mcp": "", "api": ""}},
		{"lock not held", fault.WithField(fmt.Errorf("%w: BlueLake does not hold lock deploy", service.ErrNotFound), "key", "key", "deploy"),
			map[string]string{"cli": "agentmail lock acquire deploy", "mcp": "acquire_lock", "api": "/locks/acquire"}},
		{"renew an expired lease", fault.WithField(fmt.Errorf("%w: reservation of src/** expired", service.ErrInvalidArgument), "selection", "pattern", "src/**"),
			map[string]string{"cli": "agentmail reserve src/**", "mcp": "file_reservation_paths", "api": "src/**"}},
		{"contact required", fault.WithValues(fmt.Errorf("%w: RedFox accepts mail only from contacts", mailbox.ErrContactRequired), "recipient", "RedFox", "policy", "contacts_only"),
			map[string]string{"cli": "agentmail contacts request RedFox", "mcp": "request_contact with to_agent RedFox", "api": "/contacts/request"}},
		{"no reply", fault.WithField(fmt.Errorf("%w: no reply to 01ABC in thread t1", mailbox.ErrTimeout), "", "thread", "t1"),
			map[string]string{"cli": "agentmail thread t1", "mcp": "get_thread", "api": ""}},
		{"outside a repository", fault.WithField(fmt.Errorf("%w: /tmp is not inside a git repository", service.ErrNoProject), "project", "problem", "outside", "dir", "/tmp"),
			map[string]string{"cli": "--project KEY", "mcp": "project_key", "api": "/api/projects"}},
		{"relative project key", fault.WithField(fmt.Errorf("%w: project key \"a/../b\" is a relative path", service.ErrInvalidArgument), "project", "problem", "relative"),
			map[string]string{"cli": "pass --project with a remote URL", "mcp": "project_key", "api": "/api/projects"}},
		{"unknown message", msgID("not_found"),
			map[string]string{"cli": "agentmail inbox or agentmail outbox", "mcp": "fetch_inbox", "api": "/inbox"}},
		{"short message id", msgID("short"),
			map[string]string{"cli": "6 characters of the message id, as agentmail inbox", "mcp": "as fetch_inbox", "api": "/inbox"}},
		{"unknown reservation", fault.WithHint(fault.WithField(fmt.Errorf("%w: no reservation 01ZZZZ", service.ErrNotFound), "reservation_id", "noun", "reservation", "min", 6, "problem", "not_found"), "check the id with the list of reservations"),
			map[string]string{"cli": "agentmail reservations --expired", "mcp": "check_file_reservations", "api": "/reservations"}},
		{"search unread without an agent", fault.WithHint(fault.WithField(fmt.Errorf("%w: is:unread and is:unacked need an agent", service.ErrInvalidArgument), "agent", "problem", "missing"), "name the agent whose mail is searched"),
			map[string]string{"cli": "--agent NAME", "mcp": "agent_name", "api": `"agent"`}},
		{"guard hooks not run", fault.WithValues(fmt.Errorf("%w: git runs the hooks in /x", guard.ErrNotRun), "global", true),
			map[string]string{"cli": "--allow-global", "mcp": "install_precommit_guard", "api": "install them"}},
		{"read-only store", fault.WithField(fmt.Errorf("%w: /s: you can read it but not write it", store.ErrNotWritable), "store", "problem", "read_only"),
			map[string]string{"cli": "ask its owner for write access", "mcp": "write access", "api": "write access"}},
		{"sync lost its pushes", fault.WithValues(fmt.Errorf("%w: sync: 5 pushes in a row lost to others", store.ErrBusy), "operation", "sync"),
			map[string]string{"cli": "run agentmail sync again", "mcp": "", "api": "try again"}},
		{"index differs", fault.WithValues(fmt.Errorf("%w: doctor found 1 problem", store.ErrIndexDiffers), "problems", 1, "repair", "reindex"),
			map[string]string{"cli": "agentmail doctor --reindex", "mcp": "doctor", "api": "doctor"}},
	}
}
