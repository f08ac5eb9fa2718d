package tasks

import (
	"context"

	"github.com/agentmail/agentmail/internal/record"
)

// LogEntry is a change of a task's log with the task's title now.
type LogEntry struct {
	Op    *record.TaskOp
	Title string
}

// Recent returns, newest first, at most limit changes of the project's
// tasks (of the task with id task, when set) whose ids (ULIDs: the order
// they were made in) sort before before ("" for no bound). The project's
// timeline pages them.
func (s *Service) Recent(ctx context.Context, task, before string, limit int) ([]LogEntry, error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return nil, err
	}
	q, args := `SELECT o.data, coalesce(t.title, '') FROM task_ops o LEFT JOIN tasks t ON t.project_id = o.project_id AND t.id = o.task
		WHERE o.project_id = ?`, []any{sc.pid}
	if task != "" {
		q, args = q+` AND o.task = ?`, append(args, task)
	}
	if before != "" {
		q, args = q+` AND o.id < ?`, append(args, before)
	}
	rows, err := sc.q.QueryContext(ctx, q+` ORDER BY o.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []LogEntry{}
	for rows.Next() {
		var data, title string
		if err := rows.Scan(&data, &title); err != nil {
			return nil, err
		}
		if o, err := record.DecodeTaskOp(s.slug, []byte(data)); err == nil {
			out = append(out, LogEntry{Op: o, Title: title})
		}
	}
	return out, rows.Err()
}
