package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTaskTools adds the work items: tasks with dependencies, epics and
// claims that cannot be double-granted.
func (s *Server) addTaskTools() {
	addTool(s, tool{name: "create_task", desc: "Create a work item in the project: a title, a markdown description, a type (task, bug, feature, epic, chore), " +
		"a priority 0 (critical) to 4 (backlog, default " + strconv.Itoa(service.DefaultPriority) + "), the epic it belongs to (parent_id), the tasks it depends on, labels, and the " +
		"repository paths (globs) it touches, which claim_task reserves with the claim. Returns the task; its id (or any prefix of 6+ characters) names it."},
		textTask("created"), s.createTask)
	addTool(s, tool{name: "update_task", desc: "Change a task's fields: those given replace the old ones (labels and paths as a whole list; parent_id \"\" takes it out of its epic)."},
		textTask("updated"), s.updateTask)
	addTool(s, tool{name: "get_task", desc: "A task: its fields, status, holder, dependencies, labels and paths, the messages filed under it " +
		"(send_message with task_id) and the commits that name it.", readOnly: true},
		textTaskShow, s.getTask)
	addTool(s, tool{name: "list_tasks", desc: "Tasks by priority then age: those not closed by default; filter by status, ready (open, unclaimed, " +
		"every dependency closed), blocked, mine (claimed by you), holder, type, label or parent epic.", readOnly: true},
		textTasks, s.listTasks)
	register(s, tool{name: "list_ready_work", desc: "What to do next: the tasks you hold, then the top ready ones (open, unclaimed, every dependency closed), " +
		"by priority then age. Claim one with claim_task. wait_seconds blocks until a task is ready (at once when one is): ready is empty " +
		"if none became ready in time. Other calls go on meanwhile; cancelling the call stops the wait.", readOnly: true},
		textWork, s.listReadyWork)
	addTool(s, tool{name: "claim_task", desc: "Become a task's holder, decided exactly under the project's lock: a task another agent holds fails with " +
		"TASK_CLAIMED naming the holder. start: true moves it to in_progress too. The task's paths are reserved exclusively with the claim, both or " +
		"neither (reserve: false to skip). force: true with a reason takes over the claim of a holder silent for 30 minutes, and messages the holder."},
		textTask("claimed"), s.claimTask)
	addTool(s, tool{name: "release_task", desc: "Drop your claim of a task (one in progress goes back to open) and the reservations the claim took."},
		textTask("released"), s.releaseTask)
	addTool(s, tool{name: "close_task", desc: "Close a task with a reason, releasing the reservations its claim took. Closing an epic closes its open " +
		"children; closing an epic's last open child closes the epic."},
		textTask("closed"), s.closeTask)
	addTool(s, tool{name: "reopen_task", desc: "Open a closed task again (a child of a closed epic: reopen the epic first)."},
		textTask("reopened"), s.reopenTask)
	addTool(s, tool{name: "add_task_dependency", desc: "Make task_id depend on depends_on_id: it is not ready until that one is closed. " +
		"A dependency that would close a cycle, directly or through others, fails with DEPENDENCY_CYCLE."},
		textTask("updated"), s.addTaskDependency)
	addTool(s, tool{name: "remove_task_dependency", desc: "Drop depends_on_id from task_id's dependencies."},
		textTask("updated"), s.removeTaskDependency)
}

type taskFields struct {
	Description *string   `json:"description,omitempty" jsonschema:"markdown description"`
	Type        *string   `json:"type,omitempty" jsonschema:"task (default), bug, feature, epic or chore"`
	Priority    *int      `json:"priority,omitempty" jsonschema:"0 (critical) to 4 (backlog)"`
	ParentID    *string   `json:"parent_id,omitempty" jsonschema:"the epic it belongs to: its id or a prefix of 6+ characters"`
	Labels      *[]string `json:"labels,omitempty" jsonschema:"labels, single words such as backend"`
	Paths       *[]string `json:"paths,omitempty" jsonschema:"globs of the repository paths it touches, such as src/auth/**"`
}

type createTaskArgs struct {
	agentArgs
	Title string `json:"title" jsonschema:"one line, up to 200 characters"`
	taskFields
	DependsOn []string `json:"depends_on,omitempty" jsonschema:"ids (or prefixes) of the tasks it depends on"`
}

