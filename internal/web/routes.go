package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
)

// The routes of the web UI, as http.ServeMux patterns; the serve command
// mounts a handler on each. {project} is a project's slug, {agent} an
// agent's name, {id} a message id, {thread} a thread name (path-escaped:
// it may hold any character).
const (
	StaticPrefix      = "/static/"
	RouteStatic       = "GET /static/{file}"
	RouteProjects     = "GET /mail/{$}"
	RouteProject      = "GET /mail/{project}"
	RouteInbox        = "GET /mail/{project}/inbox/{agent}"
	RouteOutbox       = "GET /mail/{project}/outbox/{agent}"
	RouteMessage      = "GET /mail/{project}/message/{id}"
	RouteThread       = "GET /mail/{project}/thread/{thread}"
	RouteSearch       = "GET /mail/{project}/search"
	RouteReservations = "GET /mail/{project}/reservations"
	RouteContacts     = "GET /mail/{project}/contacts"
	RouteAcks         = "GET /mail/{project}/acks"
	RouteCompose      = "GET /mail/{project}/compose"
	RouteSend         = "POST /mail/{project}/compose"
	RouteArchive      = "GET /mail/{project}/archive/{commit}/{path...}"
	RouteAttachment   = "GET /mail/{project}/message/{id}/attachment/{name}"
	RouteControl      = "POST /mail/{project}/inbox/{agent}/control"
	RouteChannels     = "GET /mail/{project}/channels"
	RouteChannel      = "GET /mail/{project}/channel/{topic}"
	RoutePost         = "POST /mail/{project}/channel/{topic}"
	RouteHistory      = "GET /mail/{project}/history"
)

// AttachmentURL is the address of an attachment of a message, as agent
// (if set) sees it; inline asks for an image to show in the page rather
// than a download.
func AttachmentURL(project, id, name, agent string, inline bool) string {
	q := url.Values{}
	if agent != "" {
		q.Set("agent", agent)
	}
	if inline {
		q.Set("inline", "1")
	}
	u := mailURL(project, "message", id, "attachment", name)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// mailURL joins path segments under /mail/, escaping each.
func mailURL(segments ...string) string {
	var b strings.Builder
	b.WriteString("/mail/")
	for i, s := range segments {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// ProjectURL is the address of a project's page (its agents).
func ProjectURL(project string) string { return mailURL(project) }

// InboxURL is the address of an agent's inbox, from its newest message or,
// with before set, from the message before that id.
func InboxURL(project, agent, before string) string {
	return withQuery(mailURL(project, "inbox", agent), "before", before)
}

// OutboxURL is the address of an agent's outbox, like InboxURL.
func OutboxURL(project, agent, before string) string {
	return withQuery(mailURL(project, "outbox", agent), "before", before)
}

// ControlURL is where the form steering an agent (pause, resume,
// interrupt) is sent.
func ControlURL(project, agent string) string { return mailURL(project, "inbox", agent, "control") }

// HistoryURL is the address of a page of a project's history: the
// commits of from's history ("" for the head) after the first skip.
func HistoryURL(project, from string, skip int) string {
	u := mailURL(project, "history")
	if from == "" {
		return u
	}
	return u + "?" + url.Values{"from": {from}, "skip": {strconv.Itoa(skip)}}.Encode()
}

// LeasesAtURL is the address of the reservations page as of a commit of
// the archive: what was held then.
func LeasesAtURL(project, commit string) string {
	return withQuery(mailURL(project, "reservations"), "at", commit)
}

// ChannelURL is the address of a channel's page: its posts, newest first,
// and the form posting to it.
func ChannelURL(project, topic string) string { return mailURL(project, "channel", topic) }

// MessageURL is the address of a message, as agent (if set) sees it.
func MessageURL(project, id, agent string) string {
	return withQuery(mailURL(project, "message", id), "agent", agent)
}

// ThreadURL is the address of a thread.
func ThreadURL(project, thread string) string { return mailURL(project, "thread", thread) }

// Human is the human overseer's mailbox: the sender of what the compose
// form sends, and a recipient agents answer.
const Human = service.HumanSender

// ReplyURL is the address of the compose form answering a message.
func ReplyURL(project, id string) string {
	return withQuery(mailURL(project, "compose"), "reply", id)
}

// SearchURL is the address of the search page with a query.
func SearchURL(project, query string) string {
	return withQuery(mailURL(project, "search"), "q", query)
}

// ArchiveURL is the address of a file of the archive as of a commit.
func ArchiveURL(project, commit, path string) string {
	u := mailURL(project, "archive", commit)
	for _, s := range strings.Split(path, "/") {
		u += "/" + url.PathEscape(s)
	}
	return u
}

// withQuery adds ?key=value to u when value is set.
func withQuery(u, key, value string) string {
	if value == "" {
		return u
	}
	return u + "?" + url.Values{key: {value}}.Encode()
}
