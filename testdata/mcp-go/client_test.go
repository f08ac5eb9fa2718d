package mcpgo

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// versions are the current protocol versions: the first without sessions
// (server/discover, no initialize), and the last with them.
var versions = []string{mcp.ProtocolVersion20260728, mcp.ProtocolVersion20251125}

// agents are the sender and the recipient of each journey.
var agents = map[string][2]string{
	"stdio " + versions[0]: {"GreenCastle", "BlueLake"}, "stdio " + versions[1]: {"RedFox", "SilverRiver"},
	"http " + versions[0]: {"CalmLion", "MerryLotus"}, "http " + versions[1]: {"BraveOtter", "QuietPine"},
}

// world is a git repository and a store for agentmail to serve.
type world struct {
	bin, repo, store string
	env              []string
}

func newWorld(t *testing.T) *world {
	bin := os.Getenv("AGENTMAIL_BIN")
	if bin == "" {
		t.Fatal("AGENTMAIL_BIN names no agentmail binary: run this through internal/mcpserver's TestMCPGoClient")
	}
	w := &world{bin: bin, repo: t.TempDir(), store: filepath.Join(t.TempDir(), "store")}
	w.env = []string{"AGENTMAIL_HOME=" + w.store, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	if out, err := exec.Command("git", "init", "-q", w.repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	t.Chdir(w.repo) // agentmail mcp works in the project of its directory
	return w
}

// serve starts agentmail serve on a free port and returns its base URL.
func (w *world) serve(t *testing.T) string {
	cmd := exec.Command(w.bin, "serve", "--addr", "127.0.0.1:0", "--sync-interval", "0")
	cmd.Dir, cmd.Env = w.repo, append(os.Environ(), w.env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("agentmail serve: %v", err)
	}
	_, rest, _ := strings.Cut(line, "MCP ")
	base, _, ok := strings.Cut(rest, "/mcp")
	if !ok {
		t.Fatalf("agentmail serve said %q", line)
	}
	go func() { bufio.NewReader(out).WriteTo(new(strings.Builder)) }()
	return base
}

// session is an initialized client.
type session struct {
	t *testing.T
	c *client.Client
}

func connect(t *testing.T, tr transport.Interface, version string) *session {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := client.NewClient(tr, client.WithProtocolVersion(version))
	// The stdio transport's process lives as long as Start's context.
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-test", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize at %s: %v", version, err)
	}
	if res.ProtocolVersion != version || res.ServerInfo.Name != "agentmail" {
		t.Errorf("initialize at %s: protocol %q, server %+v", version, res.ProtocolVersion, res.ServerInfo)
	}
	return &session{t: t, c: c}
}

func (s *session) tools() []string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		s.t.Fatalf("tools/list: %v%s", err, stderrOf(s.c))
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// call calls a tool that must succeed; its document is its structured
// content, which its first text carries as JSON too.
func (s *session) call(name string, args map[string]any) map[string]any {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 2 {
		s.t.Fatalf("%s: error %v, %d contents: %+v", name, res.IsError, len(res.Content), res.Content)
	}
	doc, ok := res.StructuredContent.(map[string]any)
	if !ok {
		s.t.Fatalf("%s: structured content %T", name, res.StructuredContent)
	}
	first, ok := mcp.AsTextContent(res.Content[0])
	var fromText map[string]any
	if !ok || json.Unmarshal([]byte(first.Text), &fromText) != nil || !reflect.DeepEqual(fromText, doc) {
		s.t.Errorf("%s: content[0] is not the structured content as JSON: %+v", name, res.Content[0])
	}
	return doc
}

// get returns the value at a dot-separated path of keys and indexes.
func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// journey registers two agents, sends from one to the other and reads
// the other's inbox, checking the fields of ours and of mcp_agent_mail's.
func journey(t *testing.T, open func() *session, label, sender, recipient string) {
	a, b := open(), open()
	if n := len(a.tools()); n < 41 {
		t.Errorf("%s: tools/list has %d tools", label, n)
	}
	reg := a.call("register_agent", map[string]any{"name": sender, "program": "mcp-go", "model": "test"})
	for _, p := range []string{"agent.name", "name", "id", "program", "inception_ts"} {
		if get(reg, p) == nil {
			t.Errorf("%s: register_agent has no %s: %v", label, p, reg)
		}
	}
	b.call("register_agent", map[string]any{"name": recipient, "program": "mcp-go", "model": "test"})
	sent := a.call("send_message", map[string]any{"sender_name": sender, "to": []string{recipient}, "subject": "hello " + label, "body_md": "body of " + label})
	id, _ := get(sent, "message.id").(string)
	if id == "" || get(sent, "deliveries.0.payload.id") != id || get(sent, "count") != float64(1) || get(sent, "deliveries.0.payload.body_md") != "body of "+label {
		t.Errorf("%s: send_message: %v", label, sent)
	}
	inbox := b.call("fetch_inbox", map[string]any{"agent_name": recipient, "include_bodies": true})
	if get(inbox, "messages.0.id") != id || get(inbox, "result.0.id") != id || get(inbox, "result.0.thread_id") == nil ||
		get(inbox, "result.0.created_ts") == nil || get(inbox, "result.0.body_md") != "body of "+label || get(inbox, "result.0.from") != sender {
		t.Errorf("%s: fetch_inbox: %v", label, inbox)
	}
}

func TestStdio(t *testing.T) {
	w := newWorld(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			label := "stdio " + v
			journey(t, func() *session { return connect(t, transport.NewStdio(w.bin, w.env, "mcp"), v) }, label, agents[label][0], agents[label][1])
		})
	}
	// A profile: the tools it holds, and no other.
	s := connect(t, transport.NewStdio(w.bin, w.env, "mcp", "--tools", "minimal"), versions[0])
	if got := strings.Join(s.tools(), " "); len(s.tools()) != 6 || !strings.Contains(got, "send_message") {
		t.Errorf("agentmail mcp --tools minimal: %s", got)
	}
}

func TestHTTP(t *testing.T) {
	w := newWorld(t)
	base := w.serve(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			journey(t, func() *session {
				tr, err := transport.NewStreamableHTTP(base + "/mcp")
				if err != nil {
					t.Fatal(err)
				}
				return connect(t, tr, v)
			}, "http "+v, agents["http "+v][0], agents["http "+v][1])
		})
	}
	all, err := transport.NewStreamableHTTP(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	full := len(connect(t, all, versions[0]).tools())
	tr, err := transport.NewStreamableHTTP(base + "/mcp?tools=core")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(connect(t, tr, versions[0]).tools()); n < 15 || n >= full {
		t.Errorf("/mcp?tools=core: %d tools of %d", n, full)
	}
}

// stderrOf is what a stdio server wrote on its standard error, if any.
func stderrOf(c *client.Client) string {
	r, ok := client.GetStderr(c)
	if !ok {
		return ""
	}
	var b strings.Builder
	done := make(chan struct{})
	go func() { io.Copy(&b, r); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	return "\nstderr: " + b.String()
}
