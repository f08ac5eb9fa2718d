package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// NodeClient returns node's path and the directory of the Node MCP clients
// (testdata/mcp-node, with the official TypeScript SDK installed by npm
// ci). Without node or the SDK it fails the test in CI (CI=true), where
// .ci/run installs them, and skips it loudly elsewhere, naming what.
func NodeClient(t testing.TB, what string) (node, dir string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp-node")
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not installed"
	default:
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
			missing = "the TypeScript SDK is not installed: run npm ci --prefix testdata/mcp-node"
		}
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s cannot run in CI: %s", what, missing)
		}
		t.Skipf("SKIPPED, NOT TESTED: %s (%s)", what, missing)
	}
	return node, dir
}

// InspectorCLI returns the path of MCP Inspector's command
// (@modelcontextprotocol/inspector, pinned in testdata/mcp-node's lock
// file beside the SDK, so that the same npm ci installs it), to run as
// `mcp-inspector --cli ...`. Without it, it fails the test in CI and skips
// it loudly elsewhere, as NodeClient does.
func InspectorCLI(t testing.TB) string {
	t.Helper()
	_, dir := NodeClient(t, "MCP Inspector's CLI")
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		missing := "MCP Inspector is not installed: run npm ci --prefix testdata/mcp-node"
		if os.Getenv("CI") == "true" {
			t.Fatalf("MCP Inspector's CLI cannot run in CI: %s", missing)
		}
		t.Skipf("SKIPPED, NOT TESTED: MCP Inspector's CLI (%s)", missing)
	}
	return bin
}
