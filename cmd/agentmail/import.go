package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type importOptions struct {
	scoped
	req service.ImportRequest
	// progress returns the callback that draws a progress bar, and the
	// function that ends it.
	progress func() (report func(done, total int), end func())
}

func newImportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "import mail or work items from another system",
		Subcommands: []*cli.Command{{
			Name:      "agent-mail",
			Usage:     "import an archive of the Python mcp_agent_mail server into this project",
			ArgsUsage: "DIR",
			Description: "DIR is the server's storage root (it holds projects/<slug>/), or one project's directory in it.\n" +
				"Agents, messages (with their original times, threads, senders and recipients) and file reservations\n" +
				"are imported into the current project (or --project KEY), in batches of one archive commit each.\n" +
				"Importing again adds only what is new. Files that cannot be used are reported as warnings.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "source-project", Usage: "the project `SLUG` under DIR/projects to import, when DIR holds several"},
				&cli.IntFlag{Name: "batch", Value: service.DefaultImportBatch, Usage: "records per archive commit"},
			},
			Action: scopedAction(e, func(c *cli.Context) (*importOptions, error) {
				dir, err := oneArg(c, "DIR")
				return &importOptions{
					req:      service.ImportRequest{Dir: dir, SourceProject: c.String("source-project"), Batch: c.Int("batch")},
					progress: func() (func(int, int), func()) { return e.progress(c, "importing", "records") },
				}, err
			}, runImport),
		}, {
			Name:      "beads",
			Usage:     "import a beads export (.beads/issues.jsonl) as tasks",
			ArgsUsage: "PATH",
			Description: "PATH is a beads JSONL export, one issue per line (.beads/issues.jsonl). Each issue becomes a task of\n" +
				"the current project (or --project KEY) with its title, description, type, priority, status, labels,\n" +
				"parent epic and blocking dependencies; an assignee that names an agent of the project claims it.\n" +
				"Importing again updates the tasks made before and writes nothing when the export is unchanged.\n" +
				"What cannot be mapped is reported as warnings.",
			Action: scopedAction(e, func(c *cli.Context) (*importBeadsOptions, error) {
				path, err := oneArg(c, "PATH")
				return &importBeadsOptions{req: service.ImportBeadsRequest{Path: path}}, err
			}, runImportBeads),
		}},
	}
}

func runImport(ctx context.Context, o *importOptions) error {
	report, end := o.progress()
	o.req.Progress = report
	resp, err := o.Service.ImportAgentMail(ctx, o.Scope, o.req)
	end()
	return o.render(resp, err, func() error {
		for _, w := range resp.Warnings {
			fmt.Fprintln(o.Stderr, "warning: "+w)
		}
		fmt.Fprintf(o.Stdout, "imported agent-mail project %s into %s\n", resp.Source.Project, resp.Project.Slug)
		row := func(label string, n service.Counts) []string {
			return []string{label, fmt.Sprint(n.Agents), fmt.Sprint(n.Messages), fmt.Sprint(n.Reservations)}
		}
		table(o.Stdout, "\tAGENTS\tMESSAGES\tRESERVATIONS", [][]string{
			row("imported", resp.Imported),
			row("already present", resp.Skipped),
			row("malformed", resp.Malformed),
		})
		if len(resp.Warnings) > 0 {
			fmt.Fprintf(o.Stdout, "%s (on stderr)\n", count(len(resp.Warnings), "warning", "warnings"))
		}
		return nil
	})
}

type importBeadsOptions struct {
	scoped
	req service.ImportBeadsRequest
}

func runImportBeads(ctx context.Context, o *importBeadsOptions) error {
	resp, err := o.Service.ImportBeads(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		for _, w := range resp.Warnings {
			fmt.Fprintln(o.Stderr, "warning: "+w)
		}
		fmt.Fprintf(o.Stdout, "imported %s from %s into %s: %d created, %d updated, %d unchanged, %d skipped\n",
			count(len(resp.Tasks), "issue", "issues"), resp.Path, resp.Project.Slug, resp.Created, resp.Updated, resp.Unchanged, resp.Skipped)
		if len(resp.Warnings) > 0 {
			fmt.Fprintf(o.Stdout, "%s (on stderr)\n", count(len(resp.Warnings), "warning", "warnings"))
		}
		return nil
	})
}
