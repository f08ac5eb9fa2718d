// Package mailbox is agentmail's mail: projects, agent identities, messages
// and their receipts, on top of the store (git archive plus SQLite index).
package mailbox

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// ActiveWindow is how recently an agent must have run a command to count as
// active.
const ActiveWindow = 5 * time.Minute

// Mailbox is one project's mail in an open store.
type Mailbox struct {
	st       *store.Store
	proj     project.Project
	pid      int64 // 0 until the project has a record
	agent    string
	presence PresenceRules
	watching bool // an overseer looks through the agent's eyes: no heartbeat
}

// Open returns the mailbox of proj, acting as agent ("" for nobody: read-only
// overviews). The index is brought up to date with the archive first.
func Open(ctx context.Context, st *store.Store, proj project.Project, agent string) (*Mailbox, error) {
	if err := st.Fresh(ctx); err != nil {
		return nil, err
	}
	if !st.Has(projection{}.Name()) {
		return nil, fault.WithHint(errors.New("the store was opened without the mailbox's tables"),
			"open the store with mailbox.Projection() among its projections")
	}
	m := &Mailbox{st: st, proj: proj, agent: strings.TrimSpace(agent), presence: DefaultPresence}
	if err := m.loadProjectID(ctx, st.Index()); err != nil {
		return nil, err
	}
	if m.pid == 0 {
		if err := m.adopt(ctx); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// adopt makes the mailbox, when the store knows nothing under the
// project's key, that of a project the store keeps under another key of
// the same repository, as earlier versions of agentmail wrote it: the key
// a relative origin URL was given before it was resolved (../remote; only
// while the repository is not pinned: the pin then keeps it), and another
// spelling on a host that ignores case in paths (github.com/Acme/Shop is
// github.com/acme/shop). Nothing already in the store drops out of view.
func (m *Mailbox) adopt(ctx context.Context) error {
	if r := m.proj.Repo; r != nil && r.LegacyKey != "" && m.proj.Source == project.SourceOrigin {
		p, ok, err := store.LookupProject(ctx, m.st.Index(), project.Slug(r.LegacyKey))
		if ok || err != nil {
			m.adoptRow(p)
			return err
		}
	}
	if project.FoldsCase(m.proj.Key) {
		p, _, err := store.LookupProjectByKey(ctx, m.st.Index(), m.proj.Key)
		m.adoptRow(p)
		return err
	}
	return nil
}

// adoptRow makes the mailbox that of the project the index knows as p,
// unless p is no project.
func (m *Mailbox) adoptRow(p store.ProjectRow) {
	if p.ID != 0 {
		m.proj.Key, m.proj.Slug, m.pid = p.Key, p.Slug, p.ID
	}
}

// Known reports whether the store holds anything of the project.
func (m *Mailbox) Known() bool { return m.pid != 0 }

// EnsureProject records the project in the store, if it is not there yet,
// as its first write would: the commit guard then knows the store serves
// it.
func (m *Mailbox) EnsureProject(ctx context.Context) error {
	return m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		if err := m.ensureProject(ctx, tx); err != nil {
			return err
		}
		tx.Describe("agentmail", fmt.Sprintf("project: %s (%s)", m.proj.Slug, m.proj.Key))
		return nil
	})
}

// Project returns the mailbox's project.
func (m *Mailbox) Project() project.Project { return m.proj }

// ProjectID returns the row id the index knows the project by, 0 while
// the store holds nothing of it: what other packages' tables name it by.
func (m *Mailbox) ProjectID() int64 { return m.pid }

// queryer is the index as the mailbox reads and writes it: the store's, or
// an update's transaction.
type queryer = store.Querier

func (m *Mailbox) loadProjectID(ctx context.Context, q queryer) error {
	p, _, err := store.LookupProject(ctx, q, m.proj.Slug)
	m.pid = p.ID
	return err
}

