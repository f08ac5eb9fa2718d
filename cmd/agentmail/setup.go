package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mcpserver"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

// setup's examples join the table here, beside the command, so that the
// command list is all app.go knows of it.
func init() {
	examples["setup"] = []string{
		"agentmail setup claude-code --hooks          # .mcp.json and hooks in .claude/settings.json",
		"agentmail setup claude-code --hooks --auto-reserve --agent GreenCastle   # edits take leases too",
		"agentmail setup codex --user --agent GreenCastle --dry-run",
		"agentmail setup cursor --command /usr/local/bin/agentmail",
		"agentmail setup gemini --uninstall",
		"agentmail setup claude-code --tools core     # fewer tool definitions in the agent's context",
	}
}

type setupOptions struct {
	output
	req service.SetupRequest
}

func newSetupCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "setup",
		Usage:     "add the agentmail MCP server to a coding agent's configuration (" + strings.Join(service.SetupClients(), ", ") + ")",
		ArgsUsage: "CLIENT",
		Description: "Adds an \"agentmail\" entry running `agentmail mcp` to the client's MCP servers: in the project's\n" +
			"configuration (the repository around the current directory), or with --user in yours. Every other\n" +
			"entry, key and comment of the file stays as it was; running it twice changes nothing; --uninstall\n" +
			"takes it out again, giving the file back byte for byte when nothing else changed it since.\n" +
			"The global --agent and --project, when given, are passed to the server as AGENTMAIL_AGENT and\n" +
			"AGENTMAIL_PROJECT, and the store (--store, AGENTMAIL_HOME, XDG_DATA_HOME) as AGENTMAIL_HOME unless it\n" +
			"is the default one: clients give servers little of your environment.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "user", Usage: "your configuration, for every project, instead of the project's"},
			&cli.BoolFlag{Name: "hooks", Usage: "claude-code: also a UserPromptSubmit hook running agentmail check, so new mail reaches the agent with each prompt, and a PreToolUse hook running agentmail guard edit, which denies an edit of a file another agent holds; gemini: the BeforeTool hook running guard edit (Gemini CLI runs hooks once its hooks system is enabled: tools.enableHooks)"},
			&cli.BoolFlag{Name: "auto-reserve", Usage: "with --hooks: the PreToolUse hook runs guard edit --auto-reserve (an edit of a file nobody holds takes a short exclusive lease for the agent, renewed by further edits), and a SessionEnd hook runs guard session-end (which releases those leases). Files written by shell commands are not seen: the commit guard stops those"},
			&cli.BoolFlag{Name: "uninstall", Usage: "take out what setup added (the server, and the hooks)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the change as a diff and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace an agentmail entry that differs from the one setup writes"},
			&cli.StringFlag{Name: "command", Usage: "the agentmail the client runs, a `PATH` or a name on the client's PATH (default: the absolute path of this one)"},
			&cli.StringFlag{Name: "repo", Usage: "a directory `DIR` in the project's repository (default: the current one)"},
			toolsFlag(),
		},
		Action: func(c *cli.Context) error {
			opts, err := readSetupOptions(c)
			if err != nil {
				return err
			}
			return runSetup(c.Context, &setupOptions{output: e.output(c),
				req: service.SetupRequest{Options: opts, Uninstall: c.Bool("uninstall"), DryRun: c.Bool("dry-run")}})
		},
	}
}

func runSetup(ctx context.Context, o *setupOptions) error {
	resp, err := service.Setup(ctx, o.req)
	return o.render(resp, err, func() error {
		for _, f := range resp.Files {
			if o.req.DryRun && f.Diff != nil && *f.Diff != "" {
				fmt.Fprint(o.Stdout, *f.Diff)
				continue
			}
			fmt.Fprintf(o.Stdout, "%s %s (agentmail %s)\n", f.Action, f.Path, setupWhat(f.What, o.req.Options.AutoReserve && !o.req.Uninstall))
		}
		if o.req.DryRun {
			fmt.Fprintln(o.Stderr, "note: dry run: nothing was written")
		}
		for _, n := range resp.Notes {
			fmt.Fprintln(o.Stderr, "note: "+n)
		}
		return nil
	})
}

