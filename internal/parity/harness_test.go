package parity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/gittest"
	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// now stops the clock of every process the suite starts
// (AGENTMAIL_NOW), so that the faces date what they write alike.
const now = "2026-11-22T10:00:00Z"

// world is one store and one project that the three faces share: the
// command line run as a process per call, one `agentmail mcp` per agent
// over stdio, and one `agentmail serve` over HTTP.
type world struct {
	t    *testing.T // the test under way
	root *testing.T // the test the processes live as long as
	bin  string
	repo string // the project: a git repository
	env  []string
	slug string // the project's slug, in the API's routes
	base string // serve's address, http://HOST:PORT
	mcp  map[string]*mcp.ClientSession
	// shared are the names every face may use ({M0}, {T0}, {slug}).
	shared map[string]string
	serve  *exec.Cmd
}

func newWorld(t *testing.T) *world {
	t.Helper()
	gittest.Env(t)
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q")
	repo, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, root: t, bin: testbin.Agentmail(t), repo: repo, mcp: map[string]*mcp.ClientSession{}}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTMAIL_") && !strings.HasPrefix(kv, "AGENT_NAME=") {
			w.env = append(w.env, kv)
		}
	}
	w.env = append(w.env, "AGENTMAIL_HOME="+filepath.Join(t.TempDir(), "store"), "AGENTMAIL_NOW="+now)
	return w
}

// start starts serve once the store exists (the first command made it).
func (w *world) start() {
	w.t.Helper()
	var doc struct{ Project struct{ Slug string } }
	w.ok(&doc, "project")
	w.slug = doc.Project.Slug
	cmd := exec.Command(w.bin, "serve", "--json", "--addr", "127.0.0.1:0", "--sync-interval", "0")
	cmd.Dir, cmd.Env = w.repo, w.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.serve = cmd
	w.t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		// Killed by the signal itself is a serve stopped before it
		// handles signals: a run of no operation.
		var exit *exec.ExitError
		if err := cmd.Wait(); err != nil && !(errors.As(err, &exit) && !exit.Exited()) {
			w.t.Errorf("agentmail serve did not end cleanly: %v\n%s", err, stderr.String())
		}
	})
	var started struct{ Addr string }
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&started); err != nil || started.Addr == "" {
		w.t.Fatalf("serve's startup document: %v (%+v)\n%s", err, started, stderr.String())
	}
	w.base = "http://" + started.Addr
}

// reply is what a face answered: its document, or its error document.
type reply struct {
	doc any            // the document (nil on an error)
	err map[string]any // the error document's "error" (nil on success)
	raw string         // as it came, for the failure messages
}

// cli runs `agentmail --json [--agent AGENT] ARGS...` in the project.
func (w *world) cli(agent string, args ...string) reply {
	w.t.Helper()
	full := []string{"--json"}
	if agent != "" {
		full = append(full, "--agent", agent)
	}
	cmd := w.command(append(full, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		w.t.Fatalf("agentmail %s: %v", strings.Join(args, " "), err)
	}
	if err != nil && (stdout.Len() == 0 || bytes.HasPrefix(bytes.TrimSpace(stderr.Bytes()), []byte("{"))) {
		return errorReply(w.t, "agentmail "+strings.Join(args, " "), stderr.Bytes())
	}
	// A command that answers with its document and an exit code of its
	// own (reservations conflicts: 3 when something would conflict).
	return docReply(w.t, "agentmail "+strings.Join(args, " "), stdout.Bytes())
}

// command is agentmail ARGS... in the project, with the world's
// environment.
func (w *world) command(args ...string) *exec.Cmd {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.repo, w.env
	return cmd
}

// ok runs a command that must succeed, and decodes its document into v.
func (w *world) ok(v any, args ...string) {
	w.t.Helper()
	agent := ""
	if len(args) > 1 && args[0] == "--agent" {
		agent, args = args[1], args[2:]
	}
	r := w.cli(agent, args...)
	if r.err != nil {
		w.t.Fatalf("agentmail %s: %s", strings.Join(args, " "), r.raw)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.raw), v); err != nil {
			w.t.Fatal(err)
		}
	}
}

// session is the MCP server of agent: `agentmail mcp` with
// AGENTMAIL_AGENT set, as a coding agent's configuration starts it.
func (w *world) session(agent string) *mcp.ClientSession {
	w.t.Helper()
	if cs := w.mcp[agent]; cs != nil {
		return cs
	}
	cmd := exec.Command(w.bin, "mcp")
	cmd.Dir, cmd.Env = w.repo, append(slicesClone(w.env), "AGENTMAIL_AGENT="+agent)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.root.Cleanup(func() { _ = cs.Close() })
	w.mcp[agent] = cs
	return cs
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// tool calls an MCP tool as agent.
func (w *world) tool(agent, name string, args map[string]any) reply {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := w.session(agent).CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		w.t.Fatalf("MCP %s: %v", name, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = tc.Text
			break
		}
	}
	if res.IsError {
		return errorReply(w.t, "MCP "+name, []byte(text))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		w.t.Fatal(err)
	}
	return docReply(w.t, "MCP "+name, b)
}

// resource reads an MCP resource as agent: its one JSON content.
func (w *world) resource(agent, uri string) reply {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := w.session(agent).ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		// A resource's failure is a JSON-RPC error with the error
		// document as its data.
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || len(rpc.Data) == 0 {
			w.t.Fatalf("MCP %s: %v", uri, err)
		}
		return errorReply(w.t, "MCP "+uri, rpc.Data)
	}
	if len(res.Contents) != 1 {
		w.t.Fatalf("MCP %s: %d contents", uri, len(res.Contents))
	}
	return docReply(w.t, "MCP "+uri, []byte(res.Contents[0].Text))
}

// api sends a request to serve's JSON API; path is below the project's
// route (/api/projects/SLUG) unless it starts with /api/.
func (w *world) api(method, path, body string) reply {
	w.t.Helper()
	if !strings.HasPrefix(path, "/api/") {
		path = "/api/projects/" + w.slug + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, w.base+path, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	what := method + " " + path
	if resp.StatusCode >= 400 {
		return errorReply(w.t, what, b)
	}
	return docReply(w.t, what, b)
}

func docReply(t *testing.T, what string, b []byte) reply {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: not a JSON document: %v\n%s", what, err, b)
	}
	return reply{doc: v, raw: string(b)}
}

func errorReply(t *testing.T, what string, b []byte) reply {
	t.Helper()
	var v struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Error == nil {
		t.Fatalf("%s: failed without an error document: %v\n%s", what, err, b)
	}
	return reply{err: v.Error, raw: string(b)}
}

func (r reply) String() string {
	if r.err != nil {
		return fmt.Sprintf("error %v", r.err)
	}
	return r.raw
}
