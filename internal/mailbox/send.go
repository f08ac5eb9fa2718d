package mailbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// MaxSubject is the longest subject accepted, in characters.
const MaxSubject = 200

// MaxThread is the longest thread name accepted, in characters.
const MaxThread = 200

// Importances are the accepted importance levels, lowest first.
var Importances = []string{"low", "normal", "high", "urgent"}

// Categories are the accepted message categories. HANDOFF and BLOCKED
// imply that an acknowledgement is required.
var Categories = []string{"HANDOFF", "BLOCKED", "DECISION", "INFO"}

// Draft is a message to send.
type Draft struct {
	To, Cc, Bcc []string
	Subject     string
	Body        string
	Thread      string // a thread name, or a message id (or unique prefix) whose thread to join; "" starts a thread of its own
	Importance  string // "" means normal
	AckRequired bool
	Category    string
	ReplyTo     string        // set by Reply
	Hold        time.Duration // set by Reply
	AsHuman     bool          // from the human overseer (HumanSender): needs no agent, passes every policy
	// Topic is the channel the message is posted to ("" none; see
	// record.NormalTopic). A message with a topic may have no recipients:
	// a post to the channel, which every agent of the project may read.
	Topic string
	// Attachments are files stored beside the message, each once per
	// project however many messages carry it.
	Attachments []AttachmentInput
	// IdempotencyKey, when set, makes a retry of the same send (the same
	// key from the same sender within store.KeyWindow) return the message
	// the first one sent, and write nothing.
	IdempotencyKey string
}

// validate checks everything that does not need the index and normalizes
// importance and category.
func (d *Draft) validate() error {
	d.Subject = strings.TrimSpace(d.Subject)
	switch {
	case d.Subject == "":
		return invalidField("subject", "the subject is empty", "problem", "empty")
	case utf8.RuneCountInString(d.Subject) > MaxSubject:
		return invalidField("subject", fmt.Sprintf("the subject is %d characters long, the limit is %d", utf8.RuneCountInString(d.Subject), MaxSubject),
			"problem", "too_long", "limit", MaxSubject)
	case strings.IndexFunc(d.Subject, unicode.IsControl) >= 0:
		return invalidField("subject", "the subject contains a line break or control character", "problem", "not_one_line")
	case !utf8.ValidString(d.Subject) || !utf8.ValidString(d.Body):
		return invalid("the message is not valid UTF-8", "send text encoded as UTF-8")
	}
	d.Thread = strings.TrimSpace(d.Thread)
	if utf8.RuneCountInString(d.Thread) > MaxThread || strings.IndexFunc(d.Thread, unicode.IsControl) >= 0 {
		return invalidField("thread", fmt.Sprintf("the thread must be one line of at most %d characters", MaxThread), "limit", MaxThread)
	}
	d.Importance = strings.ToLower(strings.TrimSpace(d.Importance))
	if d.Importance == "" {
		d.Importance = "normal"
	}
	if !slices.Contains(Importances, d.Importance) {
		return fault.WithField(invalid(fmt.Sprintf("unknown importance %q", d.Importance), "use one of: "+strings.Join(Importances, ", ")), "importance")
	}
	if err := d.validateCategory(); err != nil {
		return err
	}
	if d.Category == "HANDOFF" || d.Category == "BLOCKED" {
		d.AckRequired = true
	}
	if err := d.validateTopic(); err != nil {
		return err
	}
	if err := validateAttachments(d.Attachments); err != nil {
		return err
	}
	if len(d.To)+len(d.Cc)+len(d.Bcc) == 0 && d.Topic == "" {
		return invalidField("to", "no recipients", "problem", "empty")
	}
	return nil
}

func (d *Draft) validateTopic() error {
	if strings.TrimSpace(d.Topic) == "" {
		d.Topic = ""
		return nil
	}
	t, ok := record.NormalTopic(d.Topic)
	if !ok {
		return invalidTopic(d.Topic)
	}
	d.Topic = t
	return nil
}

// invalidTopic is the error of a topic that is none.
func invalidTopic(topic string) error {
	return fault.WithHint(fmt.Errorf("%w: %q is not a topic", ErrInvalidTopic, topic),
		"a topic is 1 to 64 letters, digits, '_', '.' and '-', starting with a letter, digit or '_' (such as builds or team-api)")
}

func (d *Draft) validateCategory() error {
	d.Category = strings.ToUpper(strings.TrimSpace(d.Category))
	if d.Category != "" && !slices.Contains(Categories, d.Category) {
		return invalid(fmt.Sprintf("unknown category %q", d.Category), "use one of: "+strings.Join(Categories, ", ")+", or none")
	}
	return nil
}

func invalid(msg, hint string) error {
	return fault.WithHint(fmt.Errorf("%w: %s", ErrInvalidArgument, msg), hint)
}

