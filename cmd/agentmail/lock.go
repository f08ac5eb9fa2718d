package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func newLockCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "lock",
		Usage: "named locks: deploy gates, build slots, leader election",
		Description: "Keys are /-separated names (deploy/staging). A lock is exclusive and lasts --ttl unless\n" +
			"renewed; a holder that dies loses it when the TTL runs out. acquire exits 3 when another\n" +
			"agent holds the lock (after --wait).",
		Subcommands: []*cli.Command{
			newLockKeyCommand(e, "acquire", "take a lock", (*service.Service).AcquireLock, true),
			newLockKeyCommand(e, "renew", "extend a lock you hold to --ttl from now", (*service.Service).RenewLock, true),
			newLockKeyCommand(e, "release", "let go of a lock you hold", releaseLock, false),
			newLockListCommand(e),
			newLockRunCommand(e),
		},
	}
}

func lockTTLFlag() cli.Flag {
	return &cli.DurationFlag{Name: "ttl", Value: service.DefaultLockTTL, Usage: "how long the lock lasts without renewal"}
}

func lockWaitFlag() cli.Flag {
	return &cli.DurationFlag{Name: "wait", Usage: "wait up to this long for the holder to let go"}
}

func lockOfflineFlag() cli.Flag {
	return &cli.BoolFlag{Name: "offline", Usage: "take it here without the remote, unconfirmed until the next sync"}
}

// lockOp is one of the service's operations on a lock by key.
type lockOp func(*service.Service, context.Context, service.Scope, service.LockRequest) (service.LockResponse, error)

func releaseLock(s *service.Service, ctx context.Context, sc service.Scope, req service.LockRequest) (service.LockResponse, error) {
	return s.ReleaseLock(ctx, sc, req.Key)
}

type lockKeyOptions struct {
	scoped
	verb string // acquired, renewed or released
	op   lockOp
	req  service.LockRequest
}

// newLockKeyCommand is lock acquire, renew or release; timed commands
// take --ttl (and acquire, --wait).
func newLockKeyCommand(e *env, name, usage string, op lockOp, timed bool) *cli.Command {
	var flags []cli.Flag
	if timed {
		flags = append(flags, lockTTLFlag())
	}
	if name == "acquire" {
		flags = append(flags, lockWaitFlag(), lockOfflineFlag())
	}
	verb := map[string]string{"acquire": "acquired", "renew": "renewed", "release": "released"}[name]
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "KEY", Flags: flags,
		Action: scopedAction(e, func(c *cli.Context) (*lockKeyOptions, error) {
			key, err := oneArg(c, "KEY")
			return &lockKeyOptions{verb: verb, op: op, req: service.LockRequest{Key: key, TTL: c.Duration("ttl"), Wait: c.Duration("wait"), Offline: c.Bool("offline")}}, err
		}, runLockKey),
	}
}

func runLockKey(ctx context.Context, o *lockKeyOptions) error {
	resp, err := o.op(o.Service, ctx, o.Scope, o.req)
	if err != nil {
		return o.held(resp, err)
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	if o.verb == "released" {
		fmt.Fprintf(o.Stdout, "released %s\n", resp.Lock.Key)
		return nil
	}
	fmt.Fprintf(o.Stdout, "%s %s (expires %s)\n", o.verb, resp.Lock.Key, ago(resp.Lock.Expires.Time, o.now()))
	return nil
}

// held shows who holds a lock (when the error is that one does) before
// the error says so.
func (o output) held(resp service.LockResponse, err error) error {
	if resp.Lock.Key != "" && o.JSON {
		if perr := o.printJSON(resp); perr != nil {
			return perr
		}
	}
	return err
}

type lockListOptions struct {
	scoped
	prefix string
}

func newLockListCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "locks held now", ArgsUsage: " ",
		Flags: []cli.Flag{&cli.StringFlag{Name: "prefix", Usage: "only keys starting with `P`, e.g. deploy/"}},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *lockListOptions {
			return &lockListOptions{prefix: c.String("prefix")}
		}), runLockList),
	}
}

