package mailbox

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Projection returns the mailbox's part of the index, which a store must
// be opened with (store.Options.Projections) to serve mail: the agents,
// their presence, messages, recipients with their receipts, and contacts.
// Nothing but this package reads or writes these tables.
func Projection() store.Projection { return projection{} }

type projection struct{}

// Name changes with the tables.
func (projection) Name() string { return "mailbox5" }

func (projection) Tables() []store.Table {
	return []store.Table{
		{Name: "agents", Create: `CREATE TABLE agents(project_id INTEGER NOT NULL, fold TEXT NOT NULL, name TEXT NOT NULL,
			program TEXT NOT NULL, model TEXT NOT NULL, task TEXT NOT NULL,
			registered TEXT NOT NULL, updated TEXT NOT NULL, retired INTEGER NOT NULL DEFAULT 0, policy TEXT NOT NULL DEFAULT '',
			role TEXT NOT NULL DEFAULT '',
			PRIMARY KEY(project_id, fold)) WITHOUT ROWID`},
		// presence is the heartbeat behind last-seen, kept in the index
		// (keyed by project slug, not row id, it outlives rebuilds); sync
		// carries it to other machines now and then as presence records,
		// which raise it.
		{Name: "presence", Kept: true, Create: `CREATE TABLE presence(slug TEXT NOT NULL, fold TEXT NOT NULL, last_seen TEXT NOT NULL,
			PRIMARY KEY(slug, fold)) WITHOUT ROWID`},
		// worktrees is where each agent last ran a command inside the
		// project's repository: the working tree and its branch, as this
		// machine saw it (kept in the index, as presence is).
		{Name: "worktrees", Kept: true, Create: `CREATE TABLE worktrees(slug TEXT NOT NULL, fold TEXT NOT NULL, root TEXT NOT NULL,
			branch TEXT NOT NULL, seen TEXT NOT NULL, PRIMARY KEY(slug, fold)) WITHOUT ROWID`},
		// published_presence is the presence records of the archive: what
		// sync carried last, so that it need not read the archive to know.
		{Name: "published_presence", Create: `CREATE TABLE published_presence(slug TEXT NOT NULL, fold TEXT NOT NULL, last_seen TEXT NOT NULL,
			PRIMARY KEY(slug, fold)) WITHOUT ROWID`},
		{Name: "messages", Local: []string{"seq"}, Create: `CREATE TABLE messages(seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, project_id INTEGER NOT NULL,
			thread TEXT NOT NULL, named_thread TEXT NOT NULL, sender TEXT NOT NULL,
			to_list TEXT NOT NULL, cc_list TEXT NOT NULL, bcc_list TEXT NOT NULL,
			subject TEXT NOT NULL, importance TEXT NOT NULL, ack_required INTEGER NOT NULL,
			category TEXT NOT NULL, reply_to TEXT NOT NULL, created TEXT NOT NULL, hold_ms INTEGER NOT NULL DEFAULT 0,
			path TEXT NOT NULL, body TEXT NOT NULL, topic TEXT NOT NULL DEFAULT '', attachments TEXT NOT NULL DEFAULT '')`,
			Indexes: []string{
				// A topic's messages, newest first (fetch_topic, topic show),
				// and the list of topics.
				`CREATE INDEX messages_topic ON messages(project_id, topic, id) WHERE topic != ''`,
				`CREATE INDEX messages_project ON messages(project_id, id)`,
				`CREATE INDEX messages_thread ON messages(project_id, thread, id)`,
				`CREATE INDEX messages_sender ON messages(project_id, sender, id)`,
				// The timeline filtered by a rare value: the page's messages
				// found without walking the project's.
				`CREATE INDEX messages_importance ON messages(project_id, importance, id)`,
				`CREATE INDEX messages_category ON messages(project_id, category, id)`,
			}},
		{Name: "recipients", Create: `CREATE TABLE recipients(project_id INTEGER NOT NULL, agent TEXT NOT NULL, message_id TEXT NOT NULL,
			kind TEXT NOT NULL, read_at TEXT, acked_at TEXT,
			urgent INTEGER NOT NULL DEFAULT 0, ack_required INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY(project_id, agent, message_id)) WITHOUT ROWID`,
			Indexes: []string{
				`CREATE INDEX recipients_message ON recipients(message_id)`,
				// What agentmail check counts and lists, in time proportional
				// to the unread (unacknowledged) mail rather than to all mail
				// received. The indexes cover the columns of their WHERE
				// clauses: without read_at (acked_at) in the index SQLite
				// visits the table for every entry.
				`CREATE INDEX recipients_unread ON recipients(project_id, agent, message_id, urgent, read_at) WHERE read_at IS NULL`,
				`CREATE INDEX recipients_unacked ON recipients(project_id, agent, message_id, ack_required, acked_at) WHERE ack_required AND acked_at IS NULL`,
			}},
		{Name: "contacts", Create: `CREATE TABLE contacts(project_id INTEGER NOT NULL, requester TEXT NOT NULL, target TEXT NOT NULL,
			state TEXT NOT NULL, reason TEXT NOT NULL, requested TEXT NOT NULL, decided TEXT, expires TEXT,
			PRIMARY KEY(project_id, requester, target)) WITHOUT ROWID`,
			// The requests waiting for an agent's answer, which check counts.
			Indexes: []string{`CREATE INDEX contacts_waiting ON contacts(project_id, target) WHERE state = 'requested'`}},
	}
}

