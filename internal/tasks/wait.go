package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
)

// ErrTimeout: WaitReady saw no ready task in time.
var ErrTimeout = fault.ErrTimeout

// readyCap bounds the ready tasks Waiting counts: past it, "many" is all a
// hook needs to say, and the count stays cheap at any size.
const readyCap = 100

// heldQuery is whether agent ?2 holds a task of project ?1 not closed:
// over the index of claims (TestWaitingPlan), not every task.
const heldQuery = `SELECT EXISTS(SELECT 1 FROM tasks WHERE project_id = ? AND claim = ? AND status != 'closed')`

// readyCountQuery counts the ready tasks of project ?, up to readyCap.
var readyCountQuery = fmt.Sprintf(`SELECT count(*) FROM (SELECT 1 FROM tasks t WHERE project_id = ? AND %s LIMIT %d)`, readyWhere, readyCap)

// Waiting returns whether the agent holds a task that is not closed and,
// when it holds none, how many tasks are ready (at most 100). It is what
// check, the per-step hook, asks, so it runs at most two small queries.
func (s *Service) Waiting(ctx context.Context) (held bool, ready int, err error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return false, 0, err
	}
	if s.agent != "" {
		err = sc.q.QueryRowContext(ctx, heldQuery, sc.pid, s.agent).Scan(&held)
		if err != nil || held {
			return held, 0, err
		}
	}
	err = sc.q.QueryRowContext(ctx, readyCountQuery, sc.pid).Scan(&ready)
	return false, ready, err
}

// WaitReady blocks until a task is ready, or returns at once when one is,
// and returns Work(limit) then; ErrTimeout after timeout (0 looks once).
// It reads the archive's head every poll (a file read) and queries the
// index only when the head moved.
func (s *Service) WaitReady(ctx context.Context, limit int, timeout, poll time.Duration) (mine, ready []Task, err error) {
	deadline := time.Now().Add(timeout)
	found, err := s.st.Watch(ctx, poll, func() time.Time { return deadline }, func() (bool, error) {
		mine, ready, err = s.Work(ctx, limit)
		return len(ready) > 0, err
	})
	switch {
	case err != nil:
		return nil, nil, err
	case !found:
		return nil, nil, fmt.Errorf("%w: no ready task in project %s within %s", ErrTimeout, s.slug, timeout)
	}
	return mine, ready, nil
}

// History returns a task and its changes in the order they fold in (its
// log as the index holds it).
func (s *Service) History(ctx context.Context, raw string) (Task, []*record.TaskOp, error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return Task{}, nil, err
	}
	t, err := s.find(ctx, sc, raw)
	if err != nil {
		return Task{}, nil, err
	}
	rows, err := sc.q.QueryContext(ctx, `SELECT data FROM task_ops WHERE project_id = ? AND task = ? ORDER BY id`, sc.pid, t.ID)
	if err != nil {
		return Task{}, nil, err
	}
	defer rows.Close()
	var ops []*record.TaskOp
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return Task{}, nil, err
		}
		if o, err := record.DecodeTaskOp(s.slug, []byte(data)); err == nil {
			ops = append(ops, o)
		}
	}
	return t, ops, rows.Err()
}
