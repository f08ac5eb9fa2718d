package store

import (
	"strings"

	"github.com/agentmail/agentmail/internal/record"
)

// testMail is the projection the store's tests index records with: a
// small mailbox of agents, messages and their recipients, and a presence
// table that is not derived from the archive.
type testMail struct{}

// testProjections are the projections the tests open stores with.
var testProjections = []Projection{testMail{}}

func (testMail) Name() string { return "testmail1" }

func (testMail) Tables() []Table {
	return []Table{
		{Name: "agents", Create: `CREATE TABLE agents(project_id INTEGER NOT NULL, fold TEXT NOT NULL, name TEXT NOT NULL,
			program TEXT NOT NULL, model TEXT NOT NULL, task TEXT NOT NULL, registered TEXT NOT NULL, updated TEXT NOT NULL,
			PRIMARY KEY(project_id, fold)) WITHOUT ROWID`},
		{Name: "messages", Create: `CREATE TABLE messages(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, project_id INTEGER NOT NULL,
			thread TEXT NOT NULL, named_thread TEXT NOT NULL, sender TEXT NOT NULL, to_list TEXT NOT NULL, cc_list TEXT NOT NULL,
			bcc_list TEXT NOT NULL, subject TEXT NOT NULL, importance TEXT NOT NULL, ack_required INTEGER NOT NULL,
			category TEXT NOT NULL, reply_to TEXT NOT NULL, created TEXT NOT NULL, path TEXT NOT NULL, body TEXT NOT NULL)`,
			Indexes: []string{`CREATE INDEX messages_project ON messages(project_id, id)`}, Local: []string{"seq"}},
		{Name: "recipients", Create: `CREATE TABLE recipients(project_id INTEGER NOT NULL, agent TEXT NOT NULL, message_id TEXT NOT NULL,
			kind TEXT NOT NULL, read_at TEXT, acked_at TEXT, PRIMARY KEY(project_id, agent, message_id)) WITHOUT ROWID`,
			Indexes: []string{`CREATE INDEX recipients_message ON recipients(message_id)`}},
		{Name: "presence", Create: `CREATE TABLE presence(slug TEXT NOT NULL, fold TEXT NOT NULL, last_seen TEXT NOT NULL,
			PRIMARY KEY(slug, fold)) WITHOUT ROWID`, Kept: true},
	}
}

// lists are a message's recipient lists as the messages table keeps them,
// joined off the SQL goroutine.
type lists struct{ to, cc, bcc string }

func (testMail) Prepare(rec record.Record) any {
	if m, ok := rec.(*record.Message); ok {
		return lists{strings.Join(m.To, ","), strings.Join(m.Cc, ","), strings.Join(m.Bcc, ",")}
	}
	return nil
}

func (testMail) Apply(w *Writer, rec record.Record, prepared any) error {
	switch r := rec.(type) {
	case *record.Agent:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`INSERT OR REPLACE INTO agents VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pid, strings.ToLower(r.Name), r.Name,
			r.Program, r.Model, r.Task, record.FormatTime(r.Registered), record.FormatTime(r.Updated))
		return err
	case *record.Message:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		l := prepared.(lists)
		res, err := w.Exec(`INSERT INTO messages(id, project_id, thread, named_thread, sender, to_list, cc_list, bcc_list, subject,
			importance, ack_required, category, reply_to, created, path, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO NOTHING`, r.ID, pid, r.ThreadID(), r.Thread, r.From, l.to, l.cc, l.bcc, r.Subject,
			r.Importance, r.AckRequired, r.Category, r.ReplyTo, record.FormatTime(r.Created), r.Path(), r.Body)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // applied before
		}
		for kind, names := range map[string][]string{"to": r.To, "cc": r.Cc, "bcc": r.Bcc} {
			for _, n := range names {
				if _, err := w.Exec(`INSERT INTO recipients(project_id, agent, message_id, kind) VALUES (?, ?, ?, ?)`, pid, n, r.ID, kind); err != nil {
					return err
				}
			}
		}
	case *record.Receipt:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`UPDATE recipients SET read_at = ?, acked_at = ? WHERE project_id = ? AND agent = ? AND message_id = ?`,
			NullTime(r.ReadAt), NullTime(r.AckedAt), pid, r.Agent, r.Message)
		return err
	}
	return nil
}