// prepared is what Prepare works out of a message for its row: its
// recipient lists joined, its file's path, and its attachments as JSON.
type prepared struct{ to, cc, bcc, path, attachments string }

// Prepare works out a message's row, off the goroutine that writes the
// index: the path of its file, made of its subject, costs as much as
// writing the row.
func (projection) Prepare(rec record.Record) any {
	if m, ok := rec.(*record.Message); ok {
		return prepared{strings.Join(m.To, ","), strings.Join(m.Cc, ","), strings.Join(m.Bcc, ","), m.Path(), attachmentsJSON(m.Attachments)}
	}
	return nil
}

func (projection) Apply(w *store.Writer, rec record.Record, p any) error {
	var project string
	switch r := rec.(type) {
	case *record.Agent:
		project = r.Project
	case *record.Message:
		project = r.Project
	case *record.Receipt:
		project = r.Project
	case *record.Contact:
		project = r.Project
	case *record.Purged:
		project = r.Project
	case *record.DeletedAgent:
		project = r.Project
	case *record.Presence:
		// Seen on some machine: the latest of that and this machine's
		// heartbeat stands.
		fold, seen := names.Fold(r.Agent), record.FormatTime(r.LastSeen)
		if _, err := w.Exec(`INSERT OR REPLACE INTO published_presence(slug, fold, last_seen) VALUES (?, ?, ?)`, r.Project, fold, seen); err != nil {
			return err
		}
		_, err := w.Exec(`INSERT INTO presence(slug, fold, last_seen) VALUES (?, ?, ?)
			ON CONFLICT(slug, fold) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)`, r.Project, fold, seen)
		return err
	default:
		return nil
	}
	pid, err := w.ProjectID(project)
	if err != nil {
		return err
	}
	switch r := rec.(type) {
	case *record.Agent:
		_, err = w.Exec(`INSERT INTO agents(project_id, fold, name, program, model, task, registered, updated, retired, policy, role)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(project_id, fold) DO UPDATE SET name = excluded.name, program = excluded.program,
			model = excluded.model, task = excluded.task, registered = excluded.registered, updated = excluded.updated,
			retired = excluded.retired, policy = excluded.policy, role = excluded.role`,
			pid, strings.ToLower(r.Name), r.Name, r.Program, r.Model, r.Task, record.FormatTime(r.Registered), record.FormatTime(r.Updated), r.Retired, r.Policy, r.Role)
	case *record.Message:
		err = applyMessage(w, pid, r, p.(prepared))
	case *record.Receipt:
		_, err = w.Exec(`UPDATE recipients SET read_at = ?, acked_at = ? WHERE project_id = ? AND agent = ? AND message_id = ?`,
			store.NullTime(r.ReadAt), store.NullTime(r.AckedAt), pid, r.Agent, r.Message)
	case *record.DeletedAgent:
		_, err = w.Exec(`DELETE FROM agents WHERE project_id = ? AND fold = ?`, pid, strings.ToLower(r.Name))
	case *record.Purged:
		// Out of the index: the message and who received it. Its
		// receipts, if any come later, update nothing.
		if _, err = w.Exec(`DELETE FROM recipients WHERE project_id = ? AND message_id = ?`, pid, r.ID); err == nil {
			_, err = w.Exec(`DELETE FROM messages WHERE project_id = ? AND id = ?`, pid, r.ID)
		}
	case *record.Contact:
		_, err = w.Exec(`INSERT OR REPLACE INTO contacts(project_id, requester, target, state, reason, requested, decided, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pid, r.From, r.To, r.State, r.Reason, record.FormatTime(r.Requested),
			store.NullTime(r.Decided), store.NullTime(r.Expires))
	}
	return err
}

// Admit keeps out of the index a lease or lock whose holder is not
// registered in its project (see store.Admitter): no command here grants
// one, but a broken or hostile remote may hold it. A project's agents
// come before its reservations and locks in the archive's order, so a
// rebuild finds the holder as a live write did.
func (projection) Admit(w *store.Writer, rec record.Record) (bool, string, error) {
	var slug, agent, what string
	switch r := rec.(type) {
	case *record.Reservation:
		slug, agent, what = r.Project, r.Agent, "lease "+r.ID+" of "+r.Pattern
	case *record.Lock:
		slug, agent, what = r.Project, r.Holder, "lock "+r.Key
	default:
		return false, "", nil
	}
	pid, err := w.ProjectID(slug)
	if err != nil {
		return true, "", err
	}
	var known bool
	if err := w.QueryRow(`SELECT EXISTS(SELECT 1 FROM agents WHERE project_id = ? AND fold = ?)`, pid, strings.ToLower(agent)).Scan(&known); err != nil {
		return true, "", fmt.Errorf("look up agent %s: %w", agent, err)
	}
	if !known {
		return true, fmt.Sprintf("the %s is held by %s, who is not registered in project %s", what, agent, slug), nil
	}
	return true, "", nil
}

// attachmentsJSON is the attachments column of a message: its list as
// JSON, "" for none.
func attachmentsJSON(list []record.Attachment) string {
	if len(list) == 0 {
		return ""
	}
	b, err := json.Marshal(list)
	if err != nil {
		panic(err) // strings and numbers
	}
	return string(b)
}

// applyMessage adds a message and its recipients, unless it is there
// already.
func applyMessage(w *store.Writer, pid int64, r *record.Message, p prepared) error {
	res, err := w.Exec(`INSERT INTO messages(id, project_id, thread, named_thread, sender, to_list, cc_list, bcc_list,
		subject, importance, ack_required, category, reply_to, created, hold_ms, path, body, topic, attachments)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
		r.ID, pid, r.ThreadID(), r.Thread, r.From, p.to, p.cc, p.bcc,
		r.Subject, r.Importance, r.AckRequired, r.Category, r.ReplyTo, record.FormatTime(r.Created), r.Hold.Milliseconds(), p.path, r.Body,
		r.Topic, p.attachments)
	if err != nil {
		return fmt.Errorf("message %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // applied before
	}
	urgent := r.Importance == "high" || r.Importance == "urgent"
	for kind, names := range map[string][]string{"to": r.To, "cc": r.Cc, "bcc": r.Bcc} {
		for _, n := range names {
			if _, err := w.Exec(`INSERT INTO recipients(project_id, agent, message_id, kind, urgent, ack_required)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, pid, n, r.ID, kind, urgent, r.AckRequired); err != nil {
				return fmt.Errorf("message %s: %w", r.ID, err)
			}
		}
	}
	return nil
}
