package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// MCP Inspector's CLI, a client none of us wrote, lists agentmail mcp's
// tools over stdio with --strict and finds no schema portability problem
// (it warned of 304 type lists before), then calls a tool with arguments
// as it sends them.
func TestInspectorCLI(t *testing.T) {
	inspector := testbin.InspectorCLI(t)
	h := newHarness(t)
	bin := testbin.Agentmail(t)
	run := func(args ...string) (stdout, stderr []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The SDK under the Inspector gives a server only a few variables
		// of its own environment: the store and the agent are passed.
		cli := []string{"--cli", "-e", "AGENTMAIL_HOME=" + h.store, "-e", "AGENTMAIL_AGENT=GreenCastle", "--cwd", h.repo, bin, "mcp"}
		cmd := exec.CommandContext(ctx, inspector, append(cli, args...)...)
		cmd.Dir, cmd.Env = h.repo, h.env()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("mcp-inspector %v: %v\n%s\n%s", args, err, out.Bytes(), errb.Bytes())
		}
		return out.Bytes(), errb.Bytes()
	}
	out, stderr := run("--method", "tools/list", "--strict")
	if len(bytes.TrimSpace(stderr)) > 0 {
		t.Errorf("mcp-inspector --strict reports:\n%s", stderr)
	}
	var list struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(out, &list); err != nil || len(list.Tools) != 58 {
		t.Errorf("tools/list: %d tools, %v", len(list.Tools), err)
	}
	run("--method", "tools/call", "--tool-name", "register_agent", "--tool-arg", "program=inspector")
	out, _ = run("--method", "tools/call", "--tool-name", "fetch_inbox", "--tool-arg", "limit=2", "include_bodies=true")
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.IsError || len(res.Content) != 2 || res.Content[0].Text != `{"messages":[],"result":[]}` {
		t.Errorf("fetch_inbox(limit=2): %v %s", err, out)
	}
}