// Agent is a registered identity.
type Agent struct {
	Name         string
	Program      string
	Model        string
	Task         string
	Registered   time.Time
	LastSeen     time.Time
	Retired      bool   // receives no mail, left out of broadcasts
	Policy       string // contact policy: open, auto, contacts_only, block_all
	State        string // active, idle or stale (see Presence); set by Agents
	Reservations int    // active reservations; set by Agents
	Role         string // a free word such as reviewer; "" for none
	Branch       string // the branch of the working tree it last ran a command in, on this machine; "" if unknown
	Worktree     string // that working tree's root
}

// agentByName is the query of an agent (agentColumns) by the slug (twice)
// and id of its project and its folded name.
const agentByName = `SELECT ` + agentColumns + ` FROM agents a
	LEFT JOIN presence p ON p.slug = ` + joinParam + ` AND p.fold = a.fold
	LEFT JOIN worktrees w ON w.slug = ` + joinParam + ` AND w.fold = a.fold
	WHERE a.project_id = ` + joinParam + ` AND a.fold = ` + joinParam

// joinParam is a parameter compared for equality, or a LIMIT, in a query
// that joins tables or has subqueries (see store.JoinParam).
const joinParam = store.JoinParam

const agentColumns = `a.name, a.program, a.model, a.task, a.registered, COALESCE(p.last_seen, a.updated), a.retired, a.policy, a.role,
	COALESCE(w.branch, ''), COALESCE(w.root, '')`

func scanAgent(sc interface{ Scan(...any) error }) (Agent, error) {
	var a Agent
	var reg, seen string
	if err := sc.Scan(&a.Name, &a.Program, &a.Model, &a.Task, &reg, &seen, &a.Retired, &a.Policy, &a.Role, &a.Branch, &a.Worktree); err != nil {
		return a, err
	}
	a.Registered, _ = record.ParseTime(reg)
	a.LastSeen, _ = record.ParseTime(seen)
	a.Policy = cmpPolicy(a.Policy)
	return a, nil
}

