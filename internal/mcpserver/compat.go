package mcpserver

import (
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// The documents of the tools mcp_agent_mail also has are supersets of
// its: its fields, in its shape, beside ours (docs/mcp-tools.md §1.4), so
// that a program written for it reads ours unchanged. Its ids are
// integers, ours strings: a message's and a reservation's id is its ULID,
// an agent's its name, a project's its slug.

// MAMMessage is a message as mcp_agent_mail's tools write one: in
// send_message's deliveries, reply_message's document and fetch_inbox's
// result.
type MAMMessage struct {
	ID          string       `json:"id"`
	ProjectID   string       `json:"project_id"` // the project's slug
	SenderID    string       `json:"sender_id"`  // the sender's name
	ThreadID    string       `json:"thread_id"`
	Topic       *string      `json:"topic"` // null: no topic
	Subject     string       `json:"subject"`
	Importance  string       `json:"importance"`
	AckRequired bool         `json:"ack_required"`
	CreatedTS   service.Time `json:"created_ts"`
	Attachments []string     `json:"attachments"` // always empty: no attachments here
	BodyMD      *string      `json:"body_md,omitempty"`
	From        string       `json:"from"`
	To          []string     `json:"to,omitempty"`
	Cc          []string     `json:"cc,omitempty"`
	Bcc         []string     `json:"bcc,omitempty"`
	Kind        string       `json:"kind,omitempty"` // in an inbox: to, cc or bcc, how the reader was addressed
}

// mamMessage writes m as mcp_agent_mail does, in project slug.
func mamMessage(m service.Message, slug string, body *string) MAMMessage {
	return MAMMessage{ID: m.ID, ProjectID: slug, SenderID: m.From, ThreadID: m.Thread, Subject: m.Subject, Importance: m.Importance,
		AckRequired: m.AckRequired, CreatedTS: m.Created, Attachments: []string{}, BodyMD: body, From: m.From}
}

// projectOf returns the key and slug of the project sc names ("" when it
// names none the service can resolve, which a call that succeeded did).
func scopeProject(sc service.Scope) (key, slug string) {
	p, err := service.ResolveProject(sc.Project)
	if err != nil {
		return "", ""
	}
	return p.Key, p.Slug
}

// Delivery is one entry of send_message's deliveries: the project the
// message went to and the message.
type Delivery struct {
	Project string     `json:"project"`
	Payload MAMMessage `json:"payload"`
}

// Sent is the document of send_message: send's document (message), and
// mcp_agent_mail's deliveries and count.
type Sent struct {
	service.SendResponse
	Deliveries []Delivery `json:"deliveries"`
	Count      int        `json:"count"`
}

func sent(r service.SendResponse, sc service.Scope, body string) Sent {
	key, slug := scopeProject(sc)
	p := mamMessage(r.Message, slug, &body)
	p.To, p.Cc, p.Bcc = nonNil(r.Message.To), nonNil(r.Message.Cc), nonNil(r.Message.Bcc)
	return Sent{SendResponse: r, Deliveries: []Delivery{{Project: key, Payload: p}}, Count: 1}
}

// Replied is the document of reply_message: mcp_agent_mail's (the reply
// written flat, reply_to, deliveries, count) and ours (message).
type Replied struct {
	MAMMessage
	ReplyTo string `json:"reply_to"`
	Sent
}

func replied(r service.SendResponse, sc service.Scope, body string) Replied {
	s := sent(r, sc, body)
	out := Replied{MAMMessage: s.Deliveries[0].Payload, Sent: s}
	if r.Message.ReplyTo != nil {
		out.ReplyTo = *r.Message.ReplyTo
	}
	return out
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// Inbox is the document of fetch_inbox: the inbox's (messages) and
// mcp_agent_mail's list of messages under result, where its server puts
// the list a tool returns.
type Inbox struct {
	service.InboxResponse
	Result []MAMMessage `json:"result"`
}

func inboxDoc(r service.InboxResponse, sc service.Scope) Inbox {
	_, slug := scopeProject(sc)
	out := Inbox{InboxResponse: r, Result: make([]MAMMessage, len(r.Messages))}
	for i, m := range r.Messages {
		e := mamMessage(m.Message, slug, m.Body)
		e.Kind = kind(m.Message, sc.Agent)
		out.Result[i] = e
	}
	return out
}

// kind says how agent was addressed by m: to, cc or bcc.
func kind(m service.Message, agent string) string {
	is := func(n string) bool { return strings.EqualFold(n, agent) }
	switch {
	case slices.ContainsFunc(m.Cc, is) && !slices.ContainsFunc(m.To, is):
		return "cc"
	case slices.ContainsFunc(m.Bcc, is) && !slices.ContainsFunc(m.To, is):
		return "bcc"
	}
	return "to"
}

// MAMAgent is an agent as mcp_agent_mail's register_agent and whois write
// one, flat.
type MAMAgent struct {
	ID                string       `json:"id"` // the agent's name
	Name              string       `json:"name"`
	Program           string       `json:"program"`
	Model             string       `json:"model"`
	TaskDescription   string       `json:"task_description"`
	InceptionTS       service.Time `json:"inception_ts"`
	LastActiveTS      service.Time `json:"last_active_ts"`
	ProjectID         string       `json:"project_id"` // the project's slug
	AttachmentsPolicy string       `json:"attachments_policy"`
}

// Profile is the document of register_agent, whois and
// set_contact_policy: ours (agent) and mcp_agent_mail's (the agent flat;
// whois adds recent_commits, always empty here).
type Profile struct {
	service.AgentResponse
	MAMAgent
	RecentCommits *[]string `json:"recent_commits,omitempty"`
	Policy        string    `json:"policy"` // the contact policy: set_contact_policy's (mcp_agent_mail's) policy
}

func profile(r service.AgentResponse) Profile {
	a := r.Agent
	return Profile{AgentResponse: r, MAMAgent: MAMAgent{ID: a.Name, Name: a.Name, Program: a.Program, Model: a.Model, TaskDescription: a.Task,
		InceptionTS: a.Registered, LastActiveTS: a.LastSeen, ProjectID: r.Project, AttachmentsPolicy: "auto"}, Policy: a.Policy}
}

// Project is the document of ensure_project: init's (archive, project,
// store) and mcp_agent_mail's project, flat (id and slug are the slug,
// human_key the key).
type Project struct {
	service.InitResponse
	ID        string       `json:"id"`
	Slug      string       `json:"slug"`
	HumanKey  string       `json:"human_key"`
	CreatedAt service.Time `json:"created_at"` // null: the store does not keep it
}

func projectDoc(r service.InitResponse) Project {
	out := Project{InitResponse: r}
	if r.Project != nil {
		out.ID, out.Slug, out.HumanKey = r.Project.Slug, r.Project.Slug, r.Project.Key
	}
	return out
}

// Lease is a reservation as both servers write one: ours, and
// mcp_agent_mail's path_pattern and *_ts times.
type Lease struct {
	service.Reservation
	PathPattern string       `json:"path_pattern"`
	CreatedTS   service.Time `json:"created_ts"`
	ExpiresTS   service.Time `json:"expires_ts"`
	ReleasedTS  service.Time `json:"released_ts"`
}

func lease(r service.Reservation) Lease {
	return Lease{Reservation: r, PathPattern: r.Pattern, CreatedTS: r.Created, ExpiresTS: r.Expires, ReleasedTS: r.Released}
}

func leases(list []service.Reservation) []Lease {
	out := make([]Lease, len(list))
	for i, r := range list {
		out[i] = lease(r)
	}
	return out
}

// Released is the document of release_file_reservations and
// force_release_file_reservation, mcp_agent_mail's: released is how many
// were, released_at when, and force_release_file_reservation's
// reservation the one it took; file_reservations lists them (ours), with
// the conflicts.
type Released struct {
	Released         int                `json:"released"`
	ReleasedAt       service.Time       `json:"released_at"`
	Reservation      *Lease             `json:"reservation,omitempty"`
	FileReservations []Lease            `json:"file_reservations"`
	Conflicts        []service.Conflict `json:"conflicts"`
}

func released(r service.ReleaseResponse, err error) (Released, error) {
	out := Released{Released: len(r.Released), FileReservations: leases(r.Released), Conflicts: r.Conflicts}
	for _, l := range r.Released {
		if l.Released.After(out.ReleasedAt.Time) {
			out.ReleasedAt = l.Released
		}
	}
	return out, err
}

// RenewedLease is an entry of renew_file_reservations' list: the lease,
// and mcp_agent_mail's old and new expiry. old_expires_ts is null when
// the renewal reached the lease's longest life and extended it by less
// than asked, so that the old expiry is not known.
type RenewedLease struct {
	Lease
	OldExpiresTS service.Time `json:"old_expires_ts"`
	NewExpiresTS service.Time `json:"new_expires_ts"`
}

// Renewed is the document of renew_file_reservations, mcp_agent_mail's:
// renewed is how many were, file_reservations lists them; with the
// conflicts (ours).
type Renewed struct {
	Renewed          int                `json:"renewed"`
	FileReservations []RenewedLease     `json:"file_reservations"`
	Conflicts        []service.Conflict `json:"conflicts"`
}

func renewed(r service.RenewResponse, extend time.Duration) Renewed {
	out := Renewed{Renewed: len(r.Renewed), FileReservations: make([]RenewedLease, len(r.Renewed)), Conflicts: r.Conflicts}
	for i, l := range r.Renewed {
		e := RenewedLease{Lease: lease(l), NewExpiresTS: l.Expires}
		if l.Expires.Sub(l.Created.Time) < service.MaxTTL {
			e.OldExpiresTS = service.Time{Time: l.Expires.Add(-extend)}
		}
		out.FileReservations[i] = e
	}
	return out
}

// reservationsOf returns the reservations of list.
func reservationsOf(list []Lease) []service.Reservation {
	out := make([]service.Reservation, len(list))
	for i, l := range list {
		out[i] = l.Reservation
	}
	return out
}

// Reserved is the document of file_reservation_paths: granted,
// conflicts and warnings (reserve's), each granted lease with
// mcp_agent_mail's fields too.
type Reserved struct {
	Conflicts []service.Conflict `json:"conflicts"`
	Granted   []Lease            `json:"granted"`
	// Warnings are reserve's, about what was granted (a broad pattern).
	Warnings []string `json:"warnings,omitempty"`

	resp service.ReserveResponse // for the text
}

func reserved(r service.ReserveResponse) Reserved {
	return Reserved{Conflicts: r.Conflicts, Granted: leases(r.Granted), Warnings: r.Warnings, resp: r}
}

// Marked is the document of mark_message_read and acknowledge_message:
// ours (message, messages) and mcp_agent_mail's about the first message
// named (message_id, read and read_at; acknowledged and acknowledged_at).
type Marked struct {
	service.MarkResponse
	MessageID      string        `json:"message_id,omitempty"`
	Read           *bool         `json:"read,omitempty"`
	ReadAt         service.Time  `json:"read_at"`
	Acknowledged   *bool         `json:"acknowledged,omitempty"`
	AcknowledgedAt *service.Time `json:"acknowledged_at,omitempty"`
}

func marked(r service.MarkResponse, ack bool) Marked {
	out := Marked{MarkResponse: r}
	m := r.Message
	if m == nil && len(r.Messages) > 0 {
		m = &r.Messages[0]
	}
	if m == nil {
		return out
	}
	out.MessageID, out.ReadAt = m.ID, m.ReadAt
	if ack {
		acked := !m.AckedAt.IsZero()
		out.Acknowledged, out.AcknowledgedAt = &acked, &m.AckedAt
	} else {
		read := !m.ReadAt.IsZero()
		out.Read = &read
	}
	return out
}

// MAMHit is a search result as mcp_agent_mail writes one.
type MAMHit struct {
	ID        string       `json:"id"`
	Subject   string       `json:"subject"`
	CreatedTS service.Time `json:"created_ts"`
	ThreadID  string       `json:"thread_id"`
	From      string       `json:"from"`
}

// Searched is the document of search_messages: ours (results, notes) and
// mcp_agent_mail's list under result.
type Searched struct {
	service.SearchResponse
	Result []MAMHit `json:"result"`
}

func searched(r service.SearchResponse) Searched {
	out := Searched{SearchResponse: r, Result: make([]MAMHit, len(r.Results))}
	for i, h := range r.Results {
		out.Result[i] = MAMHit{ID: h.ID, Subject: h.Subject, CreatedTS: h.Created, ThreadID: h.Thread, From: h.From}
	}
	return out
}

// MAMContact is a contact as mcp_agent_mail's request_contact and
// respond_contact write one.
type MAMContact struct {
	From      string       `json:"from"`
	To        string       `json:"to"`
	Status    string       `json:"status"`             // pending (requested), approved or denied
	Approved  *bool        `json:"approved,omitempty"` // respond_contact's
	ExpiresTS service.Time `json:"expires_ts"`
}

// Contacted is the document of request_contact and respond_contact: ours
// (contact) and mcp_agent_mail's, flat.
type Contacted struct {
	service.ContactResponse
	MAMContact
}

func contacted(r service.ContactResponse, respond bool) Contacted {
	c := r.Contact
	out := Contacted{ContactResponse: r, MAMContact: MAMContact{From: c.From, To: c.To, Status: mamStatus(c.State), ExpiresTS: c.Expires}}
	if respond {
		ok := c.State == "approved"
		out.Approved = &ok
	}
	return out
}

// mamStatus is mcp_agent_mail's name of a contact's state.
func mamStatus(state string) string {
	if state == "requested" {
		return "pending"
	}
	return state
}

// MAMLink is an entry of mcp_agent_mail's list_contacts.
type MAMLink struct {
	To        string       `json:"to"`
	Status    string       `json:"status"`
	Reason    string       `json:"reason"`
	UpdatedTS service.Time `json:"updated_ts"`
	ExpiresTS service.Time `json:"expires_ts"`
}

// ContactList is the document of list_contacts: ours (contacts, both
// ways) and mcp_agent_mail's list under result: the agents the viewer
// asked to write to.
type ContactList struct {
	service.ContactsResponse
	Result []MAMLink `json:"result"`
}

func contactList(r service.ContactsResponse, viewer string) ContactList {
	out := ContactList{ContactsResponse: r, Result: []MAMLink{}}
	for _, c := range r.Contacts {
		if !strings.EqualFold(c.From, viewer) {
			continue
		}
		updated := c.Decided
		if updated.IsZero() {
			updated = c.Requested
		}
		out.Result = append(out.Result, MAMLink{To: c.To, Status: mamStatus(c.State), Reason: c.Reason, UpdatedTS: updated, ExpiresTS: c.Expires})
	}
	return out
}

// GuardInstalled is the document of install_precommit_guard: ours and
// mcp_agent_mail's hook, the path of the pre-commit hook.
type GuardInstalled struct {
	service.GuardInstallResponse
	Hook string `json:"hook"`
}

// GuardRemoved is the document of uninstall_precommit_guard: ours and
// mcp_agent_mail's removed, whether a hook of the guard was taken out.
type GuardRemoved struct {
	service.GuardUninstallResponse
	Removed bool `json:"removed"`
}

func guardInstalled(r service.GuardInstallResponse) GuardInstalled {
	out := GuardInstalled{GuardInstallResponse: r}
	for _, h := range r.Hooks {
		if h.Hook == "pre-commit" {
			out.Hook = h.Path
		}
	}
	return out
}

func guardRemoved(r service.GuardUninstallResponse) GuardRemoved {
	out := GuardRemoved{GuardUninstallResponse: r}
	for _, h := range r.Hooks {
		out.Removed = out.Removed || h.Action == "removed" || h.Action == "restored"
	}
	return out
}
