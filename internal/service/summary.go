package service

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Digest is a deterministic, extractive summary of messages: no model is
// involved, every line of it is taken from the messages as written.
// Key points are their list items (bullets, numbered and checkbox items),
// action items their checkboxes and lines naming TODO, ACTION, FIXME,
// NEXT or BLOCKED, mentions the @names they contain, code references the
// `backquoted` paths.
type Digest struct {
	Participants   []string  `json:"participants"`
	KeyPoints      []string  `json:"key_points"`
	ActionItems    []string  `json:"action_items"`
	TotalMessages  int       `json:"total_messages"`
	OpenActions    int       `json:"open_actions"`
	DoneActions    int       `json:"done_actions"`
	Mentions       []Mention `json:"mentions"`
	CodeReferences []string  `json:"code_references"`
}

// Mention is an @name and how often the messages name it.
type Mention struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// The most key points, action items, mentions and code references a
// digest lists.
const digestItems = 10

// actionWords mark a line as an action item.
var actionWords = []string{"TODO", "ACTION", "FIXME", "NEXT", "BLOCKED"}

// Summarize digests messages, in the order given: participants are every
// sender and recipient (as the viewer sees them) once each, in order of
// first appearance.
func Summarize(msgs []FullMessage) Digest {
	d := Digest{Participants: []string{}, KeyPoints: []string{}, ActionItems: []string{}, Mentions: []Mention{}, CodeReferences: []string{},
		TotalMessages: len(msgs)}
	seen := map[string]bool{}
	mentions := map[string]int{}
	refs := map[string]bool{}
	for _, m := range msgs {
		for _, list := range [][]string{{m.From}, m.To, m.Cc, m.Bcc} {
			for _, n := range list {
				if k := strings.ToLower(n); !seen[k] {
					seen[k] = true
					d.Participants = append(d.Participants, n)
				}
			}
		}
		for _, line := range strings.Split(m.Body, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			for _, w := range strings.Fields(line) {
				if name := strings.Trim(strings.TrimPrefix(w, "@"), ".,:;()[]{}!?"); strings.HasPrefix(w, "@") && name != "" {
					mentions[name]++
				}
			}
			for _, ref := range codeRefs(line) {
				refs[ref] = true
			}
			open, done := checkbox(line)
			if item, ok := listItem(line); ok {
				d.KeyPoints = append(d.KeyPoints, item)
			}
			switch {
			case open:
				d.OpenActions++
				d.ActionItems = append(d.ActionItems, line)
			case done:
				d.DoneActions++
				d.ActionItems = append(d.ActionItems, line)
			case slices.ContainsFunc(actionWords, func(w string) bool { return strings.Contains(strings.ToUpper(line), w) }):
				d.ActionItems = append(d.ActionItems, line)
			}
		}
	}
	d.KeyPoints, d.ActionItems = first(d.KeyPoints, digestItems), first(d.ActionItems, digestItems)
	for name, n := range mentions {
		d.Mentions = append(d.Mentions, Mention{name, n})
	}
	slices.SortFunc(d.Mentions, func(a, b Mention) int { return cmp.Or(b.Count-a.Count, strings.Compare(a.Name, b.Name)) })
	d.Mentions = first(d.Mentions, digestItems)
	for r := range refs {
		d.CodeReferences = append(d.CodeReferences, r)
	}
	slices.Sort(d.CodeReferences)
	d.CodeReferences = first(d.CodeReferences, digestItems)
	return d
}

