// Package tasks keeps a project's work items: tasks with a type, a
// priority, a status, dependencies, a parent epic, labels, the paths they
// touch and a claim by one agent. A task is a log of changes
// (record.TaskOp), write-once files folded in a fixed order into its
// state (Fold), so that two machines' edits of one task merge without
// conflict. Decisions that must be exact (a claim, a dependency that would
// close a cycle) are made under the project's write lock against the
// index, as reservations are.
package tasks

import (
	"slices"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// Statuses of a task.
const (
	Open       = "open"
	InProgress = "in_progress"
	Closed     = "closed"
)

// Types are the kinds of task.
var Types = []string{"task", "bug", "feature", "epic", "chore"}

// Epic is the type of a task whose children are tasks.
const Epic = "epic"

// MaxPriority is the lowest priority (backlog); 0 is critical.
const MaxPriority = 4

// DefaultPriority is a new task's priority unless its draft says.
const DefaultPriority = 2

// Task is a task's state: its log folded.
type Task struct {
	Project     string // slug
	ID          string
	Title       string
	Description string // markdown
	Type        string
	Priority    int
	Status      string
	Reason      string // why it was closed
	Parent      string // the epic it belongs to, "" for none
	Deps        []string
	Labels      []string
	Paths       []string // globs of the repository paths it touches
	Creator     string
	Claim       string // the agent that holds it, "" for none
	Claimed     time.Time
	Created     time.Time
	Updated     time.Time
	Closed      time.Time
}

// Fold returns the state that a task's changes give, and false when they
// hold no creation. The creation comes first, then the other changes in
// the order of their ids (time, then the random part), whatever order
// they are given in, so that every store folds a merged log alike. A
// change that the state before it makes moot is skipped: a claim of a
// task another agent holds (unless forced) or of a closed one, the end of
// a claim that is not held. So of two claims made at once on two machines,
// the earlier one stands once they are merged.
func Fold(ops []*record.TaskOp) (Task, bool) {
	ops = slices.Clone(ops)
	slices.SortFunc(ops, func(a, b *record.TaskOp) int {
		ca, cb := isCreation(a), isCreation(b)
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	var t Task
	if len(ops) == 0 || !isCreation(ops[0]) {
		return t, false
	}
	c := ops[0]
	t = Task{Project: c.Project, ID: c.Task, Type: "task", Priority: DefaultPriority, Status: Open, Creator: c.By, Created: c.At, Updated: c.At,
		Deps: slices.Clone(c.Deps)}
	t.set(c)
	for _, o := range ops[1:] {
		if isCreation(o) || o.Op == record.TaskCreate {
			continue
		}
		if o.At.After(t.Updated) {
			t.Updated = o.At
		}
		switch o.Op {
		case record.TaskSet:
			t.set(o)
		case record.TaskClaim:
			if t.Status != Closed && (t.Claim == "" || t.Claim == o.Agent || o.Force) {
				if t.Claim != o.Agent {
					t.Claimed = o.At
				}
				t.Claim = o.Agent
			}
		case record.TaskUnclaim:
			if t.Claim == o.Agent && o.Agent != "" {
				t.Claim, t.Claimed = "", time.Time{}
				if t.Status == InProgress {
					t.Status = Open
				}
			}
		case record.TaskStatus:
			switch o.Status {
			case Closed:
				t.Status, t.Reason, t.Closed, t.Claim, t.Claimed = Closed, o.Reason, o.At, "", time.Time{}
			case Open, InProgress:
				t.Status, t.Reason, t.Closed = o.Status, "", time.Time{}
			}
		case record.TaskDepAdd:
			if o.Dep != "" && !slices.Contains(t.Deps, o.Dep) {
				t.Deps = append(t.Deps, o.Dep)
			}
		case record.TaskDepRm:
			t.Deps = slices.DeleteFunc(t.Deps, func(d string) bool { return d == o.Dep })
		}
	}
	slices.Sort(t.Deps)
	return t, true
}

func isCreation(o *record.TaskOp) bool { return o.Op == record.TaskCreate && o.ID == o.Task }

// set applies the fields a change gives.
func (t *Task) set(o *record.TaskOp) {
	if o.Title != nil {
		t.Title = *o.Title
	}
	if o.Description != nil {
		t.Description = *o.Description
	}
	if o.Type != nil {
		t.Type = *o.Type
	}
	if o.Priority != nil {
		t.Priority = *o.Priority
	}
	if o.Parent != nil {
		t.Parent = *o.Parent
	}
	if o.Labels != nil {
		t.Labels = slices.Clone(*o.Labels)
	}
	if o.Paths != nil {
		t.Paths = slices.Clone(*o.Paths)
	}
}
