package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultLimit is how many messages or results a list has unless the
// call says.
const defaultLimit = 20

// intOr returns *p, or def when p is nil.
func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// boolOr returns *p, or def when p is nil.
func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// maxSeconds is the most seconds an argument takes: 100 years, well
// within a time.Duration.
const maxSeconds = 100 * 365 * 24 * 3600

// seconds returns n seconds, refusing a negative n, or one past
// maxSeconds, which names the argument.
func seconds(n int, arg string) (time.Duration, error) {
	if n < 0 {
		return 0, service.Usagef("pass a positive number of seconds, such as 3600", "%s must not be negative, got %d", arg, n)
	}
	if n > maxSeconds {
		return 0, service.Usagef("pass a number of seconds such as 3600", "%s must be at most %d (100 years), got %d", arg, maxSeconds, n)
	}
	return time.Duration(n) * time.Second, nil
}

func (s *Server) addMailTools() {
	addTool(s, tool{name: "send_message", desc: "Send a markdown message to other agents of the project. Returns the message with its id and thread. " +
		"Recipients must be registered (list_agents); a contact policy may refuse (CONTACT_REQUIRED: ask with request_contact). " +
		"Pass thread_id to continue a thread."}, textSend, s.sendMessage)
	addTool(s, tool{name: "reply_message", desc: "Reply to a message in its thread: to its sender (all: also every other recipient), with \"Re: \" added to the subject once and the original's importance."},
		textReply, s.replyMessage)
	addTool(s, tool{name: "fetch_inbox", desc: "List the messages you received, newest first, without marking them read. Bodies only with include_bodies.", readOnly: true},
		textFetched, s.fetchInbox)
	addTool(s, tool{name: "fetch_topic", desc: "List the messages of a topic, newest first, whoever they were sent to: every post to it (a message with a topic and no recipients) and the topic's mail you sent or received. Bodies unless include_bodies is false.", readOnly: true},
		textTopic, s.fetchTopic)
	addTool(s, tool{name: "get_attachment", desc: "Get a file attached to a message you sent or received (or a post): its name, media type, size, sha256 and content, base64 (and as text when it is UTF-8 text).", readOnly: true},
		textAttachment, s.getAttachment)
	addTool(s, tool{name: "mark_message_read", desc: "Mark messages read (the first time is kept). Returns them with their bodies."},
		textMarked("marked read"), s.markRead)
	addTool(s, tool{name: "acknowledge_message", desc: "Acknowledge messages (and mark them read): what a sender who set ack_required waits for."},
		textMarked("acknowledged"), s.acknowledge)
	addTool(s, tool{name: "search_messages", desc: "Full-text search of the mail you sent or received, best matches first. " +
		`Query language: words (all must match), "phrases", prefix*, OR, NOT or -word, (groups), and filters subject: body: from: to: thread: category: importance: since:2026-11-01 before:. Any text is safe.`, readOnly: true},
		func(r Searched) string { return textSearch(r.SearchResponse) }, s.searchMessages)
	addTool(s, tool{name: "get_thread", desc: "A whole thread, oldest first, with bodies, as you may see it.", readOnly: true},
		textThread, s.getThread)
	addTool(s, tool{name: "summarize_thread", desc: "A thread's participants (everyone who wrote or was addressed, in order of appearance) and its messages with bodies, oldest first. No LLM is involved: read the messages.", readOnly: true},
		textSummary, s.summarizeThread)
	addTool(s, tool{name: "check_mail", desc: "The cheap \"anything for me?\" to call between steps: counts of unread, urgent and unacknowledged mail and open contact requests, the newest unread messages, and, when you hold no task, how many tasks are ready (ready_tasks, at most 100).", readOnly: true},
		textCheck, s.checkMail)
	register(s, tool{name: "wait_for_mail", desc: "Block until new unread mail for you arrives (optionally only in a thread, from an agent, or urgent), then return it. " +
		"Gives up after timeout_seconds with timed_out: true, which is not an error. Other calls go on meanwhile; cancelling the call stops the wait.", readOnly: true},
		textWait, s.waitForMail)
}

