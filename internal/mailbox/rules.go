package mailbox

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// RulesProjection returns the index's tables of a project's rules for its
// agents (the invariants, a playbook per role) and, kept across rebuilds
// like a reading position, the version of its rules each agent last read
// on this machine. The role each agent plays is its profile's (agents).
func RulesProjection() store.Projection { return rulesProjection{} }

type rulesProjection struct{}

func (rulesProjection) Name() string { return "rules1" }

func (rulesProjection) Tables() []store.Table {
	return []store.Table{
		{Name: "rules", Create: `CREATE TABLE rules(project_id INTEGER NOT NULL, role TEXT NOT NULL, body TEXT NOT NULL,
			by_agent TEXT NOT NULL, updated TEXT NOT NULL, PRIMARY KEY(project_id, role)) WITHOUT ROWID`},
		{Name: "rules_seen", Kept: true, Create: `CREATE TABLE rules_seen(slug TEXT NOT NULL, fold TEXT NOT NULL,
			version TEXT NOT NULL, PRIMARY KEY(slug, fold)) WITHOUT ROWID`},
	}
}

func (rulesProjection) Prepare(record.Record) any { return nil }

func (rulesProjection) Apply(w *store.Writer, rec record.Record, _ any) error {
	switch r := rec.(type) {
	case *record.Rules:
		pid, err := w.ProjectID(r.Project)
		if err != nil {
			return err
		}
		_, err = w.Exec(`INSERT OR REPLACE INTO rules(project_id, role, body, by_agent, updated) VALUES (?, ?, ?, ?, ?)`,
			pid, r.Role, r.Body, r.By, record.FormatTime(r.Updated))
		return err
	}
	return nil
}

// InvalidRole is the error of a role that is none, on the request's
// field role.
func InvalidRole(role string) error {
	return fault.WithField(fault.WithHint(fmt.Errorf("%w: %q is no role", ErrInvalidArgument, role),
		"a role is one word of 1 to 32 letters, digits, '_' and '-', such as reviewer or backend"), "role")
}

// SetRules sets the project's invariants (role "") or the playbook of role
// to body (markdown; empty clears it), as the acting agent, or the human
// overseer when none acts. The archive keeps every version.
func (m *Mailbox) SetRules(ctx context.Context, role, body string) (record.Rules, error) {
	if role != "" {
		r, ok := record.NormalRole(role)
		if !ok {
			return record.Rules{}, InvalidRole(role)
		}
		role = r
	}
	var out record.Rules
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		by := Agent{Name: HumanSender}
		if m.agent != "" {
			var err error
			if by, err = m.reader(ctx, tx); err != nil {
				return err
			}
		}
		out = record.Rules{Project: m.proj.Slug, Role: role, Body: body, By: by.Name, Updated: m.st.Now()}
		tx.Put(&out)
		what := "invariants"
		if role != "" {
			what = "playbook " + role
		}
		tx.Describe(by.Name, fmt.Sprintf("rules: %s sets the %s", by.Name, what))
		return nil
	})
	return out, err
}

// RulesOf returns the project's invariants and the playbook of role (nil
// when there are none; role "" has only the invariants).
func (m *Mailbox) RulesOf(ctx context.Context, role string) (invariants, playbook *record.Rules, err error) {
	if ok, err := m.known(ctx); !ok {
		return nil, nil, err
	}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT role, body, by_agent, updated FROM rules WHERE project_id = ? AND role IN ('', ?)`, m.pid, role)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		r := &record.Rules{Project: m.proj.Slug}
		var upd string
		if err := rows.Scan(&r.Role, &r.Body, &r.By, &upd); err != nil {
			return nil, nil, err
		}
		r.Updated, _ = record.ParseTime(upd)
		if r.Role == "" {
			invariants = r
		} else {
			playbook = r
		}
	}
	return invariants, playbook, rows.Err()
}

// RulesVersion names the version of an agent's rules, its invariants and
// playbook together: the first 12 hex digits of their SHA-256, "" when
// there are none. Setting the same text again is the same version.
func RulesVersion(invariants, playbook *record.Rules) string {
	var a, b string
	if invariants != nil {
		a = invariants.Body
	}
	if playbook != nil {
		b = playbook.Body
	}
	if a == "" && b == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(a + "\x00" + b))
	return hex.EncodeToString(sum[:6])
}

// RoleOf returns the role agent plays ("" for none).
func (m *Mailbox) RoleOf(ctx context.Context, agent string) (string, error) {
	if ok, err := m.known(ctx); !ok {
		return "", err
	}
	a, ok, err := m.lookupAgent(ctx, m.st.Index(), agent)
	if err != nil || !ok {
		return "", err
	}
	role, _ := record.NormalRole(a.Role)
	return role, nil
}

// Role is a role of the project: one with a playbook, or one an agent
// plays.
type Role struct {
	Role     string
	Playbook *record.Rules // nil when it has none
	Agents   []string      // who play it, by name
}

// Roles returns the project's roles, by name.
func (m *Mailbox) Roles(ctx context.Context) ([]Role, error) {
	if ok, err := m.known(ctx); !ok {
		return nil, err
	}
	by := map[string]*Role{}
	get := func(name string) *Role {
		if by[name] == nil {
			by[name] = &Role{Role: name, Agents: []string{}}
		}
		return by[name]
	}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT role, body, by_agent, updated FROM rules WHERE project_id = ? AND role != ''`, m.pid)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		r := &record.Rules{Project: m.proj.Slug}
		var upd string
		if err := rows.Scan(&r.Role, &r.Body, &r.By, &upd); err != nil {
			rows.Close()
			return nil, err
		}
		r.Updated, _ = record.ParseTime(upd)
		get(r.Role).Playbook = r
	}
	rows.Close()
	rows, err = m.st.Index().QueryContext(ctx, `SELECT name, role FROM agents WHERE project_id = ? AND role != '' ORDER BY fold`, m.pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var agent, role string
		if err := rows.Scan(&agent, &role); err != nil {
			return nil, err
		}
		role, _ = record.NormalRole(role)
		r := get(role)
		r.Agents = append(r.Agents, agent)
	}
	out := make([]Role, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Role) int { return strings.Compare(a.Role, b.Role) })
	return out, rows.Err()
}

// RulesSeen returns the version of its rules the acting agent last read
// on this machine ("" for none).
func (m *Mailbox) RulesSeen(ctx context.Context, agent string) (string, error) {
	var v string
	err := m.st.Index().QueryRowContext(ctx, `SELECT version FROM rules_seen WHERE slug = ? AND fold = ?`, m.proj.Slug, names.Fold(agent)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// MarkRulesSeen records that agent read version of its rules (kept in the
// index across rebuilds, per machine; a read-only store keeps nothing).
func (m *Mailbox) MarkRulesSeen(ctx context.Context, agent, version string) error {
	if m.st.ReadOnly() || agent == "" {
		return nil
	}
	return m.keep(ctx, `INSERT INTO rules_seen(slug, fold, version) VALUES (?, ?, ?)
		ON CONFLICT(slug, fold) DO UPDATE SET version = excluded.version`, m.proj.Slug, names.Fold(agent), version)
}

// known reports whether the index knows the project (it loads its id the
// first time: a write may have just made it).
func (m *Mailbox) known(ctx context.Context) (bool, error) {
	if m.pid == 0 {
		if err := m.loadProjectID(ctx, m.st.Index()); err != nil {
			return false, err
		}
	}
	return m.pid != 0, nil
}
