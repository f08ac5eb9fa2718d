package mcpserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// A real client that none of us wrote: testdata/mcp-node/client.mjs drives
// agentmail mcp through the official TypeScript SDK. Without node or the
// installed SDK the test fails in CI (CI=true) and is skipped loudly
// elsewhere; .ci/run installs it (npm ci --prefix testdata/mcp-node).
func TestNodeClient(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp-node")
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not installed"
	case !exists(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")):
		missing = "the TypeScript SDK is not installed: run npm ci --prefix testdata/mcp-node"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Node MCP client cannot run in CI: %s", missing)
		}
		t.Skipf("SKIPPED, NOT TESTED: the Node MCP client (%s)", missing)
	}
	bin := testbin.Agentmail(t)
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), bin, h.repo, h.store)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
