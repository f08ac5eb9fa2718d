package importer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/names"
	"github.com/agentmail/agentmail/internal/tasks"
	"github.com/oklog/ulid/v2"
)

// beadsIssue is the part of a line of a beads JSONL export
// (.beads/issues.jsonl, one issue per line) that tasks can hold.
type beadsIssue struct {
	ID                 string            `json:"id"`
	Title              string            `json:"title"`
	Description        string            `json:"description"`
	Design             string            `json:"design"`
	AcceptanceCriteria string            `json:"acceptance_criteria"`
	Notes              string            `json:"notes"`
	Status             string            `json:"status"`
	Priority           *int              `json:"priority"`
	IssueType          string            `json:"issue_type"`
	Assignee           string            `json:"assignee"`
	CreatedAt          time.Time         `json:"created_at"`
	CreatedBy          string            `json:"created_by"`
	ClosedAt           *time.Time        `json:"closed_at"`
	CloseReason        string            `json:"close_reason"`
	Labels             []string          `json:"labels"`
	Dependencies       []beadsDependency `json:"dependencies"`
	Comments           []beadsComment    `json:"comments"`
}

type beadsDependency struct {
	IssueID     string `json:"issue_id"`
	DependsOnID string `json:"depends_on_id"`
	Type        string `json:"type"`
}

type beadsComment struct {
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// BeadsTask pairs a beads issue with the task it became.
type BeadsTask struct {
	Beads string // the issue's id in beads
	Task  string // the task's id here
}

// BeadsReport is what a beads import did.
type BeadsReport struct {
	Path      string // the file, absolute
	Created   int
	Updated   int
	Unchanged int
	Skipped   int         // lines that could not be used; each has a warning
	Tasks     []BeadsTask // every issue imported, in the file's order
	Warnings  []string    // "ID: what" or "line N: what"
}

// beadsStatuses maps beads' statuses to a task's: blocked is derived here
// from dependencies, deferred and pinned have no status of their own (a
// label keeps them), hooked is beads' word for claimed work.
var beadsStatuses = map[string]string{
	"open": tasks.Open, "in_progress": tasks.InProgress, "hooked": tasks.InProgress, "closed": tasks.Closed,
	"blocked": tasks.Open, "deferred": tasks.Open, "pinned": tasks.Open,
}

// BeadsTaskID is the id a beads issue's task gets in project slug: a ULID
// of the issue's creation time and a hash of its id, so that importing the
// same issue again finds the same task.
func BeadsTaskID(slug, beadsID string, created time.Time) string {
	sum := sha256.Sum256([]byte("beads\x00" + slug + "\x00" + beadsID))
	var ms uint64
	if !created.IsZero() && created.Unix() > 0 {
		ms = ulid.Timestamp(created)
	}
	u, _ := ulid.New(ms, bytes.NewReader(sum[:]))
	return u.String()
}

// Beads imports a beads JSONL export (path: its issues.jsonl) into ts's
// project, as tasks.Import does: each issue becomes the task BeadsTaskID
// names, so that importing again updates the tasks it made. Statuses,
// priorities, types, labels, parents (parent-child), dependencies (blocks),
// assignees (a claim, when they name an agent of the project) and comments
// (appended to the description) are mapped; what cannot be is named in a
// warning.
func Beads(ctx context.Context, mb *mailbox.Mailbox, ts *tasks.Service, path string) (BeadsReport, error) {
	rep := BeadsReport{Warnings: []string{}, Tasks: []BeadsTask{}}
	abs, err := filepath.Abs(path)
	if err != nil {
		return rep, err
	}
	rep.Path = abs
	f, err := os.Open(abs)
	if err != nil {
		return rep, fault.WithHint(fmt.Errorf("%w: %v", mailbox.ErrInvalidArgument, err), "give the path of a beads export, such as .beads/issues.jsonl")
	}
	defer f.Close()
	registered, err := mb.AgentNames(ctx)
	if err != nil {
		return rep, err
	}
	agents := map[string]string{}
	for _, n := range registered {
		agents[names.Fold(n)] = n
	}
	slug := mb.Project().Slug
	warn := func(format string, args ...any) { rep.Warnings = append(rep.Warnings, fmt.Sprintf(format, args...)) }

	var issues []beadsIssue
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var is beadsIssue
		if err := json.Unmarshal(text, &is); err != nil {
			warn("line %d: not a beads issue: %v", line, err)
			rep.Skipped++
			continue
		}
		switch {
		case is.ID == "":
			warn("line %d: an issue without an id: skipped", line)
			rep.Skipped++
			continue
		case seen[is.ID]:
			warn("line %d: %s appears twice: the first is imported", line, is.ID)
			rep.Skipped++
			continue
		case is.Status == "tombstone":
			warn("%s: deleted in beads (tombstone): skipped", is.ID)
			rep.Skipped++
			continue
		}
		seen[is.ID] = true
		issues = append(issues, is)
	}
	if err := sc.Err(); err != nil {
		return rep, fmt.Errorf("reading %s: %w", abs, err)
	}

	taskID := map[string]string{}
	types := map[string]string{}
	for _, is := range issues {
		taskID[is.ID] = BeadsTaskID(slug, is.ID, is.CreatedAt)
		types[is.ID] = beadsType(is.IssueType)
	}
	items := make([]tasks.Imported, 0, len(issues))
	for _, is := range issues {
		it := tasks.Imported{ID: taskID[is.ID], Source: is.ID, Type: types[is.ID], Priority: 2, Reason: is.CloseReason,
			Created: is.CreatedAt, Labels: []string{}, Deps: []string{}}
		it.Title = oneLine(is.Title)
		if strings.ContainsAny(is.Title, "\n\r") || utf8.RuneCountInString(is.Title) > 200 {
			warn("%s: its title was cut to one line of 200 characters", is.ID)
		}
		if it.Title == "" {
			it.Title = is.ID
			warn("%s: it has no title: its id is the title", is.ID)
		}
		it.Description = beadsDescription(is)
		if is.IssueType != "" && it.Type != is.IssueType {
			warn("%s: type %q is not a task type here: imported as a %s%s", is.ID, is.IssueType, it.Type, label(&it, is.IssueType))
		}
		if is.Priority != nil {
			it.Priority = min(max(*is.Priority, 0), tasks.MaxPriority)
			if it.Priority != *is.Priority {
				warn("%s: priority %d is not 0 to 4: imported as %d", is.ID, *is.Priority, it.Priority)
			}
		}
		st, ok := beadsStatuses[is.Status]
		switch {
		case is.Status == "":
			st = tasks.Open
		case !ok:
			st = tasks.Open
			warn("%s: status %q has no match here: imported open%s", is.ID, is.Status, label(&it, is.Status))
		case is.Status == "deferred" || is.Status == "pinned":
			warn("%s: status %s has no match here: imported open%s", is.ID, is.Status, label(&it, is.Status))
		}
		it.Status = st
		if is.ClosedAt != nil {
			it.Closed = *is.ClosedAt
		}
		for _, l := range is.Labels {
			if label(&it, l) == "" {
				warn("%s: label %q is not one word of up to 64 characters: left out", is.ID, l)
			}
		}
		if is.CreatedBy != "" {
			it.Creator = agents[names.Fold(is.CreatedBy)] // "" (a human) when not an agent here
		}
		if is.Assignee != "" && st != tasks.Closed {
			if a, ok := agents[names.Fold(is.Assignee)]; ok {
				it.Claim = a
			} else {
				warn("%s: assignee %s is not an agent of this project: not claimed", is.ID, is.Assignee)
			}
		}
		if st == tasks.InProgress && it.Claim == "" {
			it.Status = tasks.Open
			warn("%s: %s with no agent to claim it: imported open", is.ID, is.Status)
		}
		blocked := false
		for _, d := range is.Dependencies {
			if d.IssueID != "" && d.IssueID != is.ID {
				warn("%s: a dependency of %s listed under it: left out", is.ID, d.IssueID)
				continue
			}
			target, ok := taskID[d.DependsOnID]
			kind := d.Type
			if kind == "" {
				kind = "blocks"
			}
			switch {
			case !ok:
				warn("%s: %s dependency on %s, which is not in the file: left out", is.ID, kind, d.DependsOnID)
			case kind == "blocks":
				if !slices.Contains(it.Deps, target) {
					it.Deps = append(it.Deps, target)
				}
				blocked = true
			case kind == "parent-child":
				if types[d.DependsOnID] != tasks.Epic {
					warn("%s: its parent %s is a %s, not an epic: imported without a parent", is.ID, d.DependsOnID, types[d.DependsOnID])
					continue
				}
				if it.Parent != "" && it.Parent != target {
					warn("%s: a second parent %s: left out", is.ID, d.DependsOnID)
					continue
				}
				it.Parent = target
			default:
				warn("%s: %s link to %s has no match here (only blocks and parent-child do): left out", is.ID, kind, d.DependsOnID)
			}
		}
		if is.Status == "blocked" && !blocked {
			warn("%s: blocked with no blocking dependency: imported open (blocked is derived from dependencies here)", is.ID)
		}
		items = append(items, it)
		rep.Tasks = append(rep.Tasks, BeadsTask{is.ID, it.ID})
	}
	r, err := ts.Import(ctx, items)
	rep.Created, rep.Updated, rep.Unchanged = r.Created, r.Updated, r.Unchanged
	rep.Warnings = append(rep.Warnings, r.Warnings...)
	return rep, err
}