// first returns at most n of list.
func first[T any](list []T, n int) []T {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// checkbox reports whether line is an open (- [ ]) or a done (- [x])
// checkbox item.
func checkbox(line string) (open, done bool) {
	if len(line) < 5 || !strings.ContainsRune("-*+", rune(line[0])) || line[1] != ' ' || line[2] != '[' || line[4] != ']' {
		return false, false
	}
	switch line[3] {
	case ' ':
		return true, false
	case 'x', 'X':
		return false, true
	}
	return false, false
}

// listItem returns the text of a bullet, numbered or checkbox item.
func listItem(line string) (string, bool) {
	if open, done := checkbox(line); open || done {
		return strings.TrimSpace(line[5:]), true
	}
	if strings.ContainsRune("-*+", rune(line[0])) && len(line) > 1 && line[1] == ' ' {
		return strings.TrimSpace(line[2:]), true
	}
	if i := strings.IndexAny(line, ".)"); i > 0 && i <= 3 && len(line) > i+1 && line[i+1] == ' ' && strings.Trim(line[:i], "0123456789") == "" {
		return strings.TrimSpace(line[i+2:]), true
	}
	return "", false
}

// codeRefs returns the `backquoted` spans of line that look like paths.
func codeRefs(line string) []string {
	var out []string
	parts := strings.Split(line, "`")
	for i := 1; i+1 < len(parts); i += 2 {
		s := strings.TrimSpace(parts[i])
		if s != "" && len(s) <= 120 && (strings.Contains(s, "/") || strings.Contains(s, ".")) && !strings.ContainsAny(s, " \t") {
			out = append(out, s)
		}
	}
	return out
}

// RecentRequest asks for a summary of the recent mail of a project.
type RecentRequest struct {
	Since time.Duration // how far back; positive
	Max   int           // the most messages read, the newest; 1 to MaxRecent
}

// MaxRecent is the most messages a recent summary reads.
const MaxRecent = 500

// ThreadDigest is one thread's digest in a recent summary.
type ThreadDigest struct {
	Thread string `json:"thread_id"`
	Digest
}

// RecentSummary is the document of a summary of recent mail, in
// mcp_agent_mail's shape (summary_text holding the combined summary as
// JSON text) with the summary itself and each thread's added. Nothing is
// stored and no model is asked: the same mail gives the same summary, so
// ID is null, Cached false, and LLMModel and CostUSD null.
type RecentSummary struct {
	ID            *string        `json:"id"`
	Cached        bool           `json:"cached"`
	SummaryText   string         `json:"summary_text"`
	Start         Time           `json:"start_ts"`
	End           Time           `json:"end_ts"`
	MessageCount  int            `json:"source_message_count"`
	ThreadIDs     []string       `json:"source_thread_ids"`
	LLMModel      *string        `json:"llm_model"`
	CostUSD       *float64       `json:"cost_usd"`
	Created       Time           `json:"created_ts"`
	Summary       RecentDigest   `json:"summary"`
	Threads       []ThreadDigest `json:"threads"`
	Project       string         `json:"project"`
	Deterministic bool           `json:"deterministic"`
}

// RecentDigest is the combined digest of recent mail: a Digest with the
// number of threads, and whether older messages were left out.
type RecentDigest struct {
	Digest
	TotalThreads    int    `json:"total_threads"`
	Truncated       bool   `json:"truncated"`
	TruncationNote  string `json:"truncation_note,omitempty"`
	ActivityMessage string `json:"activity,omitempty"`
}

// SummarizeRecent summarizes the mail of the scope's project created in
// the last req.Since that the acting agent sent or received (every message
// of the project for a scope without an agent): a digest of all of it and
// one per thread.
func (s *Service) SummarizeRecent(ctx context.Context, sc Scope, req RecentRequest) (RecentSummary, error) {
	switch {
	case req.Since <= 0:
		return RecentSummary{}, Usagef("pass a positive number of hours, such as 24", "the window must be positive, got %s", req.Since)
	case req.Max < 1 || req.Max > MaxRecent:
		return RecentSummary{}, Usagef(fmt.Sprintf("pass a number of messages from 1 to %d", MaxRecent), "the most messages must be from 1 to %d, got %d", MaxRecent, req.Max)
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return RecentSummary{}, err
	}
	now := s.Now()
	start := now.Add(-req.Since)
	msgs, truncated, err := x.mb.Recent(ctx, start, req.Max)
	if err != nil {
		return RecentSummary{}, err
	}
	docs := mapSlice(msgs, fullDoc)
	out := RecentSummary{Start: Time{start}, End: Time{now}, Created: Time{now}, MessageCount: len(docs), ThreadIDs: []string{},
		Threads: []ThreadDigest{}, Project: x.project().Slug, Deterministic: true}
	byThread := map[string][]FullMessage{}
	for _, m := range docs {
		if _, ok := byThread[m.Thread]; !ok {
			out.ThreadIDs = append(out.ThreadIDs, m.Thread)
		}
		byThread[m.Thread] = append(byThread[m.Thread], m)
	}
	slices.Sort(out.ThreadIDs)
	for _, t := range out.ThreadIDs {
		out.Threads = append(out.Threads, ThreadDigest{Thread: t, Digest: Summarize(byThread[t])})
	}
	out.Summary = RecentDigest{Digest: Summarize(docs), TotalThreads: len(out.ThreadIDs), Truncated: truncated}
	slices.SortFunc(out.Summary.Participants, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	if truncated {
		out.Summary.TruncationNote = fmt.Sprintf("limited to the %d most recent messages", req.Max)
	}
	if len(docs) == 0 {
		out.Summary.ActivityMessage = fmt.Sprintf("no activity in the last %s", req.Since)
	}
	text, err := json.Marshal(out.Summary)
	if err != nil {
		return RecentSummary{}, err
	}
	out.SummaryText = string(text)
	return out, nil
}
