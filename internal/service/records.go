package service

import (
	"slices"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/tasks"
)

// The documents of records read from the archive itself, by a face that
// follows it rather than asking the index (the event stream): the same
// documents the operations return.

// MessageRecordDoc returns the document of a message's headers as viewer
// sees it: bcc lists every bcc recipient for the sender, only the viewer
// for a bcc recipient, and nobody for anyone else.
func MessageRecordDoc(m *record.Message, viewer string) Message {
	bcc := []string{}
	switch {
	case viewer == m.From:
		bcc = append(bcc, m.Bcc...)
	case slices.Contains(m.Bcc, viewer):
		bcc = append(bcc, viewer)
	}
	return Message{
		ID: m.ID, Thread: m.ThreadID(), From: m.From, To: nonNil(m.To), Cc: nonNil(m.Cc), Bcc: bcc,
		Subject: m.Subject, Importance: m.Importance, AckRequired: m.AckRequired,
		Category: optString(m.Category), ReplyTo: optString(m.ReplyTo), Created: Time{m.Created}, Path: m.Path(),
		Topic: m.Topic, Attachments: attachmentDocs(m.Project, m.Attachments),
	}
}

// ProfileRecordDoc returns the document of an agent's profile. Presence
// lives only in the index: last_seen is null.
func ProfileRecordDoc(a *record.Agent) Agent {
	return Agent{Name: a.Name, Program: a.Program, Model: a.Model, Task: a.Task,
		Registered: Time{a.Registered}, Retired: a.Retired, Policy: mailbox.PolicyOf(a)}
}

// ReservationRecordDoc returns the document of a reservation.
func ReservationRecordDoc(r *record.Reservation) Reservation { return reservationDoc(*r) }

// LockRecordDoc returns the document of a lock.
func LockRecordDoc(l *record.Lock) Lock { return lockDoc(*l) }

// ContactRecordDoc returns the document of a contact request.
func ContactRecordDoc(c *record.Contact) Contact { return contactDoc(*c) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TaskRecordDoc returns the document of the task that a log of changes
// folds into (tasks.Fold), and false when the log holds no creation.
func TaskRecordDoc(ops []*record.TaskOp) (Task, bool) {
	t, ok := tasks.Fold(ops)
	return taskDoc(t), ok
}
