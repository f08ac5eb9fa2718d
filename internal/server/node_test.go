package server

import (
	"context"
	"os/exec"
	"path/filepath"
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
