package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
)

// taskAPIRoutes mounts the work items' routes (README, agentmail serve).
func (s *Server) taskAPIRoutes(mux *http.ServeMux) {
	const p = "/api/projects/{project}"
	mux.HandleFunc("GET "+p+"/tasks", s.api(apiTasks))
	mux.HandleFunc("GET "+p+"/tasks/{id}", s.api(apiTask))
	mux.HandleFunc("GET "+p+"/work", s.api(apiWork))
	mux.HandleFunc("POST "+p+"/tasks", apiPost(s, apiCreateTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/update", apiPost(s, apiUpdateTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/claim", apiPost(s, apiClaimTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/unclaim", apiPost(s, apiUnclaimTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/close", apiPost(s, apiCloseTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/reopen", apiPost(s, apiReopenTask))
	mux.HandleFunc("POST "+p+"/tasks/{id}/deps", apiPost(s, apiTaskDep(true)))
	mux.HandleFunc("POST "+p+"/tasks/{id}/deps/remove", apiPost(s, apiTaskDep(false)))
}

func apiTasks(ctx context.Context, c *apiCall) (any, error) {
	req := service.TaskListRequest{Status: c.query("status"), Claimer: c.query("holder"), Type: c.query("type"),
		Label: c.query("label"), Parent: c.query("parent")}
	for _, f := range []struct {
		key string
		to  *bool
	}{{"all", &req.All}, {"ready", &req.Ready}, {"blocked", &req.Blocked}} {
		v, err := c.flag(f.key)
		if err != nil {
			return nil, err
		}
		*f.to = v
	}
	limit, err := c.number("limit", service.DefaultTaskLimit)
	if err != nil {
		return nil, err
	}
	req.Limit = limit
	return c.svc.Tasks(ctx, c.watch(""), req)
}

func apiTask(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.GetTask(ctx, c.watch(""), c.r.PathValue("id"))
}

// apiWork is an agent's next work (?agent=NAME: its tasks first).
func apiWork(ctx context.Context, c *apiCall) (any, error) {
	limit, err := c.number("limit", service.DefaultReadyLimit)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		return nil, invalid(`?limit=0 asks for nothing`, fmt.Sprintf("pass 1 or more, or leave it out for %d", service.DefaultReadyLimit))
	}
	return c.svc.Work(ctx, c.watch(c.query("agent")), limit)
}

// taskBody is the body of a task's writes; without "agent" (where one is
// not needed), the overseer, Human, makes the change.
type taskBody struct {
	Agent       string    `json:"agent"`
	Title       *string   `json:"title"`
	Description *string   `json:"description"`
	Type        *string   `json:"type"`
	Priority    *int      `json:"priority"`
	Parent      *string   `json:"parent"`
	Deps        []string  `json:"deps"`
	Labels      *[]string `json:"labels"`
	Paths       *[]string `json:"paths"`
}

func (c *apiCall) maybeAs(agent string) service.Scope {
	return service.Scope{Project: c.project, Agent: strings.TrimSpace(agent)}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func apiCreateTask(ctx context.Context, c *apiCall, in taskBody) (any, error) {
	return c.svc.CreateTask(ctx, c.maybeAs(in.Agent), service.CreateTaskRequest{Title: deref(in.Title), Description: deref(in.Description),
		Type: deref(in.Type), Priority: in.Priority, Parent: deref(in.Parent), Deps: in.Deps, Labels: deref(in.Labels), Paths: deref(in.Paths)})
}

func apiUpdateTask(ctx context.Context, c *apiCall, in taskBody) (any, error) {
	if in.Deps != nil {
		return nil, invalid(`"deps" is for a new task`, "add and remove dependencies with POST .../tasks/ID/deps and .../deps/remove")
	}
	req := service.UpdateTaskRequest{ID: c.r.PathValue("id"), Title: in.Title, Description: in.Description, Type: in.Type,
		Priority: in.Priority, Parent: in.Parent, Labels: in.Labels, Paths: in.Paths}
	if req == (service.UpdateTaskRequest{ID: req.ID}) {
		return nil, invalid("nothing to change", `give one of "title", "description", "type", "priority", "parent", "labels", "paths"`)
	}
	return c.svc.UpdateTask(ctx, c.maybeAs(in.Agent), req)
}

type claimTaskBody struct {
	Agent   string `json:"agent"`
	Start   bool   `json:"start"`
	Force   bool   `json:"force"`
	Reason  string `json:"reason"`
	Reserve *bool  `json:"reserve"`
	TTL     string `json:"ttl"`
}

func apiClaimTask(ctx context.Context, c *apiCall, in claimTaskBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	ttl, err := duration("ttl", in.TTL, service.DefaultClaimTTL)
	if err != nil {
		return nil, err
	}
	return c.svc.ClaimTask(ctx, sc, service.ClaimTaskRequest{ID: c.r.PathValue("id"), Start: in.Start, Force: in.Force, Reason: in.Reason,
		Reserve: in.Reserve, TTL: ttl})
}

type taskActBody struct {
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
	Dep    string `json:"dep"`
}

func apiUnclaimTask(ctx context.Context, c *apiCall, in taskActBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	return c.svc.UnclaimTask(ctx, sc, c.r.PathValue("id"))
}

func apiCloseTask(ctx context.Context, c *apiCall, in taskActBody) (any, error) {
	return c.svc.CloseTask(ctx, c.maybeAs(in.Agent), service.CloseTaskRequest{ID: c.r.PathValue("id"), Reason: in.Reason})
}

func apiReopenTask(ctx context.Context, c *apiCall, in taskActBody) (any, error) {
	return c.svc.ReopenTask(ctx, c.maybeAs(in.Agent), c.r.PathValue("id"))
}

func apiTaskDep(add bool) func(context.Context, *apiCall, taskActBody) (any, error) {
	return func(ctx context.Context, c *apiCall, in taskActBody) (any, error) {
		req := service.TaskDepRequest{ID: c.r.PathValue("id"), Dep: in.Dep}
		if add {
			return c.svc.AddTaskDep(ctx, c.maybeAs(in.Agent), req)
		}
		return c.svc.RemoveTaskDep(ctx, c.maybeAs(in.Agent), req)
	}
}
