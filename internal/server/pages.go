package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// pageSize is how many messages a mailbox page lists.
const pageSize = 50

// webRoutes mounts the web UI's pages.
func (s *Server) webRoutes(mux *http.ServeMux) {
	mux.HandleFunc(web.RouteProjects, s.projectsPage)
	mux.HandleFunc(web.RouteProject, s.page(s.projectPage, "agent", "reservation", "lock"))
	mux.HandleFunc(web.RouteInbox, s.page(s.mailboxPage(false), "message", "receipt"))
	mux.HandleFunc(web.RouteOutbox, s.page(s.mailboxPage(true), "message", "receipt"))
	mux.HandleFunc(web.RouteMessage, s.page(s.messagePage, "message", "receipt"))
	mux.HandleFunc(web.RouteThread, s.page(s.threadPage, "message", "receipt"))
	mux.HandleFunc(web.RouteSearch, s.page(s.searchPage))
	mux.HandleFunc(web.RouteReservations, s.page(s.reservationsPage, "reservation", "lock"))
	mux.HandleFunc(web.RouteContacts, s.page(s.contactsPage, "contact"))
	mux.HandleFunc(web.RouteAcks, s.page(s.acksPage, "message", "receipt"))
	mux.HandleFunc(web.RouteCompose, s.page(s.composePage))
	mux.HandleFunc(web.RouteSend, s.page(s.sendPage))
	mux.HandleFunc(web.RouteArchive, s.archiveFile)
}

// pageRequest is a request for a project's page, as its handler sees it.
type pageRequest struct {
	w     http.ResponseWriter
	r     *http.Request
	svc   *service.Service
	scope service.Scope // the project, acting as nobody: the overseer
	page  web.Page      // Project and Now set; the handler copies it into its view
}

// watch returns the scope of an overseer looking at agent's mail.
func (p *pageRequest) watch(agent string) service.Scope {
	return service.Scope{Project: p.scope.Project, Agent: agent, Watching: true}
}

// viewer returns the agent a page's ?agent= names and the scope it sees
// the project in: that agent's, watched by the overseer, or without one
// the whole project's.
func (p *pageRequest) viewer() (string, service.Scope) {
	agent := p.r.URL.Query().Get("agent")
	if agent == "" {
		return "", p.scope
	}
	return agent, p.watch(agent)
}

// page returns the handler of a project's page: it resolves the
// project's slug, calls fn on the gate's Service, and shows the view fn
// returns, or the error page with the error's HTTP status. live lists the
// event types on which the page offers a reload.
func (s *Server) page(fn func(context.Context, *pageRequest) (web.View, error), live ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v web.View
		err := s.gate.Do(func(svc *service.Service) error {
			ctx := r.Context()
			slug := r.PathValue("project")
			ref, err := svc.ProjectBySlug(ctx, slug)
			if err != nil {
				return err
			}
			p := &pageRequest{w: w, r: r, svc: svc, scope: service.Scope{Project: ref}}
			p.page = web.Page{Project: &web.Project{Key: ref.Key, Slug: slug}, Now: svc.Now()}
			if len(live) > 0 {
				p.page.Events, p.page.Live = eventsURL(slug), live
			}
			v, err = fn(ctx, p)
			return err
		})
		if err != nil {
			s.errorPage(w, r, err)
			return
		}
		s.pages.Serve(w, http.StatusOK, v)
	}
}

// eventsURL is the address of a project's event stream, which live.js
// listens to.
func eventsURL(slug string) string { return "/api/events?project=" + slug }

// errorPage shows err as the error page, with its HTTP status from the
// one error table.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	f := service.Describe(err)
	s.pages.ErrorPage(w, r, f.HTTP, f.Code, f.Message, f.Hint)
}

func (s *Server) projectsPage(w http.ResponseWriter, r *http.Request) {
	var v web.ProjectsView
	err := s.gate.Do(func(svc *service.Service) error {
		list, err := svc.Projects(r.Context())
		v = web.ProjectsView{Page: web.Page{Now: svc.Now()}, Projects: mapSlice(list.Projects, projectView)}
		return err
	})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.pages.Serve(w, http.StatusOK, v)
}

