package service

import (
	"context"

	"github.com/agentmail/agentmail/internal/importer"
)

// DefaultImportBatch is how many records an import writes per archive
// commit unless asked otherwise.
const DefaultImportBatch = importer.DefaultBatch

// ImportRequest names an archive of the Python mcp_agent_mail server to
// import into the scope's project.
type ImportRequest struct {
	Dir           string // the server's storage root, or one project's directory in it
	SourceProject string // the project's slug under Dir/projects, when Dir holds several
	Batch         int    // records per archive commit; must be positive
	// Progress, when set, is told how many of the records are done, out
	// of the total.
	Progress func(done, total int) `json:"-"`
}

// ImportSource is what was imported from.
type ImportSource struct {
	Dir     string `json:"dir"`
	Project string `json:"project"`
}

// ImportResponse is the document of import agent-mail.
type ImportResponse struct {
	Imported  Counts       `json:"imported"`
	Malformed Counts       `json:"malformed"` // files that could not be used; each has a warning
	Project   ProjectKey   `json:"project"`
	Skipped   Counts       `json:"skipped"` // already present
	Source    ImportSource `json:"source"`
	Warnings  []string     `json:"warnings"` // "file: reason", the file relative to the source
}

// ImportAgentMail imports agents, messages (with their original times and
// threads) and file reservations; importing again adds only what is new.
func (s *Service) ImportAgentMail(ctx context.Context, sc Scope, req ImportRequest) (ImportResponse, error) {
	if req.Batch <= 0 {
		return ImportResponse{}, UsageField("batch", "the batch size must be positive")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return ImportResponse{}, err
	}
	rep, err := importer.AgentMail(ctx, x.st, x.mb, req.Dir, importer.Options{
		SourceProject: req.SourceProject, BatchSize: req.Batch, Progress: req.Progress,
	})
	if err != nil {
		return ImportResponse{}, err
	}
	proj := x.project()
	return ImportResponse{
		Imported: importCountsDoc(rep.Imported), Malformed: importCountsDoc(rep.Malformed),
		Project: ProjectKey{proj.Key, proj.Slug}, Skipped: importCountsDoc(rep.Skipped),
		Source: ImportSource{rep.Dir, rep.Source}, Warnings: rep.Warnings,
	}, nil
}

// ImportBeadsRequest names a beads JSONL export to import into the
// scope's project as tasks.
type ImportBeadsRequest struct {
	Path string // the export: .beads/issues.jsonl
}

// ImportedTask pairs a beads issue with the task it became.
type ImportedTask struct {
	Beads string `json:"beads"`
	Task  string `json:"task"`
}

// ImportBeadsResponse is the document of import beads.
type ImportBeadsResponse struct {
	Created   int            `json:"created"`
	Path      string         `json:"path"` // the export, absolute
	Project   ProjectKey     `json:"project"`
	Skipped   int            `json:"skipped"` // lines that could not be used; each has a warning
	Tasks     []ImportedTask `json:"tasks"`   // every issue imported, in the file's order
	Unchanged int            `json:"unchanged"`
	Updated   int            `json:"updated"`
	Warnings  []string       `json:"warnings"` // "ID: what" or "line N: what"
}

// ImportBeads imports a beads export's issues as tasks, made by the acting
// agent (or the human overseer); importing again updates the tasks it made
// and writes nothing when the export is unchanged.
func (s *Service) ImportBeads(ctx context.Context, sc Scope, req ImportBeadsRequest) (ImportBeadsResponse, error) {
	if req.Path == "" {
		return ImportBeadsResponse{}, UsageField("path", "give the path of a beads export, such as .beads/issues.jsonl")
	}
	x, ts, _, err := s.tasks(ctx, sc, sc.Agent != "")
	if err != nil {
		return ImportBeadsResponse{}, err
	}
	rep, err := importer.Beads(ctx, x.mb, ts, req.Path)
	if err != nil {
		return ImportBeadsResponse{}, err
	}
	proj := x.project()
	return ImportBeadsResponse{
		Created: rep.Created, Path: rep.Path, Project: ProjectKey{proj.Key, proj.Slug}, Skipped: rep.Skipped,
		Tasks: mapSlice(rep.Tasks, func(t importer.BeadsTask) ImportedTask { return ImportedTask(t) }), Unchanged: rep.Unchanged,
		Updated: rep.Updated, Warnings: rep.Warnings,
	}, nil
}
