package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
)

// ProjectInfo is a project and how its key was chosen.
type ProjectInfo struct {
	Key    string  `json:"key"`
	Slug   string  `json:"slug"`
	Source string  `json:"source"` // pinned, origin, path, flag or env (mailbox.Source*)
	Root   *string `json:"root"`   // the working tree; null outside one
}

func projectInfo(p project.Project, source string) ProjectInfo {
	return ProjectInfo{p.Key, p.Slug, source, optString(p.Root)}
}

// Origin is the repository's origin remote and the key it gives.
type Origin struct {
	Key string `json:"key"`
	URL string `json:"url"`
}

// OtherKey is another key the repository could have, and what the store
// keeps under it.
type OtherKey struct {
	From  string `json:"from"` // origin or path
	Key   string `json:"key"`
	Slug  string `json:"slug"`
	Holds Counts `json:"holds"`
}

// ProjectResponse is the document of project.
type ProjectResponse struct {
	Config  *string     `json:"config"` // the repository's configuration file, where the pin lives
	Holds   Counts      `json:"holds"`
	Origin  *Origin     `json:"origin"`
	Others  []OtherKey  `json:"others"` // the keys origin and the path give, when not the project's
	Pinned  *string     `json:"pinned"` // the key pinned in the repository
	Project ProjectInfo `json:"project"`
}

// Project describes the scope's project: its key, how the key was chosen,
// what the store holds of it, and the keys the repository's origin or path
// would give when they differ, with what the store holds under each.
func (s *Service) Project(ctx context.Context, sc Scope) (ProjectResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ProjectResponse{}, err
	}
	holds, err := x.mb.Holdings(ctx)
	if err != nil {
		return ProjectResponse{}, err
	}
	cur := x.project()
	resp := ProjectResponse{Holds: holdingsDoc(holds), Others: []OtherKey{}, Project: projectInfo(cur, cur.Source)}
	r := cur.Repo
	if r == nil {
		return resp, nil
	}
	resp.Config, resp.Pinned = &r.Config, optString(r.Pinned)
	if r.OriginURL != "" {
		resp.Origin = &Origin{Key: r.OriginKey, URL: r.OriginURL}
	}
	for _, k := range []struct{ from, key string }{{SourceOrigin, r.OriginKey}, {SourcePath, r.PathKey}} {
		p, err := project.ProjectFromKey(k.key)
		if err != nil {
			continue // none, or a key nobody can use
		}
		mb, err := mailbox.Open(ctx, x.st, p, "")
		if err != nil {
			return ProjectResponse{}, err
		}
		if mb.Project().Slug == cur.Slug {
			continue
		}
		h, err := mb.Holdings(ctx)
		if err != nil {
			return ProjectResponse{}, err
		}
		resp.Others = append(resp.Others, OtherKey{k.from, mb.Project().Key, mb.Project().Slug, holdingsDoc(h)})
	}
	return resp, nil
}

// PreviousProject is the key a repository was moved from, and what stays
// behind under it.
type PreviousProject struct {
	Holds Counts `json:"holds"`
	Key   string `json:"key"`
	Slug  string `json:"slug"`
}

// ProjectSetResponse is the document of project set.
type ProjectSetResponse struct {
	Previous *PreviousProject `json:"previous"` // null when the key did not change
	Project  ProjectInfo      `json:"project"`

	Config string `json:"-"` // the repository's configuration file, where the pin is
}

