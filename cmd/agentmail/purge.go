package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type purgeOptions struct {
	scoped
	req service.PurgeRequest
}

// newPurgeCommand is purge: old messages out of the index and the views.
func newPurgeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "purge",
		Usage:     "take the project's old messages out of every mailbox, search and index (lists them only, unless --apply); the archive's git history keeps them",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "older-than-days", Value: service.DefaultPurgeAge, Usage: "messages older than `N` days"},
			&cli.BoolFlag{Name: "apply", Usage: "purge them; without it, a dry run"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *purgeOptions {
			return &purgeOptions{req: service.PurgeRequest{MaxAgeDays: c.Int("older-than-days"), DryRun: !c.Bool("apply")}}
		}), func(ctx context.Context, o *purgeOptions) error {
			resp, err := o.Service.Purge(ctx, o.Scope, o.req)
			return o.render(resp, err, func() error {
				for _, m := range resp.Messages {
					fmt.Fprintf(o.Stdout, "%s %s %s: %s\n", m.ID, m.Created.Format("2006-01-02"), m.From, m.Subject)
				}
				if resp.DryRun {
					fmt.Fprintf(o.Stdout, "would purge %d messages older than %d days (dry run: --apply purges them)\n", resp.MessagesAffected, resp.MaxAgeDays)
				} else {
					fmt.Fprintf(o.Stdout, "purged %d messages older than %d days; the archive's git history keeps them\n", resp.MessagesAffected, resp.MaxAgeDays)
				}
				return nil
			})
		}),
	}
}

type hardDeleteOptions struct {
	scoped
	name, confirm string
}

// newHardDeleteCommand is agents delete NAME, or project delete.
func newHardDeleteCommand(e *env, agent bool) *cli.Command {
	what, args := "the project: every agent and message", " "
	if agent {
		what, args = "an agent, the messages it sent and its leases", "NAME"
	}
	return &cli.Command{
		Name: "delete", ArgsUsage: args,
		Usage: "hard-delete " + what + ": out of the index and every view (the archive's git history keeps them); needs --confirm 'I UNDERSTAND'",
		Flags: []cli.Flag{&cli.StringFlag{Name: "confirm", Usage: "exactly `'I UNDERSTAND'`"}},
		Action: scopedAction(e, func(c *cli.Context) (*hardDeleteOptions, error) {
			o := &hardDeleteOptions{confirm: c.String("confirm")}
			if !agent {
				return o, noArgs(c)
			}
			var err error
			o.name, err = oneArg(c, "NAME")
			return o, err
		}, func(ctx context.Context, o *hardDeleteOptions) error {
			var resp service.HardDeleteResponse
			var err error
			if agent {
				resp, err = o.Service.HardDeleteAgent(ctx, o.Scope, o.name, o.confirm)
			} else {
				resp, err = o.Service.HardDeleteProject(ctx, o.Scope, o.confirm)
			}
			return o.render(resp, err, func() error {
				d := resp.DeletedCounts
				fmt.Fprintf(o.Stdout, "hard-deleted %d agents, %d messages, %d reservations, %d locks; the archive's git history keeps them\n",
					d.Agents, d.Messages, d.FileReservations, d.Locks)
				return nil
			})
		}),
	}
}
