package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Presence is what a forced claim needs to know of the mailbox's presence
// (reservations.Presence): when the holder last ran a command.
type Presence interface {
	LastSeen(ctx context.Context, q store.Querier, slug, agent string) (time.Time, bool, error)
}

func (s *Service) lastSeen(ctx context.Context, q store.Querier, agent string) (time.Time, bool, error) {
	for _, p := range s.st.Projections() {
		if pr, ok := p.(Presence); ok {
			return pr.LastSeen(ctx, q, s.slug, agent)
		}
	}
	return time.Time{}, false, nil
}

// ClaimOptions shape a claim.
type ClaimOptions struct {
	Start  bool   // move the task to in_progress too
	Force  bool   // take over another agent's claim, whose holder must be silent for StaleAfter
	Reason string // why, for a forced claim (required then)
	Within Within // run in the claim's transaction once it is decided
	// Before runs first, once the claim is decided, with the task as it
	// was: its holder, when the claim is taken over, the one it is taken
	// from (to end what that claim took).
	Before Within
}

// Claim makes the acting agent the task's holder, all or nothing, decided
// under the project's lock: a task another agent holds is ErrClaimed (a
// *ClaimedError) unless forced, and then only when its holder has been
// silent for StaleAfter. Claiming a task one holds changes nothing but
// what Start asks. It returns the task as claimed, and the holder it was
// taken from ("" for none).
func (s *Service) Claim(ctx context.Context, raw string, o ClaimOptions) (Task, string, error) {
	if s.agent == "" {
		return Task{}, "", invalid("act as a registered agent", "a task is claimed by an agent")
	}
	if o.Force && strings.TrimSpace(o.Reason) == "" {
		return Task{}, "", invalid("give the reason, which the holder receives", "taking over a claim needs a reason")
	}
	var out Task
	var from string
	err := s.update(ctx, s.grant, func(tx *store.Tx, sc scope, now time.Time) error {
		out, from = Task{}, ""
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		switch {
		case t.Status == Closed:
			return invalid("reopen it first, or choose another task", "task %s (%s) is closed", t.ID, t.Title)
		case t.Type == Epic:
			return invalid("claim its children instead", "%s (%s) is an epic, which its children's work closes", t.ID, t.Title)
		}
		if t.Claim != "" && t.Claim != s.agent {
			last, seen, err := s.lastSeen(ctx, tx, t.Claim)
			if err != nil {
				return err
			}
			silent := time.Duration(-1)
			if seen {
				silent = now.Sub(last)
			}
			if !o.Force {
				return &ClaimedError{Task: t, Seen: silent}
			}
			if seen && silent < StaleAfter {
				return fmt.Errorf("%w; its holder was seen %s ago, and a claim is taken over only once its holder has been silent for %s",
					&ClaimedError{Task: t, Seen: silent}, silent.Round(time.Second), StaleAfter)
			}
			from = t.Claim
		}
		var ops []*record.TaskOp
		if t.Claim != s.agent {
			c, err := s.op(ctx, sc, t.ID, record.TaskClaim, now)
			if err != nil {
				return err
			}
			c.Agent, c.Force, c.Reason = s.agent, from != "", o.Reason
			ops = append(ops, c)
		}
		if o.Start && t.Status != InProgress {
			st, err := s.op(ctx, sc, t.ID, record.TaskStatus, now)
			if err != nil {
				return err
			}
			st.Status = InProgress
			ops = append(ops, st)
		}
		out = s.refold(t, ops...)
		if o.Before != nil {
			if err := o.Before(tx, t); err != nil {
				return err
			}
		}
		if o.Within != nil {
			if err := o.Within(tx, out); err != nil {
				return err
			}
		}
		for _, op := range ops {
			tx.Put(op)
		}
		verb := "claims"
		switch {
		case from != "":
			verb = "takes over from " + from
		case o.Start:
			verb = "starts"
		}
		tx.Describe(s.agent, fmt.Sprintf("task: %s %s %s %s", s.agent, verb, t.ID, t.Title))
		return nil
	})
	return out, from, err
}

// Unclaim ends the acting agent's claim of a task; one in progress goes
// back to open.
func (s *Service) Unclaim(ctx context.Context, raw string, within Within) (Task, error) {
	var out Task
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		if t.Claim != s.agent || s.agent == "" {
			return fmt.Errorf("%w claimed by %s: %s (%s) is held by %s", ErrNotFound, who(s.agent), t.ID, t.Title, holder(t.Claim))
		}
		o, err := s.op(ctx, sc, t.ID, record.TaskUnclaim, now)
		if err != nil {
			return err
		}
		o.Agent = s.agent
		out = s.refold(t, o)
		if within != nil {
			if err := within(tx, t); err != nil {
				return err
			}
		}
		tx.Put(o)
		tx.Describe(s.agent, fmt.Sprintf("task: %s unclaims %s %s", s.agent, t.ID, t.Title))
		return nil
	})
	return out, err
}

