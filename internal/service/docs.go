package service

import (
	"time"

	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/importer"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
)

// The types below are the parts of the --json documents, a stable
// interface (README.md, "JSON output"): fields may be added, never renamed
// or removed. Documents that were once built as maps keep their keys in
// alphabetical order, as encoding/json wrote them.

// Time is a time in a document: RFC 3339 UTC, or null when it is zero.
type Time struct{ time.Time }

// MarshalJSON writes t as RFC 3339 UTC, or null when t is zero. The
// formatted time is digits and "-:TZ" only, which JSON needs no escape
// for, so it is quoted as it is: a document of 50 reservations has 150
// times, each of which json.Marshal would pass through an encoder of its
// own.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(record.TimeFormat)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, record.TimeFormat)
	return append(b, '"'), nil
}

// timeOf is t, or the zero Time for nil.
func timeOf(t *time.Time) Time {
	if t == nil {
		return Time{}
	}
	return Time{*t}
}

// optString is s, or nil (null) when it is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// mapSlice applies f to each element of s.
func mapSlice[T, D any](s []T, f func(T) D) []D {
	out := make([]D, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// Agent is an agent's profile. Agents adds its presence and its active
// reservations.
type Agent struct {
	Name         string `json:"name"`
	Program      string `json:"program"`
	Model        string `json:"model"`
	Task         string `json:"task"`
	Registered   Time   `json:"registered"`
	LastSeen     Time   `json:"last_seen"`
	Retired      bool   `json:"retired"`
	Policy       string `json:"policy"`
	State        string `json:"state,omitempty"`        // active, idle or stale; in Agents only
	Reservations *int   `json:"reservations,omitempty"` // active ones; in Agents only
	// Work is the state the agent says it is in (running, idle, stuck,
	// done), and Paused its pause while it is paused; in Agents and Whoami.
	Work     *WorkState `json:"work,omitempty"`
	Paused   *Control   `json:"paused,omitempty"`
	Role     string     `json:"role"`
	Branch   string     `json:"branch,omitempty"`   // of the working tree it last ran a command in (this machine's view)
	Worktree string     `json:"worktree,omitempty"` // that working tree's root
	// Claims are the tasks it holds, not closed; in Agents only.
	Claims *[]AgentClaim `json:"claims,omitempty"`
}

// AgentMail is what waits in an agent's mailbox, each counted up to
// MailCountCap.
type AgentMail struct {
	Unread      int `json:"unread"`
	Urgent      int `json:"urgent"`       // unread and high or urgent
	AwaitingAck int `json:"awaiting_ack"` // received, ack requested, not acknowledged
	AcksOwed    int `json:"acks_owed"`    // acknowledgements its recipients owe it
}

// MailCountCap bounds each of AgentMail's counts.
const MailCountCap = mailbox.MailCountCap

// AgentClaim is a task an agent holds, as the agents list names it.
type AgentClaim struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

func agentDoc(a mailbox.Agent) Agent {
	return Agent{Name: a.Name, Program: a.Program, Model: a.Model, Task: a.Task,
		Registered: Time{a.Registered}, LastSeen: Time{a.LastSeen}, Retired: a.Retired, Policy: a.Policy,
		Role: a.Role, Branch: a.Branch, Worktree: a.Worktree}
}

// listedAgentDoc adds what Agents reports beyond the profile.
func listedAgentDoc(a mailbox.Agent) Agent {
	d := agentDoc(a)
	d.State, d.Reservations = a.State, &a.Reservations
	return d
}

// Message is a message's headers, as its viewer sees them: Bcc lists
// every bcc recipient for the sender, only the viewer for a bcc recipient,
// and nobody for anyone else.
type Message struct {
	ID          string   `json:"id"`
	Thread      string   `json:"thread"`
	From        string   `json:"from"`
	To          []string `json:"to"`
	Cc          []string `json:"cc"`
	Bcc         []string `json:"bcc"`
	Subject     string   `json:"subject"`
	Importance  string   `json:"importance"`
	AckRequired bool     `json:"ack_required"`
	Category    *string  `json:"category"`
	ReplyTo     *string  `json:"reply_to"`
	Created     Time     `json:"created"`
	Path        string   `json:"path"` // the canonical file in the archive
	// Topic is the channel the message was posted to; omitted when none.
	Topic string `json:"topic,omitempty"`
	// Attachments are the files stored beside it; omitted when none.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Received is a message with the viewer's receipt.
type Received struct {
	Message
	ReadAt  Time `json:"read_at"`
	AckedAt Time `json:"acked_at"`
}

// FullMessage is a message with the viewer's receipt and its body.
type FullMessage struct {
	Received
	Body string `json:"body"`
}

func messageDoc(m mailbox.Message) Message {
	return Message{
		ID: m.ID, Thread: m.Thread, From: m.From, To: m.To, Cc: m.Cc, Bcc: m.Bcc,
		Subject: m.Subject, Importance: m.Importance, AckRequired: m.AckRequired,
		Category: optString(m.Category), ReplyTo: optString(m.ReplyTo), Created: Time{m.Created}, Path: m.Path,
		Topic: m.Topic, Attachments: attachmentDocs(m.Project, m.Attachments),
	}
}

func receivedDoc(m mailbox.Message) Received {
	return Received{messageDoc(m), timeOf(m.ReadAt), timeOf(m.AckedAt)}
}

func fullDoc(m mailbox.Message) FullMessage { return FullMessage{receivedDoc(m), m.Body} }

// Contact is a contact request and its answer.
type Contact struct {
	From      string `json:"from"`
	To        string `json:"to"`
	State     string `json:"state"` // requested, approved or denied
	Reason    string `json:"reason"`
	Requested Time   `json:"requested"`
	Decided   Time   `json:"decided"`
	Expires   Time   `json:"expires"`
}

func contactDoc(c mailbox.Contact) Contact {
	return Contact{c.From, c.To, c.State, c.Reason, Time{c.Requested}, Time{c.Decided}, Time{c.Expires}}
}

// Reservation is a lease on a pattern of repository paths.
type Reservation struct {
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	Pattern   string `json:"pattern"`
	Exclusive bool   `json:"exclusive"`
	Reason    string `json:"reason"`
	Created   Time   `json:"created"`
	Expires   Time   `json:"expires"`
	Released  Time   `json:"released"`
	// Unconfirmed: granted with --offline, not yet decided by a push;
	// present only when true, so documents of other leases are as before.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
	// Auto: taken by the edit guard when the agent edited a path nobody
	// held (guard edit --auto-reserve), released when its session ends;
	// Session is that coding session. Present only when set.
	Auto    bool   `json:"auto,omitempty"`
	Session string `json:"session,omitempty"`
}

func reservationDoc(r reservations.Reservation) Reservation {
	return Reservation{r.ID, r.Agent, r.Pattern, r.Exclusive, r.Reason, Time{r.Created}, Time{r.Expires}, Time{r.Released}, r.Unconfirmed,
		r.Auto, r.Session}
}

func reservationDocs(rs []reservations.Reservation) []Reservation {
	return mapSlice(rs, reservationDoc)
}

// Conflict is another agent's reservation that stands in the way of a
// pattern asked for.
type Conflict struct {
	Pattern       string `json:"pattern"`
	Holder        string `json:"holder"`
	HolderPattern string `json:"holder_pattern"`
	Exclusive     bool   `json:"exclusive"`
	Expires       Time   `json:"expires"`
}

func conflictDoc(k reservations.Conflict) Conflict {
	return Conflict{k.Pattern, k.Holder, k.HolderPattern, k.Exclusive, Time{k.Expires}}
}

// Lock is a named lock and its holder.
type Lock struct {
	Key      string `json:"key"`
	Holder   string `json:"holder"`
	Created  Time   `json:"created"`
	Expires  Time   `json:"expires"`
	Released Time   `json:"released"` // when the holder let go; null while held
	// Unconfirmed: taken with --offline, not yet decided by a push;
	// present only when true.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

func lockDoc(l reservations.Lock) Lock {
	return Lock{l.Key, l.Holder, Time{l.Created}, Time{l.Expires}, Time{l.Released}, l.Unconfirmed}
}

// Counts counts a project's agents, messages and reservations: what an
// import brought in, or what a project holds.
type Counts struct {
	Agents       int `json:"agents"`
	Messages     int `json:"messages"`
	Reservations int `json:"reservations"`
}

// Empty reports whether every count is zero.
func (c Counts) Empty() bool { return c == Counts{} }

func importCountsDoc(c importer.Counts) Counts { return Counts(c) }

func holdingsDoc(h mailbox.Holdings) Counts { return Counts(h) }

// SearchHit is one search result.
type SearchHit struct {
	ID      string  `json:"id"`
	Thread  string  `json:"thread"`
	From    string  `json:"from"`
	Subject string  `json:"subject"`
	Created Time    `json:"created"`
	Snippet string  `json:"snippet"` // hits marked as [hit]
	Score   float64 `json:"score"`   // bm25, higher is better

	marked string // the snippet with fts's markers
	// importance and ack, for the product search's hits (ProductHit),
	// which carry them as mcp_agent_mail's do.
	importance string
	ack        bool
}

// Highlight returns the snippet, passed through escape (which must keep
// fts's private-use markers), with its hits marked as [hit], or in bold
// on an ANSI terminal.
func (h SearchHit) Highlight(escape func(string) string, terminal bool) string {
	if terminal {
		return fts.HighlightTerminal(escape(h.marked))
	}
	return fts.HighlightText(escape(h.marked))
}

// Marked returns the snippet with fts's markers (fts.MarkOpen and
// fts.MarkClose) around the hits, for a page that highlights them itself.
func (h SearchHit) Marked() string { return h.marked }

// Highlight replaces the markers in a snippet from Marked with open and
// close, such as a page's <mark> tags.
func Highlight(marked, open, close string) string { return fts.Highlight(marked, open, close) }

func searchHitDoc(m mailbox.Message, h fts.Hit) SearchHit {
	return SearchHit{m.ID, m.Thread, m.From, m.Subject, Time{m.Created}, fts.HighlightText(h.Snippet), h.Score, h.Snippet, m.Importance, m.AckRequired}
}
