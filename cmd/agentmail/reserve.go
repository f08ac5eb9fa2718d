package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type reserveOptions struct {
	scoped
	req service.ReserveRequest
}

func newReserveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "reserve",
		Usage:     "lease paths (glob patterns) so other agents know you are working there",
		ArgsUsage: "PATTERN...",
		Description: "Patterns are globs relative to the current directory, as paths are in git (in src/api, *.py is\n" +
			"src/api/*.py), stored relative to the repository root (src/api/**, docs/*.md, {a,b}/x); a directory\n" +
			"name covers everything below it. All or nothing: if any pattern overlaps another agent's\n" +
			"reservation (and either is exclusive), nothing is granted, every conflict is listed, and the exit\n" +
			"code is 3. Reserving your own pattern again extends it.",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "ttl", Value: service.DefaultReserveTTL, Usage: "how long the lease lasts"},
			&cli.BoolFlag{Name: "shared", Usage: "a shared lease: conflicts only with exclusive ones"},
			&cli.BoolFlag{Name: "offline", Usage: "grant here without the remote, unconfirmed until the next sync"},
			&cli.StringFlag{Name: "reason", Usage: "what you are doing there"},
			&cli.BoolFlag{Name: "allow-conflicts", Usage: "grant even when others hold overlapping paths (still reports them)"},
			idempotencyFlag(),
		},
		Action: scopedAction(e, func(c *cli.Context) (*reserveOptions, error) {
			return &reserveOptions{req: service.ReserveRequest{
				Patterns: c.Args().Slice(), TTL: c.Duration("ttl"), Shared: c.Bool("shared"), Reason: c.String("reason"), Offline: c.Bool("offline"),
				AllowConflicts: c.Bool("allow-conflicts"), IdempotencyKey: c.String("idempotency-key"),
			}}, nil
		}, runReserve),
	}
}

func runReserve(ctx context.Context, o *reserveOptions) error {
	resp, err := o.Service.Reserve(ctx, o.Scope, o.req)
	if err != nil && !errors.Is(err, service.ErrConflict) {
		return err
	}
	for _, w := range resp.Warnings {
		fmt.Fprintln(o.Stderr, "warning: "+w)
	}
	o.warnHooks(resp.HooksWarning)
	if o.JSON {
		if perr := o.printJSON(resp); perr != nil {
			return perr
		}
		return err
	}
	now := o.now()
	if perr := o.buffered(func(w io.Writer) {
		for _, r := range mapSlice(resp.Granted, o.esc.reservation) {
			fmt.Fprintf(w, "reserved %s (%s, expires %s)\n", r.Pattern, kind(r.Exclusive), ago(r.Expires.Time, now))
		}
		for _, k := range resp.Conflicts {
			fmt.Fprintf(w, "conflict: %s overlaps %s held by %s (%s, expires %s)\n", o.esc.line(k.Pattern), o.esc.line(k.HolderPattern), o.esc.line(k.Holder), kind(k.Exclusive), ago(k.Expires.Time, now))
		}
	}); perr != nil {
		return perr
	}
	return err
}

// selectionFlags are the flags that pick reservations by id, or all.
func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "id", Usage: "reservation `ID` (or a prefix of 6+ characters)"},
		&cli.BoolFlag{Name: "all", Usage: "every active reservation of yours"},
	}
}

// selection is what renew and release name: patterns, given like paths
// (relative to the current directory), ids, or all.
func selection(c *cli.Context) service.Selection {
	return service.Selection{Patterns: c.Args().Slice(), IDs: c.StringSlice("id"), All: c.Bool("all")}
}

// reservationsDone shows what renew or release did (verb: renewed,
// released).
func (s scoped) reservationsDone(verb string, rs []service.Reservation) error {
	now := s.now()
	return s.buffered(func(w io.Writer) {
		if len(rs) == 0 {
			fmt.Fprintln(w, "nothing "+verb)
		}
		for _, r := range mapSlice(rs, s.esc.reservation) {
			if verb == "released" {
				fmt.Fprintf(w, "%s %s (%s)\n", verb, r.Pattern, kind(r.Exclusive))
				continue
			}
			fmt.Fprintf(w, "%s %s (%s, expires %s)\n", verb, r.Pattern, kind(r.Exclusive), ago(r.Expires.Time, now))
		}
	})
}
