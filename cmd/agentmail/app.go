package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/guard"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
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
// the JSON error document, to exit codes, and to the hint shown when the
// error carries none of its own: every error says what to do next.
var errorCodes = []struct {
	err  error
	code string
	exit int
	hint string
}{
	{project.ErrNoProject, "NO_PROJECT", exitError, "run agentmail inside your project's git checkout, or pass --project KEY"},
	{mailbox.ErrNotRegistered, "NOT_REGISTERED", exitError, "pass --agent NAME or set AGENTMAIL_AGENT; register one with: agentmail register"},
	{mailbox.ErrInvalidName, "INVALID_NAME", exitError, "agent names are an adjective and a noun, like GreenCastle; omit --name for a generated one"},
	{mailbox.ErrNameTaken, "NAME_TAKEN", exitError, "choose another name, or omit --name for a generated one"},
	{mailbox.ErrUnknownRecipient, "UNKNOWN_RECIPIENT", exitError, "agentmail agents lists who is registered"},
	{mailbox.ErrNotFound, "NOT_FOUND", exitError, "check the id or name: agentmail inbox and agentmail outbox list your messages"},
	{mailbox.ErrAmbiguousID, "AMBIGUOUS_ID", exitError, "give more characters of the id"},
	{reservations.ErrAmbiguousID, "AMBIGUOUS_ID", exitError, "give more characters of the id"},
	{mailbox.ErrInvalidArgument, "INVALID_ARGUMENT", exitError, "see: agentmail COMMAND --help"},
	{mailbox.ErrTimeout, "TIMEOUT", exitTimeout, "wait again, or check agentmail inbox"},
	{mailbox.ErrContactRequired, "CONTACT_REQUIRED", exitError, "ask first: agentmail contacts request NAME --reason \"...\""},
	{mailbox.ErrContactBlocked, "CONTACT_BLOCKED", exitError, "the recipient takes no mail; ask a human to pass it on (agentmail send --as-human)"},
	{reservations.ErrConflict, "RESERVATION_CONFLICT", exitConflict, "wait for the holder's reservation to expire, ask the holder (agentmail send --to HOLDER), or pass --shared or --allow-conflicts"},
	{reservations.ErrLockHeld, "LOCK_HELD", exitConflict, "wait for it (--wait 5m), or ask the holder (agentmail send --to HOLDER)"},
	{reservations.ErrNotFound, "NOT_FOUND", exitError, "agentmail reservations --mine and agentmail lock list show what you hold"},
	{reservations.ErrInvalidArgument, "INVALID_ARGUMENT", exitError, "see: agentmail COMMAND --help"},
	{reservations.ErrInvalidPattern, "INVALID_ARGUMENT", exitError, "patterns are globs relative to the repository root: src/api/**, docs/*.md, Makefile"},
	{guard.ErrBlocked, "GUARD_BLOCKED", exitError, "to go ahead anyway: AGENTMAIL_BYPASS=1 git commit ..., or git commit --no-verify"}, // design §7: a blocking hook exits 1
	{guard.ErrGlobalHooksPath, "GLOBAL_HOOKS_PATH", exitError, "pass --allow-global to install the hooks there anyway"},
	{guard.ErrHookInTheWay, "HOOK_IN_THE_WAY", exitError, "move the file out of the way, or see agentmail guard status"},
	{guard.ErrNoBinary, "NO_BINARY", exitError, "put agentmail on $PATH, then install the hooks again"},
	{guard.ErrNotRepository, "NO_PROJECT", exitError, "run it inside a git checkout, or pass --repo DIR"},
	{guard.ErrInvalidArgument, "INVALID_ARGUMENT", exitError, "see: agentmail guard --help"},
	{store.ErrBusy, "STORE_BUSY", exitError, "another agentmail holds the store lock; try again in a moment"},
	{store.ErrCorrupt, "STORE_CORRUPT", exitError, "run agentmail doctor --check"},
	{store.ErrNotWritable, "STORE_NOT_WRITABLE", exitError, "point --store or AGENTMAIL_HOME at a directory you can write"},
	{store.ErrNotReadable, "STORE_NOT_READABLE", exitError, "ask the store's owner for read access, or point --store or AGENTMAIL_HOME at another store"},
}

// Hints of errors with no code of their own.
const (
	usageHint   = "see: agentmail --help"
	generalHint = "if it happens again, run agentmail doctor --check and report it with the command that failed"
)

// env is what a command runs with.
type env struct {
	args           []string // the command line as given, for echoing flags as typed
	stdin          io.Reader
	stdout, stderr io.Writer
	stores         []*store.Store // opened by the command, closed by run
	input          *string        // standard input, once a command has read it all
	esc            escaper        // how stored text is shown on stdout
	groups         []*cli.Command // the commands that only group others
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	return &env{stdin: stdin, stdout: stdout, stderr: stderr, esc: escaper{on: isTerminal(stdout)}}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := newEnv(stdin, stdout, stderr)
	err := e.execute(args)
	if store.IsIndexDamaged(err) && !e.wrote() {
		// SQLite finds damaged pages only when a query reaches them. The
		// index is a cache: rebuild it from the archive and run the
		// command again, which is safe since it has written nothing. (A
		// write that meets the damage rebuilds the index itself.)
		if err = e.repair(err); err == nil {
			again := newEnv(stdin, stdout, stderr)
			again.input, again.stores = e.input, e.stores
			e = again
			err = e.execute(args)
		}
	}
	for _, st := range e.stores {
		e.notes(st) // what it repaired since the command began
		if cerr := st.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close store: %w", cerr)
		}
	}
	if err == nil {
		return exitOK
	}
	return e.fail(args, err)
}

