package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

// Exit codes. They are part of the interface: see README.md.
const (
	exitOK    = service.ExitOK
	exitError = service.ExitError
	exitUsage = service.ExitUsage
)

// usagef is a command line that does not parse, or asks for nothing.
func usagef(hint, format string, args ...any) error { return service.Usagef(hint, format, args...) }

// exitStatus is an error that ends agentmail with a given code and no
// message: lock run passes on its command's status, and a report that said
// it all (guard check, check --exit-code) needs no line more.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// env is what a command line runs with.
type env struct {
	args           []string // the command line as given, for echoing flags as typed
	stdin          io.Reader
	stdout, stderr io.Writer
	services       []*service.Service // the stores opened by the command, closed by run
	input          *string            // standard input, once a command has read it all
	esc            escaper            // how stored text is shown on stdout
	groups         []*cli.Command     // the commands that only group others
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	return &env{stdin: stdin, stdout: stdout, stderr: stderr, esc: escaper{on: isTerminal(stdout)}}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := newEnv(stdin, stdout, stderr)
	err := e.execute(args)
	if service.IsIndexDamaged(err) && !e.wrote() {
		// SQLite finds damaged pages only when a query reaches them. The
		// index is a cache: rebuild it from the archive and run the
		// command again, which is safe since it has written nothing. (A
		// write that meets the damage rebuilds the index itself.)
		if err = e.repair(err); err == nil {
			again := newEnv(stdin, stdout, stderr)
			again.input, again.services = e.input, e.services
			e = again
			err = e.execute(args)
		}
	}
	for _, svc := range e.services {
		if cerr := svc.Close(); err == nil && cerr != nil {
			err = cerr
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
	return slices.ContainsFunc(e.services, (*service.Service).Wrote)
}

// repair rebuilds the damaged index of the stores the command opened
// (cause is how the damage showed). They stay open for the command to run
// again on.
func (e *env) repair(cause error) error {
	for _, svc := range e.services {
		if err := svc.RepairIndex(context.Background(), cause); err != nil {
			return err
		}
	}
	return nil
}

// readInput reads all of standard input, once: a command run again after
// its index was repaired reads the same input.
//
// It reads at most max+1 bytes: more than max is for the caller to refuse,
// without holding all of an input of any size in memory.
func (e *env) readInput(r io.Reader, max int) (string, error) {
	if e.input == nil {
		b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
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
	f := service.Describe(err)
	fmt.Fprintln(e.stderr, errorLine(f, wantsJSON(args)))
	return f.Exit
}

// errorLine is the line that reports failure f on stderr: its error
// document {"error": service.ErrorDoc}, or its message and hint, the hint
// in the command line's words.
func errorLine(f service.Failure, asJSON bool) string {
	hint := cliHint(f)
	if asJSON {
		b, _ := json.Marshal(map[string]service.ErrorDoc{"error": f.Doc(hint)})
		return string(b)
	}
	line := "agentmail: " + f.Message
	if hint != "" {
		line += " (" + hint + ")"
	}
	return line
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
		Commands: []*cli.Command{
			newSendCommand(e), newReplyCommand(e), newInboxCommand(e), newOutboxCommand(e), newShowCommand(e), newReceiptCommand(e),
			newMarkCommand(e, false), newMarkCommand(e, true), newThreadCommand(e), newTopicCommand(e), newAttachmentCommand(e),
			newSearchCommand(e),
			newCheckCommand(e), newWaitCommand(e), newAcksCommand(e),
			newPublishCommand(e), newSubscribeCommand(e, true), newSubscribeCommand(e, false), newSubscriptionsCommand(e), newPollCommand(e),
			newStateCommand(e), newControlCommand(e), newRulesCommand(e),
			newPolicyCommand(e), newContactsCommand(e),
			newReserveCommand(e), newRenewCommand(e), newReleaseCommand(e), newReservationsCommand(e),
			newLockCommand(e),
			newPortCommand(e),
			newTaskCommand(e), newWorkCommand(e),
			newProductCommand(e),
			newGuardCommand(e),
			newRegisterCommand(e), newWhoamiCommand(e), newAgentsCommand(e),
			newImportCommand(e), newPurgeCommand(e),
			newProjectCommand(e), newInitCommand(e), newArchiveCommand(e), newExportCommand(e), newDoctorCommand(e), newSyncCommand(e),
			newSetupCommand(e), newMCPCommand(e), newServeCommand(e), newWebhookCommand(e),
			helpCommand(e), versionCommand(e), completionCommand(e),
		},
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