func (s *Server) projectPage(ctx context.Context, p *pageRequest) (web.View, error) {
	proj, err := p.svc.Project(ctx, p.scope)
	if err != nil {
		return nil, err
	}
	p.page.Project.Holds = web.Counts(proj.Holds)
	agents, err := p.svc.Agents(ctx, p.scope, service.AgentsRequest{})
	if err != nil {
		return nil, err
	}
	leases, err := p.svc.Reservations(ctx, p.scope, service.ReservationsRequest{})
	if err != nil {
		return nil, err
	}
	locks, err := p.svc.Locks(ctx, p.scope, "")
	if err != nil {
		return nil, err
	}
	return web.ProjectView{Page: p.page, Agents: mapSlice(agents.Agents, agentView),
		Reservations: mapSlice(leases.Reservations, reservationView), Locks: mapSlice(locks.Locks, lockView)}, nil
}

// agent returns the profile of a project's agent, NOT_FOUND if none.
func (p *pageRequest) agent(ctx context.Context, name string) (web.Agent, error) {
	resp, err := p.svc.Whoami(ctx, p.watch(name))
	return agentView(resp.Agent), err
}

// mailboxPage shows a page of an agent's inbox, or outbox, pageSize
// messages older than ?before=ID.
func (s *Server) mailboxPage(outbox bool) func(context.Context, *pageRequest) (web.View, error) {
	return func(ctx context.Context, p *pageRequest) (web.View, error) {
		a, err := p.agent(ctx, p.r.PathValue("agent"))
		if err != nil {
			return nil, err
		}
		v := web.MailboxView{Page: p.page, Agent: a, Outbox: outbox, Before: p.r.URL.Query().Get("before")}
		sc := p.watch(a.Name)
		if outbox {
			resp, err := p.svc.Outbox(ctx, sc, service.OutboxRequest{Limit: pageSize + 1, Before: v.Before})
			if err != nil {
				return nil, err
			}
			v.Messages = mapSlice(resp.Messages, sentView)
		} else {
			resp, err := p.svc.Inbox(ctx, sc, service.InboxRequest{Limit: pageSize + 1, Before: v.Before})
			if err != nil {
				return nil, err
			}
			v.Messages = mapSlice(resp.Messages, inboxView)
		}
		if len(v.Messages) > pageSize {
			v.Messages = v.Messages[:pageSize]
			v.Older = v.Messages[pageSize-1].ID
		}
		return v, nil
	}
}