func (m *Mailbox) lookupAgent(ctx context.Context, q queryer, name string) (Agent, bool, error) {
	if m.pid == 0 {
		return Agent{}, false, nil
	}
	a, err := scanAgent(q.QueryRowContext(ctx, agentByName, m.proj.Slug, m.proj.Slug, m.pid, names.Fold(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, false, nil
	}
	return a, err == nil, err
}

// actor returns the acting agent, which must be registered, and refreshes
// its last-seen time unless the stored one is recent (see PresenceRules.Refresh).
func (m *Mailbox) actor(ctx context.Context, q queryer) (Agent, error) {
	if m.agent == "" {
		return Agent{}, fault.WithField(fmt.Errorf("%w: no agent given", ErrNotRegistered), "agent", "problem", "missing")
	}
	if IsHuman(m.agent) {
		return Agent{}, fault.WithField(fmt.Errorf("%w: %s is the human overseer's mailbox, not an agent: it can be read, not acted as", ErrNotRegistered, HumanSender),
			"agent", "problem", "human")
	}
	a, ok, err := m.lookupAgent(ctx, q, m.agent)
	if err != nil {
		return Agent{}, err
	}
	if !ok {
		return Agent{}, fault.WithField(fmt.Errorf("%w: %s is not registered in project %s", ErrNotRegistered, m.agent, m.proj.Slug),
			"agent", "problem", "unregistered", "name", m.agent)
	}
	if m.watching {
		return a, nil
	}
	now := m.st.Now()
	seen := a.LastSeen
	a.LastSeen = now
	if root, branch := m.proj.Root, m.proj.Repo.Branch(); branch != "" && (branch != a.Branch || root != a.Worktree) {
		a.Branch, a.Worktree = branch, root
		if err := m.touchWorktree(ctx, q, a.Name, root, branch); err != nil {
			return a, err
		}
	} else if d := now.Sub(seen); d >= 0 && d < m.presence.Refresh() {
		return a, nil
	}
	return a, m.touch(ctx, q, a.Name)
}

// touchWorktree records the working tree (and its branch) that agent runs
// a command in, when it is not the one recorded: kept only in the index,
// as presence is.
func (m *Mailbox) touchWorktree(ctx context.Context, q queryer, agent, root, branch string) error {
	if m.st.ReadOnly() {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO worktrees(slug, fold, root, branch, seen) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(slug, fold) DO UPDATE SET root = excluded.root, branch = excluded.branch, seen = excluded.seen`,
		m.proj.Slug, names.Fold(agent), root, branch, record.FormatTime(m.st.Now()))
	if errors.Is(err, store.ErrBusy) {
		return nil
	}
	return err
}

// reader returns whose mail the mailbox reads: the acting agent (see
// actor), or the human overseer's mailbox (HumanSender), which needs no
// registration and has no presence.
func (m *Mailbox) reader(ctx context.Context, q queryer) (Agent, error) {
	if IsHuman(m.agent) {
		return Agent{Name: HumanSender}, nil
	}
	return m.actor(ctx, q)
}

// touch records that agent ran a command now: the heartbeat behind
// last-seen, kept only in the index, and so not in a store its user can
// only read. A read does not wait for another process's write to record it
// (store.Index): the agent's next command records it then.
func (m *Mailbox) touch(ctx context.Context, q queryer, agent string) error {
	if m.st.ReadOnly() {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO presence(slug, fold, last_seen) VALUES (?, ?, ?)
		ON CONFLICT(slug, fold) DO UPDATE SET last_seen = excluded.last_seen`,
		m.proj.Slug, names.Fold(agent), record.FormatTime(m.st.Now()))
	if errors.Is(err, store.ErrBusy) {
		return nil
	}
	return err
}

// RegisterInput is what register accepts.
type RegisterInput struct {
	Name    string // "" for a generated name, or the acting agent's own
	Program string
	Model   string
	Task    string
	Policy  string // contact policy; "" keeps the current one (DefaultPolicy for a new agent)
	Role    string // a free word such as reviewer; "" keeps the current one
}

// Register creates an identity, or updates the acting agent's own profile
// when it registers its own name again.
func (m *Mailbox) Register(ctx context.Context, in RegisterInput) (Agent, error) {
	if in.Role != "" {
		if err := validRole(in.Role); err != nil {
			return Agent{}, err
		}
	}
	if in.Policy != "" {
		var err error
		if in.Policy, err = validPolicy(in.Policy); err != nil {
			return Agent{}, err
		}
	}
	var out Agent
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		if err := m.ensureProject(ctx, tx); err != nil {
			return err
		}
		name := strings.TrimSpace(in.Name)
		if name == "" {
			name = m.agent
		}
		var err error
		if name == "" {
			if name, err = m.freeName(ctx, tx); err != nil {
				return fmt.Errorf("register: %w", err)
			}
		} else if name, err = m.parseName(ctx, tx, name); err != nil {
			return err
		}
		now := m.st.Now()
		rec := &record.Agent{Project: m.proj.Slug, Name: name, Program: in.Program, Model: in.Model, Task: in.Task, Registered: now, Updated: now,
			Policy: cmp.Or(in.Policy, DefaultPolicy), Role: in.Role}
		prev, exists, err := m.lookupAgent(ctx, tx, name)
		if err != nil {
			return err
		}
		verb := "register"
		if exists {
			if names.Fold(m.agent) != names.Fold(name) {
				free, _ := m.freeName(ctx, tx)
				return fault.WithField(fmt.Errorf("%w: %s is already registered in project %s", ErrNameTaken, prev.Name, m.proj.Slug),
					"name", "name", prev.Name, "free", free)
			}
			verb = "update"
			rec.Name = prev.Name
			rec.Registered = prev.Registered
			rec.Program = keep(in.Program, prev.Program)
			rec.Model = keep(in.Model, prev.Model)
			rec.Task = keep(in.Task, prev.Task)
			rec.Role = keep(in.Role, prev.Role)
			if in.Policy == "" {
				rec.Policy = prev.Policy
			}
		}
		tx.Put(rec)
		tx.Describe(rec.Name, "agent: "+verb+" "+rec.Name)
		out = Agent{Name: rec.Name, Program: rec.Program, Model: rec.Model, Task: rec.Task, Registered: rec.Registered, LastSeen: now, Policy: cmpPolicy(rec.Policy),
			Role: rec.Role, Branch: prev.Branch, Worktree: prev.Worktree}
		if branch := m.proj.Repo.Branch(); branch != "" {
			out.Branch, out.Worktree = branch, m.proj.Root
			if err := m.touchWorktree(ctx, tx, rec.Name, m.proj.Root, branch); err != nil {
				return err
			}
		}
		return m.touch(ctx, tx, rec.Name)
	})
	return out, err
}

