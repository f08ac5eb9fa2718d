package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
)

// The rest of mcp_agent_mail's vocabulary (issue 24 §3): recent-mail
// summaries, the product bus, and the Rust port's inbox events, delivery
// receipts and conflict checks.
func (s *Server) addMoreTools() {
	addTool(s, tool{name: "summarize_recent", desc: "A digest of the project's mail of the last since_hours that you sent or received: participants, counts, key points and action items taken from the messages as written (no LLM: llm_mode is ignored), overall and per thread.", readOnly: true},
		textRecent, s.summarizeRecent)
	addTool(s, tool{name: "fetch_summary", desc: "The digest of the last since_hours (default 24) as summarize_recent makes it, in a list under result: agentmail stores no summaries, it recomputes the same one from the mail.", readOnly: true},
		textSummaries, s.fetchSummary)
	addTool(s, tool{name: "ensure_product", desc: "Make sure a product (several repositories worked on as one) exists, by product_key or name; a new product starts with the project of the call (project_key) as its first member. Link more with products_link."},
		textProduct, s.ensureProduct)
	addTool(s, tool{name: "products_link", desc: "Make the project project_key names a member of a product (idempotent): its mail is then searched and read with the product's."},
		textProduct, s.productsLink)
	addTool(s, tool{name: "search_messages_product", desc: "Full-text search of your mail in every project of a product where you are registered, best first; the query language of search_messages.", readOnly: true},
		textProductSearch, s.searchProduct)
	addTool(s, tool{name: "fetch_inbox_product", desc: "Your received messages in every project of a product where you are registered, newest first, without marking them read.", readOnly: true},
		textProductInbox, s.fetchInboxProduct)
	addTool(s, tool{name: "summarize_thread_product", desc: "A thread found across the projects of a product: its messages oldest first, each with its project, and a digest (participants, key points, action items; no LLM).", readOnly: true},
		textProductThread, s.summarizeThreadProduct)
	addTool(s, tool{name: "fetch_inbox_events", desc: "Your deliveries, oldest first, without bodies, after a cursor: leave after out to resume where your last call ended (the cursor is kept for you, across restarts); next_cursor is stored as your cursor. position_now skips to the newest. Marks nothing read."},
		textEvents, s.fetchInboxEvents)
	addTool(s, tool{name: "get_message_delivery_receipt", desc: "Who a message was delivered to and when each recipient read and acknowledged it (a message you sent or received).", readOnly: true},
		textReceipt, s.deliveryReceipt)
	addTool(s, tool{name: "check_file_reservation_conflicts", desc: "Which active reservations of other agents reserving these paths or patterns would conflict with, without reserving anything; also your own active reservations that overlap them.", readOnly: true},
		textConflicts, s.checkConflicts)
}

