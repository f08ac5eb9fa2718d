package main

import (
	"fmt"

	"github.com/agentmail/agentmail/internal/importer"
	"github.com/urfave/cli/v2"
)

// countsJSON counts a project's agents, messages and reservations: what
// an import brought in, or what a project holds.
type countsJSON struct {
	Agents       int `json:"agents"`
	Messages     int `json:"messages"`
	Reservations int `json:"reservations"`
}

func importCountsDoc(c importer.Counts) countsJSON { return countsJSON(c) }

func importCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "import mail from another system",
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
				&cli.IntFlag{Name: "batch", Value: importer.DefaultBatch, Usage: "records per archive commit"},
			},
			Action: func(c *cli.Context) error {
				dir, err := oneArg(c, "DIR")
				if err != nil {
					return err
				}
				if c.Int("batch") <= 0 {
					return usagef("pass a positive --batch", "--batch must be positive")
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				report, end := e.progress(c, "importing", "records")
				rep, err := importer.AgentMail(c.Context, s.st, s.mb, dir, importer.Options{
					SourceProject: c.String("source-project"), BatchSize: c.Int("batch"), Progress: report,
				})
				end()
				if err != nil {
					return err
				}
				proj := s.mb.Project()
				if jsonOutput(c) {
					return e.printJSON(map[string]any{
						"source":    map[string]string{"dir": rep.Dir, "project": rep.Source},
						"project":   map[string]string{"key": proj.Key, "slug": proj.Slug},
						"imported":  importCountsDoc(rep.Imported),
						"skipped":   importCountsDoc(rep.Skipped),
						"malformed": importCountsDoc(rep.Malformed),
						"warnings":  rep.Warnings,
					})
				}
				for _, w := range rep.Warnings {
					fmt.Fprintln(e.stderr, "warning: "+w)
				}
				fmt.Fprintf(e.stdout, "imported agent-mail project %s into %s\n", rep.Source, proj.Slug)
				row := func(label string, n importer.Counts) []string {
					return []string{label, fmt.Sprint(n.Agents), fmt.Sprint(n.Messages), fmt.Sprint(n.Reservations)}
				}
				table(e.stdout, "\tAGENTS\tMESSAGES\tRESERVATIONS", [][]string{
					row("imported", rep.Imported),
					row("already present", rep.Skipped),
					row("malformed", rep.Malformed),
				})
				if len(rep.Warnings) > 0 {
					fmt.Fprintf(e.stdout, "%s (on stderr)\n", count(len(rep.Warnings), "warning", "warnings"))
				}
				return nil
			},
		}},
	}
}
