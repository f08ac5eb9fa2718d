package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mcpserver"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["mcp"] = []string{
		"agentmail setup claude-code                 # what a coding agent's configuration runs: agentmail mcp",
		"AGENTMAIL_AGENT=GreenCastle agentmail mcp   # a server acting as GreenCastle",
		"agentmail mcp --overseer                    # a human's or orchestrator's server: acts as any agent",
		"agentmail mcp --tools core                  # fewer tool definitions: identity, mail, reservations, macros",
	}
}

// mcpMemory is the Go memory budget of agentmail mcp, unless GOMEMLIMIT
// sets one. A tool call allocates some 200 KB (most of it the MCP SDK's
// JSON decoding) and holds little after, so with the default GOGC a
// session that reads collected every twenty calls or so: a sixth of the
// server's CPU time went to the collector (3,000 fetch_inbox calls on
// 100,000 messages: 3.4-3.8 s of CPU, 2.7 s with GOGC 400, the collector's
// share 16% and 5%). Sends hold more (the archive's recent trees), and
// the heap grew with them to twice that: after 1,000 calls each of
// send_message, fetch_inbox, search_messages and file_reservation_paths
// the RSS peaked at 119 MB; 105 MB under a limit of 64 MiB, 102 MB under
// 56 MiB, 98 MB with GOGC 400 under it.
var mcpMemory = memoryBudget{limit: 56 << 20, gcPercent: 400}

func newMCPCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve agentmail's tools to a coding agent over MCP (stdio)",
		ArgsUsage: " ",
		Description: "A Model Context Protocol server on standard input and output, for one client, until it disconnects:\n" +
			"every operation as a tool under mcp_agent_mail's names (send_message, fetch_inbox, file_reservation_paths,\n" +
			"...), answering with the --json documents, and the mailbox as resources (resource://inbox/NAME, ...).\n" +
			"Calls without project_key work in the project of --project, AGENTMAIL_PROJECT, or the current directory.\n" +
			"The server acts as the agent --agent, AGENTMAIL_AGENT or AGENT_NAME names, else as the first agent a\n" +
			"call registers or names; acting as another fails with AUTHENTICATION_REQUIRED unless --overseer.\n" +
			"agentmail setup CLIENT adds it to a coding agent's configuration.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "overseer", Usage: "act as any agent a call names, and as nobody (mail from the human, searches of the whole project)"},
			toolsFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			srv, err := e.mcpServer(c)
			if err != nil {
				return err
			}
			mcpMemory.apply(os.Getenv)
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			err = srv.ServeStdio(ctx, e.stdin, e.stdout)
			if cerr := srv.Close(); err == nil {
				err = cerr
			}
			if ctx.Err() != nil {
				return nil // stopped by a signal, as asked
			}
			return err
		},
	}
}

// mcpServer is the server the command line c asks for: the store, project
// and agent it names, as any command would use them.
func (e *env) mcpServer(c *cli.Context) (*mcpserver.Server, error) {
	if err := mcpserver.CheckProfile(c.String("tools")); err != nil {
		return nil, err
	}
	scope, err := scopeOf(c)
	if err != nil {
		return nil, err
	}
	dir, err := storeDir(c)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fault.WithHint(err, "pass --store an absolute path")
	}
	cfg, err := e.serviceConfig(abs)
	if err != nil {
		return nil, err
	}
	cfg.LongLived = true
	// The server's calls run concurrently, and so may their notes.
	var mu sync.Mutex
	note := cfg.Note
	cfg.Note = func(n string) {
		mu.Lock()
		defer mu.Unlock()
		note(n)
	}
	return mcpserver.New(mcpserver.Config{Store: cfg, Project: scope.Project, Agent: scope.Agent,
		Overseer: c.Bool("overseer"), Tools: c.String("tools"), Pane: os.Getenv("TMUX_PANE"), Version: readBuildInfo().Version}), nil
}

// toolsFlag is --tools, the MCP tool profile, of agentmail mcp and setup.
func toolsFlag() cli.Flag {
	return &cli.StringFlag{Name: "tools", Value: "full", Usage: "the tools to offer: `PROFILE` full (all), core (identity, mail, file reservations, macros), " +
		"messaging (identity, mail, contacts, search) or minimal (register_agent, send_message, fetch_inbox, acknowledge_message); " +
		"mcp_agent_mail's profiles of the same names"}
}
