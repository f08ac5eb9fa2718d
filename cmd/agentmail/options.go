package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

// Each command is a file of its own: an options struct, a constructor of
// its *cli.Command that only fills the options from the command line, and a
// run function that calls the service and renders what it returns, as
// text or as the JSON document, to the streams in the options. The run
// functions need no process: tests call them with buffers.

// output is where a command reads and writes, and how.
type output struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	JSON           bool    // print the response's JSON document
	esc            escaper // how stored text is shown on Stdout
}

// output returns the streams of the command line c runs.
func (e *env) output(c *cli.Context) output {
	return output{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, JSON: jsonOutput(c), esc: e.esc}
}

// printJSON writes v as one indented JSON document.
func (o output) printJSON(v any) error {
	enc := json.NewEncoder(o.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// waited handles what every waiting command's answer has in common (wait,
// wait --work, poll): an error other than its timeout ends it, --json
// prints the document (a timeout still exits 4), and a timeout prints
// nothing more. done reports whether the caller has nothing left to print.
func (o output) waited(doc any, timeout bool, err error) (done bool, _ error) {
	switch {
	case err != nil && !timeout:
		return true, err
	case o.JSON:
		if perr := o.printJSON(doc); perr != nil {
			return true, perr
		}
		return true, err
	}
	return timeout, err
}

// buffered runs print with a buffer in front of Stdout, written out once
// at the end: a line per path or reservation must not cost a system call
// each.
func (o output) buffered(print func(w io.Writer)) error {
	w := bufio.NewWriter(o.Stdout)
	print(w)
	return w.Flush()
}

// scoped is what a command that acts in a project runs with: its streams,
// the service of its store, and the scope it acts in.
type scoped struct {
	output
	Service *service.Service
	Scope   service.Scope
}

func (s *scoped) base() *scoped { return s }

// now is the time relative times are shown from.
func (s scoped) now() time.Time { return s.Service.Now() }

// scopedOptions are the options of a command that acts in a project.
type scopedOptions interface{ base() *scoped }

// scopedAction is the action of a command that acts in a project: parse
// fills its options from the command line (and refuses a line that makes
// no sense), the store and scope are added, and run runs it.
func scopedAction[O scopedOptions](e *env, parse func(c *cli.Context) (O, error), run func(context.Context, O) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		o, err := parse(c)
		if err != nil {
			return err
		}
		if *o.base(), err = e.scoped(c); err != nil {
			return err
		}
		return run(c.Context, o)
	}
}

// noArgsOptions returns a parse function for a command without arguments
// whose options are o.
func noArgsOptions[O scopedOptions](o func(c *cli.Context) O) func(c *cli.Context) (O, error) {
	return func(c *cli.Context) (O, error) { return o(c), noArgs(c) }
}

// scoped returns the streams, store and scope of the command line c runs:
// the store --store or the environment names, the project --project or
// AGENTMAIL_PROJECT names, else the repository around the current
// directory, and the agent --agent, AGENTMAIL_AGENT or AGENT_NAME names.
func (e *env) scoped(c *cli.Context) (scoped, error) {
	scope, err := scopeOf(c)
	if err != nil {
		return scoped{}, err
	}
	svc, err := e.defaultService(c)
	if err != nil {
		return scoped{}, err
	}
	return scoped{output: e.output(c), Service: svc, Scope: scope}, nil
}

// scopeOf returns the scope c names, working in the current directory.
func scopeOf(c *cli.Context) (service.Scope, error) {
	wd, err := os.Getwd()
	if err != nil {
		return service.Scope{}, err
	}
	return scopeIn(c, wd), nil
}

// scopeIn returns the scope c names, working in dir.
func scopeIn(c *cli.Context, dir string) service.Scope {
	ref := service.ProjectRef{Key: global(c, "project"), KeySource: service.SourceFlag, Dir: dir}
	if ref.Key == "" {
		ref.Key, ref.KeySource = os.Getenv("AGENTMAIL_PROJECT"), service.SourceEnv
	}
	return service.Scope{Project: ref, Agent: global(c, "agent", "AGENTMAIL_AGENT", "AGENT_NAME")}
}

// defaultService returns the service of the store named by --store, else
// the default one (AGENTMAIL_HOME, XDG_DATA_HOME, ~/.local/share).
func (e *env) defaultService(c *cli.Context) (*service.Service, error) {
	dir, err := storeDir(c)
	if err != nil {
		return nil, err
	}
	return e.service(dir)
}

// storeDir returns the store directory named by --store, else the
// default (AGENTMAIL_HOME, XDG_DATA_HOME, ~/.local/share).
func storeDir(c *cli.Context) (string, error) {
	if dir := global(c, "store"); dir != "" {
		return dir, nil
	}
	dir, err := service.DefaultStoreDir()
	return dir, fault.WithHint(err, "set AGENTMAIL_HOME or pass --store DIR")
}

// service returns the service of the store in dir, made absolute: the
// paths a store records and reports must hold from any directory. A store
// is opened once per command line, by the first operation that needs it,
// and closed by run.
func (e *env) service(dir string) (*service.Service, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fault.WithHint(fmt.Errorf("store %s: %w", dir, err), "pass --store an absolute path")
	}
	for _, svc := range e.services {
		if svc.Dir() == abs {
			return svc, nil // opened already, maybe by the run before a repair
		}
	}
	cfg, err := e.serviceConfig(abs)
	if err != nil {
		return nil, err
	}
	svc := service.New(cfg)
	e.services = append(e.services, svc)
	return svc, nil
}

// serviceConfig is the configuration of a service of the store in dir, an
// absolute path: the clock and presence thresholds of the environment, and
// notes on stderr.
func (e *env) serviceConfig(dir string) (service.Config, error) {
	now, err := clock()
	if err != nil {
		return service.Config{}, err
	}
	presence, err := service.ParsePresence(os.Getenv)
	if err != nil {
		return service.Config{}, err
	}
	maxBody, err := service.ParseMaxBody(os.Getenv)
	if err != nil {
		return service.Config{}, err
	}
	stderr := e.stderr
	return service.Config{Dir: dir, Now: now, Presence: presence, MaxBody: maxBody,
		Note: func(n string) { fmt.Fprintln(stderr, "note: "+n) }}, nil
}

// render prints a response, unless err: its JSON document when asked for,
// else the text text prints.
func (o output) render(doc any, err error, text func() error) error {
	if err != nil {
		return err
	}
	if o.JSON {
		return o.printJSON(doc)
	}
	return text()
}
