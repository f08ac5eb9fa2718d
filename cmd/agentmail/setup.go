package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/setup"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

// setup's error codes and examples join their tables here, beside the
// command, so that the command list is all app.go knows of it. The errors
// carry hints of their own; these are for any that would not.
func init() {
	errorCodes = append(errorCodes, []struct {
		err  error
		code string
		exit int
		hint string
	}{
		{setup.ErrMalformed, "MALFORMED_CONFIG", exitError, "fix the file, then run agentmail setup again"},
		{setup.ErrEntryDiffers, "ENTRY_DIFFERS", exitError, "pass --force to replace it, or --uninstall to take it out"},
		{setup.ErrCannotEdit, "CANNOT_EDIT", exitError, "make the change by hand"},
	}...)
	examples["setup"] = []string{
		"agentmail setup claude-code --hooks          # .mcp.json and a hook in .claude/settings.json",
		"agentmail setup codex --user --agent GreenCastle --dry-run",
		"agentmail setup cursor --command /usr/local/bin/agentmail",
		"agentmail setup gemini --uninstall",
	}
}

type setupFileJSON struct {
	Path   string  `json:"path"`
	Action string  `json:"action"`
	What   string  `json:"what"`
	Diff   *string `json:"diff,omitempty"`
}

func setupCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "setup",
		Usage:     "add the agentmail MCP server to a coding agent's configuration (" + strings.Join(setup.Clients(), ", ") + ")",
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
			&cli.BoolFlag{Name: "hooks", Usage: "claude-code: also a UserPromptSubmit hook running agentmail check, so new mail reaches the agent with each prompt"},
			&cli.BoolFlag{Name: "uninstall", Usage: "take out what setup added (the server, and the hook)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the change as a diff and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace an agentmail entry that differs from the one setup writes"},
			&cli.StringFlag{Name: "command", Usage: "the agentmail the client runs, a `PATH` or a name on the client's PATH (default: the absolute path of this one)"},
			&cli.StringFlag{Name: "repo", Usage: "a directory `DIR` in the project's repository (default: the current one)"},
		},
		Action: func(c *cli.Context) error { return e.setup(c) },
	}
}

func (e *env) setup(c *cli.Context) error {
	o, err := setupOptions(c)
	if err != nil {
		return err
	}
	do := setup.Install
	if c.Bool("uninstall") {
		do = setup.Uninstall
	}
	p, err := do(o)
	if err != nil {
		return err
	}
	dry := c.Bool("dry-run")
	if !dry {
		if err := p.Apply(); err != nil {
			return err
		}
	}
	changed := false
	for _, ch := range p.Changes {
		changed = changed || ch.Action != "unchanged"
	}
	notes := p.Notes
	if !changed || dry {
		notes = nil // said when a change is made
	}
	if jsonOutput(c) {
		files := make([]setupFileJSON, len(p.Changes))
		for i, ch := range p.Changes {
			files[i] = setupFileJSON{Path: ch.Path, Action: ch.Action, What: ch.What}
			if dry {
				d := ch.Diff()
				files[i].Diff = &d
			}
		}
		return e.printJSON(map[string]any{"client": p.Client, "scope": p.Scope, "files": files, "dry_run": dry,
			"command": o.Command, "notes": append([]string{}, notes...)})
	}
	for _, ch := range p.Changes {
		if d := ch.Diff(); dry && d != "" {
			fmt.Fprint(e.stdout, d)
			continue
		}
		fmt.Fprintf(e.stdout, "%s %s (agentmail %s)\n", ch.Action, ch.Path, setupWhat(ch.What))
	}
	if dry {
		fmt.Fprintln(e.stderr, "note: dry run: nothing was written")
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
	return nil
}

func setupWhat(what string) string {
	if what == "hook" {
		return "check hook"
	}
	return "MCP server"
}

// setupOptions reads the command line and the environment.
func setupOptions(c *cli.Context) (setup.Options, error) {
	client, err := oneArg(c, "CLIENT")
	if err != nil {
		return setup.Options{}, err
	}
	hint := "name one of: " + strings.Join(setup.Clients(), ", ")
	if !slices.Contains(setup.Clients(), client) {
		return setup.Options{}, usagef(hint, "unknown client %q", client)
	}
	if c.Bool("hooks") && !setup.HasHooks(client) {
		return setup.Options{}, usagef("leave out --hooks", "--hooks is for claude-code: %s has no hook that setup adds", client)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return setup.Options{}, fault.WithHint(fmt.Errorf("find your home directory: %w", err), "set HOME")
	}
	o := setup.Options{
		Client: client, User: c.Bool("user"), Hooks: c.Bool("hooks"), Force: c.Bool("force"), Home: home,
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
		return guard.FindBinary()
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
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	p := mailbox.Project{}.In(abs)
	if p.Root == "" {
		return "", fault.WithHint(fmt.Errorf("%w: %s is not inside a git repository", mailbox.ErrNoProject, abs),
			"run it in the project's repository (or pass --repo DIR), or pass --user for your own configuration")
	}
	return p.Root, nil
}
