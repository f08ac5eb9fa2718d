package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/reservations"
	"github.com/urfave/cli/v2"
)

// exitStatus is an error that ends agentmail with a given code and no
// message: lock run passes on its command's status.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

type lockJSON struct {
	Key     string  `json:"key"`
	Holder  string  `json:"holder"`
	Created *string `json:"created"`
	Expires *string `json:"expires"`
}

func lockDoc(l reservations.Lock) lockJSON {
	return lockJSON{l.Key, l.Holder, jsonTime(l.Created), jsonTime(l.Expires)}
}

func (e *env) lockOut(c *cli.Context, verb string, l reservations.Lock, now time.Time) error {
	if jsonOutput(c) {
		return e.printJSON(map[string]any{"lock": lockDoc(l)})
	}
	if verb == "released" {
		fmt.Fprintf(e.stdout, "released %s\n", l.Key)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s %s (expires %s)\n", verb, l.Key, ago(l.Expires, now))
	return nil
}

// printHeld shows who holds a lock before the error says it is held.
func (e *env) printHeld(c *cli.Context, err error) error {
	var held *reservations.HeldError
	if errors.As(err, &held) && jsonOutput(c) {
		if perr := e.printJSON(map[string]any{"lock": lockDoc(held.Lock)}); perr != nil {
			return perr
		}
	}
	return err
}

func lockCommands(e *env) *cli.Command {
	ttl := &cli.DurationFlag{Name: "ttl", Value: 5 * time.Minute, Usage: "how long the lock lasts without renewal"}
	wait := &cli.DurationFlag{Name: "wait", Usage: "wait up to this long for the holder to let go"}
	keyed := func(name, usage string, flags []cli.Flag, act func(*cli.Context, *session, *reservations.Service, string) error) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, ArgsUsage: "KEY", Flags: flags,
			Action: func(c *cli.Context) error {
				key, err := oneArg(c, "KEY")
				if err != nil {
					return err
				}
				s, svc, err := e.reservationService(c)
				if err != nil {
					return err
				}
				return act(c, s, svc, key)
			},
		}
	}
	return &cli.Command{
		Name:  "lock",
		Usage: "named locks: deploy gates, build slots, leader election",
		Description: "Keys are /-separated names (deploy/staging). A lock is exclusive and lasts --ttl unless\n" +
			"renewed; a holder that dies loses it when the TTL runs out. acquire exits 3 when another\n" +
			"agent holds the lock (after --wait).",
		Subcommands: []*cli.Command{
			keyed("acquire", "take a lock", []cli.Flag{ttl, wait}, func(c *cli.Context, s *session, svc *reservations.Service, key string) error {
				l, err := svc.Acquire(c.Context, key, c.Duration("ttl"), c.Duration("wait"))
				if err != nil {
					return e.printHeld(c, err)
				}
				return e.lockOut(c, "acquired", l, s.st.Now())
			}),
			keyed("renew", "extend a lock you hold to --ttl from now", []cli.Flag{ttl}, func(c *cli.Context, s *session, svc *reservations.Service, key string) error {
				l, err := svc.RenewLock(c.Context, key, c.Duration("ttl"))
				if err != nil {
					return e.printHeld(c, err)
				}
				return e.lockOut(c, "renewed", l, s.st.Now())
			}),
			keyed("release", "let go of a lock you hold", nil, func(c *cli.Context, s *session, svc *reservations.Service, key string) error {
				l, err := svc.ReleaseLock(c.Context, key)
				if err != nil {
					return e.printHeld(c, err)
				}
				return e.lockOut(c, "released", l, s.st.Now())
			}),
			{
				Name: "list", Usage: "locks held now", ArgsUsage: " ",
				Flags: []cli.Flag{&cli.StringFlag{Name: "prefix", Usage: "only keys starting with `P`, e.g. deploy/"}},
				Action: func(c *cli.Context) error {
					s, err := e.openMailboxNoArgs(c)
					if err != nil {
						return err
					}
					locks, err := reservations.New(s.st, s.mb.Project().Slug, "", nil).Locks(c.Context, c.String("prefix"))
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						docs := mapSlice(locks, lockDoc)
						return e.printJSON(map[string]any{"locks": docs})
					}
					if len(locks) == 0 {
						fmt.Fprintln(e.stdout, "no locks held")
						return nil
					}
					rows := make([][]string, len(locks))
					for i, l := range locks {
						rows[i] = []string{l.Key, e.esc.line(l.Holder), "expires " + ago(l.Expires, s.st.Now())}
					}
					table(e.stdout, "KEY\tHOLDER\tSTATE", rows)
					return nil
				},
			},
			{
				Name: "run", Usage: "hold a lock while a command runs", ArgsUsage: "KEY -- CMD [ARG...]",
				Description: "Acquires KEY (waiting up to --wait), runs CMD, renews the lock every third of --ttl while it\n" +
					"runs, passes SIGINT/SIGTERM/SIGHUP on to it, releases the lock when it ends and exits with its\n" +
					"status. If agentmail itself is killed, the lock lapses after --ttl.",
				Flags: []cli.Flag{ttl, wait},
				Action: func(c *cli.Context) error {
					if c.Args().Len() < 2 {
						return usagef("usage: agentmail lock run KEY -- CMD [ARG...]", "need a key and a command")
					}
					key, argv := c.Args().First(), c.Args().Slice()[1:]
					_, svc, err := e.reservationService(c)
					if err != nil {
						return err
					}
					l, err := svc.AcquireRun(c.Context, key, c.Duration("ttl"), c.Duration("wait"))
					if err != nil {
						return e.printHeld(c, err)
					}
					code, runErr := e.runHolding(c, svc, l, argv)
					if _, err := svc.ReleaseRun(c.Context, l); err != nil {
						fmt.Fprintf(e.stderr, "agentmail: could not release %s (it lapses after --ttl): %v\n", key, err)
					}
					if runErr != nil {
						return runErr
					}
					if code != 0 {
						return exitStatus(code)
					}
					return nil
				},
			},
		},
	}
}

// cannotRun is a command lock run could not start: exit 127 when it was not
// found, 126 when it could not be executed, as a shell does.
type cannotRun struct {
	err  error
	exit int
}

func (e *cannotRun) Error() string { return e.err.Error() }
func (e *cannotRun) Unwrap() error { return e.err }

func startError(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return &cannotRun{fault.WithHint(fmt.Errorf("cannot run %s: command not found", name),
			"check the command's name and $PATH; the lock was released"), 127}
	}
	return &cannotRun{fault.WithHint(fmt.Errorf("cannot run %s: %v", name, unwrapPath(err)),
		"check that it is an executable file you may run; the lock was released"), 126}
}

// runHolding runs argv, renewing the run's lock l while it runs, and returns its exit
// status.
func (e *env) runHolding(c *cli.Context, svc *reservations.Service, l reservations.Lock, argv []string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	if err := cmd.Start(); err != nil {
		return 0, startError(argv[0], err)
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ttl := c.Duration("ttl")
	renew := time.NewTicker(max(ttl/3, time.Second))
	defer renew.Stop()
	for {
		select {
		case sig := <-signals:
			cmd.Process.Signal(sig)
		case <-renew.C:
			if _, err := svc.RenewRun(c.Context, l, ttl); err != nil {
				fmt.Fprintf(e.stderr, "agentmail: could not renew %s: %v\n", l.Key, err)
			}
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
