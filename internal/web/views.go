package web

import (
	"slices"
	"time"
)

// The types below are what the pages show. Their fields are the keys of
// the --json documents (README.md, "JSON output"), named as the service
// layer names them, so that a handler fills them by copying its response
// field for field. A time is the zero time where the document has null.

// Project is a project and what the store holds of it: the project
// document's key and slug, and its holds.
type Project struct {
	Key   string
	Slug  string
	Holds Counts
	// Latest is the project's newest message, which the projects page
	// links to; nil when it has none (or the page does not show it).
	Latest *Message
}

// Counts are a project's registered agents, messages and active
// reservations (the holds document).
type Counts struct {
	Agents       int
	Messages     int
	Reservations int
}

// Agent is the agent document; State (active, idle or stale) and
// Reservations (active ones) are what the agents listing adds.
type Agent struct {
	Name         string
	Program      string
	Model        string
	Task         string
	Registered   time.Time
	LastSeen     time.Time
	Retired      bool
	Policy       string
	State        string
	Reservations *int
	// Work is the state the agent says it is in (running, idle, stuck,
	// done; "" for none), with its note.
	Work, WorkNote string
	// PausedBy is who paused the agent ("" while it is not paused), and
	// why.
	PausedBy, PauseReason string
	// Role is the role it plays ("" for none), Branch the branch of the
	// working tree it last ran a command in, Claims the tasks it holds.
	Role, Branch string
	Claims       []Claim
	// Mail is what waits in its mailbox; nil where the page does not
	// show it.
	Mail *MailCounts
}

// MailCounts are what waits in an agent's mailbox, each counted up to
// service.MailCountCap.
type MailCounts struct {
	Unread, Urgent, AwaitingAck, AcksOwed int
}

// Claim is a task an agent holds, as its card names it.
type Claim struct {
	ID, Title string
}

// Message is the message document: a message's headers.
type Message struct {
	ID          string
	Thread      string
	From        string
	To          []string
	Cc          []string
	Bcc         []string
	Subject     string
	Importance  string // low, normal, high or urgent
	AckRequired bool
	Category    *string // HANDOFF, BLOCKED, DECISION or INFO; nil when unset
	ReplyTo     *string
	Created     time.Time
	Path        string // the canonical file in the archive
	Topic       string // the channel it was posted to; "" for none
	Attachments []Attachment
}

// Attachment is a file attached to a message, as the message's document
// lists it.
type Attachment struct {
	Name      string
	SHA256    string
	Size      int64
	MediaType string
}

// AttachmentList is what the attachments of a message are shown with: the
// message's project and id, and the agent whose view the page is.
type AttachmentList struct {
	Project, Message, Agent string
	Attachments             []Attachment
}

// Inline reports whether the page shows the attachment as an image: a
// raster image type that browsers render without running anything (SVG,
// which may hold scripts, is a download).
func (a Attachment) Inline() bool { return InlineImage(a.MediaType) }

// Received is a message with its receipt, as the viewing agent has it.
type Received struct {
	Message
	ReadAt  time.Time
	AckedAt time.Time
}

// FullMessage is a message with its receipt and body.
type FullMessage struct {
	Received
	Body string
}

// AwaitingAck is a message of acks overdue: it asks for an ack that the
// agents of WaitingFor have not given.
type AwaitingAck struct {
	Received
	WaitingFor []string
}

// Reservation is the reservation document: a lease on a pattern of paths.
type Reservation struct {
	ID        string
	Agent     string
	Pattern   string
	Exclusive bool
	Reason    string
	Created   time.Time
	Expires   time.Time
	Released  time.Time
	// Clashes are the other agents' active leases it overlaps (taken
	// with --allow-conflicts), which the page flags.
	Clashes []Reservation
}

// Lock is the lock document: a named lock and its holder.
type Lock struct {
	Key     string
	Holder  string
	Created time.Time
	Expires time.Time
}

// Contact is the contact document: a request to write to an agent and
// its answer.
type Contact struct {
	From      string
	To        string
	State     string // requested, approved or denied
	Reason    string
	Requested time.Time
	Decided   time.Time
	Expires   time.Time
}