// validRole checks that a role is one word: a letter, then up to 31
// letters, digits, hyphens or underscores.
func validRole(role string) error {
	ok := len(role) <= 32
	for i, r := range role {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_')) {
			ok = false
		}
	}
	if !ok {
		return fault.WithField(invalid(fmt.Sprintf("role %q is not one word", role), "a role is one word of up to 32 letters, digits, - or _, such as reviewer"), "role")
	}
	return nil
}

func keep(newValue, old string) string {
	if newValue != "" {
		return newValue
	}
	return old
}

// parseName validates a requested name, suggesting a free one when it is
// not a valid agent name.
func (m *Mailbox) parseName(ctx context.Context, q queryer, raw string) (string, error) {
	name, err := names.Parse(raw)
	if err == nil {
		return name, nil
	}
	free, ferr := m.freeName(ctx, q)
	if ferr != nil {
		return "", ferr
	}
	return "", fault.WithField(err, "name", "free", free)
}

func (m *Mailbox) freeName(ctx context.Context, q queryer) (string, error) {
	seed := uint64(m.st.Clock().UnixNano()) // a stopped clock (AGENTMAIL_NOW) suggests the same name each time
	return names.Generate(rand.New(rand.NewPCG(seed, seed>>32)), func(fold string) bool {
		_, taken, _ := m.lookupAgent(ctx, q, fold)
		return taken
	})
}

// ensureProject records the project in the store the first time anything
// is written for it.
func (m *Mailbox) ensureProject(ctx context.Context, tx *store.Tx) error {
	if m.pid != 0 {
		return nil
	}
	pid, created, err := tx.EnsureProject(ctx, m.proj.Key, m.proj.Slug)
	if err != nil {
		return err
	}
	m.pid = pid
	if created {
		tx.OnAbort(func() { m.pid = 0 }) // the row goes with the transaction
	}
	return nil
}

// agentActedOn returns the registered agent name that a lifecycle
// operation (retire, deregister, hard delete) acts on, after checking the
// acting agent, if any, is registered.
func (m *Mailbox) agentActedOn(ctx context.Context, tx *store.Tx, name string) (Agent, error) {
	if m.agent != "" {
		if _, err := m.actor(ctx, tx); err != nil {
			return Agent{}, err
		}
	}
	a, ok, err := m.lookupAgent(ctx, tx, name)
	if err != nil {
		return Agent{}, err
	}
	if !ok {
		return Agent{}, m.unknownRecipient(ctx, tx, name)
	}
	return a, nil
}

