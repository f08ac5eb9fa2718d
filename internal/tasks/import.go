package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// Imported is a task as another system holds it, to be made here or
// brought up to date. Its ID is derived by the importer from the source's
// own id, so that importing again finds the task it made before.
type Imported struct {
	ID          string // a ULID
	Source      string // the source's id, for warnings
	Title       string
	Description string
	Type        string
	Priority    int
	Status      string // Open, InProgress or Closed
	Reason      string // a close's reason
	Parent      string // the ID of an imported epic, or ""
	Deps        []string
	Labels      []string
	Claim       string // an agent of the project to claim it for, when it is made; "" for none
	Creator     string // an agent of the project, or "" for a human
	Created     time.Time
	Closed      time.Time // when it was closed, if it is
}

// ImportReport is what Import did: how many tasks it made, changed and
// found already as the source has them, and what it could not take.
type ImportReport struct {
	Created   int
	Updated   int
	Unchanged int
	Warnings  []string
}

// Import makes or updates the tasks items in one write. A task not yet
// here is made with its original creation time and creator, then claimed
// and moved to its status. A task already here gets only the changes
// that make it as the source has it (fields, status, and its dependencies
// on other imported tasks); its claim is left as agentmail has it, since
// claims are decided here once a task exists. So importing the same
// source again writes nothing. A dependency that would close a cycle, a
// parent that is not an imported epic, and an item whose fields agentmail
// refuses are left out with a warning naming the source's id.
func (s *Service) Import(ctx context.Context, items []Imported) (ImportReport, error) {
	var rep ImportReport
	err := s.update(ctx, s.plain(), func(tx *store.Tx, sc scope, now time.Time) error {
		rep = ImportReport{Warnings: []string{}}
		byID := map[string]*Imported{}
		valid := make([]*Imported, 0, len(items))
		for i := range items {
			it := &items[i]
			if err := it.check(); err != nil {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: not imported: %v", it.Source, err))
				continue
			}
			byID[it.ID] = it
			valid = append(valid, it)
		}
		slices.SortFunc(valid, func(a, b *Imported) int { return strings.Compare(a.ID, b.ID) })
		have, err := s.load(ctx, sc, `1`)
		if err != nil {
			return err
		}
		here := map[string]Task{}
		graph := map[string][]string{}
		for _, t := range have {
			here[t.ID] = t
			graph[t.ID] = slices.Clone(t.Deps)
		}
		for _, it := range valid {
			if it.Parent != "" {
				p, ok := byID[it.Parent]
				if !ok || p.Type != Epic {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: its parent is not an imported epic: imported without a parent", it.Source))
					it.Parent = ""
				}
			}
			// The dependencies on imported tasks are the source's; those on
			// tasks made here are kept.
			want := []string{}
			for _, d := range graph[it.ID] {
				if _, imported := byID[d]; !imported {
					want = append(want, d)
				}
			}
			graph[it.ID] = want
		}
		for _, it := range valid {
			deps := []string{}
			for _, d := range it.Deps {
				if _, ok := byID[d]; !ok || slices.Contains(deps, d) {
					continue
				}
				if path := reach(graph, d, it.ID); path != nil {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: its dependency on %s would close a cycle (%s): left out",
						it.Source, byID[d].Source, strings.Join(mapIDs(path, byID), " -> ")))
					continue
				}
				deps = append(deps, d)
				graph[it.ID] = append(graph[it.ID], d)
			}
			it.Deps = deps
		}
		for _, it := range valid {
			t, ok := here[it.ID]
			var ops []*record.TaskOp
			if ok {
				ops, err = s.importChanges(ctx, sc, t, it, byID, now)
			} else {
				ops, err = s.importNew(ctx, sc, it, now)
			}
			if err != nil {
				return err
			}
			switch {
			case !ok:
				rep.Created++
			case len(ops) > 0:
				rep.Updated++
			default:
				rep.Unchanged++
			}
			for _, o := range ops {
				tx.Put(o)
			}
		}
		if rep.Created+rep.Updated > 0 {
			tx.Describe(s.agent, fmt.Sprintf("task: %s imports %d new and %d changed tasks", who(s.agent), rep.Created, rep.Updated))
		}
		return nil
	})
	return rep, err
}

