package fts

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Request is a search of one project's messages.
type Request struct {
	// Project is the row id the store knows the project by (see
	// mailbox.Mailbox.ProjectID); 0, a project the store holds nothing
	// of, has no messages.
	Project int64
	// Viewer is the agent searching, who sees the messages it sent or
	// received (bcc included); "" is a human overseer, who sees every
	// message of the project.
	Viewer string
	// All searches every message of the project, whatever the viewer.
	All bool
	// Query is in the query language of Parse.
	Query string
	// Limit is the most hits returned; 0 is all of them.
	Limit int
	// Offset skips that many of the best hits first: the page of results
	// after those shown already.
	Offset int
}

// Hit is a message a search found.
type Hit struct {
	ID      string  // the message's id
	Snippet string  // an excerpt of its body, hits between the marker runes (see HighlightText)
	Score   float64 // bm25 relevance, higher is better; 0 without text terms
}

// Result is a search's hits, best first, and the notes on parts of the
// query that were ignored or read differently from how they were typed.
type Result struct {
	Hits  []Hit
	Notes []string
}

// Search runs a query over the index of st. Hits are ranked by bm25 with
// the subject weighted above the body, ties newest first; a query without
// text terms lists what its filters keep, newest first. A search takes
// several statements, run on one snapshot of the index so that a
// concurrent write (a rebuild renumbers rows) cannot mix two states.
func Search(ctx context.Context, st *store.Store, r Request) (Result, error) {
	q := Parse(r.Query)
	res := Result{Hits: []Hit{}, Notes: q.Notes}
	if q.Empty() {
		if len(res.Notes) == 0 {
			res.Notes = []string{"empty query: nothing to search for"}
		}
		return res, nil
	}
	if (q.Unread || q.Unacked) && r.Viewer == "" {
		return res, fault.WithHint(fault.WithField(fmt.Errorf("%w: is:unread and is:unacked need an agent", fault.ErrInvalidArgument), "agent", "problem", "missing"), "name the agent whose mail is searched")
	}
	if r.Offset < 0 {
		return res, fault.WithHint(fmt.Errorf("%w: a negative offset", fault.ErrInvalidArgument), "skip 0 or more results")
	}
	limit := r.Limit
	if limit > 0 {
		limit += r.Offset // ranked in one go, then the page cut out of it
	}
	s := &lookup{pid: r.Project, viewer: r.Viewer, scoped: r.Viewer != "" && !r.All, limit: limit}
	s.filter(q)
	var hits []Hit
	err := st.Snapshot(ctx, func(db store.Querier) error {
		s.db = db
		var err error
		if q.Match == "" {
			hits, err = s.filtered(ctx)
		} else {
			hits, err = s.ranked(ctx, q.Match)
		}
		return err
	})
	if err != nil {
		return res, fmt.Errorf("search: %w", err)
	}
	if len(hits) > r.Offset {
		res.Hits = hits[r.Offset:]
	}
	return res, nil
}

// lookup is one search in progress: its filters as SQL conditions on the
// message d and the viewer's recipients row r, with their arguments.
type lookup struct {
	db     store.Querier // the snapshot every statement of the search reads
	pid    int64
	viewer string
	scoped bool // the viewer sees only its own mail
	limit  int
	where  []string
	args   []any
}

// recipientJoin joins the viewer's recipients row r to d; its one
// placeholder is the viewer.
const recipientJoin = ` LEFT JOIN search_recipients r ON r.project_id = d.project_id AND r.message_id = d.id AND r.agent = ?`

// textJoin joins the message d of a text hit.
const textJoin = ` JOIN search_messages d ON d.seq = ` + table + `.rowid`

// visibleSQL selects the seq of every message of a project that an agent
// sent or received, from indexes alone; its placeholders are the project id
// and the agent, twice.
const visibleSQL = `SELECT seq FROM search_messages WHERE project_id = ? AND sender = ?
	UNION ALL SELECT seq FROM search_recipients WHERE project_id = ? AND agent = ?`