func runLockList(ctx context.Context, o *lockListOptions) error {
	resp, err := o.Service.Locks(ctx, o.Scope, o.prefix)
	return o.render(resp, err, func() error {
		if len(resp.Locks) == 0 {
			fmt.Fprintln(o.Stdout, "no locks held")
			return nil
		}
		now := o.now()
		rows := make([][]string, len(resp.Locks))
		for i, l := range resp.Locks {
			rows[i] = []string{l.Key, o.esc.line(l.Holder), "expires " + ago(l.Expires.Time, now)}
		}
		table(o.Stdout, "KEY\tHOLDER\tSTATE", rows)
		return nil
	})
}

type lockRunOptions struct {
	scoped
	req  service.LockRequest
	argv []string // the command to run
}

func newLockRunCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "run", Usage: "hold a lock while a command runs", ArgsUsage: "KEY -- CMD [ARG...]",
		Description: "Acquires KEY (waiting up to --wait), runs CMD, renews the lock every third of --ttl while it\n" +
			"runs, passes SIGINT/SIGTERM/SIGHUP on to it, releases the lock when it ends and exits with its\n" +
			"status. If agentmail itself is killed, the lock lapses after --ttl.",
		Flags: []cli.Flag{lockTTLFlag(), lockWaitFlag(), lockOfflineFlag()},
		Action: scopedAction(e, func(c *cli.Context) (*lockRunOptions, error) {
			if c.Args().Len() < 2 {
				return nil, usagef("usage: agentmail lock run KEY -- CMD [ARG...]", "need a key and a command")
			}
			return &lockRunOptions{req: service.LockRequest{Key: c.Args().First(), TTL: c.Duration("ttl"), Wait: c.Duration("wait"), Offline: c.Bool("offline")},
				argv: c.Args().Slice()[1:]}, nil
		}, runLockRun),
	}
}

// runLockRun takes the lock for the run, runs the command holding it, and
// exits with the command's status.
func runLockRun(ctx context.Context, o *lockRunOptions) error {
	lr, resp, err := o.Service.StartLockRun(ctx, o.Scope, o.req)
	if err != nil {
		return o.held(resp, err)
	}
	code, runErr := o.runHolding(ctx, o.argv, nil, "lock", lr.Key(), lr)
	if err := lr.Release(ctx); err != nil {
		fmt.Fprintf(o.Stderr, "agentmail: could not release %s (it lapses after --ttl): %v\n", lr.Key(), err)
	}
	if runErr != nil {
		return runErr
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

// keeper is what a run holds while its command runs: a lock, a port.
type keeper interface {
	KeepAlive(ctx context.Context, failed func(error))
}

// runHolding runs the command argv (with env added to the environment)
// while what the run holds (a kind, lock or port, named what) is kept alive, passing signals on
// to it, and returns its exit status.
func (o output) runHolding(ctx context.Context, argv, env []string, kind, what string, lr keeper) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		return 0, startError(argv[0], kind, err)
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	keep, stop := context.WithCancel(ctx)
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		lr.KeepAlive(keep, func(err error) { fmt.Fprintf(o.Stderr, "agentmail: could not renew %s: %v\n", what, err) })
	}()
	defer func() { stop(); <-kept }()
	for {
		select {
		case sig := <-signals:
			cmd.Process.Signal(sig)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if status, ok := ee.Sys().(syscall.WaitStatus); ok && status.Signaled() {
					return 128 + int(status.Signal()), nil
				}
				return ee.ExitCode(), nil
			}
			return 0, err
		}
	}
}

// startError is the error of a command lock run (or port run: held names
// what the run held) could not start: exit 127
// when it was not found, 126 when it could not be executed, as a shell
// does.
func startError(name, held string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return &service.CannotRunError{Err: fault.WithHint(fmt.Errorf("cannot run %s: command not found", name),
			"check the command's name and $PATH; the "+held+" was released"), Exit: 127}
	}
	return &service.CannotRunError{Err: fault.WithHint(fmt.Errorf("cannot run %s: %v", name, unwrapPath(err)),
		"check that it is an executable file you may run; the "+held+" was released"), Exit: 126}
}