// Retire marks agent name as retired (it receives no mail and is left out
// of broadcasts), or, with retired false, brings it back.
func (m *Mailbox) Retire(ctx context.Context, name string, retired bool) (Agent, error) {
	var out Agent
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		a, err := m.agentActedOn(ctx, tx, name)
		if err != nil {
			return err
		}
		if a.Retired == retired {
			out = a
			return nil
		}
		prof, err := m.profile(ctx, tx, a.Name)
		if err != nil {
			return err
		}
		prof.Retired, prof.Updated = retired, m.st.Now()
		tx.Put(prof)
		verb := "retire"
		if !retired {
			verb = "unretire"
		}
		tx.Describe(cmp.Or(m.agent, "agentmail"), "agent: "+verb+" "+a.Name)
		a.Retired = retired
		out = a
		return nil
	})
	return out, err
}

// Deregister takes agent name off the project's roster, as
// mcp_agent_mail's deregister_agent does: it is retired (no new mail, out
// of broadcasts and of the agents list), its contact policy becomes
// block_all, and its task says when it left. Its mail and history stay.
// Retire with retired false brings it back to receiving mail; its policy
// stays block_all until it sets another.
func (m *Mailbox) Deregister(ctx context.Context, name string) (Agent, error) {
	var out Agent
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		a, err := m.agentActedOn(ctx, tx, name)
		if err != nil {
			return err
		}
		prof, err := m.profile(ctx, tx, a.Name)
		if err != nil {
			return err
		}
		now := m.st.Now()
		if !strings.HasPrefix(prof.Task, deregisteredTag) {
			prof.Task = strings.TrimSpace(fmt.Sprintf("%s %s] %s", deregisteredTag, record.FormatTime(now), prof.Task))
		}
		prof.Retired, prof.Policy, prof.Updated = true, "block_all", now
		tx.Put(prof)
		tx.Describe(cmp.Or(m.agent, "agentmail"), "agent: deregister "+a.Name)
		a.Retired, a.Policy, a.Task = true, prof.Policy, prof.Task
		out = a
		return nil
	})
	return out, err
}

// deregisteredTag begins the task of a deregistered agent, followed by
// when it left.
const deregisteredTag = "[deregistered at"

// Lookup returns the registered agent name (any case), if there is one.
func (m *Mailbox) Lookup(ctx context.Context, name string) (Agent, bool, error) {
	return m.lookupAgent(ctx, m.st.Index(), name)
}

// profileQuery selects the record of the agent of project ? with folded
// name ?.
const profileQuery = `SELECT name, program, model, task, registered, updated, retired, policy, role FROM agents
	WHERE project_id = ? AND fold = ?`

// profile loads an agent's full record from the index.
func (m *Mailbox) profile(ctx context.Context, q queryer, name string) (*record.Agent, error) {
	r := &record.Agent{Project: m.proj.Slug}
	var reg, upd string
	err := q.QueryRowContext(ctx, profileQuery, m.pid, names.Fold(name)).Scan(&r.Name, &r.Program, &r.Model, &r.Task, &reg, &upd, &r.Retired, &r.Policy, &r.Role)
	if err != nil {
		return nil, err
	}
	r.Registered, _ = record.ParseTime(reg)
	r.Updated, _ = record.ParseTime(upd)
	return r, nil
}

// Whoami returns the acting agent's profile.
func (m *Mailbox) Whoami(ctx context.Context) (Agent, error) {
	return m.actor(ctx, m.st.Index())
}

// agentRows selects the agents (agentColumns) of the project with slug ?
// (twice) and row id ?, by folded name.
const agentRows = `SELECT ` + agentColumns + ` FROM agents a
	LEFT JOIN presence p ON p.slug = ` + joinParam + ` AND p.fold = a.fold
	LEFT JOIN worktrees w ON w.slug = ` + joinParam + ` AND w.fold = a.fold
	WHERE a.project_id = ` + joinParam + ` ORDER BY a.fold`