// filter turns the filters of q into conditions.
func (s *lookup) filter(q Query) {
	add := func(cond string, args ...any) {
		s.where = append(s.where, cond)
		s.args = append(s.args, args...)
	}
	in := func(expr string, values []string) {
		args := make([]any, len(values))
		for i, v := range values {
			args[i] = v
		}
		add(expr+" IN (?"+strings.Repeat(",?", len(values)-1)+")", args...)
	}
	if len(q.From) > 0 {
		in("lower(d.sender)", q.From)
	}
	if len(q.To) > 0 {
		// A bcc recipient counts only for whoever may see the bcc list.
		args := []any{!s.scoped, s.viewer, s.viewer}
		for _, v := range q.To {
			args = append(args, v)
		}
		add(`EXISTS (SELECT 1 FROM search_recipients t WHERE t.message_id = d.id
			AND (t.kind != 'bcc' OR ? OR d.sender = ? OR t.agent = ?) AND lower(t.agent) IN (?`+strings.Repeat(",?", len(q.To)-1)+`))`, args...)
	}
	if len(q.Thread) > 0 {
		in("d.thread", q.Thread)
	}
	if len(q.Category) > 0 {
		upper := make([]string, len(q.Category))
		for i, c := range q.Category {
			upper[i] = strings.ToUpper(c)
		}
		in("d.category", upper)
	}
	if len(q.Importance) > 0 {
		in("d.importance", q.Importance)
	}
	if q.Unread {
		add("r.agent IS NOT NULL AND NOT r.read")
	}
	if q.Unacked {
		add("r.agent IS NOT NULL AND d.ack_required AND NOT r.acked")
	}
	if !q.Since.IsZero() {
		add("d.created >= ?", record.FormatTime(q.Since))
	}
	if !q.Before.IsZero() {
		add("d.created < ?", record.FormatTime(q.Before))
	}
}

// filtered runs a query without text terms: the matching messages, newest
// first.
func (s *lookup) filtered(ctx context.Context) ([]Hit, error) {
	where := append([]string{"d.project_id = ?"}, s.where...)
	args := append([]any{s.viewer, s.pid}, s.args...)
	if s.scoped {
		where = append(where, "(d.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, s.viewer)
	}
	sql := `SELECT d.id, '', 0.0, d.seq FROM search_messages d` + recipientJoin +
		` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY d.id DESC`
	if s.limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", s.limit)
	}
	return s.hits(ctx, sql, args, nil)
}