// execute runs the command line once.
func (e *env) execute(args []string) error {
	e.args = args
	app := newApp(e)
	line, err := resolveCommandLine(app, bareWait(args))
	if err != nil {
		return err
	}
	return app.RunContext(context.Background(), reorderArgs(app, line))
}

// wrote reports whether the command committed anything to a store.
func (e *env) wrote() bool {
	return slices.ContainsFunc(e.stores, (*store.Store).Wrote)
}

// repair rebuilds the damaged index of the stores the command opened
// (cause is how the damage showed). They stay open for the command to run
// again on: a read-only store's rebuilt index is a private one.
func (e *env) repair(cause error) error {
	for _, st := range e.stores {
		err := st.RepairIndex(context.Background(), cause)
		e.notes(st)
		if err != nil {
			return err
		}
	}
	return nil
}

// readInput reads all of standard input, once: a command run again after
// its index was repaired reads the same input.
func (e *env) readInput(r io.Reader) (string, error) {
	if e.input == nil {
		b, err := io.ReadAll(r)
		if err != nil {
			return "", err
		}
		s := string(b)
		e.input = &s
	}
	return *e.input, nil
}

// fail reports err on stderr, as one line or as a JSON document, and
// returns the exit code.
func (e *env) fail(args []string, err error) int {
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	code, exit, hint := errorCode(err)
	if h := fault.Hint(err); h != "" {
		hint = h
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

// errorCode returns the code, exit code and default hint of err.
func errorCode(err error) (code string, exit int, hint string) {
	var ue *usageError
	var cr *cannotRun
	switch {
	case errors.As(err, &ue):
		return "USAGE", exitUsage, cmp.Or(ue.hint, usageHint)
	case errors.As(err, &cr):
		return "CANNOT_RUN", cr.exit, "check the command's name and $PATH"
	}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return c.code, c.exit, c.hint
		}
	}
	return "ERROR", exitError, generalHint
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
			"repository (agentmail archive path) and indexed in SQLite. agentmail help COMMAND shows a command's\n" +
			"help and examples.",
		Flags: append(slices.Clip(globalFlags), cli.HelpFlag,
			&cli.BoolFlag{Name: "version", Usage: "print the version and build information (as agentmail version does)"}),
		Action:         e.group,
		Reader:         e.stdin,
		Writer:         e.stdout,
		ErrWriter:      e.stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   e.usageError,
		Commands: slices.Concat(mailCommands(e), []*cli.Command{searchCommand(e)}, workflowCommands(e), contactCommands(e), reserveCommands(e), []*cli.Command{lockCommands(e)}, []*cli.Command{guardCommand(e)}, agentCommands(e), []*cli.Command{importCommand(e)}, adminCommands(e),
			[]*cli.Command{helpCommand(e), versionCommand(e), completionCommand(e)}),
	}
	for _, cmd := range app.Commands {
		e.setupCommand(cmd)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {}
	return app
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
// tables of mail, reservations and search.
func storeOptions() store.Options {
	return store.Options{Projections: []store.Projection{mailbox.Projection(), reservations.Projection(), fts.Projection()}}
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
	dir, err := store.DefaultDir()
	return dir, fault.WithHint(err, "set AGENTMAIL_HOME or pass --store DIR")
}

// openStoreAt opens the store in dir, as openStore does. A relative dir is
// made absolute: the paths a store records and reports must hold from any
// directory.
func (e *env) openStoreAt(dir string) (*store.Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fault.WithHint(fmt.Errorf("store %s: %w", dir, err), "pass --store an absolute path")
	}
	dir = abs
	for _, st := range e.stores {
		if st.Dir() == dir {
			return st, nil // opened already, by the run before a repair
		}
	}
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
func (e *env) project(c *cli.Context) (project.Project, error) {
	wd, err := os.Getwd()
	if err != nil {
		return project.Project{}, err
	}
	return e.projectAt(c, wd)
}

// projectAt resolves the project from --project, $AGENTMAIL_PROJECT or the
// repository around dir. A key given by flag or environment still takes
// paths from dir when it is in a repository.
func (e *env) projectAt(c *cli.Context, dir string) (project.Project, error) {
	key, source := global(c, "project"), project.SourceFlag
	if key == "" {
		key, source = os.Getenv("AGENTMAIL_PROJECT"), project.SourceEnv
	}
	if key != "" {
		p, err := project.ProjectFromKey(key)
		if err != nil {
			return p, err
		}
		p.Source = source
		return p.In(dir), nil
	}
	return project.ResolveProject(dir)
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
func (e *env) openProject(c *cli.Context, st *store.Store, proj project.Project) (*session, error) {
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
	for i < len(args) && args[i] != "--" {
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
			if takesValue(flags, a) && !strings.Contains(a, "=") {
				if i+1 >= len(args) {
					return out // a value is missing: the flag is last, for the parser to say so
				}
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
