package main

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// gitdaemon DIR serves the repositories below DIR with git daemon on a
// free port of 127.0.0.1, pushes allowed, until the script ends, and sets
// $DAEMON to its base URL (git://127.0.0.1:PORT).
func cmdGitDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitdaemon DIR")
	}
	dir := ts.MkAbs(args[0])
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+dir, dir)
	cmd.Env = scriptEnv(ts)
	ts.Check(cmd.Start())
	ts.Defer(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("git daemon did not listen on %s", addr)
		}
	}
	ts.Setenv("DAEMON", "git://"+addr)
}

// retry SECONDS CMD [ARGS...] runs CMD as exec does, again and again,
// until it succeeds; it fails once SECONDS have passed. For what a process
// in the background does in its own time (sync --watch).
func cmdRetry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: retry SECONDS CMD [ARGS...]")
	}
	secs, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s still failing after %ds: %v", args[1], secs, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
