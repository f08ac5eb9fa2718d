package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/procstat"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
)

// TestMain removes the agentmail command TestLoad builds.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// Load shape of TestLoad (issue 14): loadClients HTTP clients for
// loadFor against one agentmail serve, while loadCLISenders loops of
// `agentmail send` processes write to the same store.
const (
	loadClients    = 100
	loadCLISenders = 4
	loadFor        = 10 * time.Second
	loadPatterns   = 20 // area-0/** … area-19/**: clients contend for them
	// loadWait bounds each request and command: twice the store's wait
	// for its lock (30 s), after which a write fails with STORE_BUSY.
	loadWait = time.Minute
)

// TestLoad is issue 14's load test: 100 concurrent clients for 10 s
// (page loads, API reads, sends, reserve/release) against the real
// agentmail serve binary on a real store, while CLI processes send too.
// Every request must succeed or answer a documented, expected refusal;
// afterwards every send is in the archive and the index exactly once (and
// nothing else is), every lease taken was released, the server stops on
// SIGTERM with status 0, and doctor --check is clean.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("the load test runs for 10 s")
	}
	bin := testbin.Agentmail(t)
	store := filepath.Join(t.TempDir(), "store")
	env := append(os.Environ(), "AGENTMAIL_HOME="+store, "AGENTMAIL_PROJECT="+projectKey)
	l := &loadRun{t: t, bin: bin, env: env, times: map[string][]time.Duration{}, codes: map[string]int{}}
	l.seed(store)
	srv := startServe(t, bin, env)
	l.base, l.client = srv.base, &http.Client{
		Timeout:   loadWait,
		Transport: &http.Transport{MaxIdleConnsPerHost: loadClients + 10},
	}
	l.slug = l.projectSlug()

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), loadFor)
	var wg sync.WaitGroup
	for c := 0; c < loadClients; c++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.httpClient(ctx, c) }()
	}
	for c := 0; c < loadCLISenders; c++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.cliSender(ctx, c) }()
	}
	wg.Wait()
	cancel()
	elapsed := time.Since(start)
	l.summary(elapsed, srv.pid)

	l.checkIndex()
	l.checkLeasesReleased()
	srv.stop(t)
	l.checkArchive(store)
	if out, err := l.cli("doctor", "--check"); err != nil {
		t.Errorf("doctor --check: %v\n%s", err, out)
	}
	if len(l.errs) > 0 {
		t.Errorf("%d requests failed; the first ones:\n%s", len(l.errs), strings.Join(l.errs[:min(len(l.errs), 20)], "\n"))
	}
}

// loadRun is the state of TestLoad, shared by its clients.
type loadRun struct {
	t      *testing.T
	bin    string
	env    []string // the CLI's: the store and the project
	client *http.Client
	base   string // http://HOST:PORT
	slug   string
	agents []string // one per HTTP client; the CLI senders share them

	mu    sync.Mutex
	sent  []string // the id of every message sent, seeded, by the API or the CLI
	times map[string][]time.Duration
	codes map[string]int // expected refusals, by kind and code
	errs  []string
}

// seed registers an agent for each HTTP client (so that a client's
// leases are its own: it releases what it reserved) and sends a first
// message, through the library, before the server starts.
func (l *loadRun) seed(store string) {
	ctx := context.Background()
	svc := service.New(service.Config{Dir: store})
	defer svc.Close()
	sc := service.Scope{Project: service.ProjectRef{Key: projectKey}}
	for range loadClients {
		resp, err := svc.Register(ctx, sc, service.RegisterRequest{Program: "load"})
		if err != nil {
			l.t.Fatalf("register: %v", err)
		}
		l.agents = append(l.agents, resp.Agent.Name)
	}
	sc.Agent = l.agents[0]
	resp, err := svc.Send(ctx, sc, service.SendRequest{To: []string{l.agents[1]}, Subject: "load seed", Body: "the first"})
	if err != nil {
		l.t.Fatalf("send: %v", err)
	}
	l.sent = append(l.sent, resp.Message.ID)
}

// served is an agentmail serve process.
type served struct {
	cmd    *exec.Cmd
	pid    int
	base   string
	stderr *bytes.Buffer
	done   chan error
}

// startServe starts agentmail serve on a free loopback port and waits for
// its startup document.
func startServe(t *testing.T, bin string, env []string) *served {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--json")
	s := &served{cmd: cmd, stderr: new(bytes.Buffer), done: make(chan error, 1)}
	cmd.Env, cmd.Stderr = env, s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	var doc serveDoc
	if err := json.NewDecoder(stdout).Decode(&doc); err != nil || doc.Addr == "" {
		t.Fatalf("serve printed no startup document (%v)\n%s", err, s.stderr)
	}
	s.base = "http://" + doc.Addr
	return s
}

// serveDoc is serve's --json startup document, as far as the test needs.
type serveDoc struct {
	Addr string `json:"addr"`
}

// stop ends the server with SIGTERM, as a user would, and requires it to
// exit with status 0 within its grace period.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve exited: %v\n%s", err, s.stderr)
		}
	case <-time.After(40 * time.Second):
		t.Errorf("serve still running 40 s after SIGTERM\n%s", s.stderr)
	}
}