// ranked runs a query with text terms. With many text hits it takes two
// steps, so that the costly parts are paid for the shown hits only: the
// first ranks the visible hits by bm25, checking them against the set of
// messages the viewer may see rather than reading each one's message; the
// second reads those to show, with their snippets.
func (s *lookup) ranked(ctx context.Context, match string) ([]Hit, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+table+` WHERE `+table+
		` MATCH ? LIMIT ?)`, match, manyHits).Scan(&n)
	if err != nil {
		return nil, err
	}
	many, sole := n == manyHits, false
	if many && !s.scoped && len(s.where) == 0 {
		if sole, err = s.soleProject(ctx); err != nil {
			return nil, err
		}
	}
	from, where, args := s.rankedFrom(match, many, sole)
	if !many {
		// So few hits cost less to read, excerpt and rank in one query.
		sql := `SELECT d.id, ` + snippetSQL + `, -` + rankSQL + `, d.seq FROM ` + from +
			` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + rankSQL + `, d.id DESC`
		if s.limit > 0 {
			sql += fmt.Sprintf(" LIMIT %d", s.limit)
		}
		return s.hits(ctx, sql, args, nil)
	}
	rank, err := s.rank(ctx, from, where, args)
	if err != nil || len(rank) == 0 {
		return nil, err
	}
	sql := `SELECT d.id, ` + snippetSQL + `, 0.0, d.seq FROM ` + table + textJoin + recipientJoin + ` WHERE `
	if len(rank) <= maxLookups {
		// FTS5 seeks each rowid of the list, far cheaper than a scan.
		sql += table + ` MATCH ? AND ` + table + `.rowid IN (?` + strings.Repeat(",?", len(rank)-1) + `)`
		args = []any{s.viewer, match}
		for seq := range rank {
			args = append(args, seq)
		}
	} else {
		// So many hits cost less to read again in one scan.
		sql += strings.Join(where, " AND ")
		if !strings.Contains(from, recipientJoin) {
			args = append([]any{s.viewer}, args...)
		}
	}
	hits, err := s.hits(ctx, sql, args, rank)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(b.ID, a.ID))
	})
	if s.limit > 0 && len(hits) > s.limit {
		hits = hits[:s.limit]
	}
	return hits, nil
}

// rank is the first step of a ranked search with many text hits: the
// bm25 rank of each visible hit to show, by its rowid. Ties are broken by
// id, which only the second step reads: it takes every hit that ties with
// the last one shown.
func (s *lookup) rank(ctx context.Context, from string, where []string, args []any) (map[int64]float64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+table+`.rowid, `+rankSQL+` FROM `+from+
		` WHERE `+strings.Join(where, " AND ")+` ORDER BY `+rankSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	rank := map[int64]float64{}
	var last float64
	for rows.Next() {
		var seq int64
		var bm25 float64
		if err := rows.Scan(&seq, &bm25); err != nil {
			return nil, err
		}
		if s.limit > 0 && len(rank) >= s.limit && bm25 != last {
			break
		}
		rank[seq], last = bm25, bm25
	}
	return rank, rows.Err()
}

// maxLookups is the most hits the second step of a ranked search reads by
// rowid; each lookup costs about as much as scanning a hundred hits.
const maxLookups = 100

// manyHits is the number of text hits from which a ranked search checks
// them against the set of messages its viewer may see, rather than reading
// each hit's message: the set costs about as much to build as reading
// this many messages.
const manyHits = 1000

// rankedFrom returns the FROM clause, the conditions and the arguments of
// the first step of a ranked search, for many text hits or few; sole says
// that the index holds the project's messages only.
func (s *lookup) rankedFrom(match string, many, sole bool) (string, []string, []any) {
	joinD := !many || len(s.where) > 0
	from := table
	var args []any
	if joinD {
		from += textJoin + recipientJoin
		args = append(args, s.viewer)
	}
	where := []string{table + " MATCH ?"}
	args = append(args, match)
	switch {
	case s.scoped && many:
		// The unary + keeps FTS5 from looking the set up rowid by rowid.
		where = append(where, "+"+table+".rowid IN ("+visibleSQL+")")
		args = append(args, s.pid, s.viewer, s.pid, s.viewer)
	case s.scoped:
		where = append(where, "d.project_id = ?", "(d.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, s.pid, s.viewer)
	case joinD:
		where = append(where, "d.project_id = ?")
		args = append(args, s.pid)
	case !sole:
		where = append(where, "+"+table+".rowid IN (SELECT seq FROM search_messages WHERE project_id = ?)")
		args = append(args, s.pid)
	}
	return from, append(where, s.where...), append(args, s.args...)
}

// soleProject reports whether every message of the index is the project's,
// so that a search of the whole project need not check which are.
func (s *lookup) soleProject(ctx context.Context) (bool, error) {
	var other bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_messages WHERE project_id < ?)
		OR EXISTS (SELECT 1 FROM search_messages WHERE project_id > ?)`, s.pid, s.pid).Scan(&other)
	return !other, err
}

// hits runs a query of a message id, a snippet, a score and the message's
// seq. With rank, only the rows it holds are kept and their score is
// -rank[seq].
func (s *lookup) hits(ctx context.Context, sql string, args []any, rank map[int64]float64) ([]Hit, error) {
	rows, err := s.db.QueryContext(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var seq int64
		if err := rows.Scan(&h.ID, &h.Snippet, &h.Score, &seq); err != nil {
			return nil, err
		}
		if rank != nil {
			bm25, ok := rank[seq]
			if !ok {
				continue
			}
			h.Score = -bm25
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}