func (it *Imported) check() error {
	if _, err := ulid.ParseStrict(it.ID); err != nil {
		return fmt.Errorf("task id %q: %v", it.ID, err)
	}
	if err := checkTitle(it.Title); err != nil {
		return err
	}
	if err := checkType(it.Type); err != nil {
		return err
	}
	if err := checkPriority(it.Priority); err != nil {
		return err
	}
	if !slices.Contains([]string{Open, InProgress, Closed}, it.Status) {
		return invalid("the statuses are open, in_progress and closed", "no task status %q", it.Status)
	}
	labels, err := checkLabels(it.Labels)
	if err != nil {
		return err
	}
	it.Labels = labels
	return nil
}

// importNew returns the changes that make it: its creation, its claim and
// its status.
func (s *Service) importNew(ctx context.Context, sc scope, it *Imported, now time.Time) ([]*record.TaskOp, error) {
	at := it.Created
	if at.IsZero() || at.After(now) {
		at = now
	}
	c := &record.TaskOp{Project: s.slug, Task: it.ID, ID: it.ID, Op: record.TaskCreate, By: it.Creator, At: at}
	paths := []string{}
	c.Title, c.Description, c.Type, c.Priority, c.Labels, c.Paths = &it.Title, &it.Description, &it.Type, &it.Priority, &it.Labels, &paths
	if it.Parent != "" {
		c.Parent = &it.Parent
	}
	c.Deps = it.Deps
	sc.last[it.ID] = it.ID
	ops := []*record.TaskOp{c}
	if it.Claim != "" && it.Status != Closed {
		o, err := s.op(ctx, sc, it.ID, record.TaskClaim, now)
		if err != nil {
			return nil, err
		}
		o.Agent = it.Claim
		ops = append(ops, o)
	}
	if it.Status != Open {
		o, err := s.statusOp(ctx, sc, it, now)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func (s *Service) statusOp(ctx context.Context, sc scope, it *Imported, now time.Time) (*record.TaskOp, error) {
	o, err := s.op(ctx, sc, it.ID, record.TaskStatus, now)
	if err != nil {
		return nil, err
	}
	o.Status = it.Status
	if it.Status == Closed {
		o.Reason = it.Reason
		if !it.Closed.IsZero() && !it.Closed.After(now) && !it.Closed.Before(it.Created) {
			o.At = it.Closed
		}
	}
	return o, nil
}

// importChanges returns the changes that bring t to it: nil when it is
// already so.
func (s *Service) importChanges(ctx context.Context, sc scope, t Task, it *Imported, byID map[string]*Imported, now time.Time) ([]*record.TaskOp, error) {
	var ops []*record.TaskOp
	set := &record.TaskOp{}
	changed := false
	if t.Title != it.Title {
		set.Title, changed = &it.Title, true
	}
	if t.Description != it.Description {
		set.Description, changed = &it.Description, true
	}
	if t.Type != it.Type {
		set.Type, changed = &it.Type, true
	}
	if t.Priority != it.Priority {
		set.Priority, changed = &it.Priority, true
	}
	if t.Parent != it.Parent {
		set.Parent, changed = &it.Parent, true
	}
	if !slices.Equal(nonNil(t.Labels), it.Labels) {
		set.Labels, changed = &it.Labels, true
	}
	if changed {
		o, err := s.op(ctx, sc, t.ID, record.TaskSet, now)
		if err != nil {
			return nil, err
		}
		o.Title, o.Description, o.Type, o.Priority, o.Parent, o.Labels = set.Title, set.Description, set.Type, set.Priority, set.Parent, set.Labels
		ops = append(ops, o)
	}
	if t.Status != it.Status {
		o, err := s.statusOp(ctx, sc, it, now)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	for _, d := range it.Deps {
		if !slices.Contains(t.Deps, d) {
			o, err := s.op(ctx, sc, t.ID, record.TaskDepAdd, now)
			if err != nil {
				return nil, err
			}
			o.Dep = d
			ops = append(ops, o)
		}
	}
	for _, d := range t.Deps {
		if _, imported := byID[d]; imported && !slices.Contains(it.Deps, d) {
			o, err := s.op(ctx, sc, t.ID, record.TaskDepRm, now)
			if err != nil {
				return nil, err
			}
			o.Dep = d
			ops = append(ops, o)
		}
	}
	return ops, nil
}

// reach returns a chain of dependencies in g from one task to another,
// nil when there is none.
func reach(g map[string][]string, from, to string) []string {
	path, _ := chain(from, to, func(task string) ([]string, error) { return g[task], nil })
	return path
}

func mapIDs(path []string, byID map[string]*Imported) []string {
	out := make([]string, len(path))
	for i, id := range path {
		out[i] = id
		if it, ok := byID[id]; ok {
			out[i] = it.Source
		}
	}
	return out
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
