package mailbox

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/internal/record"
)

// Hit is one search result.
type Hit struct {
	Message
	Snippet string  // body excerpt with hits between fts.MarkOpen and fts.MarkClose
	Score   float64 // bm25 relevance, higher is better; 0 without text terms
}

// SearchResult is a search's hits and the notes on parts of the query that
// were ignored or read differently from how they were typed.
type SearchResult struct {
	Hits  []Hit
	Notes []string
}

// Search runs a query of the fts query language. The acting agent sees what
// it sent or received (bcc included for its own); with all, or with no
// acting agent (a human), the whole project. Hits are ranked by bm25 with
// the subject weighted above the body, ties newest first.
func (m *Mailbox) Search(ctx context.Context, query string, all bool, limit int) (SearchResult, error) {
	viewer, err := m.viewer(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	q := fts.Parse(query)
	res := SearchResult{Hits: []Hit{}, Notes: q.Notes}
	if q.Empty() {
		if len(res.Notes) == 0 {
			res.Notes = []string{"empty query: nothing to search for"}
		}
		return res, nil
	}
	if (q.Unread || q.Unacked) && viewer == "" {
		return res, invalid("is:unread and is:unacked need an agent", "pass --agent NAME")
	}
	s := &search{m: m, viewer: viewer, scoped: viewer != "" && !all, limit: limit}
	s.filter(q)
	var hits []Hit
	// A search takes several statements; one snapshot keeps a concurrent
	// write (a rebuild renumbers messages) from mixing two states.
	err = m.st.Snapshot(ctx, func(conn *sql.Conn) error {
		s.db = conn
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
	if hits != nil {
		res.Hits = hits
	}
	return res, nil
}

// search is one search in progress: its filters as SQL conditions on the
// message m and the viewer's recipients row r, with their arguments.
type search struct {
	m      *Mailbox
	db     queryer // the snapshot every statement of the search reads
	viewer string
	scoped bool // the viewer sees only its own mail
	limit  int
	where  []string
	args   []any
}

// recipientJoin joins the viewer's recipients row r to m; its one
// placeholder is the viewer.
const recipientJoin = ` LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ?`

// visibleSQL selects the seq of every message of a project that an agent
// sent or received, from indexes alone; its placeholders are the project id
// and the agent, twice.
const visibleSQL = `SELECT seq FROM messages WHERE project_id = ? AND sender = ?
	UNION ALL SELECT seq FROM recipients WHERE project_id = ? AND agent = ?`

// filter turns the filters of q into conditions.
func (s *search) filter(q fts.Query) {
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
		in("lower(m.sender)", q.From)
	}
	if len(q.To) > 0 {
		// A bcc recipient counts only for whoever may see the bcc list.
		args := []any{!s.scoped, s.viewer, s.viewer}
		for _, v := range q.To {
			args = append(args, v)
		}
		add(`EXISTS (SELECT 1 FROM recipients t WHERE t.project_id = m.project_id AND t.message_id = m.id
			AND (t.kind != 'bcc' OR ? OR m.sender = ? OR t.agent = ?) AND lower(t.agent) IN (?`+strings.Repeat(",?", len(q.To)-1)+`))`, args...)
	}
	if len(q.Thread) > 0 {
		in("m.thread", q.Thread)
	}
	if len(q.Category) > 0 {
		upper := make([]string, len(q.Category))
		for i, c := range q.Category {
			upper[i] = strings.ToUpper(c)
		}
		in("m.category", upper)
	}
	if len(q.Importance) > 0 {
		in("m.importance", q.Importance)
	}
	if q.Unread {
		add("r.agent IS NOT NULL AND r.read_at IS NULL")
	}
	if q.Unacked {
		add("r.agent IS NOT NULL AND m.ack_required AND r.acked_at IS NULL")
	}
	if !q.Since.IsZero() {
		add("m.created >= ?", record.FormatTime(q.Since))
	}
	if !q.Before.IsZero() {
		add("m.created < ?", record.FormatTime(q.Before))
	}
}

// filtered runs a query without text terms: the matching messages, newest
// first.
func (s *search) filtered(ctx context.Context) ([]Hit, error) {
	where := append([]string{"m.project_id = ?"}, s.where...)
	args := append([]any{s.viewer, s.m.pid}, s.args...)
	if s.scoped {
		where = append(where, "(m.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, s.viewer)
	}
	sql := `SELECT ` + messageColumns + `, '', 0.0, m.seq FROM messages m` + recipientJoin +
		` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY m.id DESC`
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
func (s *search) ranked(ctx context.Context, match string) ([]Hit, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+fts.Table+` WHERE `+fts.Table+
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
		sql := `SELECT ` + messageColumns + `, ` + fts.SnippetSQL + `, -` + fts.RankSQL + `, m.seq FROM ` + from +
			` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + fts.RankSQL + `, m.id DESC`
		if s.limit > 0 {
			sql += fmt.Sprintf(" LIMIT %d", s.limit)
		}
		return s.hits(ctx, sql, args, nil)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+fts.Table+`.rowid, `+fts.RankSQL+` FROM `+from+
		` WHERE `+strings.Join(where, " AND ")+` ORDER BY `+fts.RankSQL, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Ties are broken by id, which only the second step reads: take every
	// hit that ties with the last one shown.
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
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(rank) == 0 {
		return nil, nil
	}
	sql := `SELECT ` + messageColumns + `, ` + fts.SnippetSQL + `, 0.0, m.seq FROM ` + fts.Table +
		` JOIN messages m ON m.seq = ` + fts.Table + `.rowid` + recipientJoin + ` WHERE `
	if len(rank) <= maxLookups {
		// FTS5 seeks each rowid of the list, far cheaper than a scan.
		sql += fts.Table + ` MATCH ? AND ` + fts.Table + `.rowid IN (?` + strings.Repeat(",?", len(rank)-1) + `)`
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
func (s *search) rankedFrom(match string, many, sole bool) (string, []string, []any) {
	joinM := !many || len(s.where) > 0
	from := fts.Table
	var args []any
	if joinM {
		from += ` JOIN messages m ON m.seq = ` + fts.Table + `.rowid` + recipientJoin
		args = append(args, s.viewer)
	}
	where := []string{fts.Table + " MATCH ?"}
	args = append(args, match)
	switch {
	case s.scoped && many:
		// The unary + keeps FTS5 from looking the set up rowid by rowid.
		where = append(where, "+"+fts.Table+".rowid IN ("+visibleSQL+")")
		args = append(args, s.m.pid, s.viewer, s.m.pid, s.viewer)
	case s.scoped:
		where = append(where, "m.project_id = ?", "(m.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, s.m.pid, s.viewer)
	case joinM:
		where = append(where, "m.project_id = ?")
		args = append(args, s.m.pid)
	case !sole:
		where = append(where, "+"+fts.Table+".rowid IN (SELECT seq FROM messages WHERE project_id = ?)")
		args = append(args, s.m.pid)
	}
	return from, append(where, s.where...), append(args, s.args...)
}

// soleProject reports whether every message of the index is the project's,
// so that a search of the whole project need not check which are.
func (s *search) soleProject(ctx context.Context) (bool, error) {
	var other bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE project_id < ?)
		OR EXISTS (SELECT 1 FROM messages WHERE project_id > ?)`, s.m.pid, s.m.pid).Scan(&other)
	return !other, err
}

// hits runs a query of messageColumns, a snippet, a score and m.seq. With
// rank, only the rows it holds are kept and their score is -rank[seq].
func (s *search) hits(ctx context.Context, sql string, args []any, rank map[int64]float64) ([]Hit, error) {
	rows, err := s.db.QueryContext(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var seq int64
		v, err := s.m.scanMessage(scanExtra{rows, []any{&h.Snippet, &h.Score, &seq}}, s.viewer)
		if err != nil {
			return nil, err
		}
		if rank != nil {
			bm25, ok := rank[seq]
			if !ok {
				continue
			}
			h.Score = -bm25
		}
		h.Message = v.Message
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// scanExtra scans a message row followed by extra columns.
type scanExtra struct {
	sc    interface{ Scan(...any) error }
	extra []any
}

func (s scanExtra) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.extra...)...) }