// llmArgs are mcp_agent_mail's arguments of its LLM summaries, which
// agentmail takes and ignores: its summaries are extractive.
type llmArgs struct {
	LLMMode  *bool  `json:"llm_mode,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: no LLM is involved, the digest is taken from the messages as written"`
	LLMModel string `json:"llm_model,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
}

type recentArgs struct {
	agentArgs
	llmArgs
	SinceHours  *float64 `json:"since_hours,omitempty" jsonschema:"how many hours back; default 1"`
	MaxMessages *int     `json:"max_messages,omitempty" jsonschema:"the most messages read, the newest; default and most 500"`
}

// hours turns a number of hours into a duration, refusing one not
// positive or past maxSeconds.
func hours(h float64, arg string) (time.Duration, error) {
	if math.IsNaN(h) || h <= 0 || h*3600 > maxSeconds {
		return 0, service.Usagef("pass a positive number of hours, such as 24", "%s must be a positive number of hours of at most 100 years, got %v", arg, h)
	}
	return time.Duration(h * float64(time.Hour)), nil
}

func (s *Server) recent(ctx context.Context, c *call, in agentArgs, sinceHours float64, max int) (service.RecentSummary, error) {
	since, err := hours(sinceHours, "since_hours")
	if err != nil {
		return service.RecentSummary{}, err
	}
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.RecentSummary{}, err
	}
	return c.svc.SummarizeRecent(ctx, sc, service.RecentRequest{Since: since, Max: max})
}

func (s *Server) summarizeRecent(ctx context.Context, c *call, in recentArgs) (service.RecentSummary, error) {
	max := intOr(in.MaxMessages, service.MaxRecent)
	if max > service.MaxRecent {
		max = service.MaxRecent // capped, as mcp_agent_mail does
	}
	if max < 1 {
		return service.RecentSummary{}, service.Usagef(fmt.Sprintf("pass max_messages from 1 to %d", service.MaxRecent), "max_messages must be at least 1, got %d", max)
	}
	h := 1.0
	if in.SinceHours != nil {
		h = *in.SinceHours
	}
	return s.recent(ctx, c, in.agentArgs, h, max)
}

func textRecent(r service.RecentSummary) string {
	d := r.Summary
	out := []string{fmt.Sprintf("%s in %s from %s to %s; participants: %s", count(d.TotalMessages, "message", "messages"),
		count(d.TotalThreads, "thread", "threads"), stamp(r.Start), stamp(r.End), names(d.Participants))}
	out = append(out, digestLines(d.Digest)...)
	return strings.Join(out, "\n")
}

// digestLines renders a digest's key points and action items.
func digestLines(d service.Digest) []string {
	var out []string
	for _, p := range d.KeyPoints {
		out = append(out, "key point: "+p)
	}
	for _, a := range d.ActionItems {
		out = append(out, "action item: "+a)
	}
	return out
}

type fetchSummaryArgs struct {
	agentArgs
	SinceHours *float64 `json:"since_hours,omitempty" jsonschema:"how many hours back"`
	Limit      *int     `json:"limit,omitempty" jsonschema:"at most this many summaries (there is one); default 5"`
}

func (fetchSummaryArgs) argDefaults() map[string]any {
	return map[string]any{"since_hours": service.DefaultSummaryWindow.Hours()}
}

// Summaries is the document of fetch_summary: mcp_agent_mail's list,
// wrapped as FastMCP wraps one.
type Summaries struct {
	Result []service.RecentSummary `json:"result"`
}

func (s *Server) fetchSummary(ctx context.Context, c *call, in fetchSummaryArgs) (Summaries, error) {
	if limit := intOr(in.Limit, 5); limit < 1 {
		return Summaries{}, service.Usagef("pass a limit of 1 or more", "limit must be at least 1, got %d", limit)
	}
	h := service.DefaultSummaryWindow.Hours()
	if in.SinceHours != nil {
		h = *in.SinceHours
	}
	r, err := s.recent(ctx, c, in.agentArgs, h, service.MaxRecent)
	return Summaries{Result: []service.RecentSummary{r}}, err
}

func textSummaries(r Summaries) string { return textRecent(r.Result[0]) }

// productArgs name a product.
type productArgs struct {
	ProductKey string `json:"product_key" jsonschema:"the product's key (shop-platform), uid or name"`
	Format     string `json:"format,omitempty" jsonschema:"json, the only format there is (accepted for mcp_agent_mail clients)"`
}

type ensureProductArgs struct {
	projectArgs
	ProductKey string `json:"product_key,omitempty" jsonschema:"the product's key, uid or name; or give name"`
	Name       string `json:"name,omitempty" jsonschema:"the product's name (its key is the name in lowercase, other characters as -)"`
}

func (s *Server) ensureProduct(ctx context.Context, c *call, in ensureProductArgs) (service.ProductResponse, error) {
	name := strings.TrimSpace(in.ProductKey)
	if name == "" {
		name = strings.TrimSpace(in.Name)
	}
	if name == "" {
		return service.ProductResponse{}, service.Usagef("pass product_key or name, such as shop-platform", "no product named")
	}
	sc, err := c.project(in.projectArgs, c.s.sessionAgent())
	if err != nil {
		return service.ProductResponse{}, err
	}
	return c.svc.LinkProduct(ctx, sc, name, true)
}

type productsLinkArgs struct {
	projectArgs
	ProductKey string `json:"product_key" jsonschema:"the product's key, uid or name (ensure_product makes one)"`
}

func (s *Server) productsLink(ctx context.Context, c *call, in productsLinkArgs) (service.ProductResponse, error) {
	sc, err := c.project(in.projectArgs, c.s.sessionAgent())
	if err != nil {
		return service.ProductResponse{}, err
	}
	r, err := c.svc.LinkProduct(ctx, sc, in.ProductKey, false)
	return r, err
}

func textProduct(r service.ProductResponse) string {
	return fmt.Sprintf("product %s (%s): %s", r.Key, r.Name, strings.Join(mapNames(r.Projects), ", "))
}

func mapNames(ps []service.ProductProject) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Slug
	}
	return out
}

// productAgent returns the agent a product call acts as: given or the
// session's; an overseer naming none reads every project whole.
func (c *call) productAgent(given string) (string, error) {
	agent, err := c.act(given, service.Scope{})
	if err != nil {
		return "", err
	}
	if agent == "" && !c.s.cfg.Overseer {
		return "", fault.WithHint(fmt.Errorf("%w: no agent named, and this session has none yet", service.ErrNotRegistered),
			"call register_agent (or macro_start_session) first, or pass agent_name")
	}
	return agent, nil
}

type productSearchArgs struct {
	productArgs
	Query             string `json:"query" jsonschema:"the query, as search_messages takes it"`
	Limit             *int   `json:"limit,omitempty" jsonschema:"at most this many results, best first; default 20, 0 for all"`
	AgentName         string `json:"agent_name,omitempty" jsonschema:"your agent name; leave it out to act as the agent this session acts as"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: agentmail has no tokens"`
}

