package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// ImportBatch is agents and messages brought over from another mail
// system, to be written with their own names, ids, times, threads and
// senders. The records' Project is set by Import.
type ImportBatch struct {
	// Agents need a valid name and a registration time; Updated is when
	// the agent was last active (zero: Registered).
	Agents []record.Agent
	// Messages need a ULID of their creation time or later; a message
	// without a Thread is filed under its own id.
	Messages []record.Message
}

// ImportCounts counts imported records of each kind.
type ImportCounts struct {
	Agents   int
	Messages int
}

// Import queues in tx, the transaction of an update of the store, the
// agents and messages of b that the project does not hold yet, keeping
// their ids, times, threads and senders; the caller commits them, in one
// archive commit with whatever else it queues. Records already present
// (an agent of the same name, a message of the same id) are left alone and
// counted in present, so importing the same batch twice writes nothing the
// second time. Every sender and recipient must be registered or among
// b.Agents, and messages obey the rules of Send (subject, importance,
// thread, UTF-8) except that their time, id and sender are given. An error
// leaves the update to be abandoned.
func (m *Mailbox) Import(ctx context.Context, tx *store.Tx, b ImportBatch) (written, present ImportCounts, err error) {
	if err := m.ensureProject(ctx, tx); err != nil {
		return written, present, err
	}
	known := map[string]string{} // fold -> name, for agents of this batch
	for _, a := range b.Agents {
		rec, err := m.importAgent(a)
		if err != nil {
			return written, present, err
		}
		fold := names.Fold(rec.Name)
		if _, dup := known[fold]; dup {
			present.Agents++
			continue
		}
		if _, ok, err := m.lookupAgent(ctx, tx, rec.Name); err != nil {
			return written, present, err
		} else if ok {
			present.Agents++
			continue
		}
		known[fold] = rec.Name
		tx.Put(rec)
		written.Agents++
	}
	resolve := func(name string) (string, error) {
		if n, ok := known[names.Fold(name)]; ok {
			return n, nil
		}
		a, ok, err := m.lookupAgent(ctx, tx, name)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", m.unknownRecipient(ctx, tx, name)
		}
		known[names.Fold(name)] = a.Name
		return a.Name, nil
	}
	held, err := m.heldMessages(ctx, tx, b.Messages)
	if err != nil {
		return written, present, err
	}
	seen := map[string]bool{} // ids of this batch
	for _, im := range b.Messages {
		if seen[im.ID] {
			present.Messages++
			continue
		}
		seen[im.ID] = true
		if held[im.ID] {
			present.Messages++
			continue
		}
		rec, err := m.importMessage(im, resolve)
		if err != nil {
			return written, present, fmt.Errorf("import message %s: %w", im.ID, err)
		}
		tx.Put(rec)
		written.Messages++
	}
	return written, present, nil
}

// heldMessages returns which of the ids of msgs the store holds, in any
// project (ids are unique across the store), with one query over the range
// of ids of msgs rather than one a message: an import's batch holds
// thousands, close in time (ids are ULIDs, which sort by time).
func (m *Mailbox) heldMessages(ctx context.Context, q queryer, msgs []record.Message) (map[string]bool, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	want := make(map[string]bool, len(msgs))
	lo, hi := msgs[0].ID, msgs[0].ID
	for _, im := range msgs {
		want[im.ID] = true
		lo, hi = min(lo, im.ID), max(hi, im.ID)
	}
	rows, err := q.QueryContext(ctx, `SELECT id FROM messages WHERE id BETWEEN ? AND ?`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if want[id] {
			held[id] = true
		}
	}
	return held, rows.Err()
}

func (m *Mailbox) importAgent(a record.Agent) (*record.Agent, error) {
	name, err := names.Parse(a.Name)
	if err != nil {
		return nil, fmt.Errorf("import agent: %w", err)
	}
	if a.Registered.IsZero() {
		return nil, invalid("agent "+name+" has no registration time", "give every imported agent its registration time")
	}
	a.Project, a.Name = m.proj.Slug, name
	a.Registered = a.Registered.UTC().Truncate(time.Second)
	if a.Updated.IsZero() {
		a.Updated = a.Registered
	}
	a.Updated = a.Updated.UTC().Truncate(time.Second)
	return &a, nil
}

func (m *Mailbox) importMessage(im record.Message, resolve func(string) (string, error)) (*record.Message, error) {
	id, err := ulid.ParseStrict(im.ID)
	if err != nil {
		return nil, invalid(fmt.Sprintf("%q is not a ULID", im.ID), "imported messages need ULID ids")
	}
	if im.Created.IsZero() {
		return nil, invalid("no creation time", "give every imported message its time")
	}
	// The contact policy finds recent mail by id (see relatedQuery).
	if created := im.Created.UTC().Truncate(time.Second); ulid.Time(id.Time()).Before(created) {
		return nil, invalid(fmt.Sprintf("id %s names a time before the message was created (%s)", im.ID, record.FormatTime(created)),
			"give an imported message an id of its creation time or later")
	}
	d := Draft{To: im.To, Cc: im.Cc, Bcc: im.Bcc, Subject: im.Subject, Body: im.Body, Thread: im.Thread,
		Importance: im.Importance, AckRequired: im.AckRequired, Category: im.Category, ReplyTo: im.ReplyTo, Hold: im.Hold}
	if err := d.validate(); err != nil {
		return nil, err
	}
	from, err := resolve(im.From)
	if err != nil {
		return nil, err
	}
	to, cc, bcc, err := recipientLists(d, func(raw string) ([]string, error) {
		n, err := resolve(raw)
		return []string{n}, err
	})
	if err != nil {
		return nil, err
	}
	return &record.Message{
		Project: m.proj.Slug, ID: im.ID, Thread: d.Thread, From: from, To: to, Cc: cc, Bcc: bcc,
		Subject: d.Subject, Importance: d.Importance, AckRequired: d.AckRequired, Category: d.Category,
		ReplyTo: d.ReplyTo, Created: im.Created.UTC().Truncate(time.Second), Hold: d.Hold, Body: d.Body,
	}, nil
}
