package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// Bounds of the board: the top columnShown tasks of the ready, in
// progress and blocked columns (by priority, then age), the newest
// closedShown closed ones; the rest are counted.
const (
	columnShown = 100
	closedShown = 30
)

// taskRoutes mounts the tasks board and the task pages.
func (s *Server) taskRoutes(mux *http.ServeMux) {
	mux.HandleFunc(web.RouteTasks, s.page(s.tasksPage, "task"))
	mux.HandleFunc(web.RouteTask, s.page(s.taskPage, "task"))
}

// tasksPage is the board: every task in its column, ready (by the
// service's ready list), in progress (claimed or started), blocked (a
// dependency open, or an epic waiting for its children) and the newest
// closed.
func (s *Server) tasksPage(ctx context.Context, p *pageRequest) (web.View, error) {
	all, err := p.svc.Tasks(ctx, p.scope, service.TaskListRequest{All: true})
	if err != nil {
		return nil, err
	}
	ready, err := p.svc.Tasks(ctx, p.scope, service.TaskListRequest{Ready: true})
	if err != nil {
		return nil, err
	}
	isReady := map[string]bool{}
	for _, t := range ready.Tasks {
		isReady[t.ID] = true
	}
	short, err := p.svc.ShortIDs(ctx, p.scope, mapSlice(all.Tasks, taskID), nil)
	if err != nil {
		return nil, err
	}
	byID := map[string]service.Task{}
	for _, t := range all.Tasks {
		byID[t.ID] = t
	}
	cols := []web.Column{{Key: "ready", Title: "Ready"}, {Key: "progress", Title: "In progress"}, {Key: "blocked", Title: "Blocked"}, {Key: "closed", Title: "Closed"}}
	for _, t := range all.Tasks {
		i := slices.IndexFunc(cols, func(c web.Column) bool { return c.Key == service.TaskColumn(t, isReady[t.ID]) })
		cols[i].Tasks = append(cols[i].Tasks, taskView(t, short, byID))
	}
	slices.SortStableFunc(cols[3].Tasks, func(a, b web.Task) int { return b.Closed.Compare(a.Closed) })
	for i := range cols {
		shown := columnShown
		if cols[i].Key == "closed" {
			shown = closedShown
		}
		cols[i].Total = len(cols[i].Tasks)
		if len(cols[i].Tasks) > shown {
			cols[i].Tasks, cols[i].More = cols[i].Tasks[:shown], len(cols[i].Tasks)-shown
		}
	}
	return web.TasksView{Page: p.page, Columns: cols}, nil
}

// taskID is a task's id.
func taskID(t service.Task) string { return t.ID }

// taskView is a task as the board shows it; byID holds the tasks its
// dependencies are looked up in (those missing show by id alone).
func taskView(t service.Task, short ids.Short, byID map[string]service.Task) web.Task {
	v := web.Task{ID: t.ID, Short: short.Of(t.ID), Title: t.Title, Description: t.Description, Type: t.Type, Priority: t.Priority,
		Status: t.Status, StatusWords: statusWords(t.Status), CloseReason: t.CloseReason, Parent: web.TaskRef{ID: t.Parent, Title: byID[t.Parent].Title}, Labels: t.Labels, Paths: t.Paths, Creator: t.Creator,
		Created: t.Created.Time, Updated: t.Updated.Time, Closed: t.Closed.Time}
	if t.Claim != nil {
		v.Holder, v.Since = t.Claim.Agent, t.Claim.Since.Time
	}
	for _, d := range t.Deps {
		dep, ok := byID[d]
		ref := web.TaskRef{ID: d, Short: short.Of(d)}
		if ok {
			ref.Title, ref.Closed, ref.Status = dep.Title, dep.Status == "closed", statusWords(dep.Status)
		}
		if ref.Short == d && len(d) > 10 {
			ref.Short = d[:10]
		}
		v.Deps = append(v.Deps, ref)
	}
	return v
}

// taskPage is one task: its card, description, dependencies, history and
// the messages of its thread.
func (s *Server) taskPage(ctx context.Context, p *pageRequest) (web.View, error) {
	h, err := p.svc.TaskHistory(ctx, p.scope, p.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	byID := map[string]service.Task{}
	for _, d := range append([]string{h.Task.Parent}, h.Task.Deps...) {
		if d == "" {
			continue
		}
		if dep, err := p.svc.GetTask(ctx, p.scope, d); err == nil {
			byID[d] = dep.Task
		}
	}
	short := ids.Short{}
	v := web.TaskView{Page: p.page, Task: taskView(h.Task, short, byID), Thread: service.TaskThread(h.Task.ID)}
	v.Task.Short = h.Task.ID
	for _, c := range h.Changes {
		v.Changes = append(v.Changes, web.TaskChange{At: c.At.Time, By: c.By, What: changeWords(c)})
	}
	if h.Task.Type == "epic" {
		children, err := p.svc.Tasks(ctx, p.scope, service.TaskListRequest{Parent: h.Task.ID, All: true})
		if err != nil {
			return nil, err
		}
		short, err := p.svc.ShortIDs(ctx, p.scope, mapSlice(children.Tasks, taskID), nil)
		if err != nil {
			return nil, err
		}
		for _, c := range children.Tasks {
			v.Children = append(v.Children, web.TaskRef{ID: c.ID, Short: short.Of(c.ID), Title: c.Title, Closed: c.Status == "closed",
				Status: statusWords(c.Status)})
		}
	}
	if h.Task.Status != "closed" && h.Task.Type != "epic" {
		// The overseer's form: give the claim to an agent, or end it.
		agents, err := p.svc.Agents(ctx, p.scope, service.AgentsRequest{})
		if err != nil {
			return nil, err
		}
		if h.Task.Claim != nil || len(agents.Agents) > 0 { // something to choose
			v.Agents, v.CSRF = mapSlice(agents.Agents, func(a service.Agent) string { return a.Name }), s.guard.CSRFToken(p.w, p.r)
		}
	}
	thread, err := p.svc.Thread(ctx, p.scope, v.Thread)
	if err == nil {
		v.Messages = mapSlice(thread.Messages, fullView)
	}
	return v, nil
}

// statusWords says a task's status in words: in_progress is "in progress".
func statusWords(status string) string { return strings.ReplaceAll(status, "_", " ") }

// changeWords says a change of a task's log in words.
func changeWords(c service.TaskChange) string {
	switch c.Op {
	case "create":
		return "created"
	case "set":
		return "changed " + strings.Join(c.Fields, ", ")
	case "claim":
		if c.By == "" && c.Reason != "" { // the overseer's (task assign)
			return fmt.Sprintf("claim given to %s: %s", c.Agent, c.Reason)
		}
		if c.Force {
			return fmt.Sprintf("claim taken over by %s: %s", c.Agent, c.Reason)
		}
		return "claimed by " + c.Agent
	case "unclaim":
		if c.Reason != "" { // the overseer's (task unclaim --as-human)
			return fmt.Sprintf("claim of %s ended: %s", c.Agent, c.Reason)
		}
		return "claim of " + c.Agent + " ended"
	case "status":
		switch c.Status {
		case "in_progress":
			return "started"
		case "open":
			return "reopened"
		case "closed":
			return "closed: " + c.Reason
		}
		return "status " + c.Status
	case "dep_add":
		return "now depends on " + c.Dep
	case "dep_rm":
		return "no longer depends on " + c.Dep
	}
	return c.Op
}