// idempotencyArgs is the argument of a write that a retry must not repeat.
type idempotencyArgs struct {
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a unique key for this write (a UUID): calling again with the same key within 24 hours returns the first call's result and writes nothing, so a call whose answer was lost can be retried safely"`
}

type sendArgs struct {
	projectArgs
	idempotencyArgs
	SenderName           string   `json:"sender_name,omitempty" jsonschema:"your agent name; leave it out to send as the agent this session acts as"`
	To                   Names    `json:"to" jsonschema:"the recipients' agent names (a list, or one name); [\"all\"] sends to every other agent of the project; \"Human\" answers the human overseer, always delivered"`
	Cc                   Names    `json:"cc,omitempty" jsonschema:"more recipients, in copy"`
	Bcc                  Names    `json:"bcc,omitempty" jsonschema:"hidden recipients: each sees only themselves"`
	Subject              string   `json:"subject" jsonschema:"one line, at most 200 characters"`
	BodyMD               string   `json:"body_md" jsonschema:"the message in markdown, stored byte for byte (may be empty)"`
	ThreadID             string   `json:"thread_id,omitempty" jsonschema:"a thread name to start or continue, or the id of a message whose thread to join; default: a new thread named by the message's id"`
	Importance           string   `json:"importance,omitempty" jsonschema:"low, normal (the default), high or urgent"`
	AckRequired          bool     `json:"ack_required,omitempty" jsonschema:"ask the recipients to acknowledge (acknowledge_message)"`
	Category             string   `json:"category,omitempty" jsonschema:"HANDOFF, BLOCKED, DECISION or INFO; HANDOFF and BLOCKED imply ack_required"`
	Broadcast            bool     `json:"broadcast,omitempty" jsonschema:"with an empty to: send to every other agent of the project, as to [\"all\"]"`
	AttachmentPaths      []string `json:"attachment_paths,omitempty" jsonschema:"files of the repository to attach, relative to the project's directory (or absolute inside it); stored once each beside the message; get_attachment returns them. The body and files together are at most the message size limit (1 MiB unless configured)"`
	ConvertImages        *bool    `json:"convert_images,omitempty" jsonschema:"accepted for mcp_agent_mail clients: images are stored as attached, never converted"`
	Topic                string   `json:"topic,omitempty" jsonschema:"file the message under this topic (1-64 letters, digits, _ . -; case-insensitive); with a topic, to may be empty: a post every agent of the project reads with fetch_topic"`
	TaskID               string   `json:"task_id,omitempty" jsonschema:"file the message under a task (its id or a prefix of 6+ characters): in the task's thread, task-ID"`
	AutoContactIfBlocked *bool    `json:"auto_contact_if_blocked,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: on CONTACT_REQUIRED call request_contact"`
	SenderToken          string   `json:"sender_token,omitempty" jsonschema:"the sender's registration token (register_agent returned it): lets this session send as an agent it did not register"`
}

// request is the send request in a.
func (a sendArgs) request() (service.SendRequest, error) {
	to := []string(a.To)
	if len(to) == 0 && a.Broadcast {
		to = []string{service.Broadcast}
	}
	return service.SendRequest{To: to, Cc: a.Cc, Bcc: a.Bcc, Subject: a.Subject, Body: a.BodyMD, Thread: a.ThreadID,
		Importance: a.Importance, Ack: a.AckRequired, Category: a.Category, IdempotencyKey: a.IdempotencyKey,
		Topic: a.Topic, AttachmentPaths: a.AttachmentPaths, Task: a.TaskID}, nil
}

func (s *Server) sendMessage(ctx context.Context, c *call, in sendArgs) (Sent, error) {
	req, err := in.request()
	if err != nil {
		return Sent{}, err
	}
	sc, err := c.viewer(in.projectArgs, in.SenderName)
	if err != nil {
		return Sent{}, err
	}
	req.AsHuman = sc.Agent == "" // an overseer naming no sender
	r, err := c.svc.Send(ctx, sc, req)
	if err != nil {
		return Sent{}, err
	}
	return sent(r, sc, in.BodyMD), nil
}

func textSend(r Sent) string {
	out := "sent " + header(r.Message)
	if st := r.SuggestedState; st != nil {
		out += "\nyou are blocked? set_agent_state with state " + st.State + " tells the team (list_agents, check_mail)"
	}
	return out
}

