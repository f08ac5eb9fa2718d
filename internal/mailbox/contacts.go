package mailbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Errors of the contact policy.
var (
	ErrContactRequired = errors.New("contact required")
	ErrContactBlocked  = errors.New("contact blocked")
)

// Policies are the contact policies an agent may choose:
//
//   - open (DefaultPolicy): mail from any agent of the project is delivered.
//   - auto: mail is delivered when the recipient wrote to the sender in the
//     same thread or in the last 24 hours, when the two hold overlapping
//     reservations (see related), when the recipient approved the sender
//     as a contact, and for project broadcasts (send --to all); anything
//     else needs a contact request.
//   - contacts_only: only approved contacts.
//   - block_all: nobody.
//
// Mail from the human overseer (HumanSender) passes every policy.
var Policies = []string{"open", "auto", "contacts_only", "block_all"}

// DefaultPolicy is the policy a new agent gets unless it chooses another:
// agents of one project work together, and an orchestrator must be able to
// assign work without asking first.
const DefaultPolicy = "open"

// unsetPolicy is the policy of an agent whose profile names none: one
// registered when auto was the default (and imported ones), which keep it.
// New profiles always name their policy.
const unsetPolicy = "auto"

// validPolicy normalizes policy and checks that it is one of Policies.
func validPolicy(policy string) (string, error) {
	policy = strings.ToLower(strings.TrimSpace(policy))
	if !slices.Contains(Policies, policy) {
		return "", fault.WithField(invalid(fmt.Sprintf("unknown policy %q", policy), "use one of: "+strings.Join(Policies, ", ")), "policy")
	}
	return policy, nil
}

// ContactTTL is how long an approved contact lasts.
const ContactTTL = 30 * 24 * time.Hour

// recentMail is how recent an exchange of mail lets auto deliver.
const recentMail = 24 * time.Hour

// HumanSender is the sender of mail from the human overseer (send
// --as-human): it needs no registration and passes every policy. It is
// also a recipient, so that agents can answer the human: mail to Human
// (any case) is always delivered, to the overseer's own mailbox, which
// the overseer reads (inbox --agent Human, the web pages) without being
// registered. No agent can take the name: it is no adjective and noun.
const HumanSender = "Human"

// IsHuman reports whether name stands for the human overseer's mailbox,
// HumanSender, in any case.
func IsHuman(name string) bool { return strings.EqualFold(strings.TrimSpace(name), HumanSender) }

// SetPolicy sets the acting agent's contact policy.
func (m *Mailbox) SetPolicy(ctx context.Context, policy string) (Agent, error) {
	policy, err := validPolicy(policy)
	if err != nil {
		return Agent{}, err
	}
	var out Agent
	err = m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		prof, err := m.profile(ctx, tx, me.Name)
		if err != nil {
			return err
		}
		if prof.Policy != policy {
			prof.Policy, prof.Updated = policy, m.st.Now()
			tx.Put(prof)
			tx.Describe(me.Name, fmt.Sprintf("agent: %s sets contact policy %s", me.Name, policy))
		}
		me.Policy = policy
		out = me
		return nil
	})
	return out, err
}

func cmpPolicy(p string) string {
	if p == "" {
		return unsetPolicy
	}
	return p
}

// PolicyOf returns the contact policy of the profile a: the one it names,
// or auto for a profile that names none.
func PolicyOf(a *record.Agent) string { return cmpPolicy(a.Policy) }

// Contact is a contact request and its answer.
type Contact = record.Contact

// RequestContact asks agent to for permission to write to it.
func (m *Mailbox) RequestContact(ctx context.Context, to, reason string) (Contact, error) {
	var out Contact
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		target, ok, err := m.lookupAgent(ctx, tx, to)
		if err != nil {
			return err
		}
		if !ok {
			return m.unknownRecipient(ctx, tx, to)
		}
		if target.Name == me.Name {
			return invalid(fmt.Sprintf("%s asks for contact with itself", me.Name), "mail to yourself needs no contact; name another agent")
		}
		if cmpPolicy(target.Policy) == "block_all" {
			return blocked(target.Name, "no mail and no contact requests")
		}
		// Asking again must not withdraw an approval that still holds.
		if c, ok, err := m.contact(ctx, tx, me.Name, target.Name); err != nil {
			return err
		} else if ok && c.State == "approved" && m.st.Now().Before(c.Expires) {
			out = c
			return nil
		}
		out = Contact{Project: m.proj.Slug, From: me.Name, To: target.Name, State: "requested", Reason: reason, Requested: m.st.Now()}
		tx.Put(&out)
		tx.Describe(me.Name, fmt.Sprintf("contact: %s asks %s", me.Name, target.Name))
		return nil
	})
	return out, err
}

// DecideContact approves or denies from's request to write to the acting
// agent. An approval lasts ContactTTL.
func (m *Mailbox) DecideContact(ctx context.Context, from string, approve bool) (Contact, error) {
	var out Contact
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		c, ok, err := m.contact(ctx, tx, from, me.Name)
		if err != nil {
			return err
		}
		if !ok {
			return fault.WithField(fmt.Errorf("%w: no contact request from %s to %s", ErrNotFound, from, me.Name), "from", "from", from)
		}
		now := m.st.Now()
		c.State, c.Decided, c.Expires = "denied", now, time.Time{}
		if approve {
			c.State, c.Expires = "approved", now.Add(ContactTTL)
		}
		out = c
		tx.Put(&c)
		tx.Describe(me.Name, fmt.Sprintf("contact: %s %s %s", me.Name, c.State, c.From))
		return nil
	})
	return out, err
}