// ProductHit is a search result of a product, with mcp_agent_mail's
// field names beside ours.
type ProductHit struct {
	service.ProductHit
	ThreadID  string       `json:"thread_id"`
	CreatedTS service.Time `json:"created_ts"`
	ProjectID string       `json:"project_id"`
}

// ProductSearch is the document of search_messages_product: the hits
// under result (mcp_agent_mail's list) and the notes of the query.
type ProductSearch struct {
	Product string       `json:"product"`
	Result  []ProductHit `json:"result"`
	Notes   []string     `json:"notes"`
}

func (s *Server) searchProduct(ctx context.Context, c *call, in productSearchArgs) (ProductSearch, error) {
	agent, err := c.productAgent(in.AgentName)
	if err != nil {
		return ProductSearch{}, err
	}
	r, err := c.svc.ProductSearch(ctx, agent, in.ProductKey, service.SearchRequest{Query: in.Query, Limit: intOr(in.Limit, defaultLimit)})
	if err != nil {
		return ProductSearch{}, err
	}
	out := ProductSearch{Product: r.Product, Result: make([]ProductHit, len(r.Results)), Notes: r.Notes}
	for i, h := range r.Results {
		out.Result[i] = ProductHit{h, h.Thread, h.Created, h.Project}
	}
	return out, nil
}

func textProductSearch(r ProductSearch) string {
	return listing(count(len(r.Result), "result", "results")+" in product "+r.Product+", best first", lines(r.Result, func(h ProductHit) string {
		return fmt.Sprintf("[%s] %s %s from %s: %q (thread %s) %s", h.Project, h.ID, stamp(h.Created), h.From, h.Subject, h.Thread, h.Snippet)
	}))
}

type productInboxArgs struct {
	productArgs
	AgentName         string `json:"agent_name,omitempty" jsonschema:"your agent name; leave it out to act as the agent this session acts as"`
	Limit             *int   `json:"limit,omitempty" jsonschema:"at most this many messages, newest first; default 20, 0 for all"`
	UrgentOnly        bool   `json:"urgent_only,omitempty" jsonschema:"only high and urgent messages"`
	IncludeBodies     bool   `json:"include_bodies,omitempty" jsonschema:"include each message's markdown body"`
	SinceTS           string `json:"since_ts,omitempty" jsonschema:"only messages created strictly after this time (RFC 3339, a date, or a duration ago such as 2h)"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: agentmail has no tokens"`
}

