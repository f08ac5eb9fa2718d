package mailbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// ErrPaused: the acting agent is paused (see Control): it may read, say
// its state, check, wait and release what it holds, and nothing else until
// it is resumed.
var ErrPaused = errors.New("paused")

// PausedError says who paused the agent, why and when.
type PausedError struct{ Control record.Control }

func (e *PausedError) Error() string {
	msg := fmt.Sprintf("%s: %s was paused by %s at %s", ErrPaused, e.Control.Agent, e.Control.PauseBy, record.FormatTime(e.Control.PauseAt))
	if e.Control.PauseReason != "" {
		msg += ": " + e.Control.PauseReason
	}
	return msg
}

func (e *PausedError) Unwrap() error { return ErrPaused }

// The control actions.
const (
	ControlPause     = "pause"
	ControlResume    = "resume"
	ControlInterrupt = "interrupt"
)

// SetState records the state the acting agent says it is in (running,
// idle, stuck or done) with a note.
func (m *Mailbox) SetState(ctx context.Context, state, note string) (record.AgentState, error) {
	state = strings.ToLower(strings.TrimSpace(state))
	if !slices.Contains(record.AgentStates, state) {
		return record.AgentState{}, fault.WithField(fault.WithHint(fmt.Errorf("%w: unknown state %q", ErrInvalidArgument, state),
			"a state is one of "+strings.Join(record.AgentStates, ", ")), "state")
	}
	var out record.AgentState
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		me, err := m.actor(ctx, tx)
		if err != nil {
			return err
		}
		out = record.AgentState{Project: m.proj.Slug, Agent: me.Name, State: state, Note: strings.TrimSpace(note), Updated: m.st.Now()}
		tx.Put(&out)
		tx.Describe(me.Name, fmt.Sprintf("state: %s is %s", me.Name, state))
		return nil
	})
	return out, err
}

