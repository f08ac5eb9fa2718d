package mailbox

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// PurgeInput selects the messages of a purge.
type PurgeInput struct {
	Before time.Time // messages created before this; zero for any time
	Sender string    // only the messages this agent sent; "" for anyone's
	Reason string    // said in each tombstone
	DryRun bool      // say what would go, write nothing
}

// PurgedMessage is a message a purge took (or would take) out.
type PurgedMessage struct {
	ID      string
	From    string
	Subject string
	Created time.Time
	Path    string // its canonical file, whose history keeps it
}

// purgeQuery selects the messages of project ? created before ? (any time
// when ""), sent by folded sender ? (anyone when ""), oldest first.
const purgeQuery = `SELECT ` + messageColumns + ` FROM messages m LEFT JOIN recipients r ON 0
	WHERE m.project_id = ?1 AND (?2 = '' OR m.created < ?2) AND (?3 = '' OR lower(m.sender) = ?3) ORDER BY m.id`

// Purge takes the messages in selects out of the index and out of the
// mailbox folders of the archive: each message file and its inbox and
// outbox copies are replaced by a tombstone (record.Purged), so that no
// index, live or rebuilt, holds them. Their text stays in the archive's
// git history. With DryRun it only lists them.
func (m *Mailbox) Purge(ctx context.Context, in PurgeInput) ([]PurgedMessage, error) {
	var out []PurgedMessage
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		if m.agent != "" {
			if _, err := m.actor(ctx, tx); err != nil {
				return err
			}
		}
		list, recs, err := m.purgeIn(ctx, tx, in)
		out = list
		if err != nil || in.DryRun || len(recs) == 0 {
			return err
		}
		tx.Put(recs...)
		tx.Describe(cmp.Or(m.agent, "agentmail"), fmt.Sprintf("purge: %d messages (%s)", len(recs), in.Reason))
		return nil
	})
	return out, err
}

// purgeIn lists the messages in selects, and their tombstones.
func (m *Mailbox) purgeIn(ctx context.Context, tx *store.Tx, in PurgeInput) ([]PurgedMessage, []record.Record, error) {
	out := []PurgedMessage{}
	if m.pid == 0 {
		return out, nil, nil
	}
	rows, err := tx.QueryContext(ctx, purgeQuery, m.pid, record.FormatTime(in.Before), names.Fold(strings.TrimSpace(in.Sender)))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var recs []record.Record
	now := m.st.Now()
	for rows.Next() {
		v, err := m.scanMessage(rows, "")
		if err != nil {
			return nil, nil, err
		}
		msg := &v.Message.Message
		out = append(out, PurgedMessage{ID: msg.ID, From: msg.From, Subject: msg.Subject, Created: msg.Created, Path: msg.Path()})
		recs = append(recs, record.PurgedFor(msg, now, cmp.Or(m.agent, "agentmail"), in.Reason))
	}
	return out, recs, rows.Err()
}

// HardDeleted is what HardDeleteAgent took out.
type HardDeleted struct {
	Agent    Agent
	Messages []PurgedMessage // the messages it sent
}

// HardDeleteAgent takes agent name out of the index and the archive's
// mailbox folders: its profile is replaced by a tombstone
// (record.DeletedAgent), and the messages it sent are purged (see Purge).
// Everything stays in the archive's history. Registering the name again
// makes a new agent.
func (m *Mailbox) HardDeleteAgent(ctx context.Context, name string) (HardDeleted, error) {
	var out HardDeleted
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		a, err := m.agentActedOn(ctx, tx, name)
		if err != nil {
			return err
		}
		list, recs, err := m.purgeIn(ctx, tx, PurgeInput{Sender: a.Name, Reason: "its sender " + a.Name + " was hard-deleted"})
		if err != nil {
			return err
		}
		by := cmp.Or(m.agent, "agentmail")
		tx.Put(append(recs, &record.DeletedAgent{Project: m.proj.Slug, Name: a.Name, Deleted: m.st.Now(), By: by})...)
		tx.Describe(by, fmt.Sprintf("agent: hard-delete %s and the %d messages it sent", a.Name, len(recs)))
		out = HardDeleted{Agent: a, Messages: list}
		return nil
	})
	return out, err
}
