package record

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// TasksDir is the directory of a project's work items: one directory per
// task, under the day of its id, holding one write-once file per change,
// tasks/YYYY/MM/DD/TASK/OP.json.
const TasksDir = "tasks"

// Kinds of change to a task (TaskOp.Op).
const (
	TaskCreate  = "create"  // the task's first state
	TaskSet     = "set"     // fields given are replaced
	TaskClaim   = "claim"   // Agent claims it
	TaskUnclaim = "unclaim" // Agent's claim ends
	TaskStatus  = "status"  // Status (and Reason) set
	TaskDepAdd  = "dep_add" // Dep added to its dependencies
	TaskDepRm   = "dep_rm"  // Dep taken from them
)

// TaskOp is one change to a task: a write-once file of the task's log.
// A task's state is its log folded in the order of the changes' ids
// (ULIDs: time, then the random part), its creation first (see package
// tasks). Two machines editing one task add different files, so their
// histories merge without conflict and fold to the same state in either
// order.
type TaskOp struct {
	Project string // slug
	Task    string // the task's id: its creation's id
	ID      string // this change's id (a ULID)
	Op      string // TaskCreate, TaskSet, ...
	By      string // who made the change ("" for a human)
	At      time.Time

	Title       *string
	Description *string
	Type        *string
	Priority    *int
	Parent      *string
	Labels      *[]string
	Paths       *[]string
	Deps        []string // a creation's dependencies

	Status string // TaskStatus
	Reason string // why: a close's reason, a forced claim's, the overseer's claim or unclaim's
	Agent  string // TaskClaim, TaskUnclaim: whose claim
	Force  bool   // TaskClaim: taking over another's stale claim
	Dep    string // TaskDepAdd, TaskDepRm
}

type taskOpJSON struct {
	ID          string    `json:"id"`
	Task        string    `json:"task"`
	Op          string    `json:"op"`
	By          string    `json:"by"`
	At          string    `json:"at"`
	Title       *string   `json:"title,omitempty"`
	Description *string   `json:"description,omitempty"`
	Type        *string   `json:"type,omitempty"`
	Priority    *int      `json:"priority,omitempty"`
	Parent      *string   `json:"parent,omitempty"`
	Labels      *[]string `json:"labels,omitempty"`
	Paths       *[]string `json:"paths,omitempty"`
	Deps        []string  `json:"deps,omitempty"`
	Status      string    `json:"status,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Force       bool      `json:"force,omitempty"`
	Dep         string    `json:"dep,omitempty"`
}

// TaskDir returns the directory of task's log in the project slug.
func TaskDir(slug, task string) string {
	day, err := idDay(task)
	if err != nil {
		day = "0000/00/00"
	}
	return ProjectDir(slug) + "/" + TasksDir + "/" + day + "/" + task
}

// Files implements Record.
func (o *TaskOp) Files() []File {
	return []File{{TaskDir(o.Project, o.Task) + "/" + o.ID + ".json", marshal(taskOpJSON{
		o.ID, o.Task, o.Op, o.By, FormatTime(o.At), o.Title, o.Description, o.Type, o.Priority, o.Parent, o.Labels, o.Paths,
		o.Deps, o.Status, o.Reason, o.Agent, o.Force, o.Dep,
	})}}
}

// DecodeTaskOp reads a change of a task of the project slug from its file.
func DecodeTaskOp(slug string, data []byte) (*TaskOp, error) {
	var v taskOpJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if _, err := ulid.ParseStrict(v.ID); err != nil {
		return nil, fmt.Errorf("task change id %q: %v", v.ID, err)
	}
	if _, err := ulid.ParseStrict(v.Task); err != nil {
		return nil, fmt.Errorf("task id %q: %v", v.Task, err)
	}
	at, err := ParseTime(v.At)
	if err != nil {
		return nil, err
	}
	return &TaskOp{Project: slug, Task: v.Task, ID: v.ID, Op: v.Op, By: v.By, At: at, Title: v.Title, Description: v.Description,
		Type: v.Type, Priority: v.Priority, Parent: v.Parent, Labels: v.Labels, Paths: v.Paths, Deps: v.Deps, Status: v.Status,
		Reason: v.Reason, Agent: v.Agent, Force: v.Force, Dep: v.Dep}, nil
}

func decodeTaskOp(slug, task, file string, data []byte) (*TaskOp, error) {
	o, err := DecodeTaskOp(slug, data)
	if err != nil {
		return nil, err
	}
	if o.Task != task || o.ID+".json" != file {
		return nil, fmt.Errorf("task change %s of %s lives at %s/%s", o.ID, o.Task, task, file)
	}
	return o, nil
}
