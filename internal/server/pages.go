package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// pageSize is how many messages a mailbox page lists.
const pageSize = 50

// webRoutes mounts the web UI's pages.
func (s *Server) webRoutes(mux *http.ServeMux) {
	mux.HandleFunc(web.RouteProjects, s.projectsPage)
	mux.HandleFunc(web.RouteProject, s.page(s.projectPage, "message", "post", "agent", "reservation", "lock", "task", "state", "control"))
	mux.HandleFunc(web.RouteInbox, s.page(s.mailboxPage(false), "message", "receipt"))
	mux.HandleFunc(web.RouteOutbox, s.page(s.mailboxPage(true), "message", "receipt"))
	mux.HandleFunc(web.RouteMessage, s.page(s.messagePage, "message", "receipt"))
	mux.HandleFunc(web.RouteThread, s.page(s.threadPage, "message", "receipt"))
	mux.HandleFunc(web.RouteSearch, s.page(s.searchPage))
	mux.HandleFunc(web.RouteReservations, s.page(s.reservationsPage, "reservation", "lock"))
	s.taskRoutes(mux)
	s.threadRoutes(mux)
	s.steerRoutes(mux)
	mux.HandleFunc(web.RouteContacts, s.page(s.contactsPage, "contact"))
	mux.HandleFunc(web.RouteAcks, s.page(s.acksPage, "message", "receipt"))
	mux.HandleFunc(web.RouteCompose, s.page(s.composePage))
	mux.HandleFunc(web.RouteSend, s.page(s.sendPage))
	mux.HandleFunc(web.RouteControl, s.page(s.controlPage, "message", "receipt"))
	mux.HandleFunc(web.RouteChannels, s.page(s.channelsPage, "message"))
	mux.HandleFunc(web.RouteChannel, s.page(s.channelPage, "message"))
	mux.HandleFunc(web.RoutePost, s.page(s.postPage, "message"))
	mux.HandleFunc(web.RouteHistory, s.page(s.historyPage))
	mux.HandleFunc(web.RouteArchive, s.archiveFile)
	mux.HandleFunc(web.RouteAttachment, s.attachmentFile)
	// Any other address of a project: the not-found page, with the
	// project's navigation.
	mux.HandleFunc("GET /mail/{project}/{rest...}", s.page(func(_ context.Context, p *pageRequest) (web.View, error) {
		return nil, notFound("page", p.r.URL.Path)
	}))
}

// pageRequest is a request for a project's page, as its handler sees it.
type pageRequest struct {
	w     http.ResponseWriter
	r     *http.Request
	svc   *service.Service
	scope service.Scope // the project, acting as nobody: the overseer
	page  web.Page      // Project and Now set; the handler copies it into its view
	head  string        // the project's archive head as the page is made, for a live page
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
// returns, or the error page with the error's HTTP status (and, once the
// project is known, its navigation). live lists the event types on which
// the page offers a reload; the stream it listens to starts at the
// project's head as the page was made, so that a page that missed events
// (the server restarted meanwhile) is told of them when it connects.
func (s *Server) page(fn func(context.Context, *pageRequest) (web.View, error), live ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v web.View
		var page *web.Page
		err := s.gate.Do(func(svc *service.Service) error {
			ctx := r.Context()
			slug := r.PathValue("project")
			ref, err := svc.ProjectBySlug(ctx, slug)
			if err != nil {
				return err
			}
			p := &pageRequest{w: w, r: r, svc: svc, scope: service.Scope{Project: ref}}
			p.page = web.Page{Project: &web.Project{Key: ref.Key, Slug: slug}, Now: svc.Now()}
			page = &web.Page{Project: p.page.Project, Now: p.page.Now}
			if len(live) > 0 {
				head, err := svc.ArchiveHead(ctx, p.scope)
				if err != nil {
					return err
				}
				p.head, p.page.Live = head, live
				p.page.Events = eventsURL(slug, "", live, head)
			}
			v, err = fn(ctx, p)
			return err
		})
		if err != nil {
			s.errorPage(w, r, err, page)
			return
		}
		status := http.StatusOK
		if sv, ok := v.(statusView); ok {
			v, status = sv.View, sv.status
		}
		s.pages.Serve(w, status, v)
	}
}

