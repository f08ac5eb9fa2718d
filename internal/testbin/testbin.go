// Package testbin builds the agentmail command for the tests that run it
// as a process of its own, once per test binary.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// startEnv is the environment the test binary started with, read before
// any test points HOME elsewhere: the go command's caches are under it.
var startEnv = os.Environ()

var (
	once sync.Once
	path string
	err  error
)

// Agentmail returns the path of the agentmail command, built the first
// time it is asked for; a failed build fails the test.
func Agentmail(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, mkErr := os.MkdirTemp("", "agentmail-test-bin-")
		if mkErr != nil {
			err = mkErr
			return
		}
		path = filepath.Join(dir, "agentmail")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-tags", "sqlite_fts5,sqlite_omit_load_extension,urfave_cli_no_docs", "-o", path, "./cmd/agentmail")
		cmd.Dir, cmd.Env = filepath.Join(filepath.Dir(file), "..", ".."), startEnv
		if out, buildErr := cmd.CombinedOutput(); buildErr != nil {
			err = fmt.Errorf("go build: %v\n%s", buildErr, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Cleanup removes the command built, if any; TestMain calls it once the
// tests are done.
func Cleanup() {
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
}
