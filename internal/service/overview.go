package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// The operations below are an overseer's view of a store, for agentmail
// serve's pages and API: every project, and in a project what every agent
// waits for.

// ProjectSummary is a project of the store and what the store holds of it.
type ProjectSummary struct {
	Key   string `json:"key"`
	Slug  string `json:"slug"`
	Holds Counts `json:"holds"`
	// Archived is when the project was archived; absent while active.
	Archived *Time `json:"archived,omitempty"`
}

// ProjectsResponse is the document of the projects listing: {"projects":
// [{"key", "slug", "holds"}...]}, by slug.
type ProjectsResponse struct {
	Projects []ProjectSummary `json:"projects"`
}

// storedProjects opens the store, brings its index up to date and lists
// its projects.
func (s *Service) storedProjects(ctx context.Context) (*store.Store, []store.ProjectRow, error) {
	st, err := s.store()
	if err != nil {
		return nil, nil, err
	}
	if err := st.Fresh(ctx); err != nil {
		return nil, nil, err
	}
	rows, err := store.ListProjects(ctx, st.Index())
	return st, rows, err
}

// Projects lists the store's projects; archived ones only with all.
func (s *Service) Projects(ctx context.Context, all bool) (ProjectsResponse, error) {
	st, found, err := s.storedProjects(ctx)
	if err != nil {
		return ProjectsResponse{}, err
	}
	resp := ProjectsResponse{Projects: make([]ProjectSummary, 0, len(found))}
	for _, row := range found {
		if !all && !row.Archived.IsZero() {
			continue
		}
		p := project.Project{Key: row.Key, Slug: row.Slug}
		mb, err := mailbox.Open(ctx, st, p, "")
		if err != nil {
			return ProjectsResponse{}, err
		}
		holds, err := mb.Holdings(ctx)
		if err != nil {
			return ProjectsResponse{}, err
		}
		sum := ProjectSummary{Key: p.Key, Slug: p.Slug, Holds: holdingsDoc(holds)}
		if !row.Archived.IsZero() {
			sum.Archived = &Time{row.Archived}
		}
		resp.Projects = append(resp.Projects, sum)
	}
	return resp, nil
}

// ProjectBySlug returns the ref of the store's project with slug, as the
// pages and the API name projects; NOT_FOUND when the store has none.
func (s *Service) ProjectBySlug(ctx context.Context, slug string) (ProjectRef, error) {
	st, err := s.store()
	if err != nil {
		return ProjectRef{}, err
	}
	if err := st.Fresh(ctx); err != nil {
		return ProjectRef{}, err
	}
	p, ok, err := store.LookupProject(ctx, st.Index(), slug)
	if err != nil {
		return ProjectRef{}, err
	}
	if !ok {
		return ProjectRef{}, fault.WithHint(fmt.Errorf("%w: no project %q in this store", mailbox.ErrNotFound, slug),
			"the projects page (/mail/) and GET /api/projects list the store's projects by slug")
	}
	return ProjectRef{Key: p.Key, KeySource: SourceFlag}, nil
}

// ProjectContacts lists every contact request of the scope's project,
// whoever made it, oldest first: {"contacts": [contact...]}.
func (s *Service) ProjectContacts(ctx context.Context, sc Scope) (ContactsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ContactsResponse{}, err
	}
	cs, err := x.mb.AllContacts(ctx)
	if err != nil {
		return ContactsResponse{}, err
	}
	return ContactsResponse{Contacts: mapSlice(cs, contactDoc)}, nil
}

// AwaitingAcks lists the messages of the scope's project, whoever sent
// them, that wait for an acknowledgement, oldest first, each with the
// recipients who have not given it: the document of acks overdue.
func (s *Service) AwaitingAcks(ctx context.Context, sc Scope) (OverdueResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return OverdueResponse{}, err
	}
	list, err := x.mb.AwaitingAcks(ctx)
	if err != nil {
		return OverdueResponse{}, err
	}
	return OverdueResponse{Messages: mapSlice(list, func(o mailbox.Overdue) Overdue { return Overdue{messageDoc(o.Message), o.Waiting} })}, nil
}

// ArchiveHead returns the commit of the scope's project branch in the
// archive ("" before its first write): the commit its files are read from.
func (s *Service) ArchiveHead(ctx context.Context, sc Scope) (string, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return "", err
	}
	return x.st.ProjectHead(x.project().Slug)
}

// fullHash is a full git commit hash.
var fullHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })

// ArchiveFile returns a file of the scope's project as of an archive
// commit, as `git show COMMIT:PATH` prints it: path is a path of the
// archive under the project's directory (projects/SLUG/..., as a message's
// "path" names it), commit a full hash.
func (s *Service) ArchiveFile(ctx context.Context, sc Scope, commit, path string) ([]byte, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return nil, err
	}
	if !fullHash().MatchString(commit) {
		return nil, fault.WithHint(fmt.Errorf("%w: %q is not a commit hash", mailbox.ErrInvalidArgument, commit),
			"give the commit's full 40-character hash, as a message's archive link does")
	}
	dir := "projects/" + x.project().Slug + "/"
	rel, ok := strings.CutPrefix(path, dir)
	if !ok || rel == "" || strings.Contains("/"+rel+"/", "/../") {
		return nil, fault.WithHint(fmt.Errorf("%w: %q is not a file of project %s", mailbox.ErrInvalidArgument, path, x.project().Slug),
			"give a path under "+dir+", as a message's \"path\" names it")
	}
	b, err := x.st.Archive().ReadFile(commit, rel)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fault.WithField(fmt.Errorf("%w: %v", mailbox.ErrNotFound, err), "archive_path", "slug", x.project().Slug)
	}
	return b, err
}

