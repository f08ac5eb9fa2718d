package mailbox

import (
	"context"
	"fmt"
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
	scoped := viewer != "" && !all
	if (q.Unread || q.Unacked) && viewer == "" {
		return res, invalid("is:unread and is:unacked need an agent", "pass --agent NAME")
	}
	var (
		where = []string{"m.project_id = ?"}
		args  = []any{m.pid}
	)
	if scoped {
		where = append(where, "(m.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, viewer)
	}
	in := func(expr string, values []string) {
		where = append(where, expr+" IN (?"+strings.Repeat(",?", len(values)-1)+")")
		for _, v := range values {
			args = append(args, v)
		}
	}
	if len(q.From) > 0 {
		in("lower(m.sender)", q.From)
	}
	if len(q.To) > 0 {
		// A bcc recipient counts only for whoever may see the bcc list.
		where = append(where, `EXISTS (SELECT 1 FROM recipients t WHERE t.project_id = m.project_id AND t.message_id = m.id
			AND (t.kind != 'bcc' OR ? OR m.sender = ? OR t.agent = ?) AND lower(t.agent) IN (?`+strings.Repeat(",?", len(q.To)-1)+`))`)
		args = append(args, !scoped, viewer, viewer)
		for _, v := range q.To {
			args = append(args, v)
		}
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
		where = append(where, "r.agent IS NOT NULL AND r.read_at IS NULL")
	}
	if q.Unacked {
		where = append(where, "r.agent IS NOT NULL AND m.ack_required AND r.acked_at IS NULL")
	}
	if !q.Since.IsZero() {
		where = append(where, "m.created >= ?")
		args = append(args, record.FormatTime(q.Since))
	}
	if !q.Before.IsZero() {
		where = append(where, "m.created < ?")
		args = append(args, record.FormatTime(q.Before))
	}
	// Placeholders in order: the viewer in the join, the MATCH, the filters.
	from := `messages m`
	extra, order := `'', 0.0`, `m.id DESC`
	head := []any{viewer}
	if q.Match != "" {
		from = fts.Table + ` JOIN messages m ON m.seq = ` + fts.Table + `.rowid`
		where = append([]string{fts.Table + " MATCH ?"}, where...)
		head = append(head, q.Match)
		extra, order = fts.SnippetSQL+", -"+fts.RankSQL, fts.RankSQL+", m.id DESC"
	}
	args = append(head, args...)
	sql := `SELECT ` + messageColumns + `, ` + extra + ` FROM ` + from + `
		LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ?
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order
	if limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := m.st.DB().QueryContext(ctx, sql, args...)
	if err != nil {
		return res, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		v, err := m.scanMessage(scanExtra{rows, []any{&h.Snippet, &h.Score}}, viewer)
		if err != nil {
			return res, err
		}
		h.Message = v.Message
		res.Hits = append(res.Hits, h)
	}
	return res, rows.Err()
}

// scanExtra scans a message row followed by extra columns.
type scanExtra struct {
	sc    interface{ Scan(...any) error }
	extra []any
}

func (s scanExtra) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.extra...)...) }
