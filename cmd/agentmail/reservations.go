package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type reservationsOptions struct {
	scoped
	req service.ReservationsRequest
}

func newReservationsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "reservations",
		Usage:     "list reservations (active ones of everyone by default)",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "mine", Usage: "only yours"},
			&cli.StringFlag{Name: "holder", Usage: "only this agent's (--agent names the acting agent, as everywhere)"},
			&cli.BoolFlag{Name: "all", Usage: "every agent's (the default)"},
			&cli.BoolFlag{Name: "expired", Usage: "include expired and released ones"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *reservationsOptions {
			return &reservationsOptions{req: service.ReservationsRequest{Mine: c.Bool("mine"), Holder: c.String("holder"), Expired: c.Bool("expired")}}
		}), runReservations),
		Subcommands: []*cli.Command{newReservationsCheckCommand(e), newReservationsConflictsCommand(e)},
	}
}

func runReservations(ctx context.Context, o *reservationsOptions) error {
	o.req.Abbreviate = !o.JSON
	resp, err := o.Service.Reservations(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		if len(resp.Reservations) == 0 {
			fmt.Fprintln(o.Stdout, "no reservations")
			return nil
		}
		now := o.now()
		rows := make([][]string, len(resp.Reservations))
		for i, r := range mapSlice(resp.Reservations, o.esc.reservation) {
			state := "expires " + ago(r.Expires.Time, now)
			switch {
			case !r.Released.IsZero():
				state = "released " + ago(r.Released.Time, now)
			case !r.Expires.After(now):
				state = "expired " + ago(r.Expires.Time, now)
			}
			k := kind(r.Exclusive)
			if r.Auto {
				k += ", auto" // taken on edit, released when the agent's session ends
			}
			rows[i] = []string{resp.Short.Of(r.ID), r.Agent, r.Pattern, k, state, truncate(r.Reason, 30)}
		}
		return o.buffered(func(w io.Writer) { table(w, "ID\tAGENT\tPATTERN\tKIND\tSTATE\tREASON", rows) })
	})
}

type reservationsCheckOptions struct {
	scoped
	paths []string
}

func newReservationsCheckCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "say who holds each path (changes nothing)",
		ArgsUsage: "PATH...",
		Action: scopedAction(e, func(c *cli.Context) (*reservationsCheckOptions, error) {
			return &reservationsCheckOptions{paths: c.Args().Slice()}, nil
		}, runReservationsCheck),
	}
}

func runReservationsCheck(ctx context.Context, o *reservationsCheckOptions) error {
	resp, err := o.Service.CheckPaths(ctx, o.Scope, o.paths)
	return o.render(resp, err, func() error {
		now := o.now()
		return o.buffered(func(w io.Writer) {
			for _, h := range resp.Paths {
				path := o.esc.line(h.Path)
				if len(h.Holders) == 0 {
					fmt.Fprintf(w, "%s: free\n", path)
				}
				for _, r := range mapSlice(h.Holders, o.esc.reservation) {
					fmt.Fprintf(w, "%s: %s (%s, %s, expires %s)\n", path, r.Agent, r.Pattern, kind(r.Exclusive), ago(r.Expires.Time, now))
				}
			}
		})
	})
}

type reservationsConflictsOptions struct {
	scoped
	patterns []string
	shared   bool
}

func newReservationsConflictsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "conflicts",
		Usage:     "say what reserving PATTERN... would conflict with, reserving nothing (exit 3 when something would)",
		ArgsUsage: "PATTERN...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "shared", Usage: "check as for a shared reservation, which only exclusive ones conflict with"}},
		Action: scopedAction(e, func(c *cli.Context) (*reservationsConflictsOptions, error) {
			return &reservationsConflictsOptions{patterns: c.Args().Slice(), shared: c.Bool("shared")}, nil
		}, runReservationsConflicts),
	}
}

func runReservationsConflicts(ctx context.Context, o *reservationsConflictsOptions) error {
	resp, err := o.Service.CheckConflicts(ctx, o.Scope, o.patterns, o.shared)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := o.printJSON(resp); err != nil {
			return err
		}
	} else {
		now := o.now()
		err = o.buffered(func(w io.Writer) {
			for _, k := range resp.Conflicts {
				fmt.Fprintf(w, "%s: %s holds %s (%s, expires %s)\n", o.esc.line(k.Pattern), o.esc.line(k.Holder), o.esc.line(k.HolderPattern), kind(k.Exclusive), ago(k.Expires.Time, now))
			}
			for _, p := range resp.ClearPaths {
				fmt.Fprintf(w, "%s: free\n", o.esc.line(p))
			}
		})
		if err != nil {
			return err
		}
	}
	if !resp.ConflictFree {
		return exitStatus(3)
	}
	return nil
}

func init() {
	examples["reservations conflicts"] = []string{
		"agentmail reservations conflicts 'src/api/**' docs/",
		"agentmail reservations conflicts src/api/routes.py --shared --json",
	}
}
