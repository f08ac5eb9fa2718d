package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// The run functions need no process: these tests call them with buffers,
// on a store in a temporary directory, as the command line does once it
// has parsed its flags.

// cmdFixture is a store and a fixed clock for run functions.
type cmdFixture struct {
	t   *testing.T
	svc *service.Service
	now time.Time
}

func newCmdFixture(t *testing.T) *cmdFixture {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	svc := service.New(service.Config{Dir: filepath.Join(t.TempDir(), "store"), Now: func() time.Time { return now }})
	t.Cleanup(func() { svc.Close() })
	return &cmdFixture{t: t, svc: svc, now: now}
}

// as returns the options of a command run by agent, printing JSON or
// text, and its stdout and stderr.
func (f *cmdFixture) as(agent string, json bool) (scoped, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return scoped{
		output:  output{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, JSON: json},
		Service: f.svc,
		Scope:   service.Scope{Project: service.ProjectRef{Key: "github.com/acme/shop"}, Agent: agent},
	}, &stdout, &stderr
}

// register registers agents with the register command.
func (f *cmdFixture) register(names ...string) {
	f.t.Helper()
	for _, n := range names {
		s, _, _ := f.as("", true)
		f.run(runRegister(context.Background(), &registerOptions{scoped: s, req: service.RegisterRequest{Name: &n}}))
	}
}

// run fails the test on err.
func (f *cmdFixture) run(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func match(t *testing.T, what, got, pattern string) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(got) {
		t.Errorf("%s:\n%s\nwant it to match %s", what, got, pattern)
	}
}

func TestRunRegisterWhoami(t *testing.T) {
	f := newCmdFixture(t)
	ctx := context.Background()
	s, out, _ := f.as("", false)
	name := "GreenCastle"
	f.run(runRegister(ctx, &registerOptions{scoped: s, req: service.RegisterRequest{Name: &name, Task: "auth"}}))
	match(t, "register", out.String(), `^registered GreenCastle in project shop-[0-9a-f]{8}\nact as it with: export AGENTMAIL_AGENT=GreenCastle\n$`)

	s, out, _ = f.as("GreenCastle", false)
	f.run(runWhoami(ctx, &whoamiOptions{s}))
	match(t, "whoami", out.String(), `^GreenCastle in project shop-[0-9a-f]{8}\n  task:       auth\n  registered: just now\n$`)

	s, out, _ = f.as("GreenCastle", true)
	f.run(runWhoami(ctx, &whoamiOptions{s}))
	var doc struct {
		Agent struct{ Name, Registered string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Agent.Name != "GreenCastle" || doc.Agent.Registered != "2026-11-22T10:00:00Z" {
		t.Errorf("whoami --json: %s (%v)", out, err)
	}
}

func TestRunSendInboxRead(t *testing.T) {
	f := newCmdFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	s, out, _ := f.as("GreenCastle", false)
	f.run(runSend(ctx, &sendOptions{scoped: s, req: service.SendRequest{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "see src/api", Category: "HANDOFF"}}))
	match(t, "send", out.String(), `^sent (01[0-9A-Z]{24}) to BlueLake\nthread 01[0-9A-Z]{24}\n$`)
	id := regexp.MustCompile(`01[0-9A-Z]{24}`).FindString(out.String())

	s, out, _ = f.as("BlueLake", false)
	f.run(runInbox(ctx, &inboxOptions{scoped: s}))
	match(t, "inbox", out.String(), `^ ID +FROM +SUBJECT +WHEN +FLAGS\n\*`+id[:8]+` +GreenCastle +Auth API ready +just now +HANDOFF,ack-required\n$`)

	s, out, _ = f.as("BlueLake", false)
	f.run(runMark(ctx, &markOptions{scoped: s, req: service.MarkRequest{IDs: []string{id}, Ack: true}}))
	match(t, "ack", out.String(), `^acknowledged `+id[:8]+`  Auth API ready\n$`)

	s, out, _ = f.as("BlueLake", false)
	f.run(runShow(ctx, &showOptions{scoped: s, id: id[:10]}))
	match(t, "show", out.String(), `(?s)^Id: +`+id+`\nFrom: +GreenCastle\nTo: +BlueLake\nSubject: +Auth API ready\nDate: +2026-11-22T10:00:00Z \(just now\)\n.*Flags: +HANDOFF,acked\nRead: +just now\n\nsee src/api\n$`)

	s, out, _ = f.as("BlueLake", false)
	f.run(runCheck(ctx, &checkOptions{scoped: s, exitCode: true}))
	if out.Len() != 0 {
		t.Errorf("check with nothing waiting printed %q", out)
	}
}

func TestRunReserveConflict(t *testing.T) {
	f := newCmdFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	s, out, _ := f.as("GreenCastle", false)
	f.run(runReserve(ctx, &reserveOptions{scoped: s, req: service.ReserveRequest{Patterns: []string{"src/api/**"}, TTL: time.Hour}}))
	match(t, "reserve", out.String(), `^reserved src/api/\*\* \(exclusive, expires in 1h\)\n$`)

	s, out, _ = f.as("BlueLake", false)
	err := runReserve(ctx, &reserveOptions{scoped: s, req: service.ReserveRequest{Patterns: []string{"src/api/a.go"}, TTL: time.Hour}})
	if service.Describe(err).Exit != 3 {
		t.Errorf("conflict: %v, want exit 3", err)
	}
	match(t, "conflict", out.String(), `^conflict: src/api/a.go overlaps src/api/\*\* held by GreenCastle \(exclusive, expires in 1h\)\n$`)

	// A lock held: with --json, the holder's lock, then the error.
	s, _, _ = f.as("GreenCastle", true)
	f.run(runLockKey(ctx, &lockKeyOptions{scoped: s, verb: "acquired", op: (*service.Service).AcquireLock, req: service.LockRequest{Key: "deploy", TTL: time.Minute}}))
	s, out, _ = f.as("BlueLake", true)
	err = runLockKey(ctx, &lockKeyOptions{scoped: s, verb: "acquired", op: (*service.Service).AcquireLock, req: service.LockRequest{Key: "deploy", TTL: time.Minute}})
	var doc struct{ Lock struct{ Key, Holder string } }
	if service.Describe(err).Code != "LOCK_HELD" || json.Unmarshal(out.Bytes(), &doc) != nil || doc.Lock.Holder != "GreenCastle" {
		t.Errorf("lock held: %v, %s", err, out)
	}
}