// HistoryRequest pages a project's history: Limit commits (default 50, at
// most 500) of the history of From (a commit of the project's branch; ""
// for its head) after the first Skip.
type HistoryRequest struct {
	From  string
	Skip  int
	Limit int
	// Explain reads each commit's changed files as the commit left them
	// and says what they mean (HistoryCommit.Changes).
	Explain bool
}

// HistoryCommit is a commit of a project's archive branch: who made it,
// when, what it means (its subject, as the store words each change:
// "send: GreenCastle -> BlueLake: ...", "control: Human pauses BlueLake")
// and the files it changed, as paths of the archive (projects/SLUG/...).
type HistoryCommit struct {
	Commit  string   `json:"commit"`
	Author  string   `json:"author"`
	Time    Time     `json:"time"`
	Subject string   `json:"subject"`
	Files   []string `json:"files"`
	// Changes say what the files changed mean, when asked for (Explain):
	// "message “hi” sent by GreenCastle to BlueLake", "lease on src/**
	// released by GreenCastle".
	Changes []string `json:"changes,omitempty"`
}

// HistoryResponse is a page of a project's history, newest first:
// {"from", "commits": [...], "more"}; from is the commit the pages count
// from (pass it back with skip for the next page).
type HistoryResponse struct {
	From    string          `json:"from"`
	Commits []HistoryCommit `json:"commits"`
	More    bool            `json:"more"`
}

// History lists the commits of the scope's project's archive branch, the
// project's history as git keeps it, newest first.
func (s *Service) History(ctx context.Context, sc Scope, req HistoryRequest) (HistoryResponse, error) {
	limit := req.Limit
	switch {
	case limit == 0:
		limit = 50
	case limit < 0 || limit > 500:
		return HistoryResponse{}, fault.WithField(fmt.Errorf("%w: a page of history is 1 to 500 commits, not %d", mailbox.ErrInvalidArgument, limit), "limit")
	case req.Skip < 0:
		return HistoryResponse{}, fault.WithField(fmt.Errorf("%w: skip %d is negative", mailbox.ErrInvalidArgument, req.Skip), "skip")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return HistoryResponse{}, err
	}
	from := req.From
	if from == "" {
		if from, err = x.st.ProjectHead(x.project().Slug); err != nil || from == "" {
			return HistoryResponse{Commits: []HistoryCommit{}}, err
		}
	} else if !fullHash().MatchString(from) {
		return HistoryResponse{}, fault.WithField(fmt.Errorf("%w: %q is not a commit hash", mailbox.ErrInvalidArgument, from), "from")
	}
	log, err := x.st.Archive().Log(from, req.Skip, limit+1)
	if err != nil {
		return HistoryResponse{}, err
	}
	resp := HistoryResponse{From: from, Commits: []HistoryCommit{}, More: len(log) > limit}
	dir := "projects/" + x.project().Slug + "/"
	for _, e := range log[:min(len(log), limit)] {
		c := HistoryCommit{Commit: e.Hash, Author: e.Author, Time: Time{e.Time}, Subject: e.Subject, Files: []string{}}
		for _, f := range e.Files {
			c.Files = append(c.Files, dir+f)
		}
		if req.Explain {
			c.Changes = meanings(func(p string) ([]byte, error) { return x.st.Archive().ReadFile(e.Hash, strings.TrimPrefix(p, dir)) }, c.Files)
		}
		resp.Commits = append(resp.Commits, c)
	}
	return resp, nil
}

// LeasesAtResponse is what a project held as of an archive commit (time
// travel): the reservations and locks active at the commit's time, as its
// tree left them. {"commit", "time", "reservations": [...], "locks": [...]}.
type LeasesAtResponse struct {
	Commit       string        `json:"commit"`
	Time         Time          `json:"time"`
	Reservations []Reservation `json:"reservations"`
	Locks        []Lock        `json:"locks"`
}

// LeasesAt reads the reservations and locks of the scope's project as of
// commit (a full hash of its archive branch): those active at the
// commit's time, read from the commit's tree, not the index.
func (s *Service) LeasesAt(ctx context.Context, sc Scope, commit string) (LeasesAtResponse, error) {
	if !fullHash().MatchString(commit) {
		return LeasesAtResponse{}, fault.WithField(fmt.Errorf("%w: %q is not a commit hash", mailbox.ErrInvalidArgument, commit), "commit")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return LeasesAtResponse{}, err
	}
	arc := x.st.Archive()
	info, err := arc.ReadCommit(commit)
	if err != nil {
		return LeasesAtResponse{}, fault.WithField(fmt.Errorf("%w: %v", mailbox.ErrNotFound, err), "commit")
	}
	at := info.Time
	resp := LeasesAtResponse{Commit: commit, Time: Time{at}, Reservations: []Reservation{}, Locks: []Lock{}}
	prefix := "projects/" + x.project().Slug + "/"
	skip := func(dir string) bool {
		top, _, _ := strings.Cut(dir, "/")
		return top != "reservations" && top != "locks"
	}
	err = arc.Changes("", commit, skip, func(path string, data []byte) error {
		rec, err := record.Decode(prefix+path, data)
		switch r := rec.(type) {
		case *record.Reservation:
			if r.Active(at) {
				resp.Reservations = append(resp.Reservations, reservationDoc(*r))
			}
		case *record.Lock:
			if r.Held(at) {
				resp.Locks = append(resp.Locks, lockDoc(*r))
			}
		}
		return err
	})
	return resp, err
}
