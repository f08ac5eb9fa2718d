package server

import (
	"context"
	"net/http"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// threadRoutes mounts the list of a project's threads, as a page and in
// the API.
func (s *Server) threadRoutes(mux *http.ServeMux) {
	mux.HandleFunc(web.RouteThreads, s.page(s.threadsPage, "message", "post"))
	mux.HandleFunc("GET /api/projects/{project}/threads", s.api(apiThreads))
}

// threadsRequest reads ?before= and ?limit= of the list of threads.
func threadsRequest(c *apiCall) (service.ThreadsRequest, error) {
	limit, err := c.number("limit", 0)
	return service.ThreadsRequest{Before: c.r.URL.Query().Get("before"), Limit: limit}, err
}

// apiThreads answers GET /api/projects/{project}/threads: the threads
// document.
func apiThreads(ctx context.Context, c *apiCall) (any, error) {
	req, err := threadsRequest(c)
	if err != nil {
		return nil, err
	}
	return c.svc.Threads(ctx, c.watch(""), req)
}

// threadsPage shows a page of the project's threads.
func (s *Server) threadsPage(ctx context.Context, p *pageRequest) (web.View, error) {
	req, err := threadsRequest(&apiCall{r: p.r})
	if err != nil {
		return nil, err
	}
	resp, err := p.svc.Threads(ctx, p.scope, req)
	if err != nil {
		return nil, err
	}
	v := web.ThreadsView{Page: p.page, Before: req.Before, Older: resp.Next}
	for _, t := range resp.Threads {
		v.Threads = append(v.Threads, web.ThreadSummary{Thread: t.Thread, Subject: t.Subject, Messages: t.Messages,
			Participants: t.Participants, LastID: t.LastID, LastFrom: t.LastFrom, Last: t.Last.Time})
	}
	return v, nil
}
