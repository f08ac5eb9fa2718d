package mcpserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdio connects to `agentmail mcp ARGS...` run as a process of its own in
// h's repository, over its standard input and output.
func (h *harness) stdio(env []string, args ...string) *mcp.ClientSession {
	h.t.Helper()
	cmd := exec.Command(testbin.Agentmail(h.t), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = h.repo, env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			h.t.Errorf("agentmail mcp did not end cleanly: %v", err)
		}
	})
	return cs
}

// The command line's server: the agent AGENTMAIL_AGENT names, the project
// of its directory, the store of AGENTMAIL_HOME; --overseer.
func TestStdioServer(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	cs := h.stdio(h.env("AGENTMAIL_AGENT=GreenCastle"))
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 83 {
		t.Errorf("%d tools listed, want 83", n)
	}
	call := func(cs *mcp.ClientSession, name string, a args) doc {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", name, err, text(res))
		}
		return doc(res.StructuredContent.(map[string]any))
	}
	h.want(call(cs, "register_agent", args{"program": "claude-code"}), "agent.name", "GreenCastle")
	health := call(cs, "health_check", args{})
	h.want(health, "project.key", h.repo)
	h.want(health, "store", h.store)
	h.want(health, "agent", "GreenCastle")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_inbox", Arguments: args{"agent_name": "BlueLake"}})
	if err != nil || !res.IsError {
		t.Errorf("acting as another agent: %v %s", err, text(res))
	}

	o := h.stdio(h.env(), "--overseer")
	h.want(call(o, "health_check", args{}), "overseer", true)
	h.want(call(o, "register_agent", args{"name": "BlueLake"}), "agent.name", "BlueLake")
	h.want(call(o, "send_message", args{"sender_name": "BlueLake", "to": "GreenCastle", "subject": "hi", "body_md": ""}), "message.from", "BlueLake")
	h.want(call(cs, "fetch_inbox", args{}), "messages.0.subject", "hi")
}

// A signal stops the server without an error.
func TestStdioServerStopsOnSignal(t *testing.T) {
	h := newHarness(t)
	cmd := exec.Command(testbin.Agentmail(t), "mcp")
	cmd.Dir, cmd.Env = h.repo, h.env()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the server answers (its handler is set by then: a
	// signal before it would end any process, however loaded the machine).
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("no answer to a ping: %v", err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("agentmail mcp after SIGINT: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("agentmail mcp did not stop on SIGINT")
	}
}