// SetProject pins the repository around the scope's directory to key (a
// remote URL, a host/path key or an absolute path), whatever the scope's
// own key. What the old key holds stays under it, out of the repository's
// view: the response says what.
func (s *Service) SetProject(ctx context.Context, sc Scope, key string) (ProjectSetResponse, error) {
	dir := sc.Project.Dir
	repo, err := project.FindRepository(dir)
	if err != nil {
		return ProjectSetResponse{}, err
	}
	if err := project.CheckGivenKey(key); err != nil {
		return ProjectSetResponse{}, err
	}
	next, err := project.ProjectFromKey(key)
	if err != nil {
		return ProjectSetResponse{}, err
	}
	if _, err := s.store(); err != nil {
		return ProjectSetResponse{}, err
	}
	// What the repository resolves to today, whatever the scope's key
	// says: that is what stays behind.
	var prev *session
	if old, err := project.ResolveProject(dir); err == nil {
		if prev, err = s.sessionFor(ctx, old, sc.Agent); err != nil {
			return ProjectSetResponse{}, err
		}
	}
	if err := repo.SetPin(ctx, next.Key); err != nil {
		return ProjectSetResponse{}, err
	}
	next = next.In(dir)
	next.Source = project.SourcePinned
	x, err := s.sessionFor(ctx, next, sc.Agent)
	if err != nil {
		return ProjectSetResponse{}, err
	}
	if err := x.mb.EnsureProject(ctx); err != nil {
		return ProjectSetResponse{}, err
	}
	cur := x.project()
	resp := ProjectSetResponse{Project: projectInfo(cur, project.SourcePinned), Config: repo.Config}
	if prev != nil && prev.project().Slug != cur.Slug {
		old := prev.project()
		holds, err := prev.mb.Holdings(ctx)
		if err != nil {
			return ProjectSetResponse{}, err
		}
		resp.Previous = &PreviousProject{Holds: holdingsDoc(holds), Key: old.Key, Slug: old.Slug}
	}
	return resp, nil
}

// FindProject returns the project of the store that name names: its key,
// its slug, or a prefix of one slug only that reaches into its hash
// ("shop-fe4a" for shop-fe4abaed; not "shop", which names no project but
// could be any), as mcp_agent_mail takes a slug for a project. A name that
// matches none, or several, is ErrNoProject, its message listing the
// store's projects.
func (s *Service) FindProject(ctx context.Context, name string) (ProjectKey, error) {
	_, rows, err := s.storedProjects(ctx)
	if err != nil {
		return ProjectKey{}, err
	}
	var prefixed []ProjectKey
	known := make([]string, 0, len(rows))
	for _, r := range rows {
		if r.Key == name || r.Slug == name {
			return ProjectKey{r.Key, r.Slug}, nil
		}
		if strings.HasPrefix(r.Slug, name) && len(name) > strings.LastIndex(r.Slug, "-")+1 {
			prefixed = append(prefixed, ProjectKey{r.Key, r.Slug})
		}
		known = append(known, fmt.Sprintf("%s (%s)", r.Key, r.Slug))
	}
	if len(prefixed) == 1 {
		return prefixed[0], nil
	}
	list := "the store has no project yet"
	if len(known) > 0 {
		list = "known projects: " + strings.Join(known, ", ")
	}
	if len(prefixed) > 1 {
		return ProjectKey{}, fmt.Errorf("%w: %q is the beginning of several projects' slugs; %s", project.ErrNoProject, name, list)
	}
	return ProjectKey{}, fmt.Errorf("%w named %q; %s", project.ErrNoProject, name, list)
}

// ArchiveResponse is the document of project archive and unarchive, with
// the fields of mcp_agent_mail's archive_project: status (archived or
// active), project_key, slug; and when it was archived (null when active),
// and whether this call changed anything.
type ArchiveResponse struct {
	Status     string     `json:"status"`
	ProjectKey string     `json:"project_key"`
	Slug       string     `json:"slug"`
	ArchivedAt Time       `json:"archived_at"`
	Changed    bool       `json:"changed"`
	Project    ProjectKey `json:"project"`
}

// ArchiveProject archives sc's project (it then refuses writes with
// PROJECT_ARCHIVED and is left out of project lists; everything in it
// stays, and reads go on) or, with archived false, brings it back.
func (s *Service) ArchiveProject(ctx context.Context, sc Scope, archived bool) (ArchiveResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ArchiveResponse{}, err
	}
	p, changed, err := x.mb.SetArchived(ctx, archived)
	if err != nil {
		return ArchiveResponse{}, err
	}
	status := "active"
	if !p.Archived.IsZero() {
		status = "archived"
	}
	return ArchiveResponse{Status: status, ProjectKey: p.Key, Slug: p.Slug, ArchivedAt: Time{p.Archived}, Changed: changed,
		Project: ProjectKey{Key: p.Key, Slug: p.Slug}}, nil
}