// SearchHit is a result of the search document. Snippet is the document's
// (hits marked as [hit]); Marked, when set, is the same snippet with fts's
// markers (see service.SearchHit.Marked), which the page shows highlighted.
type SearchHit struct {
	ID      string
	Thread  string
	From    string
	Subject string
	Created time.Time
	Snippet string
	Score   float64
	Marked  string
}

// Page is what every page has. Handlers set Project on a project's pages,
// and Now to the time the page shows relative times against.
type Page struct {
	Project *Project
	Now     time.Time
	// Events is the address of the event stream the page listens to (its
	// live.js shows a "reload" banner on the event types of Live); empty
	// for a page that needs no live updates.
	Events string
	Live   []string
	// LiveThread, LiveFrom and LiveIDs narrow the banner to the events
	// of the page's own messages, which the stream cannot select: message
	// events of the thread LiveThread or from the agent LiveFrom, receipts
	// of the messages LiveIDs. Unset, every event of the Live types counts.
	LiveThread string
	LiveFrom   string
	LiveIDs    []string
}

// ProjectsView is the first page: every project of the store.
type ProjectsView struct {
	Page
	Projects []Project
}

// ProjectView is a project's page: its agents with their presence, and
// what each holds.
type ProjectView struct {
	Page
	Timeline     Timeline
	Agents       []Agent
	Reservations []Reservation // active ones
	Locks        []Lock
}

// Timeline is a page of a project's timeline: what happened (messages,
// posts, leases, task changes, agents' states and controls), newest first,
// as Filter selects it.
type Timeline struct {
	Items  []TimelineItem
	Filter TimelineFilter
	// Older is the address of the next page ("" on the last); Newest is
	// set on the first page, which new items join as they arrive.
	Older  string
	Newest bool
}

// TimelineItem is one thing that happened, the timeline item document:
// Kind is message, post, lease, task, state or control; Event what
// happened to a lease, a task or an agent; Message is set for a message
// or post, Pattern for a lease, Task for a task change.
type TimelineItem struct {
	Kind, Key, Event string
	Agent, By, Note  string
	At               time.Time
	Message          *Message
	Pattern          string
	Exclusive        bool
	Task             TaskRef
}

// TimelineKinds are the kinds of items the timeline's filter offers.
var TimelineKinds = []string{"message", "post", "lease", "task", "state", "control"}

// TimelineFilter is what a timeline keeps (the query of its page).
type TimelineFilter struct {
	Agent, Kind, Task, Category, Importance, Topic string
	Unread, AwaitingAck                            bool
	Limit                                          int
}

// Active reports whether the filter keeps less than every item.
func (f TimelineFilter) Active() bool {
	return f.Agent != "" || f.Kind != "" || f.Task != "" || f.Category != "" || f.Importance != "" || f.Topic != "" || f.Unread || f.AwaitingAck
}

// MailboxView is an agent's inbox or outbox, newest first, one page of it.
type MailboxView struct {
	Page
	Agent    Agent
	Outbox   bool
	Messages []Received
	// Before is the cursor this page starts at ("" for the newest), Older
	// the cursor of the next page ("" when there is none): a message id,
	// the page lists messages strictly older than it.
	Before string
	Older  string
	// CSRF is set on an inbox the overseer may steer from (an agent's,
	// not Human's): the steering form's token. Steered says what the
	// last steering did, Error and Hint why it could not.
	CSRF        string
	Steered     string
	Error, Hint string
}

// MessageView is one message with its thread, as Agent (if set) sees it.
type MessageView struct {
	Page
	Agent   string
	Message FullMessage
	// Thread is the thread's messages around this one (see Around),
	// oldest first, and ThreadSize how many the thread has.
	Thread     []Received
	ThreadSize int
	// Commit is the archive commit the message file is read from; with
	// Message.Path it names the file in the archive.
	Commit string
}

// ThreadView is a whole thread, oldest first.
type ThreadView struct {
	Page
	Thread   string
	Agent    string
	Messages []FullMessage
}

