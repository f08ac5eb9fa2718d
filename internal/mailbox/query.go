package mailbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"encoding/json"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/oklog/ulid/v2"
)

// MinIDPrefix is the shortest id prefix accepted.
const MinIDPrefix = 6

// Message is a message as one agent sees it: its record, with Thread set
// to the thread it belongs to (its own id when the sender named none) and
// Bcc to what the viewer may see of the bcc list (every bcc recipient for
// the sender, only the viewer for a bcc recipient, nothing for anyone
// else), and the viewer's receipt.
type Message struct {
	record.Message
	Path    string     // the canonical file in the archive (the record's Path())
	ReadAt  *time.Time // when the viewer read it; nil if not read, or not a recipient
	AckedAt *time.Time // when the viewer acknowledged it
}

// viewOf turns a record into the view of viewer, whose recipient kind is
// kind ("" when not a recipient). path is r.Path(), which a listing already
// has from the index: working it out again costs as much as the rest.
func viewOf(r *record.Message, path, viewer, kind string, readAt, ackedAt *time.Time) Message {
	v := Message{Message: *r, Path: path, ReadAt: readAt, AckedAt: ackedAt}
	v.Thread, v.To, v.Cc = r.ThreadID(), nonNil(r.To), nonNil(r.Cc)
	v.Bcc = visibleBcc(r.Bcc, r.From, viewer, kind)
	return v
}

