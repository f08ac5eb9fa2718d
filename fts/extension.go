package fts

import (
	"context"
	"database/sql"

	"github.com/agentmail/agentmail/internal/record"
)

// Extension keeps the FTS table in step with the message index (it
// implements store.Extension): every message indexed, live, on catch-up or
// on rebuild, is put here in the same transaction under its messages.seq.
type Extension struct{}

// Name implements store.Extension; bump it when the table or the documents
// change, and every index is rebuilt on its next open.
func (Extension) Name() string { return "fts3" }

// Schema implements store.Extension.
func (Extension) Schema() []string { return []string{Schema} }

// Tables implements store.Extension.
func (Extension) Tables() []string { return []string{Table} }

// Prepare implements store.Extension: it reduces the body to plain text,
// cleans the text and extracts identifiers, the costly part, off the SQL
// goroutine. Bcc recipients are left out: every reader may see the indexed
// recipients.
func (Extension) Prepare(m *record.Message) any {
	recipients := append(append([]string{}, m.To...), m.Cc...)
	return NewDocument(m.Subject, m.Body, m.From, recipients, m.ThreadID(), m.Category).row()
}

// Apply implements store.Extension.
func (Extension) Apply(tx *sql.Tx, seq int64, prepared any) error {
	return prepared.(row).put(context.Background(), tx, seq)
}
