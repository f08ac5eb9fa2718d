package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/agentmail/agentmail/reservations"
	"github.com/urfave/cli/v2"
)

// Exit codes. They are part of the interface: see README.md.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitConflict = 3
	exitTimeout  = 4
)

// usageError marks a command line that does not parse.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func usagef(hint, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: hint}
}

// errorCodes maps the sentinel errors of the domain packages to the codes of
// the JSON error document and to exit codes.
var errorCodes = []struct {
	err  error
	code string
	exit int
}{
	{mailbox.ErrNoProject, "NO_PROJECT", exitError},
	{mailbox.ErrNotRegistered, "NOT_REGISTERED", exitError},
	{mailbox.ErrInvalidName, "INVALID_NAME", exitError},
	{mailbox.ErrNameTaken, "NAME_TAKEN", exitError},
	{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", exitError},
	{mailbox.ErrNotFound, "NOT_FOUND", exitError},
	{mailbox.ErrAmbiguousID, "AMBIGUOUS_ID", exitError},
	{reservations.ErrAmbiguousID, "AMBIGUOUS_ID", exitError},
	{mailbox.ErrInvalidArgument, "INVALID_ARGUMENT", exitError},
	{mailbox.ErrTimeout, "TIMEOUT", exitTimeout},
	{mailbox.ErrContactRequired, "CONTACT_REQUIRED", exitError},
	{mailbox.ErrContactBlocked, "CONTACT_BLOCKED", exitError},
	{reservations.ErrConflict, "RESERVATION_CONFLICT", exitConflict},
	{reservations.ErrLockHeld, "LOCK_HELD", exitConflict},
	{reservations.ErrNotFound, "NOT_FOUND", exitError},
	{reservations.ErrInvalidArgument, "INVALID_ARGUMENT", exitError},
	{reservations.ErrInvalidPattern, "INVALID_ARGUMENT", exitError},
	{guard.ErrBlocked, "GUARD_BLOCKED", exitError}, // design §7: a blocking hook exits 1
	{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", exitError},
	{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", exitError},
	{guard.ErrNoBinary, "NO_BINARY", exitError},
	{guard.ErrNotRepository, "NO_PROJECT", exitError},
	{guard.ErrInvalidArgument, "INVALID_ARGUMENT", exitError},
	{store.ErrBusy, "STORE_BUSY", exitError},
	{store.ErrCorrupt, "STORE_CORRUPT", exitError},
	{store.ErrNotWritable, "STORE_NOT_WRITABLE", exitError},
}

// env is what a command runs with.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stores         []*store.Store // opened by the command, closed by run
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	app := newApp(e)
	err := app.RunContext(context.Background(), reorderArgs(app, bareWait(args)))
	for _, st := range e.stores {
		if cerr := st.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close store: %w", cerr)
		}
	}
	if err == nil {
		return exitOK
	}
	return e.fail(args, err)
}

// fail reports err on stderr, as one line or as a JSON document, and
// returns the exit code.
func (e *env) fail(args []string, err error) int {
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	code, exit := "ERROR", exitError
	var ue *usageError
	if errors.As(err, &ue) {
		code, exit = "USAGE", exitUsage
	}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			code, exit = c.code, c.exit
			break
		}
	}
	hint := fault.Hint(err)
	if ue != nil && hint == "" {
		hint = ue.hint
	}
	if wantsJSON(args) {
		type errorJSON struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Hint    string `json:"hint"`
		}
		b, _ := json.Marshal(map[string]errorJSON{"error": {code, err.Error(), hint}})
		fmt.Fprintln(e.stderr, string(b))
		return exit
	}
	line := "agentmail: " + err.Error()
	if hint != "" {
		line += " (" + hint + ")"
	}
	fmt.Fprintln(e.stderr, line)
	return exit
}