func textReply(r Replied) string { return textSend(r.Sent) }

type replyArgs struct {
	projectArgs
	idempotencyArgs
	SenderName    string `json:"sender_name,omitempty" jsonschema:"your agent name; leave it out to reply as the agent this session acts as"`
	MessageID     string `json:"message_id" jsonschema:"the message to answer: its id as fetch_inbox returns it (a string), or a unique prefix of 6+ characters"`
	BodyMD        string `json:"body_md" jsonschema:"the reply in markdown"`
	All           bool   `json:"all,omitempty" jsonschema:"reply to the sender and every other recipient, not only the sender"`
	HoldSeconds   int    `json:"hold_seconds,omitempty" jsonschema:"ask a sender waiting for this reply (send --wait) to wait this many seconds longer"`
	To            Names  `json:"to,omitempty" jsonschema:"not supported (a reply goes to the sender, or with all to everyone): use send_message with thread_id to address others"`
	Cc            Names  `json:"cc,omitempty" jsonschema:"not supported, as to"`
	Bcc           Names  `json:"bcc,omitempty" jsonschema:"not supported, as to"`
	SubjectPrefix string `json:"subject_prefix,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: the prefix is always Re:"`
	SenderToken   string `json:"sender_token,omitempty" jsonschema:"the sender's registration token (register_agent returned it): lets this session send as an agent it did not register"`
}

func (s *Server) replyMessage(ctx context.Context, c *call, in replyArgs) (Replied, error) {
	if len(in.To)+len(in.Cc)+len(in.Bcc) > 0 {
		return Replied{}, fault.WithHint(fmt.Errorf("%w: a reply cannot name its recipients", service.ErrInvalidArgument),
			"leave to, cc and bcc out (all: true answers everyone), or use send_message with thread_id set to the message's thread")
	}
	hold, err := seconds(in.HoldSeconds, "hold_seconds")
	if err != nil {
		return Replied{}, err
	}
	sc, err := c.scope(in.projectArgs, in.SenderName)
	if err != nil {
		return Replied{}, err
	}
	r, err := c.svc.Reply(ctx, sc, service.ReplyRequest{ID: in.MessageID, All: in.All, Body: in.BodyMD, Hold: hold,
		IdempotencyKey: in.IdempotencyKey})
	if err != nil {
		return Replied{}, err
	}
	return replied(r, sc, in.BodyMD), nil
}

type inboxArgs struct {
	agentArgs
	Limit         *int   `json:"limit,omitempty" jsonschema:"at most this many messages, newest first; default 20, 0 for all"`
	UrgentOnly    bool   `json:"urgent_only,omitempty" jsonschema:"only high and urgent messages"`
	IncludeBodies bool   `json:"include_bodies,omitempty" jsonschema:"include each message's markdown body"`
	SinceTS       string `json:"since_ts,omitempty" jsonschema:"only messages created strictly after this time: RFC 3339 (2026-11-22T10:00:00Z; without a zone it is UTC), a date (2026-11-01), or a duration ago (2h, 3d)"`
	UnreadOnly    bool   `json:"unread_only,omitempty" jsonschema:"only messages you have not marked read"`
	Category      string `json:"category,omitempty" jsonschema:"only messages of this category: HANDOFF, BLOCKED, DECISION or INFO"`
	Topic         string `json:"topic,omitempty" jsonschema:"only messages of this topic (posts to a topic are in no inbox: fetch_topic lists them)"`
}

// after turns since_ts into the inbox's inclusive Since: mcp_agent_mail's
// since_ts is exclusive, and record times have whole seconds, so the first
// second after it.
func after(since string, now time.Time) (string, error) {
	since = strings.TrimSpace(since)
	if since == "" {
		return "", nil
	}
	t, err := service.ParseSince(since, now)
	if err != nil {
		var zoneless error
		if t, zoneless = time.Parse("2006-01-02T15:04:05.999999999", since); zoneless != nil {
			return "", service.Usagef("pass an RFC 3339 time (2026-11-22T10:00:00Z), a date (2026-11-01) or a duration ago (2h, 3d)", "cannot read since_ts %q", since)
		}
	}
	return t.UTC().Truncate(time.Second).Add(time.Second).Format(time.RFC3339), nil
}

