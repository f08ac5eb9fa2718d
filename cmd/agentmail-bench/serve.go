package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentmail/agentmail/internal/procstat"
)

// Issue 14's targets for agentmail serve at 100,000 messages.
const (
	serveSendClients = 8
	serveSendFor     = 10 * time.Second
	serveSendTarget  = 300       // msg/s through the API with serveSendClients
	serveRSSTarget   = 150 << 20 // bytes, after the sends
)

// measureServe times one live `agentmail serve` on the seeded store over
// real HTTP on loopback, as a browser or an API client meets it: the round
// trip of each request, runs times, after a first one of each kind that
// opens the store; then the messages per second that serveSendClients API
// clients sustain sending for serveSendFor, and the server's resident
// memory after that. The floor is a static asset: the HTTP round trip of
// a request that reads no store.
func measureServe(ctx context.Context, b *bench, seed seeded, runs int) error {
	srv, err := startServe(b)
	if err != nil {
		return err
	}
	defer srv.stop()
	slug, err := srv.projectSlug()
	if err != nil {
		return err
	}
	reader := agentName(1)
	api, pages := "/api/projects/"+slug, "/mail/"+slug
	gets := []struct {
		name   string
		target time.Duration
		path   func(i int) string
	}{
		{"serve static asset (floor)", 0, func(int) string { return "/static/style.css" }},
		{"serve API inbox limit 20", 2 * time.Millisecond, func(int) string { return api + "/agents/" + reader + "/inbox?limit=20" }},
		{"serve web inbox page", 20 * time.Millisecond, func(int) string { return pages + "/inbox/" + reader }},
		{"serve message page", 10 * time.Millisecond, func(i int) string { return pages + "/message/" + seed.IDs[(i*7919)%len(seed.IDs)] }},
		{"serve search page rare", 30 * time.Millisecond, func(int) string { return pages + "/search?q=argon" }},
		// The project page opens on the timeline (and a live page fetches
		// itself again for each event of its regions).
		{"serve timeline page", 20 * time.Millisecond, func(int) string { return pages }},
		{"serve API timeline", 20 * time.Millisecond, func(int) string { return api + "/timeline" }},
		{"serve threads page", 20 * time.Millisecond, func(int) string { return pages + "/threads" }},
		{"serve API timeline deep", 20 * time.Millisecond, func(i int) string { return api + "/timeline?before=" + seed.IDs[len(seed.IDs)/2+i%100] }},
	}
	for _, g := range gets {
		if err := srv.get(g.path(0)); err != nil {
			return err
		}
		fmt.Println(timeCalls(g.name, g.target, runs, func(i int) error { return srv.get(g.path(i)) }, nil))
	}

	rate, err := srv.sustainSends(ctx, api)
	if err != nil {
		return err
	}
	fmt.Printf("%-28s %8.0f msg/s   target >= %d msg/s   %s\n", fmt.Sprintf("serve API sends, %d clients", serveSendClients),
		rate, serveSendTarget, verdict(rate >= serveSendTarget))
	peak, now, err := procstat.RSS(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("%-28s %8s peak %8s now   target <= %d MB   %s\n", "serve RSS after the sends",
		fmt.Sprintf("%d MB", peak>>20), fmt.Sprintf("%d MB", now>>20), serveRSSTarget>>20, verdict(peak <= serveRSSTarget))
	return nil
}

// server is a live agentmail serve process.
type server struct {
	cmd    *exec.Cmd
	base   string // http://HOST:PORT
	client *http.Client
}

// startServe starts agentmail serve on a free loopback port of the
// benchmark's store, and waits for its startup document.
func startServe(b *bench) (*server, error) {
	cmd := exec.Command(b.bin, "serve", "--addr", "127.0.0.1:0", "--json")
	cmd.Env, cmd.Stderr = b.env, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var doc struct {
		Addr string `json:"addr"`
	}
	if err := json.NewDecoder(stdout).Decode(&doc); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("serve's startup document: %w", err)
	}
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * serveSendClients}}
	return &server{cmd: cmd, base: "http://" + doc.Addr, client: client}, nil
}

// stop ends the server as a user would, with SIGTERM.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
}

// projectSlug is the seeded project's slug.
func (s *server) projectSlug() (string, error) {
	body, err := s.do("GET", "/api/projects", "")
	if err != nil {
		return "", err
	}
	var doc struct {
		Projects []struct{ Key, Slug string } `json:"projects"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("GET /api/projects: %w", err)
	}
	for _, p := range doc.Projects {
		if p.Key == projectKey {
			return p.Slug, nil
		}
	}
	return "", fmt.Errorf("GET /api/projects: no project %s in %s", projectKey, body)
}

// get requests path, which must answer 200, and reads the whole answer.
func (s *server) get(path string) error {
	_, err := s.do("GET", path, "")
	return err
}

// do sends a request (body, when not empty, as JSON) and returns the
// answer's body; a status other than 200 is an error.
func (s *server) do(method, path, body string) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %.300s", method, path, resp.StatusCode, b)
	}
	return b, nil
}

// sustainSends has serveSendClients clients send through the API, each
// one message after another, for serveSendFor, and returns the messages
// sent per second.
func (s *server) sustainSends(ctx context.Context, api string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, serveSendFor)
	defer cancel()
	var wg sync.WaitGroup
	counts := make([]int, serveSendClients)
	errs := make(chan error, serveSendClients)
	start := time.Now()
	for c := range serveSendClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				body := fmt.Sprintf(`{"agent":%q,"to":[%q],"subject":"serve bench %d.%d","body":"Benchmark body with a little **markdown**."}`,
					agentName(c), agentName(1), c, counts[c])
				if _, err := s.do("POST", api+"/messages", body); err != nil {
					errs <- err
					return
				}
				counts[c]++
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return float64(total) / elapsed.Seconds(), nil
}
