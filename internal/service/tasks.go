package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
)

// ErrTaskClaimed: another agent holds the task (TASK_CLAIMED, exit 3).
var ErrTaskClaimed = tasks.ErrClaimed

// ErrDependencyCycle: a dependency that would close a cycle.
var ErrDependencyCycle = tasks.ErrCycle

// TaskClaim is who holds a task, and since when.
type TaskClaim struct {
	Agent string `json:"agent"`
	Since Time   `json:"since"`
}

// Task is a work item as every face shows it.
type Task struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Type        string     `json:"type"`
	Priority    int        `json:"priority"`
	Status      string     `json:"status"`
	CloseReason string     `json:"close_reason"`
	Parent      string     `json:"parent"`
	Deps        []string   `json:"deps"`
	Labels      []string   `json:"labels"`
	Paths       []string   `json:"paths"`
	Creator     string     `json:"creator"`
	Claim       *TaskClaim `json:"claim"` // null when unclaimed
	Created     Time       `json:"created"`
	Updated     Time       `json:"updated"`
	Closed      Time       `json:"closed"`
}

// TaskColumn is where t stands on a board: "closed"; "progress" when it
// is claimed or started; "ready" when it is among the ready tasks (ready:
// open, unclaimed, nothing it waits for still open); else "blocked".
func TaskColumn(t Task, ready bool) string {
	switch {
	case t.Status == "closed":
		return "closed"
	case t.Claim != nil || t.Status == "in_progress":
		return "progress"
	case ready:
		return "ready"
	}
	return "blocked"
}

func taskDoc(t tasks.Task) Task {
	d := Task{ID: t.ID, Title: t.Title, Description: t.Description, Type: t.Type, Priority: t.Priority, Status: t.Status,
		CloseReason: t.Reason, Parent: t.Parent, Deps: nonNil(t.Deps), Labels: nonNil(t.Labels), Paths: nonNil(t.Paths),
		Creator: t.Creator, Created: Time{t.Created}, Updated: Time{t.Updated}, Closed: Time{t.Closed}}
	if t.Claim != "" {
		d.Claim = &TaskClaim{Agent: t.Claim, Since: Time{t.Claimed}}
	}
	return d
}

// TaskResponse is the document of task create, show, update, claim,
// unclaim, start, close, reopen and dep add|rm: {"task": task}, plus
// "closed" (the tasks a close closed along: an epic's children, or the
// epic of a last child), "reserved" (the reservations a claim took),
// "released" (those a close, an unclaim or a claim taken over ended) and "taken_from" (the holder
// a forced claim took the task from) where they apply.
type TaskResponse struct {
	Task      Task          `json:"task"`
	Closed    []Task        `json:"closed,omitempty"`
	Reserved  []Reservation `json:"reserved,omitempty"`
	Released  []Reservation `json:"released,omitempty"`
	TakenFrom string        `json:"taken_from,omitempty"`
}

// TaskShowResponse is the document of task show: the task's, with the
// commits of the code repository whose message names the task (newest
// first) and the messages filed under it (its thread, TaskThread) that the
// viewer may see, oldest first. Only show reads them, so the documents of
// the task's changes stay small.
type TaskShowResponse struct {
	TaskResponse
	Commits  []TaskCommit `json:"commits"`
	Messages []Message    `json:"messages"`
}

// TasksResponse is the document of task list: {"tasks": [task...]},
// and "more": true when the limit left some out.
type TasksResponse struct {
	Tasks []Task `json:"tasks"`
	More  bool   `json:"more,omitempty"`
}

// WorkResponse is the document of work: {"mine": [task...], "ready":
// [task...]}: the tasks the acting agent holds, then the top ready ones.
type WorkResponse struct {
	Mine  []Task `json:"mine"`
	Ready []Task `json:"ready"`
}

// CreateTaskRequest makes a task.
type CreateTaskRequest struct {
	Title       string
	Description string // markdown
	Type        string // task (default), bug, feature, epic, chore
	Priority    *int   // 0 (critical) to 4 (backlog); nil for 2
	Parent      string // an epic's id or prefix
	Deps        []string
	Labels      []string
	Paths       []string // globs of the repository paths it touches
}

// UpdateTaskRequest changes the fields given (nil: unchanged).
type UpdateTaskRequest struct {
	ID          string
	Title       *string
	Description *string
	Type        *string
	Priority    *int
	Parent      *string // "" takes it out of its epic
	Labels      *[]string
	Paths       *[]string
}