func setupWhat(what string, auto bool) string {
	switch {
	case what == "hook" && auto:
		return "check, guard edit --auto-reserve and guard session-end hooks"
	case what == "hook":
		return "check and guard edit hooks"
	case what == "server and hook" && auto: // Gemini CLI: one file
		return "MCP server, guard edit --auto-reserve and guard session-end hooks"
	case what == "server and hook":
		return "MCP server and guard edit hook"
	}
	return "MCP server"
}

// readSetupOptions reads the command line and the environment.
func readSetupOptions(c *cli.Context) (service.SetupOptions, error) {
	client, err := oneArg(c, "CLIENT")
	if err != nil {
		return service.SetupOptions{}, err
	}
	hint := "name one of: " + strings.Join(service.SetupClients(), ", ")
	if !slices.Contains(service.SetupClients(), client) {
		return service.SetupOptions{}, usagef(hint, "unknown client %q", client)
	}
	if c.Bool("hooks") && !service.SetupHasHooks(client) {
		return service.SetupOptions{}, usagef("leave out --hooks", "--hooks is for claude-code and gemini: %s has no hook that setup adds", client)
	}
	if c.Bool("auto-reserve") && !c.Bool("hooks") && !c.Bool("uninstall") {
		return service.SetupOptions{}, usagef("add --hooks: the hooks take and release the leases", "--auto-reserve needs --hooks")
	}
	if err := mcpserver.CheckProfile(c.String("tools")); err != nil {
		return service.SetupOptions{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return service.SetupOptions{}, fault.WithHint(fmt.Errorf("find your home directory: %w", err), "set HOME")
	}
	o := service.SetupOptions{
		Client: client, User: c.Bool("user"), Hooks: c.Bool("hooks"), AutoReserve: c.Bool("auto-reserve"), Force: c.Bool("force"), Home: home, Tools: c.String("tools"),
		ConfigHome: envOr("XDG_CONFIG_HOME", filepath.Join(home, ".config")),
		CodexHome:  envOr("CODEX_HOME", filepath.Join(home, ".codex")),
		StateDir:   filepath.Join(envOr("XDG_STATE_HOME", filepath.Join(home, ".local", "state")), "agentmail", "setup"),
	}
	if o.Command, err = setupBinary(c.String("command")); err != nil {
		return o, err
	}
	if o.Env, err = serverEnv(c, home); err != nil {
		return o, err
	}
	if !o.User {
		if o.Project, err = projectRoot(c.String("repo")); err != nil {
			return o, err
		}
	}
	return o, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// setupBinary is the agentmail the client runs: --command (a path made
// absolute, or a bare name the client finds on its PATH), else this
// binary by its absolute path, which works whatever PATH the client has
// (GUI editors often have a short one) until the binary moves.
func setupBinary(command string) (string, error) {
	switch {
	case command == "":
		return service.FindBinary()
	case strings.ContainsRune(command, filepath.Separator):
		return filepath.Abs(command)
	}
	return command, nil
}

// serverEnv is the environment the server entry passes: the global
// --agent and --project given on this command line, and AGENTMAIL_HOME
// when the store this command would use is not the one the server finds
// by itself. Clients start servers with little of the environment (the MCP
// SDK's stdio transport passes HOME, PATH and a few others), so
// AGENTMAIL_HOME or XDG_DATA_HOME set in a shell would not reach it.
func serverEnv(c *cli.Context, home string) (map[string]string, error) {
	env := map[string]string{}
	if a := global(c, "agent"); a != "" {
		env["AGENTMAIL_AGENT"] = a
	}
	if p := global(c, "project"); p != "" {
		env["AGENTMAIL_PROJECT"] = p
	}
	dir, err := storeDir(c)
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if dir != filepath.Join(home, ".local", "share", "agentmail") {
		env["AGENTMAIL_HOME"] = dir
	}
	if len(env) == 0 {
		return nil, nil
	}
	return env, nil
}

// projectRoot is the working tree of the repository around dir.
func projectRoot(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	root, err := service.RepositoryRoot(dir)
	if err != nil {
		return "", err
	}
	if root == "" {
		abs, _ := filepath.Abs(dir)
		return "", fault.WithHint(fmt.Errorf("%w: %s is not inside a git repository", service.ErrNoProject, abs),
			"run it in the project's repository (or pass --repo DIR), or pass --user for your own configuration")
	}
	return root, nil
}
