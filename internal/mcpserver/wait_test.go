package mcpserver

import (
	"context"
	"errors"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wait_for_mail is woken by a message that another process, the agentmail
// command line, sends; other calls go on while it waits.
func TestWaitWokenByCLISend(t *testing.T) {
	bin := testbin.Agentmail(t)
	g, b := twoAgents(t)
	got := make(chan doc, 1)
	go func() { got <- b.ok("wait_for_mail", args{"timeout_seconds": 30, "from": "GreenCastle"}) }()
	time.Sleep(400 * time.Millisecond) // the wait has begun

	start := time.Now()
	g.ok("whois", args{"agent_name": "BlueLake"})
	if d := time.Since(start); d > time.Second {
		t.Errorf("a call took %s while another waited for mail", d)
	}

	send := exec.Command(bin, "send", "--agent", "GreenCastle", "--to", "BlueLake", "--subject", "deploy done", "--body", "staging is green")
	send.Dir, send.Env = g.repo, g.env()
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("agentmail send: %v\n%s", err, out)
	}
	select {
	case d := <-got:
		b.want(d, "timed_out", false)
		b.want(d, "timeout", false)
		b.want(d, "messages.0.subject", "deploy done")
		b.want(d, "messages.0.body", "staging is green")
	case <-time.After(10 * time.Second):
		t.Fatal("wait_for_mail did not return after the send")
	}
}

func TestWaitTimesOut(t *testing.T) {
	_, b := twoAgents(t)
	d := b.ok("wait_for_mail", args{"timeout_seconds": 0})
	b.want(d, "timed_out", true)
	b.want(d, "timeout", true)
	b.want(d, "messages", []any{})
	b.fail("wait_for_mail", args{"timeout_seconds": -1}, "USAGE")
	b.fail("wait_for_mail", args{"agent_name": "GreenCastle"}, "AUTHENTICATION_REQUIRED")
}

// Cancelling the call ends the wait in the server.
func TestWaitCancelled(t *testing.T) {
	_, b := twoAgents(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_mail", Arguments: args{"timeout_seconds": 60}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled call: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.srv.gate.Blocked() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the wait went on %s after the call was cancelled", time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client that asks for progress hears from a long wait, so that it does
// not give up on the call.
func TestWaitReportsProgress(t *testing.T) {
	g, _ := twoAgents(t)
	var heard atomic.Int32
	b := g.peer("BlueLake")
	b.srv.progressEvery = 50 * time.Millisecond
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { heard.Add(1) },
	}).Connect(context.Background(), b.transport(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "wait_for_mail", Arguments: args{"timeout_seconds": 1}}
	params.SetProgressToken("wait-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("wait: %v %v", err, res)
	}
	if n := heard.Load(); n < 5 {
		t.Errorf("%d progress notifications in a 1s wait, every 50ms: want at least 5", n)
	}
}

// transport connects a further client to h's server.
func (h *harness) transport() mcp.Transport {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ss.Close() })
	return ct
}
