package main

import (
	"fmt"
	"path/filepath"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/urfave/cli/v2"
)

func adminCommands(e *env) []*cli.Command {
	return []*cli.Command{
		projectCommand(e),
		{
			Name:      "init",
			Usage:     "create the store (done automatically on first use) and show where things are",
			ArgsUsage: " ",
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				st, err := e.openStore(c)
				if err != nil {
					return err
				}
				doc := map[string]any{"store": st.Dir(), "archive": st.ArchiveDir(), "project": nil}
				if p, err := e.project(c); err == nil {
					s, err := e.openProject(c, st, p)
					if err != nil {
						return err
					}
					doc["project"] = map[string]string{"key": s.mb.Project().Key, "slug": s.mb.Project().Slug}
				}
				if jsonOutput(c) {
					return e.printJSON(doc)
				}
				fmt.Fprintf(e.stdout, "store    %s\narchive  %s\n", st.Dir(), st.ArchiveDir())
				if p, ok := doc["project"].(map[string]string); ok {
					fmt.Fprintf(e.stdout, "project  %s (%s)\n", p["slug"], p["key"])
				}
				return nil
			},
		},
		{
			Name:  "archive",
			Usage: "the git archive",
			Subcommands: []*cli.Command{{
				Name:        "path",
				Usage:       "print the archive repository's path",
				ArgsUsage:   " ",
				Description: "Browse the archive with: git clone \"$(agentmail archive path)\" mailbox && git -C mailbox log",
				Action: func(c *cli.Context) error {
					if err := noArgs(c); err != nil {
						return err
					}
					st, err := e.openStore(c)
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						return e.printJSON(map[string]string{"path": st.ArchiveDir()})
					}
					fmt.Fprintln(e.stdout, st.ArchiveDir())
					return nil
				},
			}},
		},
		{
			Name:      "doctor",
			Usage:     "check, rebuild or compact the store",
			ArgsUsage: " ",
			Description: "--check verifies the index against the archive (and git fsck); --reindex rebuilds the index\n" +
				"from the archive alone; --gc packs the archive. Without flags, --check.",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "check", Usage: "verify without changing anything (exit 1 on problems)"},
				&cli.BoolFlag{Name: "reindex", Usage: "rebuild the index from the archive"},
				&cli.BoolFlag{Name: "gc", Usage: "pack the archive into one pack"},
			},
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				st, err := e.openStore(c)
				if err != nil {
					return err
				}
				doc := map[string]any{}
				if c.Bool("reindex") {
					report, end := e.progress(c, "reindexing", "messages")
					rs, err := st.ReindexWithProgress(c.Context, report)
					end()
					if err != nil {
						return err
					}
					rate := float64(rs.Messages) / rs.Elapsed.Seconds()
					doc["reindex"] = map[string]any{"messages": rs.Messages, "seconds": rs.Elapsed.Seconds(), "messages_per_second": rate}
					if !jsonOutput(c) {
						fmt.Fprintf(e.stdout, "reindexed %s in %s (%.0f messages/s)\n", count(rs.Messages, "message", "messages"), rs.Elapsed.Round(1e6), rate)
					}
				}
				if c.Bool("gc") {
					gs, err := st.GC()
					if err != nil {
						return err
					}
					doc["gc"] = map[string]any{"loose_objects": gs.LooseObjects, "packs": gs.Packs, "bytes": gs.Bytes}
					if !jsonOutput(c) {
						fmt.Fprintf(e.stdout, "packed the archive: %s\n", gs)
					}
				}
				var problems []string
				if c.Bool("check") || !c.Bool("reindex") && !c.Bool("gc") {
					if problems, err = st.Check(c.Context); err != nil {
						return err
					}
					doc["check"] = map[string]any{"ok": len(problems) == 0, "problems": append([]string{}, problems...)}
					if !jsonOutput(c) {
						for _, p := range problems {
							fmt.Fprintln(e.stdout, "problem: "+p)
						}
						if len(problems) == 0 {
							fmt.Fprintf(e.stdout, "ok: index matches archive %s\n", filepath.Base(st.ArchiveDir()))
						}
					}
				}
				if jsonOutput(c) {
					if err := e.printJSON(doc); err != nil {
						return err
					}
				}
				if len(problems) > 0 {
					return fault.WithHint(fmt.Errorf("%w: doctor found %s", store.ErrCorrupt, count(len(problems), "problem", "problems")), "run agentmail doctor --reindex to rebuild the index from the archive")
				}
				return nil
			},
		},
	}
}
