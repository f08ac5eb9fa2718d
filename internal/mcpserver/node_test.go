package mcpserver

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// A real client that none of us wrote: testdata/mcp-node/client.mjs drives
// agentmail mcp through the official TypeScript SDK. Without node or the
// installed SDK the test fails in CI (CI=true) and is skipped loudly
// elsewhere; .ci/run installs it (npm ci --prefix testdata/mcp-node).
func TestNodeClient(t *testing.T) {
	node, dir := testbin.NodeClient(t, "the Node MCP client")
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