// projectSlug is the one project's slug, from the API.
func (l *loadRun) projectSlug() string {
	status, body := l.call("api projects", "GET", "/api/projects", nil)
	var doc struct {
		Projects []struct{ Slug string } `json:"projects"`
	}
	if status != 200 || json.Unmarshal(body, &doc) != nil || len(doc.Projects) != 1 {
		l.t.Fatalf("GET /api/projects: %d %s", status, body)
	}
	return doc.Projects[0].Slug
}

// httpClient is one of the concurrent clients: until ctx ends, it loads
// pages, reads the API, sends, and reserves then releases, in random
// order, as its own agent.
func (l *loadRun) httpClient(ctx context.Context, c int) {
	rng := rand.New(rand.NewPCG(uint64(c), 14))
	me := l.agents[c]
	api, pages := "/api/projects/"+l.slug, "/mail/"+l.slug
	for n := 0; ctx.Err() == nil; n++ {
		switch k := rng.IntN(100); {
		case k < 8:
			l.call("page inbox", "GET", pages+"/inbox/"+me, nil)
		case k < 16:
			l.call("page message", "GET", pages+"/message/"+l.anySent(rng), nil)
		case k < 22:
			l.call("page search", "GET", pages+"/search?q=load", nil)
		case k < 25:
			l.call("page project", "GET", pages, nil)
		case k < 35:
			l.call("api inbox", "GET", api+"/agents/"+me+"/inbox?limit=20", nil)
		case k < 43:
			l.call("api show", "GET", api+"/messages/"+l.anySent(rng), nil)
		case k < 49:
			l.call("api search", "GET", api+"/search?agent="+me+"&q=load", nil)
		case k < 52:
			l.call("api reservations", "GET", api+"/reservations", nil)
		case k < 80:
			to := l.agents[(c+1+rng.IntN(loadClients-1))%loadClients]
			l.send(api, me, to, fmt.Sprintf("load %d.%d", c, n))
		default:
			l.reserveRelease(api, me, fmt.Sprintf("area-%d/**", rng.IntN(loadPatterns)))
		}
	}
}

// send sends a message through the API and records its id.
func (l *loadRun) send(api, from, to, subject string) {
	status, body := l.call("api send", "POST", api+"/messages", map[string]any{
		"agent": from, "to": []string{to}, "subject": subject, "body": "Under **load**: " + subject})
	if status != 200 {
		return
	}
	var doc service.SendResponse
	if err := json.Unmarshal(body, &doc); err != nil || doc.Message.ID == "" {
		l.fail("api send: no message in %s", body)
		return
	}
	l.record(doc.Message.ID)
}

// reserveRelease reserves pattern exclusively and, when granted, releases
// it. Another client (another agent) holding an overlapping pattern makes
// the reservation answer 409 RESERVATION_CONFLICT: what the API documents
// for a lease held by someone else, not a failure, so it is counted apart.
// A release must release exactly the lease granted: no other client acts
// as this agent.
func (l *loadRun) reserveRelease(api, me, pattern string) {
	req := map[string]any{"agent": me, "patterns": []string{pattern}, "ttl": "10m"}
	status, _ := l.call("api reserve", "POST", api+"/reservations", req, "RESERVATION_CONFLICT")
	if status != 200 {
		return
	}
	delete(req, "ttl")
	status, body := l.call("api release", "POST", api+"/reservations/release", req)
	var doc service.ReleaseResponse
	if status == 200 && (json.Unmarshal(body, &doc) != nil || len(doc.Released) != 1) {
		l.fail("release %s as %s: released %s", pattern, me, body)
	}
}

// cliSender runs `agentmail send` processes one after another until ctx
// ends, recording each message's id.
func (l *loadRun) cliSender(ctx context.Context, c int) {
	for n := 0; ctx.Err() == nil; n++ {
		from, to := l.agents[c], l.agents[(c+1)%loadClients]
		start := time.Now()
		out, err := l.cli("send", "--json", "--agent", from, "--to", to, "--subject", fmt.Sprintf("load cli %d.%d", c, n), "--body", "from the command line")
		l.took("cli send", time.Since(start))
		var doc service.SendResponse
		if err != nil || json.Unmarshal(out, &doc) != nil || doc.Message.ID == "" {
			l.fail("cli send: %v: %s", err, out)
			continue
		}
		l.record(doc.Message.ID)
	}
}

// cli runs agentmail with args on the test's store and project, and
// returns its standard output (with its standard error on failure). A
// command still running after loadWait is killed: the test stops by
// itself.
func (l *loadRun) cli(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, args...)
	cmd.Env = l.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// call sends one request of kind (body, when not nil, as JSON), times it,