// messagePage shows a message with its thread, as ?agent= sees it (the
// whole project's view without one).
func (s *Server) messagePage(ctx context.Context, p *pageRequest) (web.View, error) {
	agent, sc := p.viewer()
	m, err := p.svc.Show(ctx, sc, p.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	thread, err := p.svc.ThreadAround(ctx, sc, m.Message.ID, web.ThreadWindow)
	if err != nil {
		return nil, err
	}
	head, err := p.svc.ArchiveHead(ctx, p.scope)
	if err != nil {
		return nil, err
	}
	around := web.Around(mapSlice(thread.Messages, fullReceived), m.Message.ID, web.ThreadWindow)
	return web.MessageView{Page: p.page, Agent: agent, Message: fullView(m.Message),
		Thread: around, ThreadSize: thread.Total, Commit: head}, nil
}

func (s *Server) threadPage(ctx context.Context, p *pageRequest) (web.View, error) {
	agent, sc := p.viewer()
	t, err := p.svc.Thread(ctx, sc, p.r.PathValue("thread"))
	if err != nil {
		return nil, err
	}
	if len(t.Messages) == 0 {
		return nil, notFound("thread", p.r.PathValue("thread"))
	}
	return web.ThreadView{Page: p.page, Thread: t.Thread, Agent: agent, Messages: mapSlice(t.Messages, fullView)}, nil
}

// searchLimit is how many results the search page shows.
const searchLimit = 50

func (s *Server) searchPage(ctx context.Context, p *pageRequest) (web.View, error) {
	q, filters := web.ReadSearch(p.r.URL.Query())
	v := web.SearchView{Page: p.page, Query: q, Filters: filters}
	query := filters.Query(q)
	if strings.TrimSpace(query) == "" {
		return v, nil
	}
	resp, err := p.svc.Search(ctx, p.scope, service.SearchRequest{Query: query, All: true, Limit: searchLimit})
	if err != nil {
		return nil, err
	}
	v.Searched, v.Results, v.Notes = true, mapSlice(resp.Results, hitView), resp.Notes
	return v, nil
}

func (s *Server) reservationsPage(ctx context.Context, p *pageRequest) (web.View, error) {
	leases, err := p.svc.Reservations(ctx, p.scope, service.ReservationsRequest{Expired: true})
	if err != nil {
		return nil, err
	}
	locks, err := p.svc.Locks(ctx, p.scope, "")
	if err != nil {
		return nil, err
	}
	return web.ReservationsView{Page: p.page, Reservations: mapSlice(leases.Reservations, reservationView),
		Locks: mapSlice(locks.Locks, lockView)}, nil
}

func (s *Server) contactsPage(ctx context.Context, p *pageRequest) (web.View, error) {
	resp, err := p.svc.ProjectContacts(ctx, p.scope)
	if err != nil {
		return nil, err
	}
	return web.ContactsView{Page: p.page, Contacts: mapSlice(resp.Contacts, contactView)}, nil
}

func (s *Server) acksPage(ctx context.Context, p *pageRequest) (web.View, error) {
	resp, err := p.svc.AwaitingAcks(ctx, p.scope)
	if err != nil {
		return nil, err
	}
	return web.AcksView{Page: p.page, Pending: mapSlice(resp.Messages, awaitingView)}, nil
}

// composeView is the compose form of p's project, with the agents to
// choose from.
func (s *Server) composeView(ctx context.Context, p *pageRequest) (web.ComposeView, error) {
	agents, err := p.svc.Agents(ctx, p.scope, service.AgentsRequest{})
	if err != nil {
		return web.ComposeView{}, err
	}
	return web.ComposeView{Page: p.page, Agents: mapSlice(agents.Agents, agentView), CSRF: s.guard.CSRFToken(p.w, p.r)}, nil
}

func (s *Server) composePage(ctx context.Context, p *pageRequest) (web.View, error) {
	return s.composeView(ctx, p)
}

// sendPage sends the compose form as Human, the overseer (always
// delivered), to one agent or to all, and shows the form again: with
// the message sent, or with what was wrong.
func (s *Server) sendPage(ctx context.Context, p *pageRequest) (web.View, error) {
	v, err := s.composeView(ctx, p)
	if err != nil {
		return nil, err
	}
	form, err := web.ReadCompose(p.r.PostForm)
	if err == nil {
		var sent service.SendResponse
		sent, err = p.svc.Send(ctx, p.scope, service.SendRequest{To: []string{form.To}, Subject: form.Subject, Body: form.Body,
			Importance: form.Importance, Category: form.Category, Ack: form.Ack, AsHuman: true})
		if err == nil {
			m := messageView(sent.Message)
			v.Sent = &m
			return v, nil
		}
	}
	f := service.Describe(err)
	v.Form, v.Error, v.Hint = form, f.Message, f.Hint
	return v, nil
}

// archiveFile answers `git show COMMIT:PATH` for a file of the project's
// directory in the archive, as text.
func (s *Server) archiveFile(w http.ResponseWriter, r *http.Request) {
	var data []byte
	err := s.gate.Do(func(svc *service.Service) error {
		ref, err := svc.ProjectBySlug(r.Context(), r.PathValue("project"))
		if err != nil {
			return err
		}
		data, err = svc.ArchiveFile(r.Context(), service.Scope{Project: ref}, r.PathValue("commit"), r.PathValue("path"))
		return err
	})
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(data)
}