func visibleBcc(bcc []string, from, viewer, kind string) []string {
	switch {
	case viewer == "" || viewer == from:
		return nonNil(bcc)
	case kind == "bcc":
		return []string{viewer}
	}
	return []string{}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func split(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// messageColumns are read by scanMessage; r is the viewer's recipients row
// (LEFT JOINed, so NULL for a non-recipient).
const messageColumns = `m.id, m.named_thread, m.sender, m.to_list, m.cc_list, m.bcc_list, m.subject, m.importance,
	m.ack_required, m.category, m.reply_to, m.created, m.hold_ms, m.body, m.path, m.topic, m.attachments, r.kind, r.read_at, r.acked_at`

// headerColumns are messageColumns with the body left out (read as ""):
// what a list without bodies reads.
var headerColumns = strings.Replace(messageColumns, "m.body", "''", 1)

type viewed struct {
	Message
	kind string // the viewer's recipient kind, "" if not a recipient
	post bool   // a post to a channel (isPost), judged before the bcc list is cut
}

func (m *Mailbox) scanMessage(sc interface{ Scan(...any) error }, viewer string) (viewed, error) {
	var (
		r                     record.Message
		to, cc, bcc, created  string
		path, atts            string
		holdMS                int64
		kind, readAt, ackedAt sql.NullString
	)
	if err := sc.Scan(&r.ID, &r.Thread, &r.From, &to, &cc, &bcc, &r.Subject, &r.Importance,
		&r.AckRequired, &r.Category, &r.ReplyTo, &created, &holdMS, &r.Body, &path, &r.Topic, &atts, &kind, &readAt, &ackedAt); err != nil {
		return viewed{}, err
	}
	if atts != "" {
		if err := json.Unmarshal([]byte(atts), &r.Attachments); err != nil {
			return viewed{}, fmt.Errorf("message %s: attachments: %w", r.ID, err)
		}
	}
	r.Project = m.proj.Slug
	r.To, r.Cc, r.Bcc = split(to), split(cc), split(bcc)
	r.Created, _ = record.ParseTime(created)
	r.Hold = time.Duration(holdMS) * time.Millisecond
	r.SetPath(path) // the file's name as written, by whatever rule then held
	post := r.Topic != "" && to == "" && cc == "" && bcc == ""
	return viewed{viewOf(&r, path, viewer, kind.String, parseNull(readAt), parseNull(ackedAt)), kind.String, post}, nil
}

func parseNull(s sql.NullString) *time.Time {
	if !s.Valid {
		return nil
	}
	t, err := record.ParseTime(s.String)
	if err != nil {
		return nil
	}
	return &t
}

// messageIDs is how this mailbox's message ids are resolved and named in
// errors.
func (m *Mailbox) messageIDs() ids.Kind {
	return ids.Kind{Noun: "message", Min: MinIDPrefix, Invalid: ErrInvalidArgument, NotFound: ErrNotFound,
		Ambiguous: ErrAmbiguousID, Lister: "the inbox or the outbox", Field: "message_id", In: "project " + m.proj.Slug}
}

// resolveID turns a full id or a unique prefix into the id of a message of
// the project. Ambiguity is decided over the whole project, as ShortIDs
// abbreviates; the error describes the matches viewer may see by subject.
func (m *Mailbox) resolveID(ctx context.Context, q queryer, prefix, viewer string) (string, error) {
	return m.messageIDs().Resolve(prefix, ids.InProject(ctx, q, idMatches, `SELECT count(*) FROM messages WHERE project_id = ? AND id >= ? AND id < ?`, m.pid, viewer))
}

// idMatches lists the messages of project ?1 whose ids are from ?2 up to
// ?3, at most ?5, each with its subject, shortened, if viewer ?4 may see
// it ("": any message). Its parameters are written +? (see joinParam),
// the limit too, which the planner also looks at.
const idMatches = `SELECT m.id,
	CASE WHEN NOT (?4 = '' OR m.sender = +?4 OR ` + isPost + ` OR EXISTS (SELECT 1 FROM recipients r
		WHERE r.project_id = m.project_id AND r.agent = +?4 AND r.message_id = m.id)) THEN 'not your mail'
	WHEN length(m.subject) > 40 THEN substr(m.subject, 1, 39) || '…'
	ELSE m.subject END
	FROM messages m WHERE m.project_id = +?1 AND m.id >= ?2 AND m.id < ?3 ORDER BY m.id LIMIT +?5`

// ShortIDs abbreviates message ids for display: each to the shortest prefix
// that no other message of the project has, and at least ids.MinDisplay
// characters, so that every displayed id works when pasted back. It costs
// two index lookups an id, however large the project.
func (m *Mailbox) ShortIDs(ctx context.Context, list []string) (ids.Short, error) {
	return ids.Shorten(ctx, m.st.Index(), idNeighbours, []any{m.pid}, list)
}

// idNeighbours lists the ids of a JSON array ?2 with the ids of project ?1
// before and after each.
const idNeighbours = `SELECT j.value,
	(SELECT id FROM messages WHERE project_id = +?1 AND id < j.value ORDER BY id DESC LIMIT 1),
	(SELECT id FROM messages WHERE project_id = +?1 AND id > j.value ORDER BY id LIMIT 1)
	FROM json_each(?2) j`

// firstIDAt returns the prefix of the ids of messages made at t (to the
// millisecond): no id made at t or later sorts before it.
func firstIDAt(t time.Time) string {
	// Ids carry times from 1970 to 10889: one outside sorts before or
	// after them all.
	switch {
	case t.Before(record.Earliest):
		t = record.Earliest
	case t.After(record.Latest):
		t = record.Latest
	}
	return ulid.MustNew(ulid.Timestamp(t), nil).String()[:10]
}

// isPost is true of a message m that is a post to a channel: a topic and
// no recipients. Every agent of the project may read one.
const isPost = `(m.topic != '' AND m.to_list = '' AND m.cc_list = '' AND m.bcc_list = '')`

// Post reports whether the message is a post to a channel: it has a topic
// and no recipients, and every agent of the project may read it. (A
// viewer shown no bcc list may take a message with a topic and only bcc
// recipients for one: such a viewer is not shown the message at all.)
func (m *Message) Post() bool {
	return m.Topic != "" && len(m.Message.To)+len(m.Message.Cc)+len(m.Message.Bcc) == 0
}

// visibleMessage loads a message the viewer sent or received, or a post
// ("" viewer: any message of the project).
func (m *Mailbox) visibleMessage(ctx context.Context, q queryer, prefix, viewer string) (viewed, error) {
	id, err := m.resolveID(ctx, q, prefix, viewer)
	if err != nil {
		return viewed{}, err
	}
	v, err := m.scanMessage(q.QueryRowContext(ctx, messageAsSeen, viewer, id), viewer)
	if err != nil {
		return viewed{}, err
	}
	if viewer != "" && v.kind == "" && v.From != viewer && !v.post {
		return viewed{}, fault.WithHint(fault.WithField(fmt.Errorf("%w: message %s was neither sent to nor by %s", ErrNotFound, id, viewer), "id", "id", id),
			"agents see only their own mail")
	}
	return v, nil
}

// messageAsSeen selects a message by its id, with the recipients row of
// a viewer.
const messageAsSeen = `SELECT ` + messageColumns + ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.id = ` + joinParam

// Show returns one message with its body. With an acting agent, only its own
// mail is visible; without one (a human at the terminal), any message.
func (m *Mailbox) Show(ctx context.Context, id string) (Message, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return Message{}, err
	}
	v, err := m.visibleMessage(ctx, m.st.Index(), id, viewer)
	return v.Message, err
}

// Viewer returns who reads the mailbox: the acting agent, whose presence
// it refreshes, HumanSender for the overseer's own mailbox, or "" for a
// human at the terminal, who may see every message of the project.
func (m *Mailbox) Viewer(ctx context.Context) (string, error) {
	if m.agent == "" {
		return "", nil
	}
	a, err := m.reader(ctx, m.st.Index())
	return a.Name, err
}

// Messages returns the messages of the project with the given ids, in the
// order of ids (ids of no message of the project left out), as viewer (see
// Viewer) sees them: its receipts, and the bcc lists cut to what it may
// see. It is how another package's list of ids, such as search hits, is
// shown; which messages a viewer may look at is the caller's to decide
// (search --all shows an agent every message of the project).
func (m *Mailbox) Messages(ctx context.Context, viewer string, ids []string) ([]Message, error) {
	out := []Message{}
	if len(ids) == 0 || m.pid == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	return m.list(ctx, m.st.Index(), viewer, messagesByID, string(list), viewer, m.pid)
}

// messagesByID selects the messages whose ids a JSON array lists, in its
// order. CROSS JOIN keeps SQLite's planner from its own choice, which was
// to scan every message of the project and look each up in the list (some
// 60 ms at 100,000 messages, for the five ids of a search's results).
const messagesByID = `SELECT ` + messageColumns + ` FROM json_each(?) j
	CROSS JOIN messages m ON m.id = j.value
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.project_id = ` + joinParam + ` ORDER BY j.key`

// InboxQuery filters an inbox. Results are newest first.
type InboxQuery struct {
	Unread   bool
	Urgent   bool // high or urgent importance only
	Category string
	Since    time.Time
	Limit    int // 0 means no limit
	// Before, a message id, keeps the messages older than it: the next
	// page after the one that ended there.
	Before string
	// Bodies reads each message's body; without it Body is "".
	Bodies bool
	// Topic keeps the messages of one topic (record.NormalTopic).
	Topic string
}

// Inbox lists the acting agent's received messages (or the human
// overseer's: see HumanSender). Listing never changes
// their state.
func (m *Mailbox) Inbox(ctx context.Context, q InboxQuery) ([]Message, error) {
	me, err := m.reader(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	if q.Category != "" {
		d := Draft{Category: q.Category}
		if err := d.validateCategory(); err != nil {
			return nil, err
		}
		q.Category = d.Category
	}
	if q.Topic != "" {
		d := Draft{Topic: q.Topic}
		if err := d.validateTopic(); err != nil {
			return nil, err
		}
		q.Topic = d.Topic
	}
	return m.inbox(ctx, m.st.Index(), me.Name, q)
}

func (m *Mailbox) inbox(ctx context.Context, db queryer, agent string, q InboxQuery) ([]Message, error) {
	query, args := inboxQuery(m.pid, agent, q)
	return m.list(ctx, db, agent, query, args...)
}

// inboxQuery is the query of agent's inbox in project pid, and its
// arguments.
func inboxQuery(pid int64, agent string, q InboxQuery) (string, []any) {
	where := []string{"r.project_id = " + joinParam, "r.agent = " + joinParam}
	args := []any{pid, agent}
	if q.Unread {
		where = append(where, "r.read_at IS NULL")
	}
	if q.Urgent {
		where = append(where, "m.importance IN ('high', 'urgent')")
	}
	if q.Category != "" {
		where = append(where, "m.category = "+joinParam)
		args = append(args, q.Category)
	}
	if q.Topic != "" {
		where = append(where, "m.topic = "+joinParam)
		args = append(args, q.Topic)
	}
	if !q.Since.IsZero() {
		where = append(where, "m.created >= ?")
		args = append(args, record.FormatTime(q.Since))
	}
	if q.Before != "" {
		where = append(where, "r.message_id < ?")
		args = append(args, q.Before)
	}
	columns := headerColumns
	if q.Bodies {
		columns = messageColumns
	}
	query := `SELECT ` + columns + ` FROM recipients r JOIN messages m ON m.id = r.message_id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY r.message_id DESC`
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	return query, args
}

func (m *Mailbox) list(ctx context.Context, db queryer, viewer, query string, args ...any) ([]Message, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		v, err := m.scanMessage(rows, viewer)
		if err != nil {
			return nil, err
		}
		out = append(out, v.Message)
	}
	return out, rows.Err()
}

// Outbox lists the acting agent's sent messages, newest first, at most
// limit (0: all) older than the message id before ("": from the newest).
func (m *Mailbox) Outbox(ctx context.Context, limit int, before string) ([]Message, error) {
	me, err := m.reader(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	query := outboxRows
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", limit)
	}
	return m.list(ctx, m.st.Index(), me.Name, query, me.Name, m.pid, me.Name, before, before)
}

// outboxRows are the messages an agent sent, newest first, with its
// recipients row (when it sent itself one), older than a message id or
// all.
const outboxRows = `SELECT ` + messageColumns + ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.project_id = ` + joinParam + ` AND m.sender = ` + joinParam + ` AND (? = '' OR m.id < ?) ORDER BY m.id DESC`

// threadOf returns the thread ref stands for: when ref is a message id, or
// a prefix of exactly one, of a message viewer may see ("": any message),
// that message's thread; else the thread named ref. A prefix of several
// messages is ambiguous, not a name.
func (m *Mailbox) threadOf(ctx context.Context, q queryer, ref, viewer string) (string, error) {
	ref = strings.TrimSpace(ref)
	v, err := m.visibleMessage(ctx, q, ref, viewer)
	switch {
	case err == nil:
		return v.Thread, nil
	case errors.Is(err, ErrInvalidArgument), errors.Is(err, ErrNotFound):
		return ref, nil // not an id, or none of viewer's: a name
	}
	return "", err
}

// Thread returns the thread named ref (a thread name, or a message id or
// prefix whose thread is meant), oldest first, as the viewer may see it.
func (m *Mailbox) Thread(ctx context.Context, ref string) (string, []Message, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return "", nil, err
	}
	if strings.TrimSpace(ref) == "" {
		return "", nil, invalid("no thread given", "pass a thread name or a message id")
	}
	thread, err := m.threadOf(ctx, m.st.Index(), ref, viewer)
	if err != nil {
		return "", nil, err
	}
	msgs, err := m.list(ctx, m.st.Index(), viewer, `SELECT `+messageColumns+threadRows+` ORDER BY m.id`,
		m.threadArgs(thread, viewer)...)
	if err != nil {
		return "", nil, err
	}
	if len(msgs) == 0 {
		return "", nil, noThread(ref, m.proj.Slug)
	}
	return thread, msgs, nil
}

// threadRows are the messages of a thread as a viewer may see them, with
// the viewer's recipients row; threadArgs are its arguments.
const threadRows = ` FROM messages m
	LEFT JOIN recipients r ON r.project_id = m.project_id AND r.message_id = m.id AND r.agent = ` + joinParam + `
	WHERE m.project_id = ` + joinParam + ` AND m.thread = ` + joinParam + ` AND (? = '' OR m.sender = ` + joinParam + ` OR r.agent IS NOT NULL OR ` + isPost + `)`

// threadBefore and threadFrom are threadRows before a message id, newest
// first, and from it on, oldest first, at most a number of them (the
// arguments after threadArgs').
const (
	threadBefore = `SELECT ` + messageColumns + threadRows + ` AND m.id < ? ORDER BY m.id DESC LIMIT ` + joinParam
	threadFrom   = `SELECT ` + messageColumns + threadRows + ` AND m.id >= ? ORDER BY m.id LIMIT ` + joinParam
)

func (m *Mailbox) threadArgs(thread, viewer string, more ...any) []any {
	return append([]any{viewer, m.pid, thread, viewer, viewer}, more...)
}

func noThread(ref, slug string) error {
	return fault.WithHint(fmt.Errorf("%w: no thread %q visible in project %s", ErrNotFound, ref, slug),
		"pass a thread name or the id of a message in it")
}

// ThreadAround is Thread for a page showing the message id: of its
// thread, as the viewer may see it, at most n messages before it and n
// from it on, oldest first, and how many messages the thread has in all.
// Its cost does not grow with the thread.
func (m *Mailbox) ThreadAround(ctx context.Context, id string, n int) (string, []Message, int, error) {
	viewer, err := m.Viewer(ctx)
	if err != nil {
		return "", nil, 0, err
	}
	q := m.st.Index()
	thread, err := m.threadOf(ctx, q, id, viewer)
	if err != nil {
		return "", nil, 0, err
	}
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*)`+threadRows, m.threadArgs(thread, viewer)...).Scan(&total); err != nil {
		return "", nil, 0, err
	}
	if total == 0 {
		return "", nil, 0, noThread(id, m.proj.Slug)
	}
	before, err := m.list(ctx, q, viewer, threadBefore,
		m.threadArgs(thread, viewer, id, n)...)
	if err != nil {
		return "", nil, 0, err
	}
	after, err := m.list(ctx, q, viewer, threadFrom,
		m.threadArgs(thread, viewer, id, n)...)
	if err != nil {
		return "", nil, 0, err
	}
	slices.Reverse(before)
	return thread, append(before, after...), total, nil
}
