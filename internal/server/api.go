package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// The JSON API mirrors the command line: each route answers with the
// document its command's --json prints (the service's response, marshalled
// as it is), and an error with {"error": {"code", "message", "hint"}} and
// the HTTP status of service.Describe, the one error table. A write names
// its acting agent in the body's "agent" field (a message without one is
// from Human, the overseer); reads show an agent's mail as it sees it
// without refreshing its last-seen time.

// apiRoutes mounts the JSON API.
func (s *Server) apiRoutes(mux *http.ServeMux) {
	const p = "/api/projects/{project}"
	mux.HandleFunc("GET /api/projects", s.apiProjects)
	mux.HandleFunc("GET /api/guard/status", s.apiGuardStatus)
	mux.HandleFunc("GET "+p+"/agents", s.api(apiAgents))
	mux.HandleFunc("GET "+p+"/agents/{agent}/inbox", s.api(apiInbox))
	mux.HandleFunc("GET "+p+"/agents/{agent}/outbox", s.api(apiOutbox))
	mux.HandleFunc("GET "+p+"/messages/{id}", s.api(apiShow))
	mux.HandleFunc("GET "+p+"/messages/{id}/attachments/{name}", s.apiAttachment)
	mux.HandleFunc("GET "+p+"/topics", s.api(apiTopics))
	mux.HandleFunc("GET "+p+"/topics/{topic}", s.api(apiTopic))
	mux.HandleFunc("GET "+p+"/threads/{thread}", s.api(apiThread))
	mux.HandleFunc("GET "+p+"/search", s.api(apiSearch))
	mux.HandleFunc("GET "+p+"/timeline", s.api(apiTimeline))
	mux.HandleFunc("GET "+p+"/acks", s.api(apiAcks))
	mux.HandleFunc("GET "+p+"/reservations", s.api(apiReservations))
	mux.HandleFunc("GET "+p+"/locks", s.api(apiLocks))
	mux.HandleFunc("GET "+p+"/contacts", s.api(apiContacts))
	mux.HandleFunc("GET "+p+"/history", s.api(apiHistory))
	mux.HandleFunc("GET "+p+"/history/{commit}/leases", s.api(apiLeasesAt))
	mux.HandleFunc("POST "+p+"/messages", apiPost(s, apiSend))
	mux.HandleFunc("POST "+p+"/messages/{id}/reply", apiPost(s, apiReply))
	mux.HandleFunc("POST "+p+"/messages/{id}/read", apiPost(s, apiMark(false)))
	mux.HandleFunc("POST "+p+"/messages/{id}/ack", apiPost(s, apiMark(true)))
	mux.HandleFunc("POST "+p+"/reservations", apiPost(s, apiReserve))
	mux.HandleFunc("POST "+p+"/reservations/renew", apiPost(s, apiRenew))
	mux.HandleFunc("POST "+p+"/reservations/release", apiPost(s, apiRelease))
	mux.HandleFunc("POST "+p+"/locks/acquire", apiPost(s, apiAcquire))
	mux.HandleFunc("POST "+p+"/locks/renew", apiPost(s, apiRenewLock))
	mux.HandleFunc("POST "+p+"/locks/release", apiPost(s, apiReleaseLock))
	mux.HandleFunc("GET "+p+"/ports", s.api(apiPorts))
	mux.HandleFunc("GET "+p+"/ports/{name}", s.api(apiGetPort))
	mux.HandleFunc("POST "+p+"/ports/claim", apiPost(s, apiClaimPort))
	mux.HandleFunc("POST "+p+"/ports/release", apiPost(s, apiReleasePort))
	mux.HandleFunc("POST "+p+"/contacts/request", apiPost(s, apiRequestContact))
	mux.HandleFunc("POST "+p+"/contacts/respond", apiPost(s, apiRespondContact))
	s.moreAPIRoutes(mux)
	s.taskAPIRoutes(mux)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, nil, fault.WithHint(fmt.Errorf("%w: no API route %s %s", service.ErrNotFound, r.Method, r.URL.Path),
			"see the API's routes in the README (agentmail serve)"))
	})
}

