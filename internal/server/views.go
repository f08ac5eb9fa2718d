package server

import (
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// The pages' views have the --json documents' fields (internal/web,
// views.go); these copy a service document into its view.

func mapSlice[T, V any](s []T, f func(T) V) []V {
	out := make([]V, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func agentView(a service.Agent) web.Agent {
	v := web.Agent{Name: a.Name, Program: a.Program, Model: a.Model, Task: a.Task, Registered: a.Registered.Time,
		LastSeen: a.LastSeen.Time, Retired: a.Retired, Policy: a.Policy, State: a.State, Reservations: a.Reservations}
	if a.Work != nil {
		v.Work, v.WorkNote = a.Work.State, a.Work.Note
	}
	if a.Paused != nil {
		v.PausedBy, v.PauseReason = a.Paused.PauseBy, a.Paused.PauseReason
	}
	v.Role, v.Branch = a.Role, a.Branch
	if a.Claims != nil {
		for _, c := range *a.Claims {
			v.Claims = append(v.Claims, web.Claim{ID: c.ID, Title: c.Title})
		}
	}
	return v
}

func messageView(m service.Message) web.Message {
	return web.Message{ID: m.ID, Thread: m.Thread, From: m.From, To: m.To, Cc: m.Cc, Bcc: m.Bcc, Subject: m.Subject,
		Importance: m.Importance, AckRequired: m.AckRequired, Category: m.Category, ReplyTo: m.ReplyTo,
		Created: m.Created.Time, Path: m.Path, Topic: m.Topic,
		Attachments: mapSlice(m.Attachments, func(a service.Attachment) web.Attachment {
			return web.Attachment{Name: a.Name, SHA256: a.SHA256, Size: a.Size, MediaType: a.MediaType}
		})}
}

func receivedView(m service.Received) web.Received {
	return web.Received{Message: messageView(m.Message), ReadAt: m.ReadAt.Time, AckedAt: m.AckedAt.Time}
}

func inboxView(m service.InboxMessage) web.Received { return receivedView(m.Received) }

// sentView is a sent message as its sender sees it: the sender's own
// receipts only when it wrote to itself.
func sentView(m service.Message) web.Received { return web.Received{Message: messageView(m)} }

func fullView(m service.FullMessage) web.FullMessage {
	return web.FullMessage{Received: receivedView(m.Received), Body: m.Body}
}

func fullReceived(m service.FullMessage) web.Received { return receivedView(m.Received) }

func awaitingView(o service.Overdue) web.AwaitingAck {
	return web.AwaitingAck{Received: web.Received{Message: messageView(o.Message)}, WaitingFor: o.WaitingFor}
}

func reservationView(r service.Reservation) web.Reservation {
	return web.Reservation{ID: r.ID, Agent: r.Agent, Pattern: r.Pattern, Exclusive: r.Exclusive, Reason: r.Reason,
		Created: r.Created.Time, Expires: r.Expires.Time, Released: r.Released.Time}
}

func lockView(l service.Lock) web.Lock {
	return web.Lock{Key: l.Key, Holder: l.Holder, Created: l.Created.Time, Expires: l.Expires.Time}
}

func contactView(c service.Contact) web.Contact {
	return web.Contact{From: c.From, To: c.To, State: c.State, Reason: c.Reason, Requested: c.Requested.Time,
		Decided: c.Decided.Time, Expires: c.Expires.Time}
}

func hitView(h service.SearchHit) web.SearchHit {
	return web.SearchHit{ID: h.ID, Thread: h.Thread, From: h.From, Subject: h.Subject, Created: h.Created.Time,
		Snippet: h.Snippet, Score: h.Score, Marked: h.Marked()}
}

func projectView(p service.ProjectSummary) web.Project {
	return web.Project{Key: p.Key, Slug: p.Slug, Holds: web.Counts(p.Holds)}
}
