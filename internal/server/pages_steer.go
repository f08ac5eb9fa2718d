package server

import (
	"context"
	"net/http"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// steerRoutes mounts the overseer's forms of the task and reservations
// pages: behind the guard, as compose and the control form are, their
// posts carry the page's CSRF token.
func (s *Server) steerRoutes(mux *http.ServeMux) {
	mux.HandleFunc(web.RouteAssignTask, s.page(s.assignPage, "task"))
	mux.HandleFunc(web.RouteForceRelease, s.page(s.forceReleasePage, "reservation", "lock"))
}

// human is p's project acting as the overseer, Human.
func (p *pageRequest) human() service.Scope {
	return service.Scope{Project: p.scope.Project, Agent: service.HumanSender}
}

// steerResult is a page's Steering once its form's operation ran: what
// was done, or what was wrong with the reason posted kept, and the status
// to show the page with (the error's; 200 when done).
func steerResult(st web.Steering, reason, done string, err error) (web.Steering, int) {
	if err == nil {
		st.Done = done
		return st, http.StatusOK
	}
	status, err := formError(err)
	st.Error, st.Hint, st.Reason = err.Error(), fault.Hint(err), reason
	return st, status
}

// assignPage gives the task's claim to the agent the form names, or ends
// it, as Human (task assign|unclaim --as-human), and shows the task again:
// with what was done, or what was wrong.
func (s *Server) assignPage(ctx context.Context, p *pageRequest) (web.View, error) {
	form, err := web.ReadAssign(p.r.PostForm)
	var done service.TaskResponse
	if err == nil {
		done, err = p.svc.AssignTask(ctx, p.human(), service.AssignTaskRequest{ID: p.r.PathValue("id"), To: form.To, Reason: form.Reason})
	}
	view, verr := s.taskPage(ctx, p)
	if verr != nil {
		return nil, verr
	}
	v := view.(web.TaskView)
	what := "Unclaimed"
	if c := done.Task.Claim; c != nil {
		what = "Gave the claim to " + c.Agent
	}
	if done.TakenFrom != "" {
		what += "; " + done.TakenFrom + " was told"
	}
	var status int
	v.Steering, status = steerResult(v.Steering, form.Reason, what+".", err)
	if err != nil {
		v.AssignTo = form.To
	}
	return statusView{v, status}, nil
}

// forceReleasePage releases the reservation the form names as Human
// (release --force --as-human): only an expired one or one whose holder
// has been silent for reservations.StaleAfter; the holder is told. It
// shows the reservations again: with what was done, or what was wrong.
func (s *Server) forceReleasePage(ctx context.Context, p *pageRequest) (web.View, error) {
	form, err := web.ReadForceRelease(p.r.PostForm)
	var done service.ReleaseResponse
	if err == nil {
		done, err = p.svc.ForceRelease(ctx, p.human(), service.ForceReleaseRequest{ID: form.ID, Reason: form.Reason, AsHuman: true})
	}
	view, verr := s.reservationsPage(ctx, p)
	if verr != nil {
		return nil, verr
	}
	v := view.(web.ReservationsView)
	what := ""
	for _, r := range done.Released {
		what = "Released " + r.Agent + "'s reservation of " + r.Pattern + "; " + r.Agent + " was told."
	}
	var status int
	v.Steering, status = steerResult(v.Steering, form.Reason, what, err)
	return statusView{v, status}, nil
}
