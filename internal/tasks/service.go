package tasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// Errors callers branch on.
var (
	// ErrClaimed: another agent holds the task (a *ClaimedError).
	ErrClaimed = errors.New("task claimed")
	// ErrCycle: the dependency would close a cycle.
	ErrCycle = errors.New("dependency cycle")
	// ErrNotFound: no task by that id.
	ErrNotFound = fmt.Errorf("%w: no task", mailbox.ErrNotFound)
	// ErrInvalidArgument: a bad title, type, priority, status or id.
	ErrInvalidArgument = mailbox.ErrInvalidArgument
)

// MinIDPrefix is the shortest task id prefix accepted.
const MinIDPrefix = 6

// StaleAfter is how long a task's holder must have been silent before
// another agent may take the claim over: the leases' threshold.
const StaleAfter = reservations.StaleAfter

// ClaimedError says who holds a task.
type ClaimedError struct {
	Task Task
	Seen time.Duration // how long ago the holder was last seen, -1 if never
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("%s: %s (%s) is claimed by %s since %s", ErrClaimed, e.Task.ID, e.Task.Title, e.Task.Claim, record.FormatTime(e.Task.Claimed))
}

func (e *ClaimedError) Unwrap() error { return ErrClaimed }

// Detail names the task and its holder, for each face's hint.
func (e *ClaimedError) Detail() fault.Detail {
	return fault.Detail{Values: fault.Values("task", e.Task.ID, "holder", e.Task.Claim)}
}

// Writer writes an update as store.UpdateProject does (see
// reservations.Writer): fn may run more than once, each time against a
// newer index.
type Writer = reservations.Writer

// Service is one agent's view of a project's tasks.
type Service struct {
	st    *store.Store
	slug  string
	agent string
	grant Writer
}

// New returns the tasks of project slug, acting as agent ("" for a human
// or a reader).
func New(st *store.Store, slug, agent string) *Service {
	return &Service{st: st, slug: slug, agent: agent, grant: func(ctx context.Context, fn func(*store.Tx) error) error {
		return st.UpdateProject(ctx, slug, fn)
	}}
}

// DecideBy makes w write the claims (a synced project's are decided by the
// push to its remote, as its leases are).
func (s *Service) DecideBy(w Writer) { s.grant = w }

// Within is work done in the transaction of a change of tasks, after it
// was decided: the reservations a claim takes along, those a close ends.
// An error undoes the change.
type Within func(tx *store.Tx, t Task) error

// Draft is a new task.
type Draft struct {
	Title       string
	Description string
	Type        string // "" for task
	Priority    *int   // nil for 2
	Parent      string // an epic's id or prefix
	Deps        []string
	Labels      []string
	Paths       []string
}

// Change is an update: the fields given are replaced.
type Change struct {
	Title       *string
	Description *string
	Type        *string
	Priority    *int
	Parent      *string
	Labels      *[]string
	Paths       *[]string
}

func invalid(hint, format string, args ...any) error {
	return fault.WithHint(fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...), hint)
}

// invalidField is invalid about the request's field: every face names it
// in the error document as it does.
func invalidField(field, hint, format string, args ...any) error {
	return fault.WithField(invalid(hint, format, args...), field)
}

func checkTitle(s string) error {
	if strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > 200 || strings.ContainsAny(s, "\n\r") {
		return invalidField("title", "give a title of one line, up to 200 characters", "a task needs a title of one line, up to 200 characters")
	}
	return nil
}

func checkType(s string) error {
	if !slices.Contains(Types, s) {
		return invalidField("type", "the types are "+strings.Join(Types, ", "), "no task type %q", s)
	}
	return nil
}

func checkPriority(p int) error {
	if p < 0 || p > MaxPriority {
		return invalidField("priority", "priorities are 0 (critical) to 4 (backlog)", "priority %d is not 0 to %d", p, MaxPriority)
	}
	return nil
}