func holder(a string) string {
	if a == "" {
		return "nobody"
	}
	return a
}

// Closed is what a close did: the task, and the others it closed along
// (an epic's open children, an epic whose last open child it was).
type ClosedTasks struct {
	Task  Task
	Along []Task
}

// Close closes a task with a reason. Closing an epic closes its open
// children, each with a note naming it; closing an epic's last open child
// closes the epic. within runs for each task closed that had a holder (to
// release what the claim took along).
func (s *Service) Close(ctx context.Context, raw, reason string, within Within) (ClosedTasks, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "done"
	}
	var out ClosedTasks
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		out = ClosedTasks{}
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		if t.Status == Closed {
			return invalid("reopen it to work on it again", "task %s (%s) is closed already", t.ID, t.Title)
		}
		close := func(t Task, why string) (Task, error) {
			o, err := s.op(ctx, sc, t.ID, record.TaskStatus, now)
			if err != nil {
				return t, err
			}
			o.Status, o.Reason = Closed, why
			if t.Claim != "" && within != nil {
				if err := within(tx, t); err != nil {
					return t, err
				}
			}
			tx.Put(o)
			return s.refold(t, o), nil
		}
		if out.Task, err = close(t, reason); err != nil {
			return err
		}
		if t.Type == Epic {
			kids, err := s.load(ctx, sc, `parent = ? AND status != 'closed'`, t.ID)
			if err != nil {
				return err
			}
			for _, k := range kids {
				c, err := close(k, fmt.Sprintf("closed with epic %s (%s): %s", t.ID, t.Title, reason))
				if err != nil {
					return err
				}
				out.Along = append(out.Along, c)
			}
		}
		if t.Parent != "" {
			p, err := s.load(ctx, sc, `id = ? AND type = 'epic' AND status != 'closed'`, t.Parent)
			if err != nil {
				return err
			}
			open, err := s.load(ctx, sc, `parent = ? AND status != 'closed' AND id != ?`, t.Parent, t.ID)
			if err != nil {
				return err
			}
			if len(p) == 1 && len(open) == 0 {
				c, err := close(p[0], "its last open child "+t.ID+" closed")
				if err != nil {
					return err
				}
				out.Along = append(out.Along, c)
			}
		}
		tx.Describe(s.agent, fmt.Sprintf("task: %s closes %s %s (%s)", who(s.agent), t.ID, t.Title, reason))
		return nil
	})
	return out, err
}

// Reopen opens a closed task again. A child of a closed epic is refused:
// reopen the epic first.
func (s *Service) Reopen(ctx context.Context, raw string) (Task, error) {
	var out Task
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		if t.Status != Closed {
			return invalid("it is open already", "task %s (%s) is not closed", t.ID, t.Title)
		}
		if t.Parent != "" {
			p, err := s.load(ctx, sc, `id = ?`, t.Parent)
			if err != nil {
				return err
			}
			if len(p) == 1 && p[0].Status == Closed {
				return invalid("reopen the epic first", "task %s is a child of the closed epic %s (%s)", t.ID, p[0].ID, p[0].Title)
			}
		}
		o, err := s.op(ctx, sc, t.ID, record.TaskStatus, now)
		if err != nil {
			return err
		}
		o.Status = Open
		tx.Put(o)
		tx.Describe(s.agent, fmt.Sprintf("task: %s reopens %s %s", who(s.agent), t.ID, t.Title))
		out = s.refold(t, o)
		return nil
	})
	return out, err
}

// AddDep makes task depend on dep. A dependency that would close a cycle,
// directly or through others, is ErrCycle; decided under the project's
// lock, so of two agents adding opposite edges at once one is refused.
func (s *Service) AddDep(ctx context.Context, rawTask, rawDep string) (Task, error) {
	return s.dep(ctx, rawTask, rawDep, true)
}

// RemoveDep drops dep from task's dependencies.
func (s *Service) RemoveDep(ctx context.Context, rawTask, rawDep string) (Task, error) {
	return s.dep(ctx, rawTask, rawDep, false)
}