// ProductInbox is the document of fetch_inbox_product: the messages
// under result (mcp_agent_mail's list, with its field names beside ours)
// and under messages (ours).
type ProductInbox struct {
	service.ProductInboxResponse
	Result []ProductInboxItem `json:"result"`
}

// ProductInboxItem is a message of fetch_inbox_product's result.
type ProductInboxItem struct {
	service.ProductInboxMessage
	ThreadID  string       `json:"thread_id"`
	CreatedTS service.Time `json:"created_ts"`
	ProjectID string       `json:"project_id"`
	BodyMD    *string      `json:"body_md,omitempty"`
}

func (s *Server) fetchInboxProduct(ctx context.Context, c *call, in productInboxArgs) (ProductInbox, error) {
	since, err := after(in.SinceTS, c.svc.Now())
	if err != nil {
		return ProductInbox{}, err
	}
	agent, err := c.productAgent(in.AgentName)
	if err != nil {
		return ProductInbox{}, err
	}
	if agent == "" {
		return ProductInbox{}, service.Usagef("pass agent_name: whose inbox to read", "an inbox is an agent's: no agent named")
	}
	r, err := c.svc.ProductInbox(ctx, agent, in.ProductKey, service.InboxRequest{Urgent: in.UrgentOnly, Since: since,
		Limit: intOr(in.Limit, defaultLimit), Bodies: in.IncludeBodies})
	out := ProductInbox{ProductInboxResponse: r, Result: make([]ProductInboxItem, len(r.Messages))}
	for i, m := range r.Messages {
		out.Result[i] = ProductInboxItem{m, m.Thread, m.Created, m.Project, m.Body}
	}
	return out, err
}

func textProductInbox(r ProductInbox) string {
	return listing(count(len(r.Messages), "message", "messages")+" in product "+r.Product+", newest first", lines(r.Messages, func(m service.ProductInboxMessage) string {
		return "[" + m.Project + "] " + receivedHeader(m.Received)
	}))
}

type productThreadArgs struct {
	productArgs
	llmArgs
	ThreadID          string `json:"thread_id" jsonschema:"a thread name, or the id (or a unique prefix) of a message in the thread"`
	IncludeExamples   bool   `json:"include_examples,omitempty" jsonschema:"also list the first three messages under examples"`
	PerThreadLimit    *int   `json:"per_thread_limit,omitempty" jsonschema:"at most this many messages, the oldest; default all"`
	AgentName         string `json:"agent_name,omitempty" jsonschema:"your agent name; leave it out to act as the agent this session acts as"`
	RegistrationToken string `json:"registration_token,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: agentmail has no tokens"`
}

// ProductThread is the document of summarize_thread_product.
type ProductThread struct {
	service.ProductThreadResponse
	Examples []service.ProductThreadMessage `json:"examples"`
}

func (s *Server) summarizeThreadProduct(ctx context.Context, c *call, in productThreadArgs) (ProductThread, error) {
	limit := intOr(in.PerThreadLimit, 0)
	if limit < 0 {
		return ProductThread{}, service.Usagef("pass per_thread_limit: 1 or more, or leave it out for all", "per_thread_limit must not be negative, got %d", limit)
	}
	agent, err := c.productAgent(in.AgentName)
	if err != nil {
		return ProductThread{}, err
	}
	r, err := c.svc.ProductThread(ctx, agent, in.ProductKey, in.ThreadID)
	if err != nil {
		return ProductThread{}, err
	}
	if limit > 0 && len(r.Messages) > limit {
		r.Messages = r.Messages[:limit]
		msgs := make([]service.FullMessage, len(r.Messages))
		for i, m := range r.Messages {
			msgs[i] = m.FullMessage
		}
		r.Summary = service.Summarize(msgs)
	}
	out := ProductThread{ProductThreadResponse: r, Examples: []service.ProductThreadMessage{}}
	if in.IncludeExamples {
		out.Examples = first(r.Messages, 3)
	}
	return out, nil
}