// Contacts lists the requests to and from the acting agent.
func (m *Mailbox) Contacts(ctx context.Context) ([]Contact, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil {
		return nil, err
	}
	return m.contacts(ctx, m.st.Index(), `requester = ? OR target = ?`, me.Name, me.Name)
}

// AllContacts lists every contact request of the project, oldest first:
// what an overseer looks at.
func (m *Mailbox) AllContacts(ctx context.Context) ([]Contact, error) {
	if m.pid == 0 {
		return []Contact{}, nil
	}
	return m.contacts(ctx, m.st.Index(), `1`)
}

func (m *Mailbox) contact(ctx context.Context, q queryer, from, to string) (Contact, bool, error) {
	fa, ok, err := m.lookupAgent(ctx, q, from)
	if err != nil || !ok {
		return Contact{}, false, err
	}
	cs, err := m.contacts(ctx, q, contactPair, fa.Name, to)
	if err != nil || len(cs) == 0 {
		return Contact{}, false, err
	}
	return cs[0], true, nil
}

// contactPair chooses the contact of a requester with a target.
const contactPair = `requester = ? AND target = ?`

// contactsQuery selects the contacts of project ? matching where, oldest
// request first.
func contactsQuery(where string) string {
	return `SELECT requester, target, state, reason, requested, decided, expires FROM contacts
	WHERE project_id = ` + joinParam + ` AND (` + where + `) ORDER BY requested`
}

func (m *Mailbox) contacts(ctx context.Context, q queryer, where string, args ...any) ([]Contact, error) {
	rows, err := q.QueryContext(ctx, contactsQuery(where), append([]any{m.pid}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Contact{}
	for rows.Next() {
		c := Contact{Project: m.proj.Slug}
		var requested string
		var decided, expires sql.NullString
		if err := rows.Scan(&c.From, &c.To, &c.State, &c.Reason, &requested, &decided, &expires); err != nil {
			return nil, err
		}
		c.Requested, _ = record.ParseTime(requested)
		if decided.Valid {
			c.Decided, _ = record.ParseTime(decided.String)
		}
		if expires.Valid {
			c.Expires, _ = record.ParseTime(expires.String)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// deliverable applies the recipient's contact policy to mail from sender
// in thread (the thread named by the sender, or ""); broadcast says the
// mail goes to the whole project (send --to all).
func (m *Mailbox) deliverable(ctx context.Context, q queryer, from string, to Agent, thread string, broadcast bool) error {
	if from == HumanSender || names.Fold(from) == names.Fold(to.Name) {
		return nil
	}
	policy := cmpPolicy(to.Policy)
	switch {
	case policy == "open", policy == "auto" && broadcast:
		return nil
	case policy == "block_all":
		return blocked(to.Name, "no mail")
	}
	now := m.st.Now()
	if c, ok, err := m.contact(ctx, q, from, to.Name); err != nil {
		return err
	} else if ok && c.State == "approved" && now.Before(c.Expires) {
		return nil
	}
	accepts := "approved contacts"
	if policy == "auto" {
		ok, err := m.related(ctx, q, from, to.Name, thread, now)
		if err != nil || ok {
			return err
		}
		accepts = "agents it already works with (it wrote to you in this thread or in the last 24 h, or your reservations overlap) or approved contacts"
	}
	return fault.WithValues(fmt.Errorf("%w: %s accepts mail only from %s (policy %s)", ErrContactRequired, to.Name, accepts, policy),
		"recipient", to.Name, "policy", policy)
}

// blocked is the error for an agent with the policy block_all, which
// accepts what (no mail, ...).
func blocked(name, what string) error {
	return fault.WithValues(fmt.Errorf("%w: %s accepts %s (policy block_all)", ErrContactBlocked, name, what), "recipient", name)
}

// relatedQuery says whether agent ?2 wrote to agent ?3 since ?5 (whose
// smallest message id is ?4) or in thread ?6. It costs what it decides:
// the first part walks ?2's messages of the last day (messages_sender,
// from ?4 on), the second the thread's (messages_thread; the unary + keeps
// SQLite from walking all of ?2's mail instead), each with one receipt
// lookup a message; neither grows with the project's history
// (TestRelatedPlan). Message ids start with their time, never earlier than
// their created time (send takes both from one clock reading, import
// checks), so id >= ?4 loses nothing that created >= ?5 keeps. Its
// equality parameters are written +? (see joinParam).
const relatedQuery = `SELECT EXISTS (SELECT 1 FROM messages x JOIN recipients r
		ON r.project_id = x.project_id AND r.agent = +?3 AND r.message_id = x.id
		WHERE x.project_id = +?1 AND x.sender = +?2 AND x.id >= ?4 AND x.created >= ?5)
	OR EXISTS (SELECT 1 FROM messages x JOIN recipients r
		ON r.project_id = x.project_id AND r.agent = +?3 AND r.message_id = x.id
		WHERE x.project_id = +?1 AND x.thread = +?6 AND +x.sender = +?2)`

// related reports whether the recipient to already works with the sender
// from: to wrote to from in the thread (at any time) or in the last day (in
// any thread), or they hold overlapping reservations, leaving out from's
// broad patterns. This is what lets the auto policy deliver without a
// contact. Only mail from the recipient counts: mail from the sender may
// have reached it as a broadcast, or have been sent to the sender itself
// to join a thread, and consents to nothing.
func (m *Mailbox) related(ctx context.Context, q queryer, from, to, thread string, now time.Time) (bool, error) {
	var ok bool
	since := now.Add(-recentMail)
	err := q.QueryRowContext(ctx, relatedQuery, m.pid, to, from, firstIDAt(since), record.FormatTime(since), thread).Scan(&ok)
	if err != nil || ok {
		return ok, err
	}
	return m.leases().Overlapping(ctx, q, m.pid, from, to, now)
}