// States returns the states the project's agents said they are in, by
// agent name.
func (m *Mailbox) States(ctx context.Context) (map[string]record.AgentState, error) {
	out := map[string]record.AgentState{}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT agent, state, note, updated FROM agent_states WHERE project_id = ?`, m.pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		s := record.AgentState{Project: m.proj.Slug}
		var upd string
		if err := rows.Scan(&s.Agent, &s.State, &s.Note, &upd); err != nil {
			return nil, err
		}
		s.Updated, _ = record.ParseTime(upd)
		out[s.Agent] = s
	}
	return out, rows.Err()
}

const controlColumns = `agent, paused, pause_by, pause_reason, pause_at, interrupt_by, interrupt_reason, interrupt_at`

func scanControl(row interface{ Scan(...any) error }, slug string) (record.Control, error) {
	c := record.Control{Project: slug}
	var pauseAt, interruptAt sql.NullString
	err := row.Scan(&c.Agent, &c.Paused, &c.PauseBy, &c.PauseReason, &pauseAt, &c.InterruptBy, &c.InterruptReason, &interruptAt)
	c.PauseAt, _ = record.ParseTime(pauseAt.String)
	c.InterruptAt, _ = record.ParseTime(interruptAt.String)
	return c, err
}

// controlOf returns the control record of agent, and whether there is one.
func (m *Mailbox) controlOf(ctx context.Context, q queryer, agent string) (record.Control, bool, error) {
	c, err := scanControl(q.QueryRowContext(ctx, `SELECT `+controlColumns+` FROM controls WHERE project_id = ? AND agent = ?`, m.pid, agent), m.proj.Slug)
	if errors.Is(err, sql.ErrNoRows) {
		return record.Control{Project: m.proj.Slug, Agent: agent}, false, nil
	}
	return c, err == nil, err
}

// Controls returns the control records of the project's agents, by name.
func (m *Mailbox) Controls(ctx context.Context) (map[string]record.Control, error) {
	out := map[string]record.Control{}
	rows, err := m.st.Index().QueryContext(ctx, `SELECT `+controlColumns+` FROM controls WHERE project_id = ?`, m.pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanControl(rows, m.proj.Slug)
		if err != nil {
			return nil, err
		}
		out[c.Agent] = c
	}
	return out, rows.Err()
}

// Control pauses, resumes or interrupts agent target, for a reason, as
// the acting agent (or the human overseer, who needs no registration). An
// agent may steer itself too (resume itself, say).
func (m *Mailbox) Control(ctx context.Context, target, action, reason string) (record.Control, error) {
	action = strings.ToLower(strings.TrimSpace(action))
	if !slices.Contains([]string{ControlPause, ControlResume, ControlInterrupt}, action) {
		return record.Control{}, fault.WithHint(fmt.Errorf("%w: unknown control action %q", ErrInvalidArgument, action),
			"the actions are pause, resume and interrupt")
	}
	var out record.Control
	err := m.st.UpdateProject(ctx, m.proj.Slug, func(tx *store.Tx) error {
		by, err := m.reader(ctx, tx)
		if err != nil {
			return err
		}
		t, ok, err := m.lookupAgent(ctx, tx, target)
		if err != nil {
			return err
		}
		if !ok {
			return m.unknownRecipient(ctx, tx, target)
		}
		c, _, err := m.controlOf(ctx, tx, t.Name)
		if err != nil {
			return err
		}
		now := m.st.Now()
		reason = strings.TrimSpace(reason)
		switch action {
		case ControlPause, ControlResume:
			c.Paused, c.PauseBy, c.PauseReason, c.PauseAt = action == ControlPause, by.Name, reason, now
		case ControlInterrupt:
			c.InterruptBy, c.InterruptReason, c.InterruptAt = by.Name, reason, now
		}
		out = c
		tx.Put(&out)
		tx.Describe(by.Name, fmt.Sprintf("control: %s %ss %s", by.Name, action, t.Name))
		return nil
	})
	return out, err
}

// Writable returns a *PausedError (ErrPaused) when the acting agent is
// paused: what every write it may not make while paused asks first.
func (m *Mailbox) Writable(ctx context.Context) error {
	if m.agent == "" || IsHuman(m.agent) || m.pid == 0 {
		return nil
	}
	a, ok, err := m.lookupAgent(ctx, m.st.Index(), m.agent)
	if err != nil || !ok {
		return err // not registered: the write says so itself
	}
	c, ok, err := m.controlOf(ctx, m.st.Index(), a.Name)
	if err != nil || !ok || !c.Paused {
		return err
	}
	return fault.WithHint(&PausedError{Control: c}, "wait to be resumed; reading, checking, waiting, saying your state and releasing what you hold still work")
}

// Attention is what steers the acting agent now: its control record (ok:
// there is one), and whether its last interrupt is one it has not been
// shown yet (Fresh). TakeInterrupt marks the interrupt shown.
type Attention struct {
	Control record.Control
	Fresh   bool // the interrupt is new to the agent
}

// Attention returns what steers the acting agent, and marks its interrupt
// shown when mark is set (check shows an interrupt once; the mark is this
// machine's, kept in the index as reading positions are).
func (m *Mailbox) Attention(ctx context.Context, mark bool) (Attention, error) {
	me, err := m.actor(ctx, m.st.Index())
	if err != nil || m.pid == 0 {
		return Attention{}, err
	}
	c, ok, err := m.controlOf(ctx, m.st.Index(), me.Name)
	if err != nil || !ok {
		return Attention{Control: c}, err
	}
	out := Attention{Control: c}
	if c.InterruptAt.IsZero() {
		return out, nil
	}
	at, fold := record.FormatTime(c.InterruptAt), names.Fold(me.Name)
	var seen string
	err = m.st.Index().QueryRowContext(ctx, `SELECT interrupt_at FROM interrupts_seen WHERE slug = ? AND fold = ?`, m.proj.Slug, fold).Scan(&seen)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	out.Fresh = seen < at
	if out.Fresh && mark && !m.st.ReadOnly() {
		err = m.keep(ctx, `INSERT INTO interrupts_seen(slug, fold, interrupt_at) VALUES (?, ?, ?)
			ON CONFLICT(slug, fold) DO UPDATE SET interrupt_at = excluded.interrupt_at`, m.proj.Slug, fold, at)
	}
	return out, err
}
