package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// hookReceiver is a webhook receiver on loopback for a script: it checks
// each delivery's signature (sha256=<hex HMAC-SHA256 of the body>) with
// the secret, its delivery id and timestamp headers against the body, and
// writes one line per request to its log: "ok DELIVERY EVENT ATTEMPT" for
// one it accepted, "answered STATUS DELIVERY" for one it answered with an
// error status (see hookanswers), "bad REASON" for one that fails a check.
type hookReceiver struct {
	secret []byte
	log    string

	mu      sync.Mutex
	answers []int
}

var receivers sync.Map // *testscript.TestScript -> *hookReceiver

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	m := hmac.New(sha256.New, r.secret)
	m.Write(body)
	var doc struct {
		ID        string          `json:"id"`
		Attempt   int             `json:"attempt"`
		Timestamp string          `json:"timestamp"`
		Event     json.RawMessage `json:"event"`
	}
	var ev struct{ Type string }
	line := ""
	ts, tsErr := strconv.ParseInt(req.Header.Get("X-Agentmail-Timestamp"), 10, 64)
	switch {
	case req.Header.Get("X-Agentmail-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)):
		line = "bad signature " + req.Header.Get("X-Agentmail-Signature")
	case json.Unmarshal(body, &doc) != nil || json.Unmarshal(doc.Event, &ev) != nil:
		line = "bad body " + string(body)
	case doc.ID == "" || req.Header.Get("X-Agentmail-Delivery") != doc.ID:
		line = "bad delivery id " + req.Header.Get("X-Agentmail-Delivery")
	case tsErr != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute || time.Unix(ts, 0).UTC().Format(time.RFC3339) != doc.Timestamp:
		line = "bad timestamp " + req.Header.Get("X-Agentmail-Timestamp") + " " + doc.Timestamp
	case req.Header.Get("X-Agentmail-Event") != ev.Type:
		line = "bad event header " + req.Header.Get("X-Agentmail-Event")
	}
	status := http.StatusOK
	r.mu.Lock()
	defer r.mu.Unlock()
	if line == "" && len(r.answers) > 0 {
		status, r.answers = r.answers[0], r.answers[1:]
	}
	switch {
	case line != "":
		status = http.StatusUnauthorized
	case status/100 == 2:
		line = fmt.Sprintf("ok %s %s %d", doc.ID, ev.Type, doc.Attempt)
	default:
		line = fmt.Sprintf("answered %d %s", status, doc.ID)
	}
	f, err := os.OpenFile(r.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
	w.WriteHeader(status)
}

// hookreceiver VAR SECRETFILE LOGFILE starts a webhook receiver on
// loopback (hookReceiver) for the rest of the script and sets $VAR to its
// URL.
func cmdHookReceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: hookreceiver VAR SECRETFILE LOGFILE")
	}
	secret, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	r := &hookReceiver{secret: []byte(strings.TrimSpace(string(secret))), log: ts.MkAbs(args[2])}
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	receivers.Store(ts, r)
	ts.Setenv(args[0], "http://"+ln.Addr().String()+"/hook")
}

// hookanswers STATUS... has the script's receiver answer the next
// deliveries with these statuses, in turn (then 200 again); with none, it
// answers 200 from now.
func cmdHookAnswers(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := receivers.Load(ts)
	if neg || !ok {
		ts.Fatalf("usage: hookanswers STATUS... (after hookreceiver)")
	}
	r := v.(*hookReceiver)
	var answers []int
	for _, a := range args {
		n, err := strconv.Atoi(a)
		ts.Check(err)
		answers = append(answers, n)
	}
	r.mu.Lock()
	r.answers = answers
	r.mu.Unlock()
}