func (s *Server) inbox(ctx context.Context, c *call, p projectArgs, agent string, req service.InboxRequest) (service.InboxResponse, error) {
	sc, err := c.scope(p, agent)
	if err != nil {
		return service.InboxResponse{}, err
	}
	return c.svc.Inbox(ctx, sc, req)
}

func (s *Server) fetchInbox(ctx context.Context, c *call, in inboxArgs) (Inbox, error) {
	since, err := after(in.SinceTS, c.svc.Now())
	if err != nil {
		return Inbox{}, err
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return Inbox{}, err
	}
	r, err := c.svc.Inbox(ctx, sc, service.InboxRequest{Unread: in.UnreadOnly, Urgent: in.UrgentOnly,
		Category: in.Category, Since: since, Limit: intOr(in.Limit, defaultLimit), Bodies: in.IncludeBodies, Topic: in.Topic})
	if err != nil {
		return Inbox{}, err
	}
	return inboxDoc(r, sc), nil
}

func textFetched(r Inbox) string { return textInbox(r.InboxResponse) }

func textInbox(r service.InboxResponse) string {
	return listing(count(len(r.Messages), "message", "messages")+", newest first", lines(r.Messages, func(m service.InboxMessage) string {
		if m.Body == nil {
			return receivedHeader(m.Received)
		}
		return receivedEntry(m.Received, *m.Body)
	}))
}

type topicArgs struct {
	agentArgs
	TopicName     string `json:"topic_name" jsonschema:"the topic (case-insensitive)"`
	Limit         *int   `json:"limit,omitempty" jsonschema:"at most this many messages, newest first; default 50, 0 for all"`
	IncludeBodies *bool  `json:"include_bodies,omitempty" jsonschema:"include each message's markdown body; default true"`
	SinceTS       string `json:"since_ts,omitempty" jsonschema:"only messages created strictly after this time: RFC 3339, a date (2026-11-01), or a duration ago (2h, 3d)"`
}

// topicResult is fetch_topic's document: ours (topic, messages) and
// mcp_agent_mail's list of messages (result).
type topicResult struct {
	service.TopicResponse
	Result []mcpMessage `json:"result"`
}

// mcpMessage is a message as mcp_agent_mail's fetch_topic lists it, ids
// as strings.
type mcpMessage struct {
	ID          string               `json:"id"`
	ThreadID    string               `json:"thread_id"`
	Topic       string               `json:"topic"`
	Subject     string               `json:"subject"`
	From        string               `json:"from"`
	Importance  string               `json:"importance"`
	AckRequired bool                 `json:"ack_required"`
	CreatedTS   string               `json:"created_ts"`
	Attachments []service.Attachment `json:"attachments"`
	BodyMD      *string              `json:"body_md,omitempty"`
}

func (s *Server) fetchTopic(ctx context.Context, c *call, in topicArgs) (topicResult, error) {
	if strings.TrimSpace(in.TopicName) == "" {
		return topicResult{}, service.Usagef("pass topic_name, such as builds", "topic_name is empty")
	}
	since, err := after(in.SinceTS, c.svc.Now())
	if err != nil {
		return topicResult{}, err
	}
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return topicResult{}, err
	}
	resp, err := c.svc.Topic(ctx, sc, service.TopicRequest{Topic: in.TopicName, Since: since, Limit: intOr(in.Limit, 50), Bodies: boolOr(in.IncludeBodies, true)})
	if err != nil {
		return topicResult{}, err
	}
	out := topicResult{TopicResponse: resp, Result: make([]mcpMessage, len(resp.Messages))}
	for i, m := range resp.Messages {
		out.Result[i] = mcpMessage{ID: m.ID, ThreadID: m.Thread, Topic: m.Topic, Subject: m.Subject, From: m.From, Importance: m.Importance,
			AckRequired: m.AckRequired, CreatedTS: m.Created.Time.Format(time.RFC3339), Attachments: nonNilAttachments(m.Attachments), BodyMD: m.Body}
	}
	return out, nil
}

func nonNilAttachments(a []service.Attachment) []service.Attachment {
	if a == nil {
		return []service.Attachment{}
	}
	return a
}

