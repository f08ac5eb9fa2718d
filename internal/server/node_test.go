package server

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// TestNodeHTTPClient runs testdata/mcp-node/http.mjs, the official
// TypeScript SDK, against the /mcp/ endpoint over streamable HTTP with the
// bearer token (and without it: refused). Without node or the installed
// SDK the test fails in CI (CI=true) and is skipped loudly elsewhere;
// .ci/run installs it (npm ci --prefix testdata/mcp-node).
func TestNodeHTTPClient(t *testing.T) {
	node, dir := testbin.NodeClient(t, "the Node MCP client over HTTP")
	h := startServer(t, Config{Token: testToken, RequireToken: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "http.mjs"), h.base+"/mcp/", testToken)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node http.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// MCP Inspector's CLI lists the tools at /mcp over streamable HTTP with
// --strict and finds no schema portability problem, then calls one.
func TestInspectorHTTP(t *testing.T) {
	inspector := testbin.InspectorCLI(t)
	h := startServer(t, Config{Token: testToken, RequireToken: true})
	h.seed([]string{"BlueLake"})
	for _, args := range [][]string{
		{"--method", "tools/list", "--strict"},
		{"--method", "tools/call", "--tool-name", "fetch_inbox", "--tool-arg", "agent_name=BlueLake", "limit=5"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", h.base + "/mcp", "--header", "Authorization: Bearer " + testToken}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil || strings.TrimSpace(stderr.String()) != "" {
			t.Errorf("mcp-inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
		}
	}
}
