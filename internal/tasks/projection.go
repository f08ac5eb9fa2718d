package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Projection returns the tasks' part of the index: each change as it is
// (task_ops), and each task's folded state (tasks) with its dependencies
// (task_deps, and as a list in the row), folded again whenever a change of
// it arrives. A task's row also counts its dependencies not closed
// (waiting; one not in the index yet counts), recounted for the task and
// for those that depend on it whenever a change of it arrives: ready and
// blocked are then read from the row and an index rather than worked out
// for every task on every read.
func Projection() store.Projection { return projection{} }

type projection struct{}

// Name: tasks2 added the count of open dependencies and the indexes of
// ready tasks and of claims, which work and check read on every call.
func (projection) Name() string { return "tasks2" }

func (projection) Tables() []store.Table {
	return []store.Table{
		{Name: "task_ops", Create: `CREATE TABLE task_ops(project_id INTEGER NOT NULL, task TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
			PRIMARY KEY(project_id, task, id)) WITHOUT ROWID`},
		{Name: "tasks", Create: `CREATE TABLE tasks(project_id INTEGER NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL,
			type TEXT NOT NULL, priority INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL, parent TEXT NOT NULL,
			labels TEXT NOT NULL, paths TEXT NOT NULL, creator TEXT NOT NULL, claim TEXT NOT NULL, claimed TEXT,
			created TEXT NOT NULL, updated TEXT NOT NULL, closed TEXT, deps TEXT NOT NULL, waiting INTEGER NOT NULL,
			PRIMARY KEY(project_id, id)) WITHOUT ROWID`,
			Indexes: []string{`CREATE INDEX tasks_status ON tasks(project_id, status, priority, id)`,
				`CREATE INDEX tasks_parent ON tasks(project_id, parent)`,
				// The tasks an agent holds (work, agents, and check's
				// question, which it covers), without reading every task.
				`CREATE INDEX tasks_claim ON tasks(project_id, claim, status, priority, id)`,
				// Ready work by priority then age (readyWhere's terms).
				`CREATE INDEX tasks_ready ON tasks(project_id, priority, id) WHERE status = 'open' AND claim = '' AND type != 'epic' AND waiting = 0`}},
		{Name: "task_deps", Create: `CREATE TABLE task_deps(project_id INTEGER NOT NULL, task TEXT NOT NULL, dep TEXT NOT NULL,
			PRIMARY KEY(project_id, task, dep)) WITHOUT ROWID`,
			Indexes: []string{`CREATE INDEX task_deps_dep ON task_deps(project_id, dep)`}},
	}
}

func (projection) Prepare(record.Record) any { return nil }

func (projection) Apply(w *store.Writer, rec record.Record, _ any) error {
	o, ok := rec.(*record.TaskOp)
	if !ok {
		return nil
	}
	pid, err := w.ProjectID(o.Project)
	if err != nil {
		return err
	}
	if _, err := w.Exec(`INSERT OR IGNORE INTO task_ops(project_id, task, id, data) VALUES (?, ?, ?, ?)`,
		pid, o.Task, o.ID, string(o.Files()[0].Data)); err != nil {
		return err
	}
	var log string
	if err := w.QueryRow(`SELECT json_group_array(data) FROM (SELECT data FROM task_ops WHERE project_id = ? AND task = ? ORDER BY id)`,
		pid, o.Task).Scan(&log); err != nil {
		return err
	}
	var datas []string
	if err := json.Unmarshal([]byte(log), &datas); err != nil {
		return err
	}
	ops := make([]*record.TaskOp, 0, len(datas))
	for _, d := range datas {
		op, err := record.DecodeTaskOp(o.Project, []byte(d))
		if err != nil {
			return fmt.Errorf("task %s: %w", o.Task, err)
		}
		ops = append(ops, op)
	}
	t, ok := Fold(ops)
	if !ok {
		return nil // its creation has not arrived yet
	}
	if _, err := w.Exec(`INSERT OR REPLACE INTO tasks(project_id, id, title, description, type, priority, status, reason, parent,
		labels, paths, creator, claim, claimed, created, updated, closed, deps, waiting) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
		pid, t.ID, t.Title, t.Description, t.Type, t.Priority, t.Status, t.Reason, t.Parent, jsonList(t.Labels), jsonList(t.Paths),
		t.Creator, t.Claim, store.NullTime(t.Claimed), record.FormatTime(t.Created), record.FormatTime(t.Updated),
		store.NullTime(t.Closed), jsonList(t.Deps)); err != nil {
		return err
	}
	if _, err := w.Exec(`DELETE FROM task_deps WHERE project_id = ? AND task = ?`, pid, t.ID); err != nil {
		return err
	}
	for _, d := range t.Deps {
		if _, err := w.Exec(`INSERT OR IGNORE INTO task_deps(project_id, task, dep) VALUES (?, ?, ?)`, pid, t.ID, d); err != nil {
			return err
		}
	}
	// The task's count, and those of the tasks that depend on it: one
	// list of ids, which SQLite looks up by key (an OR of the two would
	// read every task).
	_, err = w.Exec(`UPDATE tasks SET waiting = (SELECT count(*) FROM task_deps d
		LEFT JOIN tasks u ON u.project_id = d.project_id AND u.id = d.dep
		WHERE d.project_id = tasks.project_id AND d.task = tasks.id AND coalesce(u.status, '') != 'closed')
		WHERE project_id = ?1 AND id IN (SELECT ?2 UNION ALL SELECT task FROM task_deps WHERE project_id = ?1 AND dep = ?2)`, pid, t.ID)
	return err
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