// TaskListRequest chooses tasks: those not closed by default.
type TaskListRequest struct {
	Status  string // open, in_progress, closed
	All     bool   // closed ones too
	Ready   bool
	Blocked bool
	Mine    bool // claimed by the acting agent
	Claimer string
	Type    string
	Label   string
	Parent  string
	Limit   int
}

// ClaimTaskRequest claims a task.
type ClaimTaskRequest struct {
	ID     string
	Start  bool   // move it to in_progress too
	Force  bool   // take over a claim whose holder is silent (tasks.StaleAfter)
	Reason string // why, for a forced claim; the holder receives it
	// Reserve takes the task's paths as exclusive reservations with the
	// claim, both or neither; nil: when the task names paths.
	Reserve *bool
	TTL     time.Duration // the reservations' lease; 0 for DefaultClaimTTL
}

// CloseTaskRequest closes a task.
type CloseTaskRequest struct {
	ID     string
	Reason string // "" for done
}

// TaskDepRequest adds or removes a dependency: ID depends on Dep.
type TaskDepRequest struct {
	ID  string
	Dep string
}

// tasks opens sc's project's tasks, acting as sc's agent (registered) when
// act, else as sc's agent or nobody, unchecked.
func (s *Service) tasks(ctx context.Context, sc Scope, act bool) (*session, *tasks.Service, string, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return nil, nil, "", err
	}
	agent := sc.Agent
	if act {
		me, err := x.mb.Whoami(ctx)
		if err != nil {
			return nil, nil, "", err
		}
		agent = me.Name
	}
	return x, tasks.New(x.st, x.project().Slug, agent), agent, nil
}

// tasksToWrite is tasks for a change of them: a paused agent's is PAUSED
// (releasing its claim is not a change it is refused: see UnclaimTask).
func (s *Service) tasksToWrite(ctx context.Context, sc Scope, act bool) (*session, *tasks.Service, string, error) {
	x, ts, agent, err := s.tasks(ctx, sc, act)
	if err == nil {
		err = x.writable(ctx)
	}
	return x, ts, agent, err
}

func (s *Service) taskResponse(ctx context.Context, ts *tasks.Service, t tasks.Task, err error) (TaskResponse, error) {
	if err != nil {
		return TaskResponse{}, err
	}
	return TaskResponse{Task: taskDoc(t)}, nil
}

// CreateTask makes a task, created by the acting agent (or the human
// overseer when none is named).
func (s *Service) CreateTask(ctx context.Context, sc Scope, req CreateTaskRequest) (TaskResponse, error) {
	_, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	t, err := ts.Create(ctx, tasks.Draft{Title: req.Title, Description: req.Description, Type: req.Type, Priority: req.Priority,
		Parent: req.Parent, Deps: req.Deps, Labels: req.Labels, Paths: req.Paths})
	return s.taskResponse(ctx, ts, t, err)
}

// UpdateTask changes a task's fields.
func (s *Service) UpdateTask(ctx context.Context, sc Scope, req UpdateTaskRequest) (TaskResponse, error) {
	_, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	t, err := ts.Update(ctx, req.ID, tasks.Change{Title: req.Title, Description: req.Description, Type: req.Type,
		Priority: req.Priority, Parent: req.Parent, Labels: req.Labels, Paths: req.Paths})
	return s.taskResponse(ctx, ts, t, err)
}

// TaskCommit is a commit of the code repository that names a task.
type TaskCommit struct {
	Hash    string `json:"hash"`
	Author  string `json:"author"`
	Time    Time   `json:"time"`
	Subject string `json:"subject"`
}

// TaskCommitScan is how many of the newest commits of the code
// repository's branches task show reads for commits naming the task.
const TaskCommitScan = 1000

