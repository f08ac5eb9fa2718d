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

// A second client implementation that none of us wrote, mark3labs/mcp-go,
// drives agentmail mcp over stdio and agentmail serve's /mcp over HTTP, at
// both current protocol versions: initialize (or server/discover),
// tools/list, register_agent, send_message, fetch_inbox, with their
// fields checked (testdata/mcp-go, a module of its own so that agentmail
// does not depend on mcp-go; its go.sum pins it, the module proxy brings
// it). Its modules missing and not to be had fail the test in CI and skip
// it loudly elsewhere, as the Node client's do.
func TestMCPGoClient(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp-go")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dl := exec.CommandContext(ctx, goBin, "mod", "download")
	dl.Dir, dl.Env = dir, env
	if out, err := dl.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mcp-go cannot be had in CI: go mod download: %v\n%s", err, out)
		}
		t.Skipf("SKIPPED, NOT TESTED: the mcp-go client (go mod download in testdata/mcp-go: %v\n%s)", err, out)
	}
	bin := testbin.Agentmail(t)
	cmd := exec.CommandContext(ctx, goBin, "test", "-count=1", "-v", "./...")
	cmd.Dir, cmd.Env = dir, append(env, "AGENTMAIL_BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in testdata/mcp-go: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
