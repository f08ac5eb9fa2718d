package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/mailbox"
)

// The tests call the service as the MCP and HTTP servers will: no command
// line, a real store in a temporary directory, real git where a repository
// is needed.

// clock is a time source the tests move by hand.
type clock struct {
	base   time.Time
	offset atomic.Int64 // how far it was moved
}

func (c *clock) Now() time.Time { return c.base.Add(time.Duration(c.offset.Load())) }

func (c *clock) Add(d time.Duration) { c.offset.Add(int64(d)) }

// fixture is a service on a fresh store, with a clock and the notes it
// passed on.
type fixture struct {
	t     testing.TB
	svc   *Service
	clock *clock
	notes []string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: &clock{base: time.Now().UTC().Truncate(time.Second)}}
	var mu sync.Mutex
	f.svc = New(Config{Dir: filepath.Join(t.TempDir(), "store"), Now: f.clock.Now, Note: func(n string) {
		mu.Lock()
		defer mu.Unlock()
		f.notes = append(f.notes, n)
	}})
	t.Cleanup(func() {
		if err := f.svc.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// project is the key of the fixture's project: no repository.
const projectKey = "github.com/acme/shop"

// as is the scope of agent in the fixture's project.
func as(agent string) Scope { return Scope{Project: ProjectRef{Key: projectKey}, Agent: agent} }

// register registers agents in the fixture's project with the open
// policy.
func (f *fixture) register(names ...string) {
	f.t.Helper()
	for _, n := range names {
		if _, err := f.svc.Register(context.Background(), as(""), RegisterRequest{Name: &n}); err != nil {
			f.t.Fatalf("register %s: %v", n, err)
		}
	}
}

// send sends a message and returns its document.
func (f *fixture) send(from string, req SendRequest) Message {
	f.t.Helper()
	resp, err := f.svc.Send(context.Background(), as(from), req)
	if err != nil {
		f.t.Fatalf("send %+v: %v", req, err)
	}
	return resp.Message
}

// wantCode fails unless err is described with code (and, for "", is nil).
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	switch {
	case code == "" && err != nil:
		t.Errorf("%s: %v, want no error", what, err)
	case code != "" && err == nil:
		t.Errorf("%s: no error, want %s", what, code)
	case code != "" && Describe(err).Code != code:
		t.Errorf("%s: %v (%s), want %s", what, err, Describe(err).Code, code)
	}
}

// keys returns the top-level keys of v's JSON document, in order.
func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// gitEnv isolates git from the user's configuration.
func gitEnv(t *testing.T) { gittest.Env(t) }

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Run(t, dir, args...)
}

// newRepo returns a new git repository with an origin remote; its
// directory is canonical (symbolic links resolved).
func newRepo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "remote", "add", "origin", "https://github.com/Acme/Shop.git")
	return dir
}

// in is the scope of agent in the repository around dir.
func in(dir, agent string) Scope { return Scope{Project: ProjectRef{Dir: dir}, Agent: agent} }

func TestResolveProject(t *testing.T) {
	gitEnv(t)
	repo := newRepo(t)
	sub := filepath.Join(repo, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref             ProjectRef
		key, source     string
		root, dir, code string
	}{
		{ref: ProjectRef{Dir: sub}, key: "github.com/acme/shop", source: SourceOrigin, root: repo, dir: sub},
		{ref: ProjectRef{Key: "git@github.com:Acme/Other.git", Dir: sub}, key: "github.com/acme/other", source: SourceFlag, root: repo, dir: sub},
		{ref: ProjectRef{Key: "github.com/acme/other", KeySource: SourceEnv}, key: "github.com/acme/other", source: SourceEnv},
		{ref: ProjectRef{Dir: t.TempDir()}, code: "NO_PROJECT"},
		{ref: ProjectRef{Key: "bad\x1bkey"}, code: "INVALID_ARGUMENT"},
		{ref: ProjectRef{}, code: "NO_PROJECT"}, // never the process's working directory
	}
	for _, tt := range tests {
		p, err := ResolveProject(tt.ref)
		wantCode(t, "resolve "+tt.ref.Key+tt.ref.Dir, err, tt.code)
		if err == nil && (p.Key != tt.key || p.Source != tt.source || p.Root != tt.root || p.Dir != tt.dir) {
			t.Errorf("%+v: key %q source %q root %q dir %q; want %q %q %q %q", tt.ref, p.Key, p.Source, p.Root, p.Dir, tt.key, tt.source, tt.root, tt.dir)
		}
	}
}

// A service opens its store only when an operation needs it, and a store
// it cannot create is an error of that operation.
func TestStoreOpening(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	svc := New(Config{Dir: dir})
	defer svc.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("New created the store: %v", err)
	}
	if _, err := svc.ArchivePath(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "archive.git")); err != nil {
		t.Errorf("the first operation did not create the store: %v", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := New(Config{Dir: file})
	defer bad.Close()
	_, err := bad.Init(context.Background(), as(""))
	wantCode(t, "store that is a file", err, "STORE_NOT_WRITABLE")
}

func TestParsePresence(t *testing.T) {
	tests := []struct {
		env         map[string]string
		idle, stale time.Duration
		code        string
	}{
		{env: nil, idle: mailbox.ActiveWindow, stale: mailbox.StaleAfter},
		{env: map[string]string{"AGENTMAIL_IDLE_AFTER": "1m", "AGENTMAIL_STALE_AFTER": "2h"}, idle: time.Minute, stale: 2 * time.Hour},
		{env: map[string]string{"AGENTMAIL_STALE_AFTER": "soon"}, code: "USAGE"},
		{env: map[string]string{"AGENTMAIL_IDLE_AFTER": "-1m"}, code: "USAGE"},
	}
	for _, tt := range tests {
		rules, err := ParsePresence(func(k string) string { return tt.env[k] })
		wantCode(t, "presence", err, tt.code)
		if err == nil && (rules.Idle != tt.idle || rules.Stale != tt.stale) {
			t.Errorf("%v: %+v, want %s and %s", tt.env, rules, tt.idle, tt.stale)
		}
	}
}

// writeFile writes data to path, making its directory.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