func textProductThread(r ProductThread) string {
	out := []string{fmt.Sprintf("thread %s in product %s, %s; participants: %s", r.Thread, r.Product,
		count(len(r.Messages), "message", "messages"), names(r.Summary.Participants))}
	out = append(out, digestLines(r.Summary)...)
	for _, m := range r.Messages {
		out = append(out, "["+m.Project+"] "+withBody(header(m.Message), m.Body))
	}
	return strings.Join(out, "\n")
}

type eventsArgs struct {
	agentArgs
	After       string `json:"after,omitempty" jsonschema:"the cursor to read after (a message id, as next_cursor gives it); leave it out to resume where your last call ended"`
	Limit       *int   `json:"limit,omitempty" jsonschema:"at most this many events, 1 to 1000; default 100"`
	PositionNow bool   `json:"position_now,omitempty" jsonschema:"skip every delivery so far: no events, and your cursor moves to the newest; not with after"`
}

func (s *Server) fetchInboxEvents(ctx context.Context, c *call, in eventsArgs) (service.InboxEventsResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.InboxEventsResponse{}, err
	}
	return c.svc.InboxEvents(ctx, sc, service.InboxEventsRequest{After: strings.TrimSpace(in.After), Limit: intOr(in.Limit, 100), PositionNow: in.PositionNow})
}

func textEvents(r service.InboxEventsResponse) string {
	head := count(len(r.Events), "event", "events") + ", oldest first"
	if r.HasMore {
		head += "; more wait: call again"
	}
	return listing(head, lines(r.Events, func(e service.InboxEvent) string {
		return fmt.Sprintf("%s %s from %s: %q (%s, %s)", e.Cursor, stamp(e.DeliveredTS), e.From, e.Subject, e.Kind, e.Importance)
	}))
}

type receiptArgs struct {
	agentArgs
	MessageID string `json:"message_id" jsonschema:"the message: its id as fetch_inbox returns it (a string), or a unique prefix of 6+ characters"`
}

func (s *Server) deliveryReceipt(ctx context.Context, c *call, in receiptArgs) (service.DeliveryReceiptResponse, error) {
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return service.DeliveryReceiptResponse{}, err
	}
	return c.svc.DeliveryReceipt(ctx, sc, in.MessageID)
}

func textReceipt(r service.DeliveryReceiptResponse) string {
	return listing("message "+r.MessageID+" delivered "+stamp(r.PersistedAt), lines(r.Recipients, func(x service.RecipientReceipt) string {
		state := "unread"
		switch {
		case x.Acknowledged:
			state = "acknowledged " + stamp(x.AckedAt)
		case x.Read:
			state = "read " + stamp(x.ReadAt)
		}
		return fmt.Sprintf("%s (%s): %s", x.Recipient, x.Kind, state)
	}))
}

type conflictArgs struct {
	agentArgs
	Paths     []string `json:"paths" jsonschema:"paths or glob patterns relative to project_key's directory, as file_reservation_paths takes them"`
	Exclusive *bool    `json:"exclusive,omitempty" jsonschema:"check as for an exclusive reservation (the default); false: as for a shared one, which only exclusive ones conflict with"`
}

func (s *Server) checkConflicts(ctx context.Context, c *call, in conflictArgs) (service.ConflictCheckResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.ConflictCheckResponse{}, err
	}
	return c.svc.CheckConflicts(ctx, sc, in.Paths, !boolOr(in.Exclusive, true))
}

func textConflicts(r service.ConflictCheckResponse) string {
	if r.ConflictFree {
		return "no conflicts: " + strings.Join(r.CheckedPaths, ", ") + " may be reserved"
	}
	return listing(count(len(r.Conflicts), "conflict", "conflicts"), lines(r.Conflicts, conflictLine))
}