// label adds l to it's labels when it is one word a label can be, and
// returns ", labelled l", else "".
func label(it *tasks.Imported, l string) string {
	if l = strings.ToLower(strings.TrimSpace(l)); l == "" || len(l) > 64 || strings.ContainsAny(l, " ,\t\n\r") {
		return ""
	}
	if !slices.Contains(it.Labels, l) {
		it.Labels = append(it.Labels, l)
	}
	return ", labelled " + l
}

func beadsType(t string) string {
	if t == "" {
		return "task"
	}
	if slices.Contains(tasks.Types, t) {
		return t
	}
	return "task"
}

// oneLine returns s on one line, cut to 200 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:199]) + "…"
	}
	return s
}

// beadsDescription gathers an issue's texts into one markdown description:
// its description, then design, acceptance criteria, notes and comments
// under headings.
func beadsDescription(is beadsIssue) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(is.Description))
	section := func(title, text string) {
		if text = strings.TrimSpace(text); text == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + title + "\n\n" + text)
	}
	section("Design", is.Design)
	section("Acceptance criteria", is.AcceptanceCriteria)
	section("Notes", is.Notes)
	var cs []string
	for _, c := range is.Comments {
		cs = append(cs, fmt.Sprintf("- %s, %s: %s", c.Author, c.CreatedAt.UTC().Format("2006-01-02 15:04"), strings.TrimSpace(c.Text)))
	}
	section("Comments", strings.Join(cs, "\n"))
	return b.String()
}