// GetTask returns a task, with the commits of the code repository whose
// message names it (taskNamed), among the newest TaskCommitScan of every
// branch.
func (s *Service) GetTask(ctx context.Context, sc Scope, id string) (TaskShowResponse, error) {
	x, ts, _, err := s.tasks(ctx, sc, false)
	if err != nil {
		return TaskShowResponse{}, err
	}
	t, err := ts.Get(ctx, id)
	tr, err := s.taskResponse(ctx, ts, t, err)
	r := TaskShowResponse{TaskResponse: tr, Commits: []TaskCommit{}}
	if err != nil {
		return r, err
	}
	if dir := codeRepository(x.project()); dir != "" {
		// A repository git cannot read shows no commits rather than failing
		// the task.
		found, _ := guard.CommitsNaming(ctx, dir, TaskCommitScan, taskNamed(ctx, ts, t.ID))
		for _, c := range found {
			r.Commits = append(r.Commits, TaskCommit{c.Hash, c.Author, Time{c.Time}, c.Subject})
		}
	}
	_, msgs, err := x.mb.Thread(ctx, TaskThread(t.ID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return r, err
	}
	r.Messages = mapSlice(msgs, messageDoc)
	return r, nil
}

// taskNamed tells whether a word of a commit message names the task id:
// the id, or a prefix of it of ids.MinDisplay characters or more that no
// other task of the project has (a prefix two tasks share names neither).
func taskNamed(ctx context.Context, ts *tasks.Service, id string) func(string) bool {
	unique := map[string]bool{}
	return func(w string) bool {
		w = strings.ToUpper(w)
		if len(w) < ids.MinDisplay || len(w) > len(id) || !strings.HasPrefix(id, w) {
			return false
		}
		if w == id {
			return true
		}
		ok, seen := unique[w]
		if !seen {
			t, err := ts.Get(ctx, w)
			ok = err == nil && t.ID == id
			unique[w] = ok
		}
		return ok
	}
}

// codeRepository returns the working tree of proj's code repository: the
// one the command runs in, else the key when it is the path of one (a
// project without origin, named by key as the server names it); "" when
// there is none.
func codeRepository(proj project.Project) string {
	if proj.Root != "" {
		return proj.Root
	}
	if filepath.IsAbs(proj.Key) {
		if fi, err := os.Stat(proj.Key); err == nil && fi.IsDir() {
			return proj.Key
		}
	}
	return ""
}

// ShortIDs returns the shortest unique prefix of each of the task ids
// and message ids, for a face that shows them abbreviated (the command
// line's lines, the pages). It is asked for apart: the documents are what
// every face sends, and the faces that print whole ids pay nothing.
func (s *Service) ShortIDs(ctx context.Context, sc Scope, taskIDs, messageIDs []string) (ids.Short, error) {
	x, ts, _, err := s.tasks(ctx, sc, false)
	if err != nil {
		return nil, err
	}
	short, err := ts.ShortIDs(ctx, taskIDs)
	if err != nil || len(messageIDs) == 0 {
		return short, err
	}
	msgs, err := x.mb.ShortIDs(ctx, messageIDs)
	if err != nil {
		return nil, err
	}
	if short == nil {
		short = ids.Short{}
	}
	maps.Copy(short, msgs)
	return short, nil
}

// Tasks lists tasks by priority, then age.
func (s *Service) Tasks(ctx context.Context, sc Scope, req TaskListRequest) (TasksResponse, error) {
	_, ts, agent, err := s.tasks(ctx, sc, req.Mine)
	if err != nil {
		return TasksResponse{}, err
	}
	f := tasks.Filter{Status: req.Status, All: req.All, Ready: req.Ready, Blocked: req.Blocked, Claimer: req.Claimer, Type: req.Type,
		Label: req.Label, Parent: req.Parent}
	if req.Limit > 0 {
		f.Limit = req.Limit + 1 // one more tells whether there are more
	}
	if req.Mine {
		f.Claimer = agent
	}
	if req.Limit < 0 {
		return TasksResponse{}, Usagef("", "the limit must be positive, got %d", req.Limit)
	}
	list, err := ts.List(ctx, f)
	if err != nil {
		return TasksResponse{}, err
	}
	r := TasksResponse{}
	if req.Limit > 0 && len(list) > req.Limit {
		list, r.More = list[:req.Limit], true
	}
	r.Tasks = mapSlice(list, taskDoc)
	return r, nil
}

// Work returns what the acting agent should do next: the tasks it holds,
// then at most limit ready ones (5 for 0), by priority then age.
func (s *Service) Work(ctx context.Context, sc Scope, limit int) (WorkResponse, error) {
	_, ts, _, err := s.tasks(ctx, sc, sc.Agent != "")
	if err != nil {
		return WorkResponse{}, err
	}
	if limit < 0 {
		return WorkResponse{}, Usagef("", "the limit must be positive, got %d", limit)
	}
	mine, ready, err := ts.Work(ctx, limit)
	if err != nil {
		return WorkResponse{}, err
	}
	return workResponse(mine, ready), nil
}

// workResponse is the document of the tasks an agent holds and the ready
// ones.
func workResponse(mine, ready []tasks.Task) WorkResponse {
	return WorkResponse{Mine: mapSlice(mine, taskDoc), Ready: mapSlice(ready, taskDoc)}
}

// TaskThread is the thread of the messages filed under a task (send
// --task): the task's own, named by its id.
func TaskThread(id string) string { return "task-" + id }

// taskReason is the reason of the reservations a task's claim takes: what
// its close and unclaim release.
func taskReason(id string) string { return "task " + id }

// inTx returns x's project's reservations, acting as agent, deciding in tx
// (a change of tasks' transaction).
func (x *session) inTx(agent string, tx *store.Tx) *reservations.Service {
	rs := reservations.New(x.st, x.project().Slug, agent, nil)
	rs.DecideBy(func(_ context.Context, fn func(*store.Tx) error) error { return fn(tx) })
	return rs
}

// ClaimTask makes the acting agent a task's holder, with its paths
// reserved (exclusively, both or neither) when asked or when it names
// paths; a task another agent holds is TASK_CLAIMED naming the holder. A
// forced claim takes over one whose holder has been silent for
// tasks.StaleAfter, and tells the holder.
func (s *Service) ClaimTask(ctx context.Context, sc Scope, req ClaimTaskRequest) (TaskResponse, error) {
	x, ts, agent, err := s.tasksToWrite(ctx, sc, true)
	if err != nil {
		return TaskResponse{}, err
	}
	if req.TTL < 0 {
		return TaskResponse{}, fault.WithField(fmt.Errorf("%w: the reservations' lease must be positive, got %s", ErrInvalidArgument, req.TTL),
			"ttl", "example", "1h")
	}
	ttl := cmp.Or(req.TTL, DefaultClaimTTL)
	if err := s.decideClaims(x, ts); err != nil {
		return TaskResponse{}, err
	}
	var reserved, released []Reservation
	var takenOver []reservations.Reservation // the leases of the claim taken over, ended in this write
	within := func(tx *store.Tx, t tasks.Task) error {
		reserved = nil
		if len(t.Paths) == 0 || (req.Reserve != nil && !*req.Reserve) {
			return nil
		}
		// The leases of a claim taken over end in this write, which the
		// index does not show yet: conflicts with them alone are none.
		res, err := x.inTx(agent, tx).Reserve(ctx, t.Paths, reservations.Options{TTL: ttl, Reason: taskReason(t.ID), AllowConflicts: true})
		if err != nil {
			return err
		}
		var left []reservations.Conflict
		for _, c := range res.Conflicts {
			if !slices.ContainsFunc(takenOver, func(r reservations.Reservation) bool { return r.Agent == c.Holder && r.Pattern == c.HolderPattern }) {
				left = append(left, c)
			}
		}
		if len(left) > 0 {
			return &reservations.ConflictError{Conflicts: left}
		}
		reserved = reservationDocs(res.Granted)
		return nil
	}
	t, from, err := ts.Claim(ctx, req.ID, tasks.ClaimOptions{Start: req.Start, Force: req.Force, Reason: req.Reason, Within: within,
		Before: func(tx *store.Tx, t tasks.Task) error {
			takenOver, released = nil, nil
			if t.Claim == "" || t.Claim == agent {
				return nil
			}
			var err error
			takenOver, err = x.inTx(t.Claim, tx).Release(ctx, reservations.Selector{Reason: taskReason(t.ID)})
			released = reservationDocs(takenOver)
			return err
		}})
	resp, err := s.taskResponse(ctx, ts, t, err)
	if err != nil {
		return resp, err
	}
	resp.Reserved, resp.Released, resp.TakenFrom = reserved, released, from
	if from != "" {
		if _, err := x.mb.Send(ctx, mailbox.Draft{To: []string{from}, Importance: "high",
			Subject: "Took over your task " + t.Title,
			Body:    fmt.Sprintf("%s took over your claim of task %s (%s): %s", agent, t.ID, t.Title, req.Reason)}); err != nil {
			return resp, fmt.Errorf("claimed, but could not tell %s: %w", from, err)
		}
	}
	return resp, nil
}

// decideClaims makes ts's claims decided by the push to the remote of a
// synced project, as its leases are.
func (s *Service) decideClaims(x *session, ts *tasks.Service) error {
	remote, ok, err := x.synced()
	if ok {
		ts.DecideBy(s.pushFirst(x, remote))
	}
	return err
}

// AssignTaskRequest gives a task's claim to an agent, or ends it.
type AssignTaskRequest struct {
	ID     string
	To     string // the registered agent to give the claim to; "" ends the claim
	Reason string // why (required): the holders receive it
}

// AssignTask is the human overseer's (sc's agent "" or HumanSender):
// it gives a task's claim to a registered agent, or with To "" ends it,
// whoever holds it, recorded in the archive as Human's. The reservations
// the old holder's claim took end with it ("released"); the old holder
// ("taken_from") and the new one get a message from Human with the reason,
// filed under the task (TaskThread).
func (s *Service) AssignTask(ctx context.Context, sc Scope, req AssignTaskRequest) (TaskResponse, error) {
	if sc.Agent != "" && !IsHuman(sc.Agent) {
		return TaskResponse{}, fault.WithHint(fmt.Errorf("%w: only the human overseer gives a task's claim to another agent or ends another agent's claim",
			ErrInvalidArgument), "ask the overseer, or unclaim a task you hold yourself")
	}
	sc.Agent = ""
	x, ts, _, err := s.tasks(ctx, sc, false)
	if err != nil {
		return TaskResponse{}, err
	}
	to := strings.TrimSpace(req.To)
	if to != "" {
		a, ok, err := x.mb.Lookup(ctx, to)
		if err != nil {
			return TaskResponse{}, err
		}
		if !ok || a.Retired {
			return TaskResponse{}, fault.WithHint(fmt.Errorf("%w: no agent %s to give the task to in project %s", ErrNotFound, to, x.project().Slug),
				"choose a registered agent of the project")
		}
		to = a.Name
	}
	if err := s.decideClaims(x, ts); err != nil {
		return TaskResponse{}, err
	}
	var released []Reservation
	reason := strings.TrimSpace(req.Reason)
	t, from, err := ts.Assign(ctx, req.ID, to, reason, x.releaseWithin(ctx, &released))
	resp, err := s.taskResponse(ctx, ts, t, err)
	if err != nil {
		return resp, err
	}
	resp.Released, resp.TakenFrom = released, from
	tell := func(agent, subject, body string) error {
		if _, err := x.mb.Send(ctx, mailbox.Draft{AsHuman: true, To: []string{agent}, Importance: "high", Thread: TaskThread(t.ID),
			Subject: subject, Body: body}); err != nil {
			return fmt.Errorf("done, but could not tell %s: %w", agent, err)
		}
		return nil
	}
	if from != "" {
		what := "ended your claim of"
		if to != "" {
			what = "gave to " + to + " your claim of"
		}
		if err := tell(from, "Your claim of task "+t.Title+" ended",
			fmt.Sprintf("%s %s task %s (%s): %s", HumanSender, what, t.ID, t.Title, reason)); err != nil {
			return resp, err
		}
	}
	if to != "" {
		body := fmt.Sprintf("%s gave you task %s (%s): %s", HumanSender, t.ID, t.Title, reason)
		if len(t.Paths) > 0 {
			body += "\n\nIts paths are not reserved for you yet: claiming the task again reserves them."
		}
		if err := tell(to, "Task "+t.Title+" is yours", body); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// releaseWithin returns the Within that ends the reservations a task's
// claim took, appending them to released.
func (x *session) releaseWithin(ctx context.Context, released *[]Reservation) tasks.Within {
	return func(tx *store.Tx, t tasks.Task) error {
		if t.Claim == "" {
			return nil
		}
		rs, err := x.inTx(t.Claim, tx).Release(ctx, reservations.Selector{Reason: taskReason(t.ID)})
		*released = append(*released, reservationDocs(rs)...)
		return err
	}
}

// UnclaimTask ends the acting agent's claim of a task, and the
// reservations it took.
func (s *Service) UnclaimTask(ctx context.Context, sc Scope, id string) (TaskResponse, error) {
	x, ts, _, err := s.tasks(ctx, sc, true)
	if err != nil {
		return TaskResponse{}, err
	}
	var released []Reservation
	t, err := ts.Unclaim(ctx, id, x.releaseWithin(ctx, &released))
	resp, err := s.taskResponse(ctx, ts, t, err)
	resp.Released = released
	return resp, err
}

// CloseTask closes a task (an epic's open children with it; an epic whose
// last open child it is after it) and ends the reservations their claims
// took.
func (s *Service) CloseTask(ctx context.Context, sc Scope, req CloseTaskRequest) (TaskResponse, error) {
	x, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	var released []Reservation
	c, err := ts.Close(ctx, req.ID, strings.TrimSpace(req.Reason), x.releaseWithin(ctx, &released))
	resp, err := s.taskResponse(ctx, ts, c.Task, err)
	if err != nil {
		return resp, err
	}
	resp.Closed, resp.Released = mapSlice(c.Along, taskDoc), released
	return resp, nil
}

// ReopenTask opens a closed task again (not under a closed epic).
func (s *Service) ReopenTask(ctx context.Context, sc Scope, id string) (TaskResponse, error) {
	_, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	t, err := ts.Reopen(ctx, id)
	return s.taskResponse(ctx, ts, t, err)
}

// AddTaskDep makes a task depend on another; one that would close a
// cycle is DEPENDENCY_CYCLE.
func (s *Service) AddTaskDep(ctx context.Context, sc Scope, req TaskDepRequest) (TaskResponse, error) {
	_, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	t, err := ts.AddDep(ctx, req.ID, req.Dep)
	return s.taskResponse(ctx, ts, t, err)
}

// RemoveTaskDep drops a dependency.
func (s *Service) RemoveTaskDep(ctx context.Context, sc Scope, req TaskDepRequest) (TaskResponse, error) {
	_, ts, _, err := s.tasksToWrite(ctx, sc, sc.Agent != "")
	if err != nil {
		return TaskResponse{}, err
	}
	t, err := ts.RemoveDep(ctx, req.ID, req.Dep)
	return s.taskResponse(ctx, ts, t, err)
}

// TaskChange is one change of a task's log, as a page shows it: its kind
// (record.TaskOp's op), who made it and when, and what it says.
type TaskChange struct {
	ID     string   `json:"id"`
	Op     string   `json:"op"` // create, set, claim, unclaim, status, dep_add, dep_rm
	By     string   `json:"by"` // "" for the human overseer
	At     Time     `json:"at"`
	Agent  string   `json:"agent,omitempty"`  // claim, unclaim: whose claim
	Force  bool     `json:"force,omitempty"`  // a claim taken over
	Status string   `json:"status,omitempty"` // status: the new status
	Reason string   `json:"reason,omitempty"` // a close's, a forced claim's, the overseer's claim or unclaim's
	Dep    string   `json:"dep,omitempty"`    // dep_add, dep_rm
	Fields []string `json:"fields,omitempty"` // set: the fields it replaced
}

// TaskHistoryResponse is a task with its log: {"task": task, "changes":
// [change...]}, oldest first.
type TaskHistoryResponse struct {
	Task    Task         `json:"task"`
	Changes []TaskChange `json:"changes"`
}

// TaskHistory returns a task and its changes in the order they fold in.
func (s *Service) TaskHistory(ctx context.Context, sc Scope, id string) (TaskHistoryResponse, error) {
	_, ts, _, err := s.tasks(ctx, sc, false)
	if err != nil {
		return TaskHistoryResponse{}, err
	}
	t, ops, err := ts.History(ctx, id)
	if err != nil {
		return TaskHistoryResponse{}, err
	}
	return TaskHistoryResponse{Task: taskDoc(t), Changes: mapSlice(ops, taskChangeDoc)}, nil
}

func taskChangeDoc(o *record.TaskOp) TaskChange {
	c := TaskChange{ID: o.ID, Op: o.Op, By: o.By, At: Time{o.At}, Agent: o.Agent, Force: o.Force, Status: o.Status, Reason: o.Reason, Dep: o.Dep}
	if o.Op == record.TaskSet {
		for _, f := range []struct {
			name string
			set  bool
		}{{"title", o.Title != nil}, {"description", o.Description != nil}, {"type", o.Type != nil}, {"priority", o.Priority != nil},
			{"parent", o.Parent != nil}, {"labels", o.Labels != nil}, {"paths", o.Paths != nil}} {
			if f.set {
				c.Fields = append(c.Fields, f.name)
			}
		}
	}
	return c
}