// invalidField is an invalid argument of the draft's field, with the
// values that say what is wrong (key, value pairs): each face words the
// advice in its own terms.
func invalidField(field, msg string, kv ...any) error {
	return fault.WithField(fmt.Errorf("%w: %s", ErrInvalidArgument, msg), field, kv...)
}

// Send delivers a message from the acting agent.
func (m *Mailbox) Send(ctx context.Context, d Draft) (Message, error) {
	sent, err := m.SendBatch(ctx, []Draft{d})
	if err != nil {
		return Message{}, err
	}
	return sent[0], nil
}

// SendBatch delivers several messages from the acting agent as one archive
// commit: all of them or none.
func (m *Mailbox) SendBatch(ctx context.Context, drafts []Draft) ([]Message, error) {
	for i := range drafts {
		if err := drafts[i].validate(); err != nil {
			return nil, err
		}
		if drafts[i].IdempotencyKey != "" && len(drafts) > 1 {
			return nil, invalid("an idempotency key is for one message", "send the messages one by one, each with its own key")
		}
	}
	var out []Message
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		from := Agent{Name: HumanSender}
		if !slices.ContainsFunc(drafts, func(d Draft) bool { return d.AsHuman }) {
			var err error
			if from, err = m.actor(ctx, tx); err != nil {
				return err
			}
		} else if err := m.ensureProject(ctx, tx); err != nil {
			return err
		}
		out = make([]Message, 0, len(drafts))
		stored := map[string]bool{} // attachments put in this commit, by hash
		if len(drafts) == 1 {
			if sent, ok, err := m.replay(ctx, tx, from.Name, drafts[0].IdempotencyKey, "send"); err != nil || ok {
				out = append(out, sent)
				return err
			}
		}
		for _, d := range drafts {
			if d.Thread != "" {
				viewer := from.Name
				if d.AsHuman {
					viewer = "" // the overseer sees every message of the project
				}
				var err error
				if d.Thread, err = m.threadOf(ctx, tx, d.Thread, viewer); err != nil {
					return fmt.Errorf("thread: %w", err)
				}
			}
			msg, err := m.compose(ctx, tx, from.Name, d)
			if err != nil {
				return err
			}
			var files []*record.AttachmentFile
			msg.Attachments, files = attachmentRecords(m.proj.Slug, d.Attachments)
			tx.Put(msg)
			putAttachments(tx, files, stored)
			out = append(out, viewOf(msg, msg.Path(), from.Name, "", nil, nil))
			if len(drafts) == 1 {
				tx.Describe(from.Name, commitSubject(msg))
				if err := tx.Remember(from.Name, d.IdempotencyKey, "send", sentKey{msg.ID}); err != nil {
					return err
				}
			} else {
				tx.Describe(from.Name, fmt.Sprintf("mail: %s sent %d messages", from.Name, len(drafts)))
			}
		}
		return nil
	})
	return out, err
}

// compose resolves the recipients and builds the record.
func (m *Mailbox) compose(ctx context.Context, q queryer, from string, d Draft) (*record.Message, error) {
	to, cc, bcc, err := recipientLists(d, func(raw string) ([]string, error) {
		if IsHuman(raw) {
			return []string{HumanSender}, nil // the overseer takes all mail
		}
		if strings.EqualFold(raw, Broadcast) {
			all, err := m.broadcastList(ctx, q, from)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, n := range all {
				a, _, err := m.lookupAgent(ctx, q, n)
				if err != nil {
					return nil, err
				}
				if m.deliverable(ctx, q, from, a, d.Thread, true) == nil {
					out = append(out, n)
				}
			}
			return out, nil
		}
		a, ok, err := m.lookupAgent(ctx, q, raw)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, m.unknownRecipient(ctx, q, raw)
		}
		if a.Retired {
			return nil, fault.WithField(fmt.Errorf("%w: %s is retired and receives no new mail", ErrAgentRetired, a.Name), "to", "name", a.Name)
		}
		if err := m.deliverable(ctx, q, from, a, d.Thread, false); err != nil {
			return nil, err
		}
		return []string{a.Name}, nil
	})
	if err != nil {
		return nil, err
	}
	if len(to)+len(cc)+len(bcc) == 0 && d.Topic == "" {
		return nil, invalidField("to", "no recipients", "problem", "empty")
	}
	clock := m.st.Clock()
	now := clock.Truncate(time.Second)
	return &record.Message{
		Project: m.proj.Slug, ID: ulid.MustNew(ulid.Timestamp(clock), ulid.DefaultEntropy()).String(),
		Thread: d.Thread, From: from, To: to, Cc: cc, Bcc: bcc,
		Subject: d.Subject, Importance: d.Importance, AckRequired: d.AckRequired,
		Category: d.Category, ReplyTo: d.ReplyTo, Created: now, Hold: d.Hold, Body: d.Body,
		Topic: d.Topic,
	}, nil
}

