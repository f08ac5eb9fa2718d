package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mcpserver"
	"github.com/agentmail/agentmail/internal/server"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["serve"] = []string{
		"agentmail serve                                         # http://127.0.0.1:8765/mail/",
		"openssl rand -hex 32 > ~/.agentmail-token && chmod 600 ~/.agentmail-token",
		"agentmail serve --addr 0.0.0.0:8765 --token-file ~/.agentmail-token",
		"curl -s -H \"Authorization: Bearer $(cat ~/.agentmail-token)\" http://127.0.0.1:8765/api/projects",
	}
}

// shutdownGrace is how long serve lets requests under way finish once
// told to stop.
const shutdownGrace = 30 * time.Second

// serveMemory is the soft limit serve puts on its Go memory
// (debug.SetMemoryLimit) unless GOMEMLIMIT sets one. By default the heap
// of a long-lived server grows to twice what it holds before a collection
// (GOGC), and further under bursts of writes; near the limit the collector
// runs sooner instead, and returns memory to the system. At 100,000
// messages the server holds some 40 MB; under make bench-serve's sends
// its peak RSS was 175 MB without a limit, 147-155 MB with this one, for
// two to three times the collections during the sends (a limit of 96 MiB
// did not bind: 172-179 MB).
var serveMemory = memoryBudget{limit: 80 << 20}

// serveDocument is the --json startup document of serve.
type serveDocument struct {
	Addr string `json:"addr"` // host:port it listens on
	URL  string `json:"url"`  // the web UI, with the token that logs a browser in
	API  string `json:"api"`  // the JSON API's base
	MCP  string `json:"mcp"`  // the MCP endpoint (streamable HTTP)
}

func newServeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve the web UI, the JSON API and MCP over HTTP for the store",
		ArgsUsage: " ",
		Description: "One long-lived process: the web UI for the humans overseeing the agents at /mail/, the JSON API\n" +
			"under /api/ (the --json documents), and agentmail mcp's tools over streamable HTTP at /mcp.\n" +
			"It listens on loopback unless told otherwise, and refuses any other address without a token\n" +
			"(--token-file, or AGENTMAIL_TOKEN): API and MCP requests then send Authorization: Bearer TOKEN,\n" +
			"browsers open the printed link once. SIGINT or SIGTERM stops it: requests under way finish,\n" +
			"the store is closed. Projects that have synced (agentmail sync) are synced again every\n" +
			"--sync-interval; what comes in and what fails is printed on stderr.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8765", Usage: "the address to listen on, host:port"},
			&cli.StringFlag{Name: "token-file", Usage: "read the token from `FILE` (else AGENTMAIL_TOKEN)"},
			&cli.BoolFlag{Name: "require-token", Usage: "require the token on loopback too"},
			&cli.DurationFlag{Name: "sync-interval", Value: 30 * time.Second, Usage: "sync every project that has synced before (agentmail sync) this often; 0 turns it off"},
			&cli.StringFlag{Name: "mcp-tools", Value: "full", Usage: "the MCP tool `PROFILE` /mcp serves (full, core, messaging, minimal, as agentmail mcp --tools); a client's URL may ask for another with ?tools=core"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			return e.serve(c)
		},
	}
}

// serve runs the server c asks for until SIGINT or SIGTERM.
func (e *env) serve(c *cli.Context) error {
	token, err := serveToken(c.String("token-file"), os.Getenv("AGENTMAIL_TOKEN"))
	if err != nil {
		return err
	}
	if d := c.Duration("sync-interval"); d < 0 {
		return usagef("give a positive interval such as 30s, or 0 to turn syncing off", "--sync-interval: %s is negative", d)
	}
	if err := mcpserver.CheckProfile(c.String("mcp-tools")); err != nil {
		return err
	}
	scope, err := scopeOf(c)
	if err != nil {
		return err
	}
	dir, err := storeDir(c)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fault.WithHint(err, "pass --store an absolute path")
	}
	cfg, err := e.serviceConfig(abs)
	if err != nil {
		return err
	}
	cfg.LongLived = true
	serveMemory.apply(os.Getenv)
	srv, err := server.Listen(server.Config{Addr: c.String("addr"), Token: token, RequireToken: c.Bool("require-token"),
		Store: cfg, Project: scope.Project, Version: readBuildInfo().Version, SyncEvery: c.Duration("sync-interval"),
		MCPTools: c.String("mcp-tools")})
	if err != nil {
		return err
	}
	out := e.output(c)
	base := "http://" + srv.Addr()
	if out.JSON {
		err = out.printJSON(serveDocument{Addr: srv.Addr(), URL: srv.URL(), API: base + "/api/", MCP: base + "/mcp"})
	} else {
		_, err = fmt.Fprintf(out.Stdout, "agentmail serve: open %s (API %s/api/, MCP %s/mcp; Ctrl-C stops)\n", srv.URL(), base, base)
	}
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return err
	}
	return serveUntilSignal(c.Context, srv)
}

// serveUntilSignal serves until SIGINT or SIGTERM, then shuts down.
func serveUntilSignal(ctx context.Context, srv *server.Server) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	select {
	case err := <-served:
		_ = srv.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	stop() // a second signal kills at once
	shut, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	return <-served
}

// serveToken returns the token: file's content when a file is named,
// else env's, trimmed.
func serveToken(file, env string) (string, error) {
	if file == "" {
		return strings.TrimSpace(env), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fault.WithHint(fmt.Errorf("--token-file: %w", err), "make one with: openssl rand -hex 32 > FILE && chmod 600 FILE")
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fault.WithHint(fmt.Errorf("--token-file: %s is empty", file), "make one with: openssl rand -hex 32 > FILE && chmod 600 FILE")
	}
	return token, nil
}