func checkLabels(ls []string) ([]string, error) {
	out := []string{}
	for _, l := range ls {
		l = strings.ToLower(strings.TrimSpace(l))
		if l == "" || len(l) > 64 || strings.ContainsAny(l, " ,\t\n") {
			return nil, invalidField("labels", "labels are single words such as backend or needs-review", "label %q is not one word of up to 64 characters", l)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

func checkPaths(ps []string) ([]string, error) {
	out := []string{}
	for _, p := range ps {
		n, err := glob.NormalizePattern(p, nil)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// scope is the index as one operation reads it.
type scope struct {
	q    store.Querier
	pid  int64
	last map[string]string // task -> the id of the last change this write made of it
}

func (s *Service) scope(ctx context.Context, q store.Querier) (scope, error) {
	p, _, err := store.LookupProject(ctx, q, s.slug)
	return scope{q, p.ID, map[string]string{}}, err
}

func (s *Service) kind() ids.Kind {
	return ids.Kind{Noun: "task", Min: MinIDPrefix, Invalid: ErrInvalidArgument, NotFound: ErrNotFound,
		Ambiguous: fault.ErrAmbiguousID, Lister: "the task list", Field: "task_id", In: "project " + s.slug}
}

const (
	idRange   = `WHERE id >= ?2 AND id < ?3 AND project_id = ?1`
	idMatches = `SELECT id, title FROM tasks ` + idRange + ` ORDER BY id LIMIT ?4`
)

func (s *Service) resolve(ctx context.Context, sc scope, raw string) (string, error) {
	return s.kind().Resolve(raw, ids.InProject(ctx, sc.q, idMatches, `SELECT count(*) FROM tasks `+idRange, sc.pid))
}

// ShortIDs abbreviates task ids for display, each to the shortest prefix
// no other task of the project has (at least ids.MinDisplay characters).
func (s *Service) ShortIDs(ctx context.Context, list []string) (ids.Short, error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return ids.Short{}, err
	}
	return ids.Shorten(ctx, sc.q, `SELECT j.value,
	(SELECT id FROM tasks WHERE id < j.value AND project_id = ?1 ORDER BY id DESC LIMIT 1),
	(SELECT id FROM tasks WHERE id > j.value AND project_id = ?1 ORDER BY id LIMIT 1)
	FROM json_each(?2) j`, []any{sc.pid}, list)
}

const columns = `id, title, description, type, priority, status, reason, parent, labels, paths, creator, claim, claimed, created, updated, closed, deps`

func (s *Service) scan(rows interface{ Scan(...any) error }) (Task, error) {
	t := Task{Project: s.slug}
	var labels, paths, deps, created, updated string
	var claimed, closed sql.NullString
	if err := rows.Scan(&t.ID, &t.Title, &t.Description, &t.Type, &t.Priority, &t.Status, &t.Reason, &t.Parent, &labels, &paths,
		&t.Creator, &t.Claim, &claimed, &created, &updated, &closed, &deps); err != nil {
		return t, err
	}
	t.Labels, t.Paths, t.Deps = list(labels), list(paths), list(deps)
	slices.Sort(t.Deps)
	t.Created, _ = record.ParseTime(created)
	t.Updated, _ = record.ParseTime(updated)
	t.Claimed, _ = record.ParseTime(claimed.String)
	t.Closed, _ = record.ParseTime(closed.String)
	return t, nil
}

// list reads a JSON list of the index: most are empty, which need no
// decoding.
func list(v string) []string {
	if v == "[]" {
		return []string{}
	}
	var out []string
	json.Unmarshal([]byte(v), &out)
	return out
}

func (s *Service) load(ctx context.Context, sc scope, where string, args ...any) ([]Task, error) {
	return s.loadThen(ctx, sc, where, "ORDER BY priority, id", args...)
}

// loadThen reads the tasks chosen by where, in the order (and limit) tail says.
func (s *Service) loadThen(ctx context.Context, sc scope, where, tail string, args ...any) ([]Task, error) {
	rows, err := sc.q.QueryContext(ctx, `SELECT `+columns+` FROM tasks t WHERE project_id = ? AND (`+where+`) `+tail,
		append([]any{sc.pid}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := s.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// find resolves raw and reads the task.
func (s *Service) find(ctx context.Context, sc scope, raw string) (Task, error) {
	id, err := s.resolve(ctx, sc, raw)
	if err != nil {
		return Task{}, err
	}
	ts, err := s.load(ctx, sc, `id = ?`, id)
	if err != nil {
		return Task{}, err
	}
	if len(ts) == 0 {
		return Task{}, fmt.Errorf("%w %s", ErrNotFound, id)
	}
	return ts[0], nil
}

// op returns a new change of task t ("" for a new task) made now by the
// service's agent. Its id is after every change of t the index holds (and
// every one this write made): changes made on one machine fold in the
// order they were decided, even within one millisecond, where ULIDs
// alone would order them at random.
func (s *Service) op(ctx context.Context, sc scope, t, kind string, now time.Time) (*record.TaskOp, error) {
	id := ulid.MustNew(ulid.Timestamp(s.st.Clock()), ulid.DefaultEntropy())
	if t != "" {
		last, ok := sc.last[t]
		if !ok {
			var max sql.NullString
			if err := sc.q.QueryRowContext(ctx, `SELECT max(id) FROM task_ops WHERE project_id = ? AND task = ?`, sc.pid, t).Scan(&max); err != nil {
				return nil, err
			}
			last = max.String
		}
		if last != "" && id.String() <= last {
			prev, err := ulid.ParseStrict(last)
			if err != nil {
				return nil, err
			}
			id = next(prev)
		}
		sc.last[t] = id.String()
	}
	o := &record.TaskOp{Project: s.slug, Task: t, ID: id.String(), Op: kind, By: s.agent, At: now}
	if t == "" {
		o.Task = o.ID
	}
	return o, nil
}

// next returns the id right after u.
func next(u ulid.ULID) ulid.ULID {
	for i := len(u) - 1; i >= 0; i-- {
		u[i]++
		if u[i] != 0 {
			break
		}
	}
	return u
}

// update decides and writes one change of tasks under the project's lock,
// through w (the claims' writer, or the store's).
func (s *Service) update(ctx context.Context, w Writer, fn func(tx *store.Tx, sc scope, now time.Time) error) error {
	return w(ctx, func(tx *store.Tx) error {
		sc, err := s.scope(ctx, tx)
		if err != nil {
			return err
		}
		return fn(tx, sc, s.st.Now())
	})
}

func (s *Service) plain() Writer {
	return func(ctx context.Context, fn func(*store.Tx) error) error { return s.st.UpdateProject(ctx, s.slug, fn) }
}

// Create makes a task.
func (s *Service) Create(ctx context.Context, d Draft) (Task, error) {
	if err := checkTitle(d.Title); err != nil {
		return Task{}, err
	}
	if d.Type == "" {
		d.Type = "task"
	}
	if err := checkType(d.Type); err != nil {
		return Task{}, err
	}
	prio := DefaultPriority
	if d.Priority != nil {
		prio = *d.Priority
	}
	if err := checkPriority(prio); err != nil {
		return Task{}, err
	}
	labels, err := checkLabels(d.Labels)
	if err != nil {
		return Task{}, err
	}
	paths, err := checkPaths(d.Paths)
	if err != nil {
		return Task{}, err
	}
	var out Task
	err = s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		o, err := s.op(ctx, sc, "", record.TaskCreate, now)
		if err != nil {
			return err
		}
		o.Title, o.Description, o.Type, o.Priority, o.Labels, o.Paths = &d.Title, &d.Description, &d.Type, &prio, &labels, &paths
		if d.Parent != "" {
			p, err := s.parent(ctx, sc, d.Parent)
			if err != nil {
				return err
			}
			o.Parent = &p.ID
		}
		for _, raw := range d.Deps {
			dep, err := s.find(ctx, sc, raw)
			if err != nil {
				return err
			}
			if !slices.Contains(o.Deps, dep.ID) {
				o.Deps = append(o.Deps, dep.ID)
			}
		}
		tx.Put(o)
		tx.Describe(s.agent, fmt.Sprintf("task: %s creates %s %s", who(s.agent), o.ID, d.Title))
		out, _ = Fold([]*record.TaskOp{o})
		return nil
	})
	return out, err
}

// parent finds an epic to file a task under.
func (s *Service) parent(ctx context.Context, sc scope, raw string) (Task, error) {
	p, err := s.find(ctx, sc, raw)
	if err != nil {
		return p, err
	}
	if p.Type != Epic {
		return p, invalid("a parent is an epic: make one with the type epic", "%s (%s) is a %s, not an epic", p.ID, p.Title, p.Type)
	}
	if p.Status == Closed {
		return p, invalid("reopen the epic first", "epic %s (%s) is closed", p.ID, p.Title)
	}
	return p, nil
}

func who(agent string) string {
	if agent == "" {
		return "Human"
	}
	return agent
}

// Get returns a task.
func (s *Service) Get(ctx context.Context, raw string) (Task, error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return Task{}, err
	}
	return s.find(ctx, sc, raw)
}

// Update changes the fields ch gives.
func (s *Service) Update(ctx context.Context, raw string, ch Change) (Task, error) {
	if ch.Title != nil {
		if err := checkTitle(*ch.Title); err != nil {
			return Task{}, err
		}
	}
	if ch.Type != nil {
		if err := checkType(*ch.Type); err != nil {
			return Task{}, err
		}
	}
	if ch.Priority != nil {
		if err := checkPriority(*ch.Priority); err != nil {
			return Task{}, err
		}
	}
	if ch.Labels != nil {
		l, err := checkLabels(*ch.Labels)
		if err != nil {
			return Task{}, err
		}
		ch.Labels = &l
	}
	if ch.Paths != nil {
		p, err := checkPaths(*ch.Paths)
		if err != nil {
			return Task{}, err
		}
		ch.Paths = &p
	}
	var out Task
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		t, err := s.find(ctx, sc, raw)
		if err != nil {
			return err
		}
		o, err := s.op(ctx, sc, t.ID, record.TaskSet, now)
		if err != nil {
			return err
		}
		o.Title, o.Description, o.Type, o.Priority, o.Labels, o.Paths = ch.Title, ch.Description, ch.Type, ch.Priority, ch.Labels, ch.Paths
		if ch.Parent != nil {
			parent := ""
			if *ch.Parent != "" {
				p, err := s.parent(ctx, sc, *ch.Parent)
				if err != nil {
					return err
				}
				if p.ID == t.ID {
					return invalid("choose another epic", "a task cannot be its own parent")
				}
				parent = p.ID
			}
			o.Parent = &parent
		}
		if ch.Type != nil && *ch.Type != Epic && t.Type == Epic {
			if kids, err := s.load(ctx, sc, `parent = ?`, t.ID); err != nil || len(kids) > 0 {
				if err != nil {
					return err
				}
				return invalid("move its children out first", "epic %s has %d children: it stays an epic", t.ID, len(kids))
			}
		}
		tx.Put(o)
		tx.Describe(s.agent, fmt.Sprintf("task: %s updates %s %s", who(s.agent), t.ID, t.Title))
		out = s.refold(t, o)
		return nil
	})
	return out, err
}

// refold returns t with the changes os applied as Fold applies them.
func (s *Service) refold(t Task, os ...*record.TaskOp) Task {
	for _, o := range os {
		if o.At.After(t.Updated) {
			t.Updated = o.At
		}
		switch o.Op {
		case record.TaskSet:
			t.set(o)
		case record.TaskClaim:
			if t.Claim != o.Agent {
				t.Claimed = o.At
			}
			t.Claim = o.Agent
		case record.TaskUnclaim:
			t.Claim, t.Claimed = "", time.Time{}
			if t.Status == InProgress {
				t.Status = Open
			}
		case record.TaskStatus:
			t.Status, t.Reason, t.Closed = o.Status, o.Reason, time.Time{}
			if o.Status == Closed {
				t.Closed, t.Claim, t.Claimed = o.At, "", time.Time{}
			}
		case record.TaskDepAdd:
			t.Deps = append(t.Deps, o.Dep)
			slices.Sort(t.Deps)
		case record.TaskDepRm:
			t.Deps = slices.DeleteFunc(t.Deps, func(d string) bool { return d == o.Dep })
		}
	}
	return t
}

// Filter chooses tasks to list.
type Filter struct {
	Status  string // open, in_progress, closed; "" for those not closed
	All     bool   // closed ones too
	Ready   bool   // open, unclaimed, every dependency closed (not epics)
	Blocked bool   // not closed, with a dependency not closed
	Claimer string // claimed by this agent
	Claimed bool   // claimed by some agent
	Type    string
	Label   string
	Parent  string // children of this epic (an id or prefix)
	Limit   int    // 0 for all
}

const (
	// The terms of the index tasks_ready, which the query must hold as
	// they are written there to use it.
	readyWhere   = `status = 'open' AND claim = '' AND type != 'epic' AND waiting = 0`
	blockedWhere = `status != 'closed' AND waiting > 0`
)

// List returns the tasks f chooses, by priority, then age.
func (s *Service) List(ctx context.Context, f Filter) ([]Task, error) {
	if f.Status != "" && !slices.Contains([]string{Open, InProgress, Closed}, f.Status) {
		return nil, invalidField("status", "the statuses are open, in_progress and closed", "no task status %q", f.Status)
	}
	if f.Type != "" {
		if err := checkType(f.Type); err != nil {
			return nil, err
		}
	}
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return nil, err
	}
	where, args := []string{"1"}, []any{}
	switch {
	case f.Status != "":
		where, args = append(where, "status = ?"), append(args, f.Status)
	case !f.All:
		where = append(where, "status != 'closed'")
	}
	if f.Ready {
		where = append(where, readyWhere)
	}
	if f.Blocked {
		where = append(where, blockedWhere)
	}
	if f.Claimer != "" {
		where, args = append(where, "claim = ?"), append(args, f.Claimer)
	}
	if f.Claimed {
		where = append(where, "claim != ''")
	}
	if f.Type != "" {
		where, args = append(where, "type = ?"), append(args, f.Type)
	}
	if f.Label != "" {
		where, args = append(where, "EXISTS (SELECT 1 FROM json_each(t.labels) WHERE value = ?)"), append(args, strings.ToLower(f.Label))
	}
	if f.Parent != "" {
		p, err := s.find(ctx, sc, f.Parent)
		if err != nil {
			return nil, err
		}
		where, args = append(where, "parent = ?"), append(args, p.ID)
	}
	tail := "ORDER BY priority, id"
	if f.Limit > 0 {
		tail += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return s.loadThen(ctx, sc, strings.Join(where, ") AND ("), tail, args...)
}

// Work returns what the agent should do next: the tasks it holds, not
// closed, then the ready ones, by priority then age, at most limit.
func (s *Service) Work(ctx context.Context, limit int) (mine, ready []Task, err error) {
	if s.agent != "" {
		if mine, err = s.List(ctx, Filter{Claimer: s.agent}); err != nil {
			return nil, nil, err
		}
	}
	if limit <= 0 {
		limit = 5
	}
	ready, err = s.List(ctx, Filter{Ready: true, Limit: limit})
	return mine, ready, err
}