// eventsURL is the address of a project's event stream, which live.js
// listens to: the events of types concerning agent ("": anyone), after
// the commit since ("": from the moment it connects).
func eventsURL(slug, agent string, types []string, since string) string {
	q := url.Values{"project": {slug}}
	if agent != "" {
		q.Set("agent", agent)
	}
	if len(types) > 0 {
		q.Set("types", strings.Join(types, ","))
	}
	if since != "" {
		q.Set("last_event_id", since)
	}
	return "/api/events?" + q.Encode()
}

// errorPage shows err as the error page, with its HTTP status from the
// one error table and a hint in the pages' terms; page, when the project
// is known, gives it the project's navigation.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error, page *web.Page) {
	f := service.Describe(err)
	v := web.ErrorView{Status: f.HTTP, Code: f.Code, Message: f.Message, Hint: pageHint(f)}
	if page != nil {
		v.Page = *page
	}
	s.pages.Serve(w, f.HTTP, v)
}

func (s *Server) projectsPage(w http.ResponseWriter, r *http.Request) {
	var v web.ProjectsView
	err := s.gate.Do(func(svc *service.Service) error {
		list, err := svc.Projects(r.Context(), false)
		if err != nil {
			return err
		}
		v = web.ProjectsView{Page: web.Page{Now: svc.Now()}, Projects: mapSlice(list.Projects, projectView)}
		for i := range v.Projects {
			if v.Projects[i].Latest, err = latestMessage(r.Context(), svc, v.Projects[i].Key); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.errorPage(w, r, err, nil)
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
	timeline, err := timelineView(ctx, p)
	if err != nil {
		return nil, err
	}
	agents, err := p.svc.Agents(ctx, p.scope, service.AgentsRequest{All: true, Mail: true})
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
	cards := mapSlice(agents.Agents, agentView)
	for i, a := range cards {
		if m, ok := agents.Mail[a.Name]; ok {
			cards[i].Mail = &web.MailCounts{Unread: m.Unread, Urgent: m.Urgent, AwaitingAck: m.AwaitingAck, AcksOwed: m.AcksOwed}
		}
	}
	return web.ProjectView{Page: p.page, Timeline: timeline, Agents: cards,
		Reservations: mapSlice(leases.Reservations, reservationView), Locks: mapSlice(locks.Locks, lockView)}, nil
}

// agent returns the profile of a project's agent, NOT_FOUND if none, or
// the human overseer's, whose mailbox needs no registration.
func (p *pageRequest) agent(ctx context.Context, name string) (web.Agent, error) {
	if service.IsHuman(name) {
		return web.Agent{Name: service.HumanSender, Task: "You, the overseer: what you sent from these pages, and the agents' answers"}, nil
	}
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
		if !outbox && !service.IsHuman(a.Name) {
			v.CSRF = s.guard.CSRFToken(p.w, p.r)
		}
		if outbox {
			// The stream has no filter by sender: the page picks them out.
			v.LiveFrom = a.Name
		} else {
			v.Events = eventsURL(p.page.Project.Slug, a.Name, v.Live, p.head) // the mail it received
		}
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
		if outbox {
			v.LiveIDs = mapSlice(v.Messages, func(m web.Received) string { return m.ID })
		}
		return v, nil
	}
}

// controlPage steers the agent of the inbox it is sent from, as Human
// (control pause|resume|interrupt), and shows the inbox again: with what
// was done, or what was wrong (status 400, or the error's).
func (s *Server) controlPage(ctx context.Context, p *pageRequest) (web.View, error) {
	agent := p.r.PathValue("agent")
	form, err := web.ReadControl(p.r.PostForm)
	var done service.ControlResponse
	if err == nil {
		done, err = p.svc.Control(ctx, service.Scope{Project: p.scope.Project, Agent: service.HumanSender},
			service.ControlRequest{Agent: agent, Action: form.Action, Reason: form.Reason})
	}
	view, verr := s.mailboxPage(false)(ctx, p)
	if verr != nil {
		return nil, verr
	}
	v := view.(web.MailboxView)
	if err == nil {
		v.Steered = map[string]string{"pause": "Paused", "resume": "Resumed", "interrupt": "Interrupted"}[done.Action] + " " + done.Control.Agent + "."
		return v, nil
	}
	status, err := formError(err)
	v.Error, v.Hint = err.Error(), fault.Hint(err)
	return statusView{v, status}, nil
}

// channelsPage lists the project's channels: the topics of its messages.
func (s *Server) channelsPage(ctx context.Context, p *pageRequest) (web.View, error) {
	resp, err := p.svc.Topics(ctx, p.scope)
	if err != nil {
		return nil, err
	}
	return web.ChannelsView{Page: p.page, Channels: mapSlice(resp.Topics, func(t service.TopicSummary) web.Channel {
		return web.Channel{Topic: t.Topic, Messages: t.Messages, Last: t.Last.Time}
	})}, nil
}

// channelPage shows a channel's pageSize newest messages and the form
// posting to it.
func (s *Server) channelPage(ctx context.Context, p *pageRequest) (web.View, error) {
	resp, err := p.svc.Topic(ctx, p.scope, service.TopicRequest{Topic: p.r.PathValue("topic"), Limit: pageSize})
	if err != nil {
		return nil, err
	}
	return web.ChannelView{Page: p.page, Topic: resp.Topic, Messages: mapSlice(resp.Messages, inboxView),
		CSRF: s.guard.CSRFToken(p.w, p.r)}, nil
}

// postPage posts the channel form as Human, and shows the channel again:
// with the post made, or with what was wrong.
func (s *Server) postPage(ctx context.Context, p *pageRequest) (web.View, error) {
	form, err := web.ReadPost(p.r.PostForm, service.MaxSubject)
	var posted service.SendResponse
	if err == nil {
		posted, err = p.svc.Publish(ctx, p.scope,
			service.PublishRequest{Topic: p.r.PathValue("topic"), Subject: form.Subject, Body: form.Body, AsHuman: true})
	}
	view, verr := s.channelPage(ctx, p)
	if verr != nil {
		return nil, verr
	}
	v := view.(web.ChannelView)
	if err == nil {
		m := messageView(posted.Message)
		v.Posted = &m
		return v, nil
	}
	status, err := formError(err)
	v.Form, v.Error, v.Hint = form, err.Error(), fault.Hint(err)
	return statusView{v, status}, nil
}

// historyPage shows a page of the project's history: ?from=COMMIT&skip=N
// (none: the newest).
func (s *Server) historyPage(ctx context.Context, p *pageRequest) (web.View, error) {
	q := p.r.URL.Query()
	skip, err := (&apiCall{r: p.r}).number("skip", 0)
	if err != nil {
		return nil, err
	}
	resp, err := p.svc.History(ctx, p.scope, service.HistoryRequest{From: q.Get("from"), Skip: skip, Explain: true})
	if err != nil {
		return nil, err
	}
	v := web.HistoryView{Page: p.page, From: resp.From, Skip: skip}
	for _, c := range resp.Commits {
		v.Changes = append(v.Changes, web.Change{Commit: c.Commit, Author: c.Author, Time: c.Time.Time, Subject: c.Subject, Files: c.Files, Means: c.Changes})
	}
	if resp.More {
		v.Next = skip + len(resp.Commits)
	}
	return v, nil
}

// formError is a form's failure as its page shows it: the HTTP status, and
// the error with its hint in the pages' terms.
func formError(err error) (int, error) {
	if errors.Is(err, web.ErrInvalidForm) {
		return http.StatusBadRequest, err
	}
	f := service.Describe(err)
	return f.HTTP, fault.WithHint(errors.New(f.Message), pageHint(f))
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
	v := web.MessageView{Page: p.page, Agent: agent, Message: fullView(m.Message),
		Thread: around, ThreadSize: thread.Total, Commit: head}
	v.LiveThread, v.LiveIDs = m.Message.Thread, mapSlice(around, func(m web.Received) string { return m.ID })
	return v, nil
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
	v := web.ThreadView{Page: p.page, Thread: t.Thread, Agent: agent, Messages: mapSlice(t.Messages, fullView)}
	v.LiveThread, v.LiveIDs = t.Thread, mapSlice(v.Messages, func(m web.FullMessage) string { return m.ID })
	return v, nil
}

// searchLimit is how many results a page of the search shows, and
// maxSearchPage how many pages of them may be asked for.
const (
	searchLimit   = 50
	maxSearchPage = 200
)

// searchPage runs the query and its filters over the whole project, a
// page of searchLimit results at a time (?page=N). A query the overseer's
// search cannot run (is:unread: the overseer has no unread state) shows
// the page again saying why, with the status of the error.
func (s *Server) searchPage(ctx context.Context, p *pageRequest) (web.View, error) {
	q, filters := web.ReadSearch(p.r.URL.Query())
	v := web.SearchView{Page: p.page, Query: q, Filters: filters}
	query := filters.Query(q)
	if strings.TrimSpace(query) == "" {
		return v, nil
	}
	page := 1
	if n := p.r.URL.Query().Get("page"); n != "" {
		var err error
		if page, err = strconv.Atoi(n); err != nil || page < 1 || page > maxSearchPage {
			return nil, fault.WithHint(fmt.Errorf("%w: no page %q of results", service.ErrInvalidArgument, n),
				fmt.Sprintf("follow the links under the results (pages 1 to %d)", maxSearchPage))
		}
	}
	v.Offset = (page - 1) * searchLimit
	resp, err := p.svc.Search(ctx, p.scope, service.SearchRequest{Query: query, All: true, Limit: searchLimit + 1, Offset: v.Offset})
	if err != nil {
		f := service.Describe(err)
		if f.Code != "INVALID_ARGUMENT" {
			return nil, err
		}
		// is:unread and is:unacked: the overseer reads no mail of its own.
		v.Error, v.Hint = f.Message, "the overseer's search has no unread state: leave is:unread out, or open an agent's inbox, which marks its unread mail"
		return statusView{v, f.HTTP}, nil
	}
	v.Searched, v.Results, v.Notes = true, mapSlice(resp.Results, hitView), resp.Notes
	if len(v.Results) > searchLimit {
		v.Results, v.More = v.Results[:searchLimit], true
	}
	at := func(n int) string {
		q := p.r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		if n == 1 {
			q.Del("page")
		}
		return p.r.URL.Path + "?" + q.Encode()
	}
	if page > 1 {
		v.PrevURL = at(page - 1)
	}
	if v.More && page < maxSearchPage {
		v.NextURL = at(page + 1)
	}
	return v, nil
}

// statusView is a view shown with another status than 200: a form shown
// again with what was wrong.
type statusView struct {
	web.View
	status int
}

func (s *Server) reservationsPage(ctx context.Context, p *pageRequest) (web.View, error) {
	if at := p.r.URL.Query().Get("at"); at != "" {
		then, err := p.svc.LeasesAt(ctx, p.scope, at)
		if err != nil {
			return nil, err
		}
		page := p.page
		page.Now, page.Events, page.Live = then.Time.Time, "", nil // a past page has no news
		return web.ReservationsView{Page: page, Reservations: mapSlice(then.Reservations, reservationView),
			Locks: mapSlice(then.Locks, lockView), AsOf: then.Commit}, nil
	}
	leases, err := p.svc.Reservations(ctx, p.scope, service.ReservationsRequest{Expired: true})
	if err != nil {
		return nil, err
	}
	locks, err := p.svc.Locks(ctx, p.scope, "")
	if err != nil {
		return nil, err
	}
	v := web.ReservationsView{Page: p.page, Reservations: mapSlice(leases.Reservations, reservationView),
		Locks: mapSlice(locks.Locks, lockView), Steering: web.Steering{CSRF: s.guard.CSRFToken(p.w, p.r)}}
	clashes := service.LeaseClashes(leases.Reservations, p.page.Now)
	for i, r := range v.Reservations {
		v.Reservations[i].Clashes = mapSlice(clashes[r.ID], reservationView)
	}
	// Who holds a path: reservations check's operation.
	if v.Path = strings.TrimSpace(p.r.URL.Query().Get("path")); v.Path != "" {
		held, err := p.svc.CheckPaths(ctx, p.scope, []string{v.Path})
		if err != nil {
			return nil, err
		}
		for _, h := range held.Paths {
			v.Holders = append(v.Holders, mapSlice(h.Holders, reservationView)...)
		}
	}
	return v, nil
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
// choose from, answering the message ?reply= names, if any.
func (s *Server) composeView(ctx context.Context, p *pageRequest, reply string) (web.ComposeView, error) {
	agents, err := p.svc.Agents(ctx, p.scope, service.AgentsRequest{All: true})
	if err != nil {
		return web.ComposeView{}, err
	}
	v := web.ComposeView{Page: p.page, Agents: mapSlice(agents.Agents, agentView), CSRF: s.guard.CSRFToken(p.w, p.r),
		MaxSubject: service.MaxSubject}
	if reply != "" {
		m, err := p.svc.Show(ctx, p.scope, reply)
		if err != nil {
			return web.ComposeView{}, err
		}
		orig := messageView(m.Message.Message)
		v.ReplyTo, v.Form.Reply = &orig, orig.ID
	}
	return v, nil
}

func (s *Server) composePage(ctx context.Context, p *pageRequest) (web.View, error) {
	return s.composeView(ctx, p, p.r.URL.Query().Get("reply"))
}

// sendPage sends the compose form as Human, the overseer (always
// delivered): to the agents it names or to all (confirmed), or as a reply
// in the thread of the message it answers. It shows the form again: with
// the message sent, or with what was wrong (status 400, or the error's).
func (s *Server) sendPage(ctx context.Context, p *pageRequest) (web.View, error) {
	v, err := s.composeView(ctx, p, strings.TrimSpace(p.r.PostForm.Get("reply")))
	if err != nil {
		return nil, err
	}
	form, err := web.ReadCompose(p.r.PostForm, service.MaxSubject)
	if err == nil {
		var sent service.SendResponse
		if form.Reply != "" {
			sent, err = p.svc.Reply(ctx, p.scope, service.ReplyRequest{ID: form.Reply, All: form.All, Body: form.Body, AsHuman: true})
		} else {
			sent, err = p.svc.Send(ctx, p.scope, service.SendRequest{To: form.To, Subject: form.Subject, Body: form.Body,
				Importance: form.Importance, Category: form.Category, Ack: form.Ack, AsHuman: true})
		}
		if err == nil {
			m := messageView(sent.Message)
			v.Sent = &m
			return v, nil
		}
	}
	status, err := formError(err)
	v.Form, v.Error, v.Hint = form, err.Error(), fault.Hint(err)
	v.ConfirmAll = errors.Is(err, web.ErrConfirmAll)
	return statusView{v, status}, nil
}

// archiveFile answers `git show COMMIT:PATH` for a file of the project's
// directory in the archive, as text.
func (s *Server) archiveFile(w http.ResponseWriter, r *http.Request) {
	var data []byte
	var page *web.Page
	err := s.gate.Do(func(svc *service.Service) error {
		ref, err := svc.ProjectBySlug(r.Context(), r.PathValue("project"))
		if err != nil {
			return err
		}
		page = &web.Page{Project: &web.Project{Key: ref.Key, Slug: r.PathValue("project")}, Now: svc.Now()}
		data, err = svc.ArchiveFile(r.Context(), service.Scope{Project: ref}, r.PathValue("commit"), r.PathValue("path"))
		return err
	})
	if err != nil {
		s.errorPage(w, r, err, page)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(data)
}

// attachmentFile answers an attachment of a message, as ?agent= sees it
// (without: any message of the project), through web.ServeAttachment: a
// download, or with ?inline=1 an image the message page shows.
func (s *Server) attachmentFile(w http.ResponseWriter, r *http.Request) {
	var resp service.AttachmentResponse
	var page *web.Page
	err := s.gate.Do(func(svc *service.Service) error {
		ref, err := svc.ProjectBySlug(r.Context(), r.PathValue("project"))
		if err != nil {
			return err
		}
		page = &web.Page{Project: &web.Project{Key: ref.Key, Slug: r.PathValue("project")}, Now: svc.Now()}
		agent := r.URL.Query().Get("agent")
		resp, err = svc.Attachment(r.Context(), service.Scope{Project: ref, Agent: agent, Watching: agent != ""}, r.PathValue("id"), r.PathValue("name"))
		return err
	})
	if err != nil {
		s.errorPage(w, r, err, page)
		return
	}
	web.ServeAttachment(w, resp.Attachment.Name, resp.Attachment.MediaType, resp.Data, r.URL.Query().Get("inline") == "1")
}