// apiCall is one API request, on the gate's Service.
type apiCall struct {
	r       *http.Request
	svc     *service.Service
	project service.ProjectRef
}

// watch is the scope of a read of agent's mail ("": the whole project).
func (c *apiCall) watch(agent string) service.Scope {
	return service.Scope{Project: c.project, Agent: agent, Watching: agent != ""}
}

// as is the scope of a write acting as agent, which the request must name.
func (c *apiCall) as(agent string) (service.Scope, error) {
	if strings.TrimSpace(agent) == "" {
		return service.Scope{}, fault.WithHint(fmt.Errorf("%w: the request names no acting agent", service.ErrNotRegistered),
			`name it in the body's "agent" field, such as {"agent": "GreenCastle", ...}`)
	}
	return service.Scope{Project: c.project, Agent: agent}, nil
}

// query returns the query parameter key.
func (c *apiCall) query(key string) string { return c.r.URL.Query().Get(key) }

// flag reads a boolean query parameter: absent is false.
func (c *apiCall) flag(key string) (bool, error) {
	v := c.query(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, invalid(fmt.Sprintf("?%s=%q is not a boolean", key, v), "pass ?"+key+"=true or leave it out")
	}
	return b, nil
}

// number reads a non-negative integer query parameter, def when absent.
func (c *apiCall) number(key string, def int) (int, error) {
	v := c.query(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, invalid(fmt.Sprintf("?%s=%q is not a count", key, v), "pass a whole number, 0 for all")
	}
	return n, nil
}

// apiHistory is a page of the project's history: ?from=COMMIT&skip=N&limit=N.
func apiHistory(ctx context.Context, c *apiCall) (any, error) {
	skip, err := c.number("skip", 0)
	if err != nil {
		return nil, err
	}
	limit, err := c.number("limit", 0)
	if err != nil {
		return nil, err
	}
	return c.svc.History(ctx, c.watch(""), service.HistoryRequest{From: c.query("from"), Skip: skip, Limit: limit})
}

// apiLeasesAt is what the project held as of a commit of its history.
func apiLeasesAt(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.LeasesAt(ctx, c.watch(""), c.r.PathValue("commit"))
}

// invalid is an INVALID_ARGUMENT error of a request.
func invalid(msg, hint string) error {
	return fault.WithHint(fmt.Errorf("%w: %s", service.ErrInvalidArgument, msg), hint)
}

// duration reads a duration field ("1h", "30m"), def (the service's
// default) when empty. One that is not positive goes to the service as it
// is, which refuses it on the same field as from every face.
func duration(field, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fault.WithField(fmt.Errorf("%w: %q: %q is not a duration", service.ErrInvalidArgument, field, v), field)
	}
	return d, nil
}

// api returns the handler of a read of a project: fn runs on the gate's
// Service, and its document is the answer.
func (s *Server) api(fn func(context.Context, *apiCall) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.answer(w, r, fn)
	}
}

// apiPost returns the handler of a write: the body, a JSON In, is read
// before the service is called, and unknown fields are refused.
func apiPost[In any](s *Server, fn func(context.Context, *apiCall, In) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in In
		if err := decode(w, r, &in, s.maxBody()); err != nil {
			writeError(w, nil, err)
			return
		}
		s.answer(w, r, func(ctx context.Context, c *apiCall) (any, error) { return fn(ctx, c, in) })
	}
}

// maxBody is the largest message body the server takes.
func (s *Server) maxBody() int {
	if s.cfg.Store.MaxBody > 0 {
		return s.cfg.Store.MaxBody
	}
	return service.DefaultMaxBody
}