// wantsJSON reports whether --json is on the command line, wherever it is:
// errors are rendered after parsing may have failed.
func wantsJSON(args []string) bool {
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// Global flags, accepted before or after the command name.
var globalFlags = []cli.Flag{
	&cli.StringFlag{Name: "store", Usage: "store directory (default $AGENTMAIL_HOME, else ~/.local/share/agentmail)"},
	&cli.StringFlag{Name: "project", Usage: "project key, instead of the git repository around the current directory (or $AGENTMAIL_PROJECT)"},
	&cli.StringFlag{Name: "agent", Usage: "acting agent name (or $AGENTMAIL_AGENT, $AGENT_NAME)"},
	&cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout; errors as JSON on stderr"},
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:  "agentmail",
		Usage: "mail, file reservations and commit guards for coding agents sharing a codebase",
		Description: "Agents register a name, send each other markdown mail, reserve the files they work on, and a\n" +
			"git hook stops commits that touch files another agent holds. Everything is stored as files in a git\n" +
			"repository (agentmail archive path) and indexed in SQLite.\n\n" +
			"Quick start:\n" +
			"   export AGENTMAIL_AGENT=$(agentmail register --program claude --json | jq -r .agent.name)\n" +
			"   agentmail send --to BlueLake --subject 'API ready' --body 'See routes.py'\n" +
			"   agentmail inbox --unread\n" +
			"   agentmail reserve 'src/api/**' --reason 'auth rewrite' && agentmail guard install",
		Flags:           globalFlags,
		HideHelpCommand: true,
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usagef("see: agentmail "+c.Command.FullName()+" --help", "%v", err)
		},
		Commands: slices.Concat(mailCommands(e), []*cli.Command{searchCommand(e)}, workflowCommands(e), contactCommands(e), reserveCommands(e), []*cli.Command{lockCommands(e)}, []*cli.Command{guardCommand(e)}, agentCommands(e), []*cli.Command{importCommand(e)}, adminCommands(e), []*cli.Command{setupCommand(e)}),
	}
	for _, cmd := range app.Commands {
		addGlobalFlags(cmd)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {}
	return app
}

func addGlobalFlags(cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, globalFlags...)
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return usagef("see: agentmail "+c.Command.FullName()+" --help", "%v", err)
		}
	}
	for _, sub := range cmd.Subcommands {
		addGlobalFlags(sub)
	}
}

// global returns a global flag's value from the innermost command line
// level that set it, else from the first of envVars that is set.
func global(c *cli.Context, name string, envVars ...string) string {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet(name) {
			return ctx.String(name)
		}
	}
	for _, v := range envVars {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return ""
}

func jsonOutput(c *cli.Context) bool {
	for _, ctx := range c.Lineage() {
		if ctx.IsSet("json") && ctx.Bool("json") {
			return true
		}
	}
	return false
}

// storeOptions are the options every command opens the store with: the
// full-text index is kept with the message index.
func storeOptions() store.Options {
	return store.Options{Extensions: []store.Extension{fts.Extension{}}}
}

// openStore opens the store named by --store or the environment, and
// prints the notes of what it repaired on its own. run closes it when the
// command is done: a process that exits without closing leaves SQLite's WAL
// behind, and every later process would replay it on open.
func (e *env) openStore(c *cli.Context) (*store.Store, error) {
	dir, err := storeDir(c)
	if err != nil {
		return nil, err
	}
	return e.openStoreAt(dir)
}

// storeDir returns the store directory named by --store, else the
// default (AGENTMAIL_HOME, XDG_DATA_HOME, ~/.local/share).
func storeDir(c *cli.Context) (string, error) {
	if dir := global(c, "store"); dir != "" {
		return dir, nil
	}
	return store.DefaultDir()
}

// openStoreAt opens the store in dir, as openStore does.
func (e *env) openStoreAt(dir string) (*store.Store, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fault.WithHint(fmt.Errorf("%w: %s is a file, not a directory", store.ErrNotWritable, dir),
			"point --store or AGENTMAIL_HOME at a directory")
	}
	st, err := store.Open(dir, storeOptions())
	if err != nil {
		if errors.Is(err, store.ErrNotWritable) {
			return nil, fault.WithHint(err, "point --store or AGENTMAIL_HOME at a directory you can write")
		}
		return nil, err
	}
	e.notes(st)
	e.stores = append(e.stores, st)
	return st, nil
}

