package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests drive the server as a client does: through the Go SDK's client
// over an in-memory transport, against a real store in a temporary
// directory and a real git repository. A few drive the real binary over
// stdio.

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	testbin.Cleanup()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		code = checkExercised()
	}
	os.Exit(code)
}

// exercised records, per tool, whether a test saw it succeed and fail:
// every tool has a happy path and an error path (checkExercised).
var exercised sync.Map // tool name -> *[2]atomic.Bool (ok, failed)

func record(tool string, failed bool) {
	v, _ := exercised.LoadOrStore(tool, new([2]atomic.Bool))
	v.(*[2]atomic.Bool)[map[bool]int{false: 0, true: 1}[failed]].Store(true)
}

// checkExercised fails the run when a tool was not seen both to succeed
// and to fail (with one of our error documents).
func checkExercised() int {
	tools := listTools(context.Background(), New(Config{Store: service.Config{Dir: os.TempDir()}}))
	var missing []string
	for _, tl := range tools {
		v, ok := exercised.Load(tl.Name)
		switch {
		case !ok:
			missing = append(missing, tl.Name+" (never called)")
		case !v.(*[2]atomic.Bool)[0].Load():
			missing = append(missing, tl.Name+" (no happy path)")
		case !v.(*[2]atomic.Bool)[1].Load():
			missing = append(missing, tl.Name+" (no error path)")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tools not exercised both ways: %s\n", strings.Join(missing, ", "))
		return 1
	}
	return 0
}

// testClock is a clock the tests move by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is a client session with a server of its own, on a store and a
// repository that peers share.
type harness struct {
	t     *testing.T
	repo  string // the server's project: a git repository
	store string
	clock *testClock
	srv   *Server
	cs    *mcp.ClientSession
}

// newHarness starts a server on a fresh store, working in a fresh git
// repository, acting as nobody yet (unless cfg says).
func newHarness(t *testing.T, cfg ...func(*Config)) *harness {
	t.Helper()
	gittest.Env(t)
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q")
	repo, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, repo: repo, store: filepath.Join(t.TempDir(), "store"),
		clock: &testClock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}}
	h.start(cfg...)
	return h
}

// peer is another client, with a server of its own on the same store and
// repository, acting as agent.
func (h *harness) peer(agent string, cfg ...func(*Config)) *harness {
	p := &harness{t: h.t, repo: h.repo, store: h.store, clock: h.clock}
	p.start(append([]func(*Config){func(c *Config) { c.Agent = agent }}, cfg...)...)
	return p
}

// overseer is how a test asks for an overseer's server.
func overseer(c *Config) { c.Overseer = true }

func (h *harness) config() Config {
	return Config{Store: service.Config{Dir: h.store, Now: h.clock.Now}, Project: service.ProjectRef{Dir: h.repo}, Version: "test"}
}

func (h *harness) start(cfg ...func(*Config)) {
	t := h.t
	t.Helper()
	c := h.config()
	for _, f := range cfg {
		f(&c)
	}
	h.srv = New(c)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.cs.Close()
		ss.Wait()
		if err := h.srv.Close(); err != nil {
			t.Error(err)
		}
	})
}

// args is a tool call's arguments.
type args = map[string]any

// call calls a tool; a protocol error fails the test.
func (h *harness) call(name string, a args) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: a})
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content,
// checking that it has a text too.
func (h *harness) ok(name string, a args) doc {
	h.t.Helper()
	res := h.call(name, a)
	if res.IsError {
		h.t.Fatalf("%s %v: %s", name, a, text(res))
	}
	record(name, false)
	if text(res) == "" || len(res.Content) != 2 {
		h.t.Errorf("%s: no text, or not after the JSON text: %d contents", name, len(res.Content))
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		h.t.Fatalf("%s: structured content %T", name, res.StructuredContent)
	}
	// content[0] is the structured content as JSON text.
	var first map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &first); err != nil || !reflect.DeepEqual(first, m) {
		h.t.Errorf("%s: content[0] is not the structured content: %v", name, err)
	}
	if err := outputSchema(name).Validate(m); err != nil {
		h.t.Errorf("%s: the document does not fit the tool's output schema: %v\n%v", name, err, m)
	}
	if err := documentSchema(name).Validate(m); err != nil {
		h.t.Errorf("%s: the document does not fit its whole schema: %v\n%v", name, err, m)
	}
	return doc(m)
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Resolved
	documents   map[string]*jsonschema.Resolved
)