func textTopic(r topicResult) string {
	return listing("topic "+r.Topic+": "+count(len(r.Messages), "message", "messages")+", newest first", lines(r.Messages, func(m service.InboxMessage) string {
		if m.Body == nil {
			return receivedHeader(m.Received)
		}
		return receivedEntry(m.Received, *m.Body)
	}))
}

type attachmentArgs struct {
	agentArgs
	MessageID string `json:"message_id" jsonschema:"the message: its id as fetch_inbox returns it, or a unique prefix of 6+ characters"`
	Name      string `json:"name" jsonschema:"the attachment's name, as the message's attachments list it"`
}

// attachmentResult is get_attachment's document: the attachment, its
// content in base64, and as text when it is valid UTF-8 without NULs.
type attachmentResult struct {
	service.AttachmentResponse
	ContentBase64 string  `json:"content_base64"`
	Text          *string `json:"text,omitempty"`
}

func (s *Server) getAttachment(ctx context.Context, c *call, in attachmentArgs) (attachmentResult, error) {
	if strings.TrimSpace(in.MessageID) == "" || in.Name == "" {
		return attachmentResult{}, service.Usagef("pass message_id and name, as a message's attachments list them", "message_id and name are required")
	}
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return attachmentResult{}, err
	}
	resp, err := c.svc.Attachment(ctx, sc, in.MessageID, in.Name)
	if err != nil {
		return attachmentResult{}, err
	}
	out := attachmentResult{AttachmentResponse: resp, ContentBase64: base64.StdEncoding.EncodeToString(resp.Data)}
	if utf8.Valid(resp.Data) && !bytes.ContainsRune(resp.Data, 0) {
		t := string(resp.Data)
		out.Text = &t
	}
	return out, nil
}

func textAttachment(r attachmentResult) string {
	a := r.Attachment
	return fmt.Sprintf("attachment %s of message %s: %s, %d bytes, sha256 %s", a.Name, r.Message, a.MediaType, a.Size, a.SHA256)
}

type markArgs struct {
	agentArgs
	MessageID  string   `json:"message_id,omitempty" jsonschema:"a message id as fetch_inbox returns it (a string), or a unique prefix of it of 6+ characters"`
	MessageIDs []string `json:"message_ids,omitempty" jsonschema:"more message ids (or prefixes)"`
	All        bool     `json:"all,omitempty" jsonschema:"every message of your inbox (to acknowledge: every one asking for an acknowledgement you have not given)"`
	idempotencyArgs
}

func (s *Server) mark(ctx context.Context, c *call, in markArgs, ack bool) (service.MarkResponse, error) {
	ids := in.MessageIDs
	if in.MessageID != "" {
		ids = append([]string{in.MessageID}, ids...)
	}
	if len(ids) == 0 && !in.All {
		return service.MarkResponse{}, service.Usagef("pass message_id (or message_ids), or all: true", "no message named")
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.MarkResponse{}, err
	}
	return c.svc.Mark(ctx, sc, service.MarkRequest{IDs: ids, All: in.All, Ack: ack, IdempotencyKey: in.IdempotencyKey})
}

func (s *Server) markRead(ctx context.Context, c *call, in markArgs) (Marked, error) {
	r, err := s.mark(ctx, c, in, false)
	return marked(r, false), err
}

func (s *Server) acknowledge(ctx context.Context, c *call, in markArgs) (Marked, error) {
	r, err := s.mark(ctx, c, in, true)
	return marked(r, true), err
}

func textMarked(verb string) func(Marked) string {
	return func(r Marked) string { return textMark(verb)(r.MarkResponse) }
}

func textMark(verb string) func(service.MarkResponse) string {
	return func(r service.MarkResponse) string {
		return listing(verb+" "+count(len(r.Messages), "message", "messages"), fullMessages(r.Messages))
	}
}

type searchArgs struct {
	agentArgs
	Query string `json:"query" jsonschema:"words (all must match), \"phrases\", prefix*, OR, NOT or -word, (groups), subject: body: from: to: thread: category: importance: since: before: filters"`
	Limit *int   `json:"limit,omitempty" jsonschema:"at most this many results, best first; default 20, 0 for all"`
	All   bool   `json:"all,omitempty" jsonschema:"the whole project's mail, not only yours (an overseer's session only)"`
}