// decode reads r's JSON body into v. A body longer than a message of
// maxBody bytes can take (service.RequestLimit) is MESSAGE_TOO_LARGE,
// refused before it is all read: by its Content-Length when it says, else
// once the reading passes the limit.
func decode(w http.ResponseWriter, r *http.Request, v any, maxBody int) error {
	limit := service.RequestLimit(maxBody)
	if r.ContentLength > limit {
		return service.RequestTooLarge(r.ContentLength, maxBody, false)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return service.RequestTooLarge(mbe.Limit, maxBody, true)
		}
		if errors.Is(err, io.EOF) {
			return invalid("the request has no JSON body", `send a JSON object, such as {"agent": "GreenCastle", ...}`)
		}
		return invalid("the JSON body cannot be read: "+err.Error(), "see the fields of the route in the README (agentmail serve)")
	}
	if dec.More() {
		return invalid("the body holds more than one JSON value", "send one JSON object")
	}
	return nil
}

// beside is a document a handler answers with beside its error: the
// conflicts of a reservation, the holder of a lock.
type beside struct{ doc any }

// answer resolves the project of r, runs fn on the gate's Service, and writes
// its document, or its error (with the document beside it when fn
// returned one as beside).
func (s *Server) answer(w http.ResponseWriter, r *http.Request, fn func(context.Context, *apiCall) (any, error)) {
	var doc any
	err := s.gate.Do(func(svc *service.Service) error {
		ref, err := svc.ProjectBySlug(r.Context(), r.PathValue("project"))
		if err != nil {
			return err
		}
		doc, err = fn(r.Context(), &apiCall{r: r, svc: svc, project: ref})
		return err
	})
	if err != nil {
		b, _ := doc.(beside)
		writeError(w, b.doc, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// writeJSON answers with doc.
func writeJSON(w http.ResponseWriter, status int, doc any) {
	b, err := json.Marshal(doc)
	if err != nil {
		writeError(w, nil, fmt.Errorf("encode the answer: %w", err))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers with err's document and HTTP status; the fields of
// doc, when it is a document, stand beside "error".
func writeError(w http.ResponseWriter, doc any, err error) {
	f := service.Describe(err)
	if doc == nil {
		web.WriteJSONError(w, f.HTTP, f.Doc(apiHint(f)))
		return
	}
	fields := map[string]any{}
	if b, merr := json.Marshal(doc); merr == nil {
		_ = json.Unmarshal(b, &fields)
	}
	fields["error"] = f.Doc(apiHint(f))
	writeJSON(w, f.HTTP, fields)
}

func (s *Server) apiProjects(w http.ResponseWriter, r *http.Request) {
	var doc service.ProjectsResponse
	err := s.gate.Do(func(svc *service.Service) (err error) {
		doc, err = svc.Projects(r.Context(), r.URL.Query().Get("all") != "")
		return err
	})
	if err != nil {
		writeError(w, nil, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// apiGuardStatus answers guard status for the repository ?repo= names
// (an absolute path on the server's machine); it needs no store.
func (s *Server) apiGuardStatus(w http.ResponseWriter, r *http.Request) {
	repo := r.URL.Query().Get("repo")
	if repo == "" || !strings.HasPrefix(repo, "/") {
		writeError(w, nil, invalid(fmt.Sprintf("?repo=%q is not an absolute path", repo), "pass ?repo=/absolute/path/of/a/checkout"))
		return
	}
	doc, err := service.GuardStatus(r.Context(), repo)
	if err != nil {
		writeError(w, nil, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

func apiAgents(ctx context.Context, c *apiCall) (any, error) {
	active, err := c.flag("active")
	if err != nil {
		return nil, err
	}
	mail, err := c.flag("mail")
	if err != nil {
		return nil, err
	}
	return c.svc.Agents(ctx, c.watch(""), service.AgentsRequest{Active: active, All: true, Mail: mail})
}

func apiInbox(ctx context.Context, c *apiCall) (any, error) {
	req := service.InboxRequest{Category: c.query("category"), Since: c.query("since"), Before: c.query("before"), Topic: c.query("topic")}
	var err error
	for _, f := range []struct {
		key string
		to  *bool
	}{{"unread", &req.Unread}, {"urgent", &req.Urgent}, {"bodies", &req.Bodies}} {
		if *f.to, err = c.flag(f.key); err != nil {
			return nil, err
		}
	}
	if req.Limit, err = c.number("limit", service.DefaultListLimit); err != nil {
		return nil, err
	}
	return c.svc.Inbox(ctx, c.watch(c.r.PathValue("agent")), req)
}

func apiOutbox(ctx context.Context, c *apiCall) (any, error) {
	limit, err := c.number("limit", service.DefaultListLimit)
	if err != nil {
		return nil, err
	}
	return c.svc.Outbox(ctx, c.watch(c.r.PathValue("agent")), service.OutboxRequest{Limit: limit, Before: c.query("before")})
}

// apiTopics lists the project's topics, as ?agent= sees them (without:
// every message).
func apiTopics(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.Topics(ctx, c.watch(c.query("agent")))
}

// apiTopic lists a topic's messages, newest first, as ?agent= sees them.
func apiTopic(ctx context.Context, c *apiCall) (any, error) {
	req := service.TopicRequest{Topic: c.r.PathValue("topic"), Since: c.query("since")}
	var err error
	if req.Bodies, err = c.flag("bodies"); err != nil {
		return nil, err
	}
	if req.Limit, err = c.number("limit", service.DefaultListLimit); err != nil {
		return nil, err
	}
	return c.svc.Topic(ctx, c.watch(c.query("agent")), req)
}

// apiAttachment answers the content of an attachment, as ?agent= sees the
// message, always as a download (web.ServeAttachment); errors are JSON.
func (s *Server) apiAttachment(w http.ResponseWriter, r *http.Request) {
	var resp service.AttachmentResponse
	err := s.gate.Do(func(svc *service.Service) error {
		ref, err := svc.ProjectBySlug(r.Context(), r.PathValue("project"))
		if err != nil {
			return err
		}
		c := &apiCall{r: r, svc: svc, project: ref}
		resp, err = svc.Attachment(r.Context(), c.watch(c.query("agent")), r.PathValue("id"), r.PathValue("name"))
		return err
	})
	if err != nil {
		writeError(w, nil, err)
		return
	}
	web.ServeAttachment(w, resp.Attachment.Name, resp.Attachment.MediaType, resp.Data, false)
}

func apiShow(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.Show(ctx, c.watch(c.query("agent")), c.r.PathValue("id"))
}

func apiThread(ctx context.Context, c *apiCall) (any, error) {
	t, err := c.svc.Thread(ctx, c.watch(c.query("agent")), c.r.PathValue("thread"))
	if err == nil && len(t.Messages) == 0 {
		return nil, notFound("thread", c.r.PathValue("thread"))
	}
	return t, err
}

func apiSearch(ctx context.Context, c *apiCall) (any, error) {
	limit, err := c.number("limit", service.DefaultListLimit)
	if err != nil {
		return nil, err
	}
	agent := c.query("agent")
	return c.svc.Search(ctx, c.watch(agent), service.SearchRequest{Query: c.query("q"), All: agent == "", Limit: limit})
}

func apiAcks(ctx context.Context, c *apiCall) (any, error) {
	if agent := c.query("agent"); agent != "" {
		return c.svc.PendingAcks(ctx, c.watch(agent), false)
	}
	return c.svc.AwaitingAcks(ctx, c.watch(""))
}

func apiReservations(ctx context.Context, c *apiCall) (any, error) {
	expired, err := c.flag("expired")
	if err != nil {
		return nil, err
	}
	return c.svc.Reservations(ctx, c.watch(""), service.ReservationsRequest{Holder: c.query("agent"), Expired: expired})
}

func apiLocks(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.Locks(ctx, c.watch(""), c.query("prefix"))
}

func apiContacts(ctx context.Context, c *apiCall) (any, error) {
	if agent := c.query("agent"); agent != "" {
		return c.svc.Contacts(ctx, c.watch(agent))
	}
	return c.svc.ProjectContacts(ctx, c.watch(""))
}

// sendBody is the body of POST .../messages; without "agent", the message
// is from Human, the overseer.
type sendBody struct {
	Agent      string   `json:"agent"`
	To         []string `json:"to"`
	Cc         []string `json:"cc"`
	Bcc        []string `json:"bcc"`
	Subject    string   `json:"subject"`
	Body       string   `json:"body"`
	Thread     string   `json:"thread"`
	Importance string   `json:"importance"`
	Ack        bool     `json:"ack"`
	Category   string   `json:"category"`
	// Topic files the message under a topic; with one, "to" may be empty
	// (a post to the channel).
	Topic string `json:"topic"`
	// Attachments are files sent by content: {"name", "content_base64"}.
	Attachments []service.Upload `json:"attachments"`
	// IdempotencyKey: the same key from the same agent within 24 hours
	// returns the first call's result and writes nothing.
	IdempotencyKey string `json:"idempotency_key"`
}

func apiSend(ctx context.Context, c *apiCall, in sendBody) (any, error) {
	req := service.SendRequest{To: in.To, Cc: in.Cc, Bcc: in.Bcc, Subject: in.Subject, Body: in.Body, Thread: in.Thread,
		Importance: in.Importance, Ack: in.Ack, Category: in.Category, AsHuman: strings.TrimSpace(in.Agent) == "",
		IdempotencyKey: in.IdempotencyKey, Topic: in.Topic, Attachments: in.Attachments}
	return c.svc.Send(ctx, service.Scope{Project: c.project, Agent: in.Agent}, req)
}

type replyBody struct {
	Agent          string `json:"agent"`
	Body           string `json:"body"`
	All            bool   `json:"all"`
	IdempotencyKey string `json:"idempotency_key"`
}

// apiReply answers a message as the body's agent, or without one as
// Human, the overseer.
func apiReply(ctx context.Context, c *apiCall, in replyBody) (any, error) {
	human := strings.TrimSpace(in.Agent) == ""
	return c.svc.Reply(ctx, service.Scope{Project: c.project, Agent: in.Agent},
		service.ReplyRequest{ID: c.r.PathValue("id"), All: in.All, Body: in.Body, AsHuman: human,
			IdempotencyKey: in.IdempotencyKey})
}

type agentBody struct {
	Agent          string `json:"agent"`
	IdempotencyKey string `json:"idempotency_key"`
}

func apiMark(ack bool) func(context.Context, *apiCall, agentBody) (any, error) {
	return func(ctx context.Context, c *apiCall, in agentBody) (any, error) {
		sc, err := c.as(in.Agent)
		if err != nil {
			return nil, err
		}
		return c.svc.Mark(ctx, sc, service.MarkRequest{IDs: []string{c.r.PathValue("id")}, Ack: ack, IdempotencyKey: in.IdempotencyKey})
	}
}

type reserveBody struct {
	Agent          string   `json:"agent"`
	Patterns       []string `json:"patterns"`
	TTL            string   `json:"ttl"`
	Shared         bool     `json:"shared"`
	Reason         string   `json:"reason"`
	AllowConflicts bool     `json:"allow_conflicts"`
	IdempotencyKey string   `json:"idempotency_key"`
}

func apiReserve(ctx context.Context, c *apiCall, in reserveBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	ttl, err := duration("ttl", in.TTL, service.DefaultReserveTTL)
	if err != nil {
		return nil, err
	}
	resp, err := c.svc.Reserve(ctx, sc, service.ReserveRequest{Patterns: in.Patterns, TTL: ttl, Shared: in.Shared,
		Reason: in.Reason, AllowConflicts: in.AllowConflicts, IdempotencyKey: in.IdempotencyKey})
	if errors.Is(err, service.ErrConflict) {
		return beside{resp}, err
	}
	return resp, err
}

// selectBody chooses reservations: by pattern, by id, or all of the
// agent's.
type selectBody struct {
	Agent    string   `json:"agent"`
	Patterns []string `json:"patterns"`
	IDs      []string `json:"ids"`
	All      bool     `json:"all"`
	Extend   string   `json:"extend"` // renew only
}

func apiRenew(ctx context.Context, c *apiCall, in selectBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	extend, err := duration("extend", in.Extend, service.DefaultRenewExtend)
	if err != nil {
		return nil, err
	}
	return c.svc.Renew(ctx, sc, service.RenewRequest{Selection: service.Selection{Patterns: in.Patterns, IDs: in.IDs, All: in.All}, Extend: extend})
}

func apiRelease(ctx context.Context, c *apiCall, in selectBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	if in.Extend != "" {
		return nil, invalid(`"extend" is for renew`, `leave "extend" out of a release`)
	}
	return c.svc.Release(ctx, sc, service.Selection{Patterns: in.Patterns, IDs: in.IDs, All: in.All})
}

// lockBody names a lock. Acquire does not wait: a held lock is 409
// LOCK_HELD with its holder, for the caller to try again.
type lockBody struct {
	Agent string `json:"agent"`
	Key   string `json:"key"`
	TTL   string `json:"ttl"`
}

// lockCall runs op on the lock in's body names, for its acting agent.
func lockCall(ctx context.Context, c *apiCall, in lockBody, op func(context.Context, service.Scope, service.LockRequest) (service.LockResponse, error)) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	ttl, err := duration("ttl", in.TTL, service.DefaultLockTTL)
	if err != nil {
		return nil, err
	}
	resp, err := op(ctx, sc, service.LockRequest{Key: in.Key, TTL: ttl})
	if errors.Is(err, service.ErrLockHeld) {
		return beside{resp}, err
	}
	return resp, err
}

func apiAcquire(ctx context.Context, c *apiCall, in lockBody) (any, error) {
	return lockCall(ctx, c, in, c.svc.AcquireLock)
}

func apiRenewLock(ctx context.Context, c *apiCall, in lockBody) (any, error) {
	return lockCall(ctx, c, in, c.svc.RenewLock)
}

func apiReleaseLock(ctx context.Context, c *apiCall, in lockBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	if in.TTL != "" {
		return nil, invalid(`"ttl" is for acquire and renew`, `leave "ttl" out of a release`)
	}
	return c.svc.ReleaseLock(ctx, sc, in.Key)
}

func apiPorts(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.Ports(ctx, c.watch(""))
}

func apiGetPort(ctx context.Context, c *apiCall) (any, error) {
	return c.svc.GetPort(ctx, c.watch(""), c.r.PathValue("name"))
}

// portBody names a port claim (of the server's machine).
type portBody struct {
	Agent string `json:"agent"`
	Name  string `json:"name"`
	TTL   string `json:"ttl"`
}

func apiClaimPort(ctx context.Context, c *apiCall, in portBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	ttl, err := duration("ttl", in.TTL, service.DefaultPortTTL)
	if err != nil {
		return nil, err
	}
	resp, err := c.svc.ClaimPort(ctx, sc, service.PortRequest{Name: in.Name, TTL: ttl})
	if errors.Is(err, service.ErrPortHeld) {
		return beside{resp}, err
	}
	return resp, err
}

func apiReleasePort(ctx context.Context, c *apiCall, in portBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	if in.TTL != "" {
		return nil, invalid(`"ttl" is for claim`, `leave "ttl" out of a release`)
	}
	return c.svc.ReleasePort(ctx, sc, in.Name)
}

type contactBody struct {
	Agent  string `json:"agent"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

func apiRequestContact(ctx context.Context, c *apiCall, in contactBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	return c.svc.RequestContact(ctx, sc, service.ContactRequest{To: in.To, Reason: in.Reason})
}

type respondBody struct {
	Agent   string `json:"agent"`
	From    string `json:"from"`
	Approve bool   `json:"approve"`
}

func apiRespondContact(ctx context.Context, c *apiCall, in respondBody) (any, error) {
	sc, err := c.as(in.Agent)
	if err != nil {
		return nil, err
	}
	return c.svc.DecideContact(ctx, sc, in.From, in.Approve)
}
