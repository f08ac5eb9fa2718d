package fts

import (
	"database/sql"
	"errors"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Projection returns the search's part of the index, which a store must be
// opened with (store.Options.Projections) to be searched: the FTS5 table
// of the messages' text, and beside it what search filters on, the
// messages' senders, threads and the like, and their recipients with their
// receipts. It keeps them itself, from the archive's message and receipt
// records, so that a search reads no other package's tables. Nothing but
// this package reads or writes these tables.
func Projection() store.Projection { return projection{} }

type projection struct{}

// Name changes with the tables or the documents stored in them.
func (projection) Name() string { return "fts4" }

func (projection) Tables() []store.Table {
	return []store.Table{
		// The messages searched; seq is the rowid of their text in table.
		{Name: "search_messages", Local: []string{"seq"}, Create: `CREATE TABLE search_messages(seq INTEGER PRIMARY KEY,
			id TEXT NOT NULL UNIQUE, project_id INTEGER NOT NULL, sender TEXT NOT NULL, thread TEXT NOT NULL,
			category TEXT NOT NULL, importance TEXT NOT NULL, ack_required INTEGER NOT NULL, created TEXT NOT NULL)`,
			Indexes: []string{
				`CREATE INDEX search_messages_project ON search_messages(project_id, id)`,
				`CREATE INDEX search_messages_sender ON search_messages(project_id, sender)`,
			}},
		// Their recipients (bcc too) and receipts: who may see a message,
		// to:, is:unread and is:unacked. The primary key serves the set of
		// an agent's messages from the rows alone.
		{Name: "search_recipients", Local: []string{"seq"}, Create: `CREATE TABLE search_recipients(project_id INTEGER NOT NULL,
			agent TEXT NOT NULL, message_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
			read INTEGER NOT NULL DEFAULT 0, acked INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY(project_id, agent, message_id)) WITHOUT ROWID`,
			Indexes: []string{`CREATE INDEX search_recipients_message ON search_recipients(message_id)`}},
		{Name: table, Create: schema, Setup: setup},
	}
}

// Prepare reduces a message's body to plain text, cleans its text and
// extracts identifiers, the costly part, off the goroutine that writes the
// index. Bcc recipients are left out of the text: every reader may see
// the indexed recipients.
func (projection) Prepare(rec record.Record) any {
	m, ok := rec.(*record.Message)
	if !ok {
		return nil
	}
	recipients := append(append([]string{}, m.To...), m.Cc...)
	return NewDocument(m.Subject, m.Body, m.From, recipients, m.ThreadID(), m.Category).row()
}

func (projection) Apply(w *store.Writer, rec record.Record, prepared any) error {
	switch r := rec.(type) {
	case *record.Message:
		return applyMessage(w, r, prepared.(row))
	case *record.Purged:
		return purge(w, r)
	case *record.Receipt:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`UPDATE search_recipients SET read = ?, acked = ? WHERE project_id = ? AND agent = ? AND message_id = ?`,
			!r.ReadAt.IsZero(), !r.AckedAt.IsZero(), pid, r.Agent, r.Message)
		return err
	}
	return nil
}

// applyMessage adds a message, its recipients and its text, unless it is
// there already.
func applyMessage(w *store.Writer, m *record.Message, text row) error {
	pid, err := w.ProjectID(m.Project)
	if err != nil {
		return err
	}
	res, err := w.Exec(`INSERT INTO search_messages(id, project_id, sender, thread, category, importance, ack_required, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
		m.ID, pid, m.From, m.ThreadID(), m.Category, m.Importance, m.AckRequired, record.FormatTime(m.Created))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // applied before
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for kind, names := range map[string][]string{"to": m.To, "cc": m.Cc, "bcc": m.Bcc} {
		for _, n := range names {
			if _, err := w.Exec(`INSERT INTO search_recipients(project_id, agent, message_id, seq, kind) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT DO NOTHING`, pid, n, m.ID, seq, kind); err != nil {
				return err
			}
		}
	}
	_, err = w.Exec(putSQL, text.values(seq)...)
	return err
}

// purge takes a purged message out of the search: its text, its row and
// its recipients.
func purge(w *store.Writer, p *record.Purged) error {
	pid, err := w.ProjectID(p.Project)
	if err != nil {
		return err
	}
	var seq int64
	err = w.QueryRow(`SELECT seq FROM search_messages WHERE project_id = ? AND id = ?`, pid, p.ID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM ` + table + ` WHERE rowid = ?1`, `DELETE FROM search_recipients WHERE seq = ?1`, `DELETE FROM search_messages WHERE seq = ?1`} {
		if _, err := w.Exec(q, seq); err != nil {
			return err
		}
	}
	return nil
}