func (createTaskArgs) argDefaults() map[string]any {
	return map[string]any{"priority": service.DefaultPriority}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (s *Server) createTask(ctx context.Context, c *call, in createTaskArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.CreateTask(ctx, sc, service.CreateTaskRequest{Title: in.Title, Description: deref(in.Description), Type: deref(in.Type),
		Priority: in.Priority, Parent: deref(in.ParentID), Deps: in.DependsOn, Labels: deref(in.Labels), Paths: deref(in.Paths)})
}

type updateTaskArgs struct {
	agentArgs
	TaskID string  `json:"task_id" jsonschema:"the task's id, or a prefix of 6+ characters"`
	Title  *string `json:"title,omitempty" jsonschema:"the new title"`
	taskFields
}

func (s *Server) updateTask(ctx context.Context, c *call, in updateTaskArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	req := service.UpdateTaskRequest{ID: in.TaskID, Title: in.Title, Description: in.Description, Type: in.Type, Priority: in.Priority,
		Parent: in.ParentID, Labels: in.Labels, Paths: in.Paths}
	if req == (service.UpdateTaskRequest{ID: in.TaskID}) {
		return service.TaskResponse{}, service.Usagef("give at least one of title, description, type, priority, parent_id, labels, paths", "nothing to change")
	}
	return c.svc.UpdateTask(ctx, sc, req)
}

type taskIDArgs struct {
	agentArgs
	TaskID string `json:"task_id" jsonschema:"the task's id, or a prefix of 6+ characters"`
}

func (s *Server) getTask(ctx context.Context, c *call, in taskIDArgs) (service.TaskShowResponse, error) {
	sc, err := c.project(in.projectArgs, "")
	if err != nil {
		return service.TaskShowResponse{}, err
	}
	return c.svc.GetTask(ctx, sc, in.TaskID)
}

type listTasksArgs struct {
	agentArgs
	Status        string `json:"status,omitempty" jsonschema:"open, in_progress or closed"`
	IncludeClosed bool   `json:"include_closed,omitempty" jsonschema:"closed tasks too"`
	Ready         bool   `json:"ready,omitempty" jsonschema:"only ready ones: open, unclaimed, every dependency closed"`
	Blocked       bool   `json:"blocked,omitempty" jsonschema:"only those waiting on a dependency not closed"`
	Mine          bool   `json:"mine,omitempty" jsonschema:"only those you hold"`
	Holder        string `json:"holder,omitempty" jsonschema:"only those this agent holds"`
	Type          string `json:"type,omitempty" jsonschema:"task, bug, feature, epic or chore"`
	Label         string `json:"label,omitempty" jsonschema:"only those with this label"`
	ParentID      string `json:"parent_id,omitempty" jsonschema:"only the children of this epic"`
	Limit         *int   `json:"limit,omitempty" jsonschema:"at most this many, 0 for all"`
}

func (listTasksArgs) argDefaults() map[string]any {
	return map[string]any{"limit": service.DefaultTaskLimit}
}

func (s *Server) listTasks(ctx context.Context, c *call, in listTasksArgs) (service.TasksResponse, error) {
	var sc service.Scope
	var err error
	if in.Mine {
		sc, err = c.scope(in.projectArgs, in.AgentName)
	} else {
		sc, err = c.project(in.projectArgs, "")
	}
	if err != nil {
		return service.TasksResponse{}, err
	}
	return c.svc.Tasks(ctx, sc, service.TaskListRequest{Status: in.Status, All: in.IncludeClosed, Ready: in.Ready, Blocked: in.Blocked,
		Mine: in.Mine, Claimer: in.Holder, Type: in.Type, Label: in.Label, Parent: in.ParentID, Limit: intOr(in.Limit, service.DefaultTaskLimit)})
}

type workArgs struct {
	agentArgs
	Limit       *int `json:"limit,omitempty" jsonschema:"at most this many ready tasks"`
	WaitSeconds *int `json:"wait_seconds,omitempty" jsonschema:"wait up to this many seconds for a task to become ready; default 0 (answer at once), at most 600"`
}

func (workArgs) argDefaults() map[string]any {
	return map[string]any{"limit": service.DefaultReadyLimit}
}

func (s *Server) listReadyWork(ctx context.Context, req *mcp.CallToolRequest, in workArgs) (service.WorkResponse, error) {
	limit := intOr(in.Limit, service.DefaultReadyLimit)
	if limit <= 0 {
		return service.WorkResponse{}, service.Usagef("leave limit out, or give 1 or more", "limit must be positive, got %d", limit)
	}
	wait, err := seconds(intOr(in.WaitSeconds, 0), "wait_seconds")
	if err != nil {
		return service.WorkResponse{}, err
	}
	var resp service.WorkResponse
	err = s.unlocked(ctx, req, wait > 0, func(c *call) (service.Scope, error) { return c.viewer(in.projectArgs, in.AgentName) },
		func(ctx context.Context, svc *service.Service, sc service.Scope) error {
			if wait == 0 {
				resp, err = svc.Work(ctx, sc, limit)
				return err
			}
			waited, err := svc.WaitWork(ctx, sc, min(wait, maxWait), limit)
			resp = waited.WorkResponse
			if errors.Is(err, service.ErrTimeout) {
				return nil
			}
			return err
		})
	return resp, err
}

type claimTaskArgs struct {
	taskIDArgs
	Start      bool   `json:"start,omitempty" jsonschema:"move it to in_progress too"`
	Reserve    *bool  `json:"reserve,omitempty" jsonschema:"reserve the task's paths with the claim; default true"`
	TTLSeconds *int   `json:"ttl_seconds,omitempty" jsonschema:"how long those reservations last"`
	Force      bool   `json:"force,omitempty" jsonschema:"take over the claim of a holder silent for 30 minutes (needs reason)"`
	Reason     string `json:"reason,omitempty" jsonschema:"why you take it over, for its holder"`
}

func (claimTaskArgs) argDefaults() map[string]any {
	return map[string]any{"ttl_seconds": secondsOf(service.DefaultClaimTTL)}
}

func (s *Server) claimTask(ctx context.Context, c *call, in claimTaskArgs) (service.TaskResponse, error) {
	ttl, err := lasting(in.TTLSeconds, service.DefaultClaimTTL, "ttl_seconds")
	if err != nil {
		return service.TaskResponse{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.ClaimTask(ctx, sc, service.ClaimTaskRequest{ID: in.TaskID, Start: in.Start, Force: in.Force, Reason: in.Reason,
		Reserve: in.Reserve, TTL: ttl})
}

func (s *Server) releaseTask(ctx context.Context, c *call, in taskIDArgs) (service.TaskResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.UnclaimTask(ctx, sc, in.TaskID)
}

type closeTaskArgs struct {
	taskIDArgs
	Reason string `json:"reason,omitempty" jsonschema:"why; default done"`
}

func (s *Server) closeTask(ctx context.Context, c *call, in closeTaskArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.CloseTask(ctx, sc, service.CloseTaskRequest{ID: in.TaskID, Reason: in.Reason})
}

func (s *Server) reopenTask(ctx context.Context, c *call, in taskIDArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.ReopenTask(ctx, sc, in.TaskID)
}

type taskDepArgs struct {
	taskIDArgs
	DependsOnID string `json:"depends_on_id" jsonschema:"the task it depends on: its id or a prefix of 6+ characters"`
}

func (s *Server) addTaskDependency(ctx context.Context, c *call, in taskDepArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.AddTaskDep(ctx, sc, service.TaskDepRequest{ID: in.TaskID, Dep: in.DependsOnID})
}

func (s *Server) removeTaskDependency(ctx context.Context, c *call, in taskDepArgs) (service.TaskResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.TaskResponse{}, err
	}
	return c.svc.RemoveTaskDep(ctx, sc, service.TaskDepRequest{ID: in.TaskID, Dep: in.DependsOnID})
}

func taskLine(t service.Task) string {
	holder := "unclaimed"
	if t.Claim != nil {
		holder = "held by " + t.Claim.Agent
	}
	line := fmt.Sprintf("%s [P%d %s, %s, %s] %s", t.ID, t.Priority, t.Type, t.Status, holder, t.Title)
	if len(t.Deps) > 0 {
		line += " (depends on " + strings.Join(t.Deps, ", ") + ")"
	}
	return line
}

func textTask(verb string) func(service.TaskResponse) string {
	return func(r service.TaskResponse) string {
		s := taskLine(r.Task)
		if verb != "" {
			s = verb + " " + s
		}
		for _, c := range r.Closed {
			s += "\nclosed along: " + taskLine(c)
		}
		for _, res := range r.Reserved {
			s += "\nreserved " + res.Pattern + " until " + stamp(res.Expires)
		}
		for _, res := range r.Released {
			s += "\nreleased " + res.Pattern
		}
		return s
	}
}

// textTaskShow is get_task's text: the task, its messages and commits.
func textTaskShow(r service.TaskShowResponse) string {
	s := textTask("")(r.TaskResponse)
	for _, m := range r.Messages {
		s += "\nmessage " + header(m)
	}
	for _, c := range r.Commits {
		s += "\ncommit " + c.Hash + " " + c.Subject + " (" + c.Author + ", " + stamp(c.Time) + ")"
	}
	return s
}

func textTasks(r service.TasksResponse) string {
	return listing(count(len(r.Tasks), "task", "tasks"), lines(r.Tasks, taskLine))
}

func textWork(r service.WorkResponse) string {
	return listing(count(len(r.Mine), "task you hold", "tasks you hold"), lines(r.Mine, taskLine)) + "\n" +
		listing(count(len(r.Ready), "ready task", "ready tasks"), lines(r.Ready, taskLine))
}