// SearchView is the search page: the query as typed, its filters, and
// the results (Searched says whether a search ran).
type SearchView struct {
	Page
	Query    string
	Filters  SearchFilters
	Searched bool
	Results  []SearchHit
	Notes    []string
	// Offset is how many results earlier pages showed (the first result
	// here is number Offset+1), More whether later ones exist; PrevURL
	// and NextURL are the addresses of the pages before and after ("" for
	// none).
	Offset  int
	More    bool
	PrevURL string
	NextURL string
	// Error and Hint say why the query could not be run (the page is
	// shown again with it).
	Error string
	Hint  string
}

// ReservationsView lists a project's reservations, expired and released
// ones too, and its locks.
type ReservationsView struct {
	Page
	Reservations []Reservation
	Locks        []Lock
	// Path is the path the "who holds this path" form asked about ("":
	// none), and Holders the active reservations covering it.
	Path    string
	Holders []Reservation
	// AsOf is set when the page shows what was held as of an archive
	// commit (Page.Now is then that commit's time).
	AsOf string
	// Steering is the force-release form's (CSRF set: not a past page).
	Steering
}

// ContactsView lists a project's contact requests.
type ContactsView struct {
	Page
	Contacts []Contact
}

// AcksView lists the messages of a project still waiting for an ack.
type AcksView struct {
	Page
	Pending []AwaitingAck
}

// ComposeView is the overseer's form: a message from Human to agents of
// the project, or to all of them, or (ReplyTo set) an answer to a message
// in its thread. Sent is the message just sent, Error what was wrong with
// the form sent (which it shows again); ConfirmAll asks to confirm a
// message to every agent.
type ComposeView struct {
	Page
	Agents     []Agent
	Form       ComposeForm
	CSRF       string // Guard.CSRFToken
	MaxSubject int    // the longest subject the server takes, in characters
	ReplyTo    *Message
	Sent       *Message
	Error      string
	Hint       string
	ConfirmAll bool
}

// Channel is a topic of the project's messages: how many there are, and
// when the last was sent.
type Channel struct {
	Topic    string
	Messages int
	Last     time.Time
}

// ChannelsView lists the project's channels (the topics of its
// messages), most recently active first.
type ChannelsView struct {
	Page
	Channels []Channel
}

// ChannelView is a channel: its messages newest first (posts, and mail
// filed under its topic), and the form posting to it as Human. Posted is
// the post just made, Error and Hint what was wrong with the form (shown
// again in Form).
type ChannelView struct {
	Page
	Topic    string
	Messages []Received
	CSRF     string
	Form     PostForm
	Posted   *Message
	Error    string
	Hint     string
}

// Change is a commit of a project's archive: who made it, when, what it
// means (its subject) and the archive's files it changed.
type Change struct {
	Commit  string
	Author  string
	Time    time.Time
	Subject string
	Files   []string
	// Means says what the changed files mean, one line each: "message
	// “hi” sent by GreenCastle to BlueLake".
	Means []string
}

// HistoryView is a page of a project's history, newest first: the
// commits of From's history after the first Skip; Next is the skip of the
// next page (0: there is none).
type HistoryView struct {
	Page
	Changes []Change
	From    string
	Skip    int
	Next    int
}

// ErrorView is a page that could not be shown.
type ErrorView struct {
	Page
	Status  int
	Code    string
	Message string
	Hint    string
}

// ThreadWindow is how many messages of its thread a message page lists:
// those around the message; the thread page lists them all. A thread of
// hundreds would cost a page most of its time.
const ThreadWindow = 25

// Around returns at most n messages of thread (oldest first) around the
// one with id: as many before it as after, fewer on a side the thread
// ends on. Without it among them, the newest n.
func Around(thread []Received, id string, n int) []Received {
	if len(thread) <= n {
		return thread
	}
	at := slices.IndexFunc(thread, func(m Received) bool { return m.ID == id })
	if at < 0 {
		return thread[len(thread)-n:]
	}
	start := min(max(at-n/2, 0), len(thread)-n)
	return thread[start : start+n]
}