// Agents lists the project's agents by name, with their presence; with
// active, only the active ones; without all, none retired.
func (m *Mailbox) Agents(ctx context.Context, active, all bool) ([]Agent, error) {
	if m.agent != "" {
		if _, err := m.actor(ctx, m.st.Index()); err != nil {
			return nil, err
		}
	}
	counts, err := m.reservationCounts(ctx) // before the rows: the index has one connection
	if err != nil {
		return nil, err
	}
	rows, err := m.st.Index().QueryContext(ctx, agentRows, m.proj.Slug, m.proj.Slug, m.pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	now := m.st.Now()
	list := []Agent{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		a.State, a.Reservations = m.presence.State(a.LastSeen, now), counts[names.Fold(a.Name)]
		if (!active || a.State == "active") && (all || !a.Retired) {
			list = append(list, a)
		}
	}
	return list, rows.Err()
}

// AgentNames returns the names of the project's registered agents, retired
// ones too, in no particular order.
func (m *Mailbox) AgentNames(ctx context.Context) ([]string, error) {
	return m.agentNames(ctx, m.st.Index())
}

func (m *Mailbox) agentNames(ctx context.Context, q queryer) ([]string, error) {
	if m.pid == 0 {
		return nil, nil
	}
	return store.Strings(ctx, q, `SELECT name FROM agents WHERE project_id = ?`, m.pid)
}

// Holdings is what the store keeps of a project.
type Holdings struct {
	Agents       int // registered agents
	Messages     int // messages, every agent's
	Reservations int // active reservations
}

// Empty reports whether the store keeps nothing of the project.
func (h Holdings) Empty() bool { return h == Holdings{} }

// holdingsQuery counts the agents and messages of project ?1.
const holdingsQuery = `SELECT
	(SELECT count(*) FROM agents WHERE project_id = ?1),
	(SELECT count(*) FROM messages WHERE project_id = ?1)`

// Holdings counts what the store keeps of the project.
func (m *Mailbox) Holdings(ctx context.Context) (Holdings, error) {
	var h Holdings
	if m.pid == 0 {
		return h, nil
	}
	err := m.st.Index().QueryRowContext(ctx, holdingsQuery, m.pid).Scan(&h.Agents, &h.Messages)
	if err != nil {
		return h, fmt.Errorf("count what project %s holds: %w", m.proj.Slug, err)
	}
	counts, err := m.reservationCounts(ctx)
	if err != nil {
		return h, fmt.Errorf("count what project %s holds: %w", m.proj.Slug, err)
	}
	for _, n := range counts {
		h.Reservations += n
	}
	return h, nil
}

// ignoreNoRows is err, but nil for sql.ErrNoRows: for a lookup whose
// caller says "not found" otherwise.
func ignoreNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// SetArchived archives the project (it then takes no writes and is left
// out of project lists; everything in it stays) or, with archived false,
// brings it back. It returns the project as the index now holds it, and
// whether anything changed. A project the store does not hold is
// ErrNotFound.
func (m *Mailbox) SetArchived(ctx context.Context, archived bool) (store.ProjectRow, bool, error) {
	var out store.ProjectRow
	var changed bool
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		if m.agent != "" {
			if _, err := m.actor(ctx, tx); err != nil {
				return err
			}
		}
		p, ok, err := store.LookupProject(ctx, tx, m.proj.Slug)
		if err != nil {
			return err
		}
		if !ok {
			return fault.WithHint(fmt.Errorf("%w: the store holds nothing of project %s (%s)", ErrNotFound, m.proj.Slug, m.proj.Key),
				"name a project the store knows")
		}
		out = p
		if archived == !p.Archived.IsZero() {
			return nil
		}
		rec := &record.Project{Key: p.Key, Slug: p.Slug, Created: p.Created}
		verb := "unarchive"
		if archived {
			rec.Archived, verb = m.st.Now(), "archive"
		}
		tx.Put(rec)
		tx.Describe(cmp.Or(m.agent, "agentmail"), "project: "+verb+" "+p.Slug)
		out.Archived, changed = rec.Archived, true
		return nil
	})
	return out, changed, err
}