func (s *Server) searchMessages(ctx context.Context, c *call, in searchArgs) (Searched, error) {
	if in.All && !s.cfg.Overseer {
		return Searched{}, fault.WithHint(fmt.Errorf("%w: searching the whole project's mail needs an overseer's session", service.ErrAuthenticationRequired),
			"leave all out to search your own mail; only an overseer's server searches the whole project")
	}
	sc, err := c.viewer(in.projectArgs, in.AgentName)
	if err != nil {
		return Searched{}, err
	}
	r, err := c.svc.Search(ctx, sc, service.SearchRequest{Query: in.Query, All: in.All, Limit: intOr(in.Limit, defaultLimit)})
	return searched(r), err
}

func textSearch(r service.SearchResponse) string {
	out := make([]string, 0, len(r.Results)+len(r.Notes))
	for _, h := range r.Results {
		out = append(out, fmt.Sprintf("%s %s from %s: %q (thread %s) %s", h.ID, stamp(h.Created), h.From, h.Subject, h.Thread, h.Snippet))
	}
	for _, n := range r.Notes {
		out = append(out, "note: "+n)
	}
	return listing(count(len(r.Results), "result", "results")+", best first", out)
}

type threadArgs struct {
	agentArgs
	ThreadID string `json:"thread_id" jsonschema:"a thread name, or the id (or a unique prefix) of a message in the thread"`
}

func (s *Server) thread(ctx context.Context, c *call, p projectArgs, agent, ref string) (service.ThreadResponse, error) {
	if strings.Contains(ref, ",") {
		return service.ThreadResponse{}, fault.WithHint(fmt.Errorf("%w: thread_id %q names several threads", service.ErrInvalidArgument, ref),
			"ask for one thread at a time")
	}
	sc, err := c.viewer(p, agent)
	if err != nil {
		return service.ThreadResponse{}, err
	}
	return c.svc.Thread(ctx, sc, ref)
}

func (s *Server) getThread(ctx context.Context, c *call, in threadArgs) (service.ThreadResponse, error) {
	return s.thread(ctx, c, in.projectArgs, in.AgentName, in.ThreadID)
}

func textThread(r service.ThreadResponse) string {
	return listing("thread "+r.Thread+", "+count(len(r.Messages), "message", "messages")+", oldest first", fullMessages(r.Messages))
}