// and returns its status and body. A success (2xx) is counted, and so is
// an error document whose code is one of expected; anything else is an
// error of the run.
func (l *loadRun) call(kind, method, path string, body any, expected ...string) (int, []byte) {
	req, err := newRequest(method, l.base+path, body)
	if err != nil {
		l.fail("%s %s: %v", method, path, err)
		return 0, nil
	}
	start := time.Now()
	resp, err := l.client.Do(req)
	if err != nil {
		l.fail("%s %s: %v", method, path, err)
		return 0, nil
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	l.took(kind, time.Since(start))
	if err != nil {
		l.fail("%s %s: reading the answer: %v", method, path, err)
		return 0, nil
	}
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, b
	}
	var doc struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal(b, &doc) == nil && slices.Contains(expected, doc.Error.Code) {
		l.mu.Lock()
		l.codes[kind+" "+doc.Error.Code]++
		l.mu.Unlock()
		return resp.StatusCode, b
	}
	l.fail("%s %s: %d %.300s", method, path, resp.StatusCode, b)
	return resp.StatusCode, b
}

// took records the time of one request of kind.
func (l *loadRun) took(kind string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.times[kind] = append(l.times[kind], d)
}

// record notes the id of a message sent.
func (l *loadRun) record(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, id)
}

// anySent is the id of a message sent so far, at random.
func (l *loadRun) anySent(rng *rand.Rand) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent[rng.IntN(len(l.sent))]
}

// fail records an error of the run.
func (l *loadRun) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Sprintf(format, args...))
}

// summary logs the requests of each kind with their median and 99th
// percentile, the expected refusals, the sends per second, and the
// server's resident memory.
func (l *loadRun) summary(elapsed time.Duration, pid int) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d HTTP clients and %d CLI senders for %s:\n", loadClients, loadCLISenders, elapsed.Round(time.Millisecond))
	kinds := make([]string, 0, len(l.times))
	total := 0
	for k, ts := range l.times {
		kinds = append(kinds, k)
		total += len(ts)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		ts := l.times[k]
		slices.Sort(ts)
		fmt.Fprintf(&b, "  %-18s %6d   p50 %9s   p99 %9s\n", k, len(ts),
			ts[len(ts)/2].Round(10*time.Microsecond), ts[len(ts)*99/100].Round(10*time.Microsecond))
	}
	fmt.Fprintf(&b, "  %d requests, %d errors, expected refusals %v\n", total, len(l.errs), l.codes)
	fmt.Fprintf(&b, "  %.0f sends/s (API and CLI)", float64(len(l.sent)-1)/elapsed.Seconds())
	if peak, now, err := procstat.RSS(pid); err == nil {
		fmt.Fprintf(&b, "; server RSS %d MB now, %d MB peak", now>>20, peak>>20)
	}
	l.t.Log(b.String())
}

// checkIndex requires every message sent to be in its sender's outbox, as
// the server's index answers, exactly once, and nothing else to be.
func (l *loadRun) checkIndex() {
	var listed []string
	for _, a := range l.agents {
		status, body := l.call("api outbox", "GET", "/api/projects/"+l.slug+"/agents/"+a+"/outbox?limit=0", nil)
		var doc service.OutboxResponse
		if status != 200 || json.Unmarshal(body, &doc) != nil {
			l.t.Fatalf("outbox of %s: %d %s", a, status, body)
		}
		for _, m := range doc.Messages {
			listed = append(listed, m.ID)
		}
	}
	l.t.Logf("index: %d messages in the outboxes", len(listed))
	sameOnce(l.t, "the index", l.sent, listed)
}

// checkLeasesReleased requires no lease to be left: each one granted was
// released.
func (l *loadRun) checkLeasesReleased() {
	status, body := l.call("api reservations", "GET", "/api/projects/"+l.slug+"/reservations", nil)
	var doc service.ReservationsResponse
	if status != 200 || json.Unmarshal(body, &doc) != nil {
		l.t.Fatalf("reservations: %d %s", status, body)
	}
	if len(doc.Reservations) != 0 {
		l.t.Errorf("%d leases left active, such as %+v", len(doc.Reservations), doc.Reservations[0])
	}
}

// checkArchive requires every message sent to have exactly one canonical
// file in the project's branch of the archive (messages/YYYY/MM/DD/ID-slug.md),
// and no other to be there.
func (l *loadRun) checkArchive(store string) {
	ref := "refs/heads/projects/" + l.slug
	out, err := exec.Command("git", "--git-dir", filepath.Join(store, "archive.git"), "ls-tree", "-r", "--name-only", ref).Output()
	if err != nil {
		l.t.Fatalf("git ls-tree %s: %v", ref, err)
	}
	var files []string
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(p, "messages/") { // the branch holds the project's directory
			id, _, _ := strings.Cut(path.Base(p), "-")
			files = append(files, id)
		}
	}
	l.t.Logf("archive: %d message files", len(files))
	sameOnce(l.t, "the archive", l.sent, files)
}

// sameOnce requires found to hold each of want exactly once, and nothing
// else.
func sameOnce(t *testing.T, where string, want, found []string) {
	t.Helper()
	count := map[string]int{}
	for _, id := range found {
		count[id]++
	}
	for _, id := range want {
		if count[id] != 1 {
			t.Errorf("%s holds message %s %d times", where, id, count[id])
		}
		delete(count, id)
	}
	for id, n := range count {
		t.Errorf("%s holds message %s (%d times), which no client sent", where, id, n)
	}
}