// recipientLists resolves the to, cc and bcc lists of d with resolve (one
// name as given to the agent names it stands for), dropping blanks and
// agents already listed, so that each agent appears once, in its first list.
func recipientLists(d Draft, resolve func(raw string) ([]string, error)) (to, cc, bcc []string, err error) {
	seen := map[string]bool{}
	list := func(raw []string) ([]string, error) {
		var out []string
		for _, r := range raw {
			if r = strings.TrimSpace(r); r == "" {
				continue
			}
			names, err := resolve(r)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
		return out, nil
	}
	if to, err = list(d.To); err != nil {
		return nil, nil, nil, err
	}
	if cc, err = list(d.Cc); err != nil {
		return nil, nil, nil, err
	}
	if bcc, err = list(d.Bcc); err != nil {
		return nil, nil, nil, err
	}
	return to, cc, bcc, nil
}

// Broadcast is the recipient that stands for every other agent of the
// project that is not retired.
const Broadcast = "all"

func (m *Mailbox) broadcastList(ctx context.Context, q queryer, from string) ([]string, error) {
	return store.Strings(ctx, q, broadcastNames, m.pid, names.Fold(from))
}

// broadcastNames selects the names of the agents of project ? that are
// not retired, but for the one with folded name ?, by folded name.
const broadcastNames = `SELECT name FROM agents WHERE project_id = ` + joinParam + ` AND NOT retired AND fold != ` + joinParam + ` ORDER BY fold`

func (m *Mailbox) unknownRecipient(ctx context.Context, q queryer, name string) error {
	all, err := m.agentNames(ctx, q)
	if err != nil {
		return err
	}
	msg := fmt.Errorf("%w %s in project %s", ErrUnknownRecipient, name, m.proj.Slug)
	kv := []any{"name", name}
	if closest := names.Closest(name, all, 3); len(closest) > 0 {
		msg = fmt.Errorf("%w %s in project %s (did you mean %s?)", ErrUnknownRecipient, name, m.proj.Slug, strings.Join(closest, ", "))
		kv = append(kv, "closest", closest)
	}
	return fault.WithField(msg, "to", kv...)
}

// commitSubject is the archive commit's one-line summary:
// "mail: GreenCastle -> BlueLake, RedCat | Auth API ready". Bcc recipients
// are left out.
func commitSubject(msg *record.Message) string {
	subject := msg.Subject
	if utf8.RuneCountInString(subject) > 72 {
		subject = string([]rune(subject)[:71]) + "…"
	}
	to := strings.Join(append(append([]string{}, msg.To...), msg.Cc...), ", ")
	if msg.Topic != "" {
		to = strings.TrimPrefix(to+", #"+msg.Topic, ", ")
	}
	return fmt.Sprintf("mail: %s -> %s | %s", msg.From, to, subject)
}

// ReplyDraft is a reply's own content; everything else comes from the
// original.
type ReplyDraft struct {
	All  bool // reply to the sender and every to/cc recipient
	Body string
	Hold time.Duration // ask a sender waiting with send --wait to wait this much longer
	// AsHuman replies as the human overseer (HumanSender), who needs no
	// agent and may answer any message of the project.
	AsHuman bool
	// IdempotencyKey: as Draft's.
	IdempotencyKey string
}

// sentKey is what an idempotency key of a send or reply records: the
// message sent, which a retry reads back from the index.
type sentKey struct {
	Message string `json:"message"`
}

// replay returns the message that agent's send (or reply: op) with key
// sent within store.KeyWindow, if there is one, as its sender sees it.
func (m *Mailbox) replay(ctx context.Context, tx *store.Tx, agent, key, op string) (Message, bool, error) {
	if err := store.CheckKey(key); err != nil {
		return Message{}, false, err
	}
	var k sentKey
	if ok, err := tx.Replay(ctx, agent, key, op, &k); err != nil || !ok {
		return Message{}, false, err
	}
	v, err := m.visibleMessage(ctx, tx, k.Message, agent)
	if err != nil {
		return Message{}, false, fmt.Errorf("idempotency key %q: its message %s: %w", key, k.Message, err)
	}
	return v.Message, true, nil
}

// Reply answers message id (a unique prefix of at least 6 characters) in
// its thread: to its sender (or, with All, everyone but the acting agent;
// a message from Human goes back to Human, see HumanSender),
// with "Re: " added once and the original's importance. A reply does not
// ask for an acknowledgement because the original did: the answer to a
// HANDOFF is often just "on it".
func (m *Mailbox) Reply(ctx context.Context, id string, r ReplyDraft) (Message, error) {
	var out Message
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, viewer := Agent{Name: HumanSender}, ""
		if r.AsHuman {
			if err := m.ensureProject(ctx, tx); err != nil {
				return err
			}
		} else {
			var err error
			if me, err = m.actor(ctx, tx); err != nil {
				return err
			}
			viewer = me.Name
		}
		if sent, ok, err := m.replay(ctx, tx, me.Name, r.IdempotencyKey, "reply"); err != nil || ok {
			out = sent
			return err
		}
		orig, err := m.visibleMessage(ctx, tx, id, viewer)
		if err != nil {
			return err
		}
		to := []string{orig.From}
		var cc []string
		if orig.From == me.Name {
			to = orig.To
		}
		if r.All {
			for _, n := range append(append([]string{}, orig.To...), orig.Cc...) {
				if n != me.Name && !slices.Contains(to, n) {
					cc = append(cc, n)
				}
			}
		}
		subject := orig.Subject
		if !strings.HasPrefix(strings.ToLower(subject), "re:") {
			subject = "Re: " + subject
		}
		if utf8.RuneCountInString(subject) > MaxSubject {
			subject = string([]rune(subject)[:MaxSubject])
		}
		d := Draft{To: to, Cc: cc, Subject: subject, Body: r.Body, Thread: orig.Thread,
			Importance: orig.Importance, ReplyTo: orig.ID, Hold: r.Hold, Topic: orig.Topic}
		if err := d.validate(); err != nil {
			return err
		}
		msg, err := m.compose(ctx, tx, me.Name, d)
		if err != nil {
			return err
		}
		tx.Put(msg)
		tx.Describe(me.Name, commitSubject(msg))
		out = viewOf(msg, msg.Path(), me.Name, "", nil, nil)
		return tx.Remember(me.Name, r.IdempotencyKey, "reply", sentKey{msg.ID})
	})
	return out, err
}