func (e *env) notes(st *store.Store) {
	for _, n := range st.Notes() {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
}

// project resolves the project from --project, $AGENTMAIL_PROJECT or the
// repository around the current directory.
func (e *env) project(c *cli.Context) (mailbox.Project, error) {
	wd, err := os.Getwd()
	if err != nil {
		return mailbox.Project{}, err
	}
	return e.projectAt(c, wd)
}

// projectAt resolves the project from --project, $AGENTMAIL_PROJECT or the
// repository around dir. A key given by flag or environment still takes
// paths from dir when it is in a repository.
func (e *env) projectAt(c *cli.Context, dir string) (mailbox.Project, error) {
	key, source := global(c, "project"), mailbox.SourceFlag
	if key == "" {
		key, source = os.Getenv("AGENTMAIL_PROJECT"), mailbox.SourceEnv
	}
	if key != "" {
		p, err := mailbox.ProjectFromKey(key)
		if err != nil {
			return p, err
		}
		p.Source = source
		return p.In(dir), nil
	}
	return mailbox.ResolveProject(dir)
}

// presenceRules reads AGENTMAIL_IDLE_AFTER and AGENTMAIL_STALE_AFTER.
func presenceRules() (mailbox.PresenceRules, error) {
	rules := mailbox.DefaultPresence
	for _, v := range []struct {
		name string
		to   *time.Duration
	}{{"AGENTMAIL_IDLE_AFTER", &rules.Idle}, {"AGENTMAIL_STALE_AFTER", &rules.Stale}} {
		if s := os.Getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return rules, usagef("set it to a duration such as 10m", "%s=%q is not a positive duration", v.name, s)
			}
			*v.to = d
		}
	}
	return rules, nil
}

// openMailboxNoArgs is openMailbox for commands that take no arguments.
func (e *env) openMailboxNoArgs(c *cli.Context) (*session, error) {
	if err := noArgs(c); err != nil {
		return nil, err
	}
	return e.openMailbox(c)
}

// session is an open mailbox for one command.
type session struct {
	st *store.Store
	mb *mailbox.Mailbox
}

// openMailbox opens the store and the current project's mailbox, acting as
// the agent named by --agent or the environment.
func (e *env) openMailbox(c *cli.Context) (*session, error) {
	proj, err := e.project(c)
	if err != nil {
		return nil, err
	}
	st, err := e.openStore(c)
	if err != nil {
		return nil, err
	}
	return e.openProject(c, st, proj)
}

// openProject opens proj's mailbox in st, as openMailbox does. The first
// time a repository is used its key is pinned: the one the store knows it
// by (see mailbox.Open), so that what is there stays in view whatever
// happens to the repository's remotes later.
func (e *env) openProject(c *cli.Context, st *store.Store, proj mailbox.Project) (*session, error) {
	mb, err := mailbox.Open(c.Context, st, proj, global(c, "agent", "AGENTMAIL_AGENT", "AGENT_NAME"))
	if err != nil {
		return nil, err
	}
	pinned := mb.Project()
	if _, err := pinned.Pin(c.Context); err != nil {
		fmt.Fprintf(e.stderr, "note: the project key is not pinned, so adding or changing origin would move it: %v\n", err)
	}
	rules, err := presenceRules()
	if err != nil {
		return nil, err
	}
	mb.SetPresence(rules)
	e.notes(st)
	return &session{st: st, mb: mb}, nil
}

// printJSON writes v as one indented JSON document.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// bareWait gives a --wait with no duration after it (send --wait) the
// default value, so that the flag can be used bare as the README shows.
func bareWait(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--wait" || a == "-wait" {
			if i+1 >= len(args) || !isDuration(args[i+1]) {
				a = "--wait=" + defaultReplyWait.String()
			}
		}
		out = append(out, a)
	}
	return out
}

func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

// reorderArgs moves flags that follow positional arguments in front of them,
// so that `agentmail show ID --json` works like `agentmail show --json ID`.
// A single-dash word that is not one of the command's flags is an argument
// (`agentmail search deploy -draft`). Everything after "--" is left alone.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	flags := app.Flags
	cmds := app.Commands
	i := 1
	// Walk the command path, carrying global flags given before it.
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			out = append(out, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		out = append(out, a)
		flags, cmds = cmd.Flags, cmd.Subcommands
		i++
	}
	var rest []string
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(append(append(out, "--"), rest...), args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-" && (strings.HasPrefix(a, "--") || isFlag(flags, a)):
			out = append(out, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) > 0 {
		out = append(append(out, "--"), rest...)
	}
	return out
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func isFlag(flags []cli.Flag, arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