func (s *Service) dep(ctx context.Context, rawTask, rawDep string, add bool) (Task, error) {
	var out Task
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		t, err := s.find(ctx, sc, rawTask)
		if err != nil {
			return err
		}
		d, err := s.find(ctx, sc, rawDep)
		if err != nil {
			return err
		}
		kind := record.TaskDepRm
		if add {
			kind = record.TaskDepAdd
			if slices.Contains(t.Deps, d.ID) {
				out = t
				return nil
			}
			path, err := s.pathBetween(ctx, sc, d.ID, t.ID)
			if err != nil {
				return err
			}
			if path != nil {
				return fmt.Errorf("%w: %s cannot depend on %s, which depends on it (%s)", ErrCycle, t.ID, d.ID, strings.Join(path, " -> "))
			}
		} else if !slices.Contains(t.Deps, d.ID) {
			return fmt.Errorf("%w dependency: %s does not depend on %s", ErrNotFound, t.ID, d.ID)
		}
		o, err := s.op(ctx, sc, t.ID, kind, now)
		if err != nil {
			return err
		}
		o.Dep = d.ID
		tx.Put(o)
		verb := "adds"
		if !add {
			verb = "removes"
		}
		tx.Describe(s.agent, fmt.Sprintf("task: %s %s dependency %s -> %s", who(s.agent), verb, t.ID, d.ID))
		out = s.refold(t, o)
		return nil
	})
	return out, err
}

// pathBetween returns a chain of dependencies from one task to another
// (from depends on ... depends on to), nil when there is none.
func (s *Service) pathBetween(ctx context.Context, sc scope, from, to string) ([]string, error) {
	return chain(from, to, func(task string) ([]string, error) {
		rows, err := sc.q.QueryContext(ctx, `SELECT dep FROM task_deps WHERE project_id = ? AND task = ?`, sc.pid, task)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var deps []string
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				return nil, err
			}
			deps = append(deps, d)
		}
		return deps, rows.Err()
	})
}

// chain returns a shortest chain of dependencies from one task to another
// (from, a dependency of from, ..., to), nil when there is none; deps
// gives a task's dependencies.
func chain(from, to string, deps func(string) ([]string, error)) ([]string, error) {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var path []string
			for n := cur; n != ""; n = prev[n] {
				path = append([]string{n}, path...)
			}
			return path, nil
		}
		next, err := deps(cur)
		if err != nil {
			return nil, err
		}
		for _, d := range next {
			if _, ok := prev[d]; !ok {
				prev[d] = cur
				queue = append(queue, d)
			}
		}
	}
	return nil, nil
}

// Assign is the human overseer's: it gives a task's claim to agent to, or
// with to "" ends it, whoever holds it, for a reason (required) that both
// holders are told. The old holder's claim ends (within runs with the task
// as it was, to end what that claim took), an unclaimed task in progress
// goes back to open, and the new holder's claim starts now. It returns
// the task as changed and its holder before ("" for none).
func (s *Service) Assign(ctx context.Context, raw, to, reason string, within Within) (Task, string, error) {
	if s.agent != "" {
		return Task{}, "", invalid("ask the human overseer (the task's page in the web UI), or unclaim a task you hold",
			"only the human overseer gives a task's claim to another agent or ends another agent's claim")
	}
	if strings.TrimSpace(reason) == "" {
		return Task{}, "", invalid("give the reason, which the holder receives", "reassigning or unclaiming a task needs a reason")
	}
	var out Task
	var from string
	err := s.update(ctx, s.grant, func(tx *store.Tx, sc scope, now time.Time) error {
		out, from = Task{}, ""
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		switch {
		case t.Status == Closed:
			return invalid("reopen it first", "task %s (%s) is closed", t.ID, t.Title)
		case t.Type == Epic && to != "":
			return invalid("assign its children instead", "%s (%s) is an epic, which its children's work closes", t.ID, t.Title)
		case to == "" && t.Claim == "":
			return invalid("it is free already: nothing to unclaim", "task %s (%s) is not claimed", t.ID, t.Title)
		case to != "" && strings.EqualFold(to, t.Claim):
			return invalid("choose another agent", "task %s (%s) is claimed by %s already", t.ID, t.Title, t.Claim)
		}
		from = t.Claim
		o, err := s.op(ctx, sc, t.ID, record.TaskUnclaim, now)
		if to != "" {
			o, err = s.op(ctx, sc, t.ID, record.TaskClaim, now)
		}
		if err != nil {
			return err
		}
		o.Agent, o.Force, o.Reason = to, to != "" && from != "", reason
		if to == "" {
			o.Agent = from
		}
		out = s.refold(t, o)
		if from != "" && within != nil {
			if err := within(tx, t); err != nil {
				return err
			}
		}
		tx.Put(o)
		what := fmt.Sprintf("gives %s %s to %s", t.ID, t.Title, to)
		if to == "" {
			what = fmt.Sprintf("unclaims %s %s", t.ID, t.Title)
		}
		if from != "" {
			what += " (was " + from + "'s)"
		}
		tx.Describe(mailbox.HumanSender, fmt.Sprintf("task: %s %s: %s", mailbox.HumanSender, what, reason))
		return nil
	})
	return out, from, err
}