// Mark sets read (and, with ack, acknowledged) times on the acting agent's
// receipts for the given ids; with all and no ids, on every unread message
// in its inbox, or, with ack, on every message that asks for an
// acknowledgement it has not had (read or not). Existing timestamps are
// kept; unchanged receipts are not rewritten. It returns the messages as
// they are afterwards.
//
// A post to a channel (no recipients) is read by moving the agent's
// reading position in its channel to it (see MarkPosts); it is not
// acknowledged.
func (m *Mailbox) Mark(ctx context.Context, ids []string, all, ack bool) ([]Message, error) {
	var out, posts []Message
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		if all {
			var waiting []Message
			if ack {
				waiting, err = m.pendingAcks(ctx, tx, me.Name)
			} else {
				waiting, err = m.inbox(ctx, tx, me.Name, InboxQuery{Unread: true})
			}
			if err != nil {
				return err
			}
			for _, w := range waiting {
				ids = append(ids, w.ID)
			}
		}
		now := m.st.Now()
		var changed []string
		for _, id := range ids {
			msg, err := m.visibleMessage(ctx, tx, id, me.Name)
			if err != nil {
				return err
			}
			if msg.kind == "" && msg.post && !ack && msg.From != me.Name {
				posts = append(posts, msg.Message) // read: the reading position in its channel moves
				out = append(out, msg.Message)
				continue
			}
			if msg.kind == "" {
				return fault.WithHint(fmt.Errorf("%w: %s is not in %s's inbox (it was sent by %s)", ErrNotFound, msg.ID, me.Name, msg.From),
					"only recipients read or acknowledge a message")
			}
			rec := &record.Receipt{Project: m.proj.Slug, Message: msg.ID, Agent: me.Name}
			if msg.ReadAt != nil {
				rec.ReadAt = *msg.ReadAt
			}
			if msg.AckedAt != nil {
				rec.AckedAt = *msg.AckedAt
			}
			if rec.ReadAt.IsZero() {
				rec.ReadAt = now
			}
			if ack && rec.AckedAt.IsZero() {
				rec.AckedAt = now
			}
			if (msg.ReadAt == nil) != rec.ReadAt.IsZero() || (msg.AckedAt == nil) != rec.AckedAt.IsZero() {
				tx.Put(rec)
				changed = append(changed, msg.ID)
			}
			msg.ReadAt, msg.AckedAt = timePtr(rec.ReadAt), timePtr(rec.AckedAt)
			out = append(out, msg.Message)
		}
		verb := "read"
		if ack {
			verb = "ack"
		}
		tx.Describe(me.Name, fmt.Sprintf("%s: %s %s", verb, me.Name, summarizeIDs(changed)))
		return nil
	})
	if err == nil {
		err = m.MarkPosts(ctx, posts)
	}
	return out, err
}

func summarizeIDs(ids []string) string {
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:3], ", "), len(ids)-3)
}
