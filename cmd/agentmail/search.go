package main

import (
	"fmt"
	"strings"

	"context"
	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

func searchCommand(e *env) *cli.Command {
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
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "at most `N` results (0: all)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() == 0 {
				return usagef("usage: agentmail search QUERY (see agentmail search --help)", "no query given")
			}
			if c.Int("limit") < 0 {
				return usagef("pass --limit 0 for all results", "--limit must not be negative")
			}
			s, err := e.openMailbox(c)
			if err != nil {
				return err
			}
			res, err := searchMail(c.Context, s, strings.Join(c.Args().Slice(), " "), c.Bool("all"), c.Int("limit"))
			if err != nil {
				return err
			}
			for _, n := range res.Notes {
				fmt.Fprintln(e.stderr, "note: "+n)
			}
			if jsonOutput(c) {
				type resultJSON struct {
					ID      string  `json:"id"`
					Thread  string  `json:"thread"`
					From    string  `json:"from"`
					Subject string  `json:"subject"`
					Created *string `json:"created"`
					Snippet string  `json:"snippet"`
					Score   float64 `json:"score"`
				}
				docs := make([]resultJSON, len(res.Hits))
				for i, h := range res.Hits {
					docs[i] = resultJSON{h.ID, h.Thread, h.From, h.Subject, jsonTime(h.Created), fts.HighlightText(h.Snippet), h.Score}
				}
				return e.printJSON(struct {
					Results []resultJSON `json:"results"`
					Notes   []string     `json:"notes"`
				}{docs, append([]string{}, res.Notes...)})
			}
			if len(res.Hits) == 0 {
				fmt.Fprintln(e.stdout, "no results")
				return nil
			}
			highlight := fts.HighlightText
			if colorful(e.stdout) {
				highlight = fts.HighlightTerminal
			}
			short, err := s.mb.ShortIDs(c.Context, mapSlice(res.Hits, func(h searchHit) string { return h.ID }))
			if err != nil {
				return err
			}
			now := s.st.Now()
			for _, h := range res.Hits {
				fmt.Fprintf(e.stdout, "%s  %-14s %s  (%s)\n", short.Of(h.ID), e.esc.line(h.From), e.esc.line(h.Subject), ago(h.Created, now))
				if snip := strings.Join(strings.Fields(highlight(e.esc.text(h.Snippet))), " "); snip != "" {
					fmt.Fprintf(e.stdout, "    %s\n", snip)
				}
			}
			return nil
		},
	}
}

// searchHit is a message a search found, as the viewer sees it.
type searchHit struct {
	mailbox.Message
	Snippet string  // body excerpt with hits between fts.MarkOpen and fts.MarkClose
	Score   float64 // bm25 relevance, higher is better; 0 without text terms
}

// searchResult is a search's hits, best first, and its notes.
type searchResult struct {
	Hits  []searchHit
	Notes []string
}

// searchMail runs a search of the session's project (fts.Search) as its
// acting agent, or a human, sees it, and shows the messages found as the
// mailbox does.
func searchMail(ctx context.Context, s *session, query string, all bool, limit int) (searchResult, error) {
	viewer, err := s.mb.Viewer(ctx)
	if err != nil {
		return searchResult{}, err
	}
	found, err := fts.Search(ctx, s.st, fts.Request{Project: s.mb.ProjectID(), Viewer: viewer, All: all, Query: query, Limit: limit})
	if err != nil {
		return searchResult{}, err
	}
	msgs, err := s.mb.Messages(ctx, viewer, mapSlice(found.Hits, func(h fts.Hit) string { return h.ID }))
	if err != nil {
		return searchResult{}, fmt.Errorf("search: %w", err)
	}
	hits := make(map[string]fts.Hit, len(found.Hits))
	for _, h := range found.Hits {
		hits[h.ID] = h
	}
	res := searchResult{Hits: make([]searchHit, len(msgs)), Notes: found.Notes}
	for i, m := range msgs {
		res.Hits[i] = searchHit{m, hits[m.ID].Snippet, hits[m.ID].Score}
	}
	return res, nil
}