// documentSchema is the whole schema of a tool's document, of which the
// listed output schema is the outline.
func documentSchema(tool string) *jsonschema.Resolved {
	outputSchema(tool)
	return documents[tool]
}

// outputSchema is the output schema a tool is listed with: the server does
// not check its documents against it (the schema is inferred from their
// type), so the tests check every one they see.
func outputSchema(tool string) *jsonschema.Resolved {
	schemasOnce.Do(func() {
		schemas, documents = map[string]*jsonschema.Resolved{}, map[string]*jsonschema.Resolved{}
		srv := New(Config{Store: service.Config{Dir: os.TempDir()}})
		for _, lt := range srv.tools {
			r, err := lt.document().Resolve(nil)
			if err != nil {
				panic(fmt.Sprintf("%s: %v", lt.tool.Name, err))
			}
			documents[lt.tool.Name] = r
		}
		for _, tl := range listTools(context.Background(), srv) {
			b, _ := json.Marshal(tl.OutputSchema)
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				panic(err)
			}
			r, err := s.Resolve(nil)
			if err != nil {
				panic(fmt.Sprintf("%s: %v", tl.Name, err))
			}
			schemas[tl.Name] = r
		}
	})
	return schemas[tool]
}

// fail calls a tool that must fail with code, and returns its error
// document.
func (h *harness) fail(name string, a args, code string) ErrorDoc {
	h.t.Helper()
	res := h.call(name, a)
	if !res.IsError {
		h.t.Fatalf("%s %v: succeeded, want %s: %s", name, a, code, text(res))
	}
	if res.StructuredContent != nil {
		h.t.Errorf("%s: an error with structured content %v", name, res.StructuredContent)
	}
	var e struct{ Error ErrorDoc }
	if err := json.Unmarshal([]byte(text(res)), &e); err != nil {
		h.t.Fatalf("%s: error text is not a JSON error document: %v: %s", name, err, text(res))
	}
	if e.Error.Code != code {
		h.t.Fatalf("%s %v: code %s, want %s: %+v", name, a, e.Error.Code, code, e.Error)
	}
	if e.Error.Message == "" || e.Error.Hint == "" {
		h.t.Errorf("%s: error without message or hint: %+v", name, e.Error)
	}
	checkNoCLI(h.t, name, e.Error)
	record(name, true)
	return e.Error
}

// text is a result's last text: the text for the model of a success (the
// first is its document as JSON), the JSON error document of a failure.
func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	t, _ := res.Content[len(res.Content)-1].(*mcp.TextContent)
	if t == nil {
		return ""
	}
	return t.Text
}

// doc is a JSON document, read by paths.
type doc map[string]any

// get returns the value at path: dot-separated keys and list indexes.
func (d doc) get(path string) any {
	var v any = map[string]any(d)
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (d doc) str(path string) string { s, _ := d.get(path).(string); return s }
func (d doc) list(path string) []any { l, _ := d.get(path).([]any); return l }
func (d doc) num(path string) int    { n, _ := d.get(path).(float64); return int(n) }

// want fails the test unless the value at path is want.
func (h *harness) want(d doc, path string, want any) {
	h.t.Helper()
	got := d.get(path)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		h.t.Errorf("%s = %v, want %v", path, got, want)
	}
}

// listTools lists the server's tools, sorted by name.
func listTools(ctx context.Context, srv *Server) []*mcp.Tool {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "list", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			panic(err)
		}
		tools = append(tools, tl)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools
}

// env is the environment of an agentmail process working in h's store.
func (h *harness) env(extra ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "AGENTMAIL_") || strings.HasPrefix(kv, "AGENT_NAME=")
	})
	return append(env, append([]string{"AGENTMAIL_HOME=" + h.store, "AGENTMAIL_NOW=" + h.clock.Now().Format(time.RFC3339)}, extra...)...)
}

// cliVocabulary is the command line's vocabulary: a flag, or a command.
var cliVocabulary = regexp.MustCompile(`(^|[^\w-])--[a-z]|\bagentmail [a-z]`)

// checkNoCLI fails the test when an MCP error speaks the command line's
// language: an agent over MCP has no flags to pass and no command to run.
// Every error path the tests take goes through it.
func checkNoCLI(t *testing.T, tool string, e ErrorDoc) {
	t.Helper()
	for _, s := range []string{e.Message, e.Hint} {
		if cliVocabulary.MatchString(s) {
			t.Errorf("%s: an MCP error with command-line text: %q", tool, s)
		}
	}
}