type summarizeArgs struct {
	threadArgs
	IncludeExamples *bool  `json:"include_examples,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: every message is included"`
	LLMMode         *bool  `json:"llm_mode,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored: no LLM is involved"`
	LLMModel        string `json:"llm_model,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
	PerThreadLimit  *int   `json:"per_thread_limit,omitempty" jsonschema:"accepted for mcp_agent_mail clients and ignored"`
}

// Summary is the document of summarize_thread: the thread's document, its
// participants, and its digest under mcp_agent_mail's names (thread_id,
// summary).
type Summary struct {
	service.ThreadResponse
	// Participants are every sender and recipient of the thread's
	// messages as the viewer sees them, once each, in order of first
	// appearance.
	Participants []string `json:"participants"`
	// ThreadID is Thread, under mcp_agent_mail's name.
	ThreadID string `json:"thread_id"`
	// Summary is the thread's extractive digest (service.Summarize).
	Summary service.Digest `json:"summary"`
}

func summarize(t service.ThreadResponse) Summary {
	d := service.Summarize(t.Messages)
	return Summary{ThreadResponse: t, Participants: d.Participants, ThreadID: t.Thread, Summary: d}
}

func (s *Server) summarizeThread(ctx context.Context, c *call, in summarizeArgs) (Summary, error) {
	t, err := s.thread(ctx, c, in.projectArgs, in.AgentName, in.ThreadID)
	return summarize(t), err
}

func textSummary(r Summary) string {
	return "participants: " + names(r.Participants) + "\n" + textThread(r.ThreadResponse)
}

type checkArgs struct {
	agentArgs
	Newest *int `json:"newest,omitempty" jsonschema:"how many of the newest unread messages to list; default 3"`
}

func (s *Server) checkMail(ctx context.Context, c *call, in checkArgs) (service.CheckResponse, error) {
	newest := intOr(in.Newest, 3)
	if newest < 0 {
		return service.CheckResponse{}, service.Usagef("pass newest: 0 or more", "newest must not be negative, got %d", newest)
	}
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.CheckResponse{}, err
	}
	return c.svc.Check(ctx, sc, service.CheckRequest{Newest: newest})
}

func textCheck(r service.CheckResponse) string {
	if !r.Waiting() {
		return "nothing waits: no unread mail, no contact requests, no new posts, nobody stuck, no ready work"
	}
	out := append(steeringText(r.Steering), fmt.Sprintf("%s (%d urgent), %d awaiting your acknowledgement, %s",
		count(r.Unread, "unread message", "unread messages"), r.Urgent, r.AwaitingAck, count(r.ContactRequests, "contact request", "contact requests")))
	for _, m := range r.Messages {
		out = append(out, header(m))
	}
	if r.ReadyTasks > 0 {
		out = append(out, count(r.ReadyTasks, "task", "tasks")+" ready and you hold none: list_ready_work, then claim_task")
	}
	for _, a := range r.Stuck {
		out = append(out, a.Agent+" is stuck"+suffix(a.Note))
	}
	if r.RulesChanged != nil {
		out = append(out, "the project's rules for you changed (version "+r.RulesChanged.Version+"): get_rules returns them")
	}
	if r.Posts > 0 {
		out = append(out, count(r.Posts, "new post", "new posts")+" in your channels (wait_for_mail with topic reads the next one):")
		for _, m := range r.NewPosts {
			out = append(out, "#"+m.Topic+" "+header(m))
		}
	}
	return strings.Join(out, "\n")
}

type waitArgs struct {
	agentArgs
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"give up after this many seconds (timed_out: true); default 30, at most 600; 0 checks once. MCP clients often give up on a call after 60 seconds"`
	ThreadID       string `json:"thread_id,omitempty" jsonschema:"only mail in this thread: a thread name, or the id (or a unique prefix) of a message in it"`
	From           string `json:"from,omitempty" jsonschema:"only mail from this agent"`
	UrgentOnly     bool   `json:"urgent_only,omitempty" jsonschema:"only high and urgent mail"`
	Topic          string `json:"topic,omitempty" jsonschema:"instead of mail, the next post to this channel you have not read (by another agent; after the last one you read, else since you subscribed, else from now on), which is then marked read; alone, without the mail filters"`
}

// Waited is the document of wait_for_mail: wait's document, and TimedOut,
// which says the same as its timeout under the name MCP tools use.
type Waited struct {
	service.WaitResponse
	TimedOut bool `json:"timed_out"`
}

// Bounds of wait_for_mail's timeout.
const (
	defaultWait = 30 * time.Second
	maxWait     = 10 * time.Minute
)

func (s *Server) waitForMail(ctx context.Context, req *mcp.CallToolRequest, in waitArgs) (Waited, error) {
	timeout, err := seconds(intOr(in.TimeoutSeconds, int(defaultWait/time.Second)), "timeout_seconds")
	if err != nil {
		return Waited{}, err
	}
	var resp service.WaitResponse
	err = s.unlocked(ctx, req, timeout > 0, func(c *call) (service.Scope, error) { return c.scope(in.projectArgs, in.AgentName) },
		func(ctx context.Context, svc *service.Service, sc service.Scope) error {
			resp, err = svc.Wait(ctx, sc, service.WaitRequest{Timeout: min(timeout, maxWait), Thread: in.ThreadID, From: in.From, Urgent: in.UrgentOnly, Topic: in.Topic})
			if errors.Is(err, service.ErrTimeout) {
				return nil
			}
			return err
		})
	if err != nil {
		return Waited{}, err
	}
	if resp.Messages == nil {
		resp.Messages = []service.FullMessage{}
	}
	return Waited{WaitResponse: resp, TimedOut: resp.Timeout}, nil
}

func textWait(r Waited) string {
	if r.TimedOut {
		return "no new mail arrived in time (timed_out); wait again or check fetch_inbox"
	}
	return listing(count(len(r.Messages), "new message", "new messages"), fullMessages(r.Messages))
}
