package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"
)

type archivePathOptions struct{ scoped }

func newArchiveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "archive",
		Usage: "the git archive",
		Subcommands: []*cli.Command{{
			Name:        "path",
			Usage:       "print the archive repository's path",
			ArgsUsage:   " ",
			Description: "Browse the archive with: git clone \"$(agentmail archive path)\" mailbox && git -C mailbox log",
			Action:      scopedAction(e, noArgsOptions(func(*cli.Context) *archivePathOptions { return &archivePathOptions{} }), runArchivePath),
		}},
	}
}

func runArchivePath(ctx context.Context, o *archivePathOptions) error {
	resp, err := o.Service.ArchivePath(ctx)
	return o.render(resp, err, func() error {
		fmt.Fprintln(o.Stdout, resp.Path)
		return nil
	})
}
