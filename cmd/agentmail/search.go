package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type searchOptions struct {
	scoped
	req     service.SearchRequest
	product string
}

func newSearchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "full-text search of the mailbox",
		ArgsUsage: "QUERY",
		Description: "Searches subjects, bodies, senders, recipients and threads; best matches first.\n\n" +
			"   deploy failed          all words (stemmed: deploying matches deploy)\n" +
			"   \"exact phrase\"         words in this order\n" +
			"   deplo*                 prefix\n" +
			"   a OR b, -word, NOT w   either, without\n" +
			"   (a OR b) c             grouping\n" +
			"   subject:x body:x       within a field\n" +
			"   from:NAME to:NAME thread:T category:C importance:high is:unread is:unacked\n" +
			"   since:2026-11-01 before:2026-12-01\n\n" +
			"Identifiers such as POL-358, src/api/routes.py and snake_case match exactly. Any text is\n" +
			"a valid query: what cannot be used is ignored with a note. You see mail you sent or\n" +
			"received; --all searches the whole project.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "search every message of the project, not only yours"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: service.DefaultListLimit, Usage: "at most `N` results (0: all)"},
			&cli.StringFlag{Name: "product", Usage: "search every project of product `NAME` (those where you are registered; with --all, all of them whole)"},
		},
		Action: scopedAction(e, func(c *cli.Context) (*searchOptions, error) {
			if c.Args().Len() == 0 {
				return nil, usagef("usage: agentmail search QUERY (see agentmail search --help)", "no query given")
			}
			return &searchOptions{req: service.SearchRequest{Query: strings.Join(c.Args().Slice(), " "), All: c.Bool("all"), Limit: c.Int("limit")},
				product: c.String("product")}, nil
		}, runSearch),
	}
}

func runSearch(ctx context.Context, o *searchOptions) error {
	if o.product != "" {
		return runProductSearch(ctx, o)
	}
	o.req.Abbreviate = !o.JSON
	resp, err := o.Service.Search(ctx, o.Scope, o.req)
	if err != nil {
		return err
	}
	for _, n := range resp.Notes {
		fmt.Fprintln(o.Stderr, "note: "+n)
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(o.Stdout, "no results")
		return nil
	}
	bold := colorful(o.Stdout)
	now := o.now()
	return o.buffered(func(w io.Writer) {
		for _, h := range resp.Results {
			fmt.Fprintf(w, "%s  %-14s %s  (%s)\n", resp.Short.Of(h.ID), o.esc.line(h.From), o.esc.line(h.Subject), ago(h.Created.Time, now))
			if snip := strings.Join(strings.Fields(h.Highlight(o.esc.text, bold)), " "); snip != "" {
				fmt.Fprintf(w, "    %s\n", snip)
			}
		}
	})
}

// runProductSearch searches every project of a product.
func runProductSearch(ctx context.Context, o *searchOptions) error {
	agent := o.Scope.Agent
	if o.req.All {
		agent = ""
	}
	resp, err := o.Service.ProductSearch(ctx, agent, o.product, o.req)
	if err != nil {
		return err
	}
	for _, n := range resp.Notes {
		fmt.Fprintln(o.Stderr, "note: "+n)
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(o.Stdout, "no results")
		return nil
	}
	now := o.now()
	return o.buffered(func(w io.Writer) {
		for _, h := range resp.Results {
			fmt.Fprintf(w, "%s  %s  %-14s %s  (%s)\n", o.esc.line(h.Project), h.ID, o.esc.line(h.From), o.esc.line(h.Subject), ago(h.Created.Time, now))
		}
	})
}
