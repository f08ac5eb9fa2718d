package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type doctorOptions struct {
	scoped
	req service.DoctorRequest
	// progress returns the callback that draws a progress bar, and the
	// function that ends it.
	progress func() (report func(done, total int), end func())
}

func newDoctorCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check, rebuild or compact the store",
		ArgsUsage: " ",
		Description: "--check verifies the index against the archive (and git fsck), and that git runs the guard's hooks\n" +
			"in the repository around the current directory where guard install put them; --reindex rebuilds the index\n" +
			"from the archive alone; --gc packs the archive. Without flags, --check.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "verify without changing anything (exit 1 on problems)"},
			&cli.BoolFlag{Name: "reindex", Usage: "rebuild the index from the archive"},
			&cli.BoolFlag{Name: "gc", Usage: "pack the archive into one pack"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *doctorOptions {
			return &doctorOptions{
				req:      service.DoctorRequest{Check: c.Bool("check"), Reindex: c.Bool("reindex"), GC: c.Bool("gc")},
				progress: func() (func(int, int), func()) { return e.progress(c, "reindexing", "messages") },
			}
		}), runDoctor),
	}
}

func runDoctor(ctx context.Context, o *doctorOptions) error {
	report, end := o.progress()
	o.req.Progress = report
	o.req.Dir = o.Scope.Project.Dir // the repository whose guard hooks the check looks at
	resp, err := o.Service.Doctor(ctx, o.req)
	end()
	if o.JSON {
		if err == nil || resp.Check != nil { // the check ran last: every part did
			if perr := o.printJSON(resp); perr != nil {
				return perr
			}
		}
		return err
	}
	if r := resp.Reindex; r != nil {
		fmt.Fprintf(o.Stdout, "reindexed %s in %s (%.0f messages/s)\n", count(r.Messages, "message", "messages"), r.Elapsed.Round(1e6), r.MessagesPerSecond)
	}
	if g := resp.GC; g != nil {
		fmt.Fprintf(o.Stdout, "packed the archive: %s\n", g)
	}
	if c := resp.Check; c != nil {
		for _, p := range c.Problems {
			fmt.Fprintln(o.Stdout, "problem: "+p)
		}
		for _, n := range c.Notes {
			fmt.Fprintln(o.Stdout, "note: "+n)
		}
		if c.OK {
			fmt.Fprintf(o.Stdout, "ok: index matches archive %s\n", filepath.Base(c.Archive))
		}
		if w := c.HooksWarning; w != nil {
			fmt.Fprintf(o.Stdout, "problem: %s (%s)\n", w.Problem(), hooksFix(w.Global))
		}
	}
	return err
}
