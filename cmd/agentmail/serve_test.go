package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitserve VAR FILE waits (up to 20 s) for FILE to hold serve's --json
// startup document, and sets $VAR to the server's base address
// (http://HOST:PORT).
func cmdWaitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitserve VAR FILE")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var doc struct{ Addr string }
		b, err := os.ReadFile(ts.MkAbs(args[1]))
		if err == nil && json.Unmarshal(b, &doc) == nil && doc.Addr != "" {
			ts.Setenv(args[0], "http://"+doc.Addr)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no startup document in %s after 20s: %q", args[1], b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// http METHOD URL [BODY] sends a request (BODY as JSON) and writes the
// answer's body to stdout and "HTTP STATUS" to stderr; it fails on a
// status of 400 or more unless negated (and then fails below 400).
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http METHOD URL [BODY]")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(args[2])
	}
	req, err := http.NewRequest(args[0], args[1], body)
	ts.Check(err)
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s", b)
	fmt.Fprintf(ts.Stderr(), "HTTP %d\n", resp.StatusCode)
	if failed := resp.StatusCode >= 400; failed != neg {
		ts.Fatalf("%s %s: HTTP %d", args[0], args[1], resp.StatusCode)
	}
}
