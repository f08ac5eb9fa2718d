package service

import (
	"context"
	"html/template"
	"path/filepath"

	"github.com/agentmail/agentmail/internal/export"
	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
)

// ErrExportModified: an export's files differ from its manifest, or its
// signature does not verify (EXPORT_MODIFIED); the error names the file.
var ErrExportModified = export.ErrModified

// ErrNoKeygen: signing or verifying a signature needs ssh-keygen.
var ErrNoKeygen = export.ErrNoKeygen

// ExportRequest asks for a static site of a project's mailbox.
type ExportRequest struct {
	// Dir is where the site is written: a new or empty directory.
	Dir string `json:"dir"`
	// RedactBodies drops every message body.
	RedactBodies bool `json:"redact_bodies,omitempty"`
	// Redact are regular expressions masked wherever they match, before
	// anything is written.
	Redact []string `json:"redact,omitempty"`
	// SignKey is an SSH key file that signs the manifest ("": unsigned).
	SignKey string `json:"sign_key,omitempty"`
	// Markdown renders a body as safe HTML, and Stylesheet is the site's
	// style.css: the web pages' own, which the face passes on (the
	// service is below the pages).
	Markdown   func(string) template.HTML `json:"-"`
	Stylesheet []byte                     `json:"-"`
}

// ExportResponse is the document of export: the project, where the site
// is and what it holds.
type ExportResponse struct {
	Project  ProjectKey `json:"project"`
	Dir      string     `json:"dir"`
	Manifest string     `json:"manifest"`
	Redacted bool       `json:"redacted"`
	export.Result
}

// Export writes a static site of sc's project's mailbox (every message,
// as the overseer sees them, without bcc lists; the agents; the tasks) into
// req.Dir, redacted as asked before anything is written, with a manifest
// of the files' SHA-256, signed when req.SignKey is set.
func (s *Service) Export(ctx context.Context, sc Scope, req ExportRequest) (ExportResponse, error) {
	if req.Dir == "" {
		return ExportResponse{}, UsageField("dir", "name the directory to write the export to")
	}
	patterns, err := export.CompilePatterns(req.Redact)
	if err != nil {
		return ExportResponse{}, fault.WithField(err, "redact")
	}
	dir, err := filepath.Abs(req.Dir)
	if err != nil {
		return ExportResponse{}, err
	}
	sc.Agent = ""
	x, err := s.session(ctx, sc)
	if err != nil {
		return ExportResponse{}, err
	}
	msgs, err := x.mb.All(ctx)
	if err != nil {
		return ExportResponse{}, err
	}
	agents, err := x.mb.Agents(ctx, false, true)
	if err != nil {
		return ExportResponse{}, err
	}
	all, err := s.Tasks(ctx, sc, TaskListRequest{All: true})
	if err != nil {
		return ExportResponse{}, err
	}
	ready, err := s.Tasks(ctx, sc, TaskListRequest{Ready: true})
	if err != nil {
		return ExportResponse{}, err
	}
	isReady := map[string]bool{}
	for _, t := range ready.Tasks {
		isReady[t.ID] = true
	}
	p := x.project()
	site := &export.Site{Project: p.Slug, Key: p.Key, Generated: s.Now(),
		Messages: mapSlice(msgs, exportMessage), Agents: mapSlice(agents, exportAgent),
		Tasks: mapSlice(all.Tasks, func(t Task) export.Task { return exportTask(t, TaskColumn(t, isReady[t.ID])) })}
	red := export.Redaction{Bodies: req.RedactBodies, Patterns: patterns}
	red.Redact(site)
	res, err := export.Write(dir, site, export.Options{Markdown: req.Markdown, Stylesheet: req.Stylesheet, SignKey: req.SignKey})
	if err != nil {
		return ExportResponse{}, err
	}
	return ExportResponse{Project: ProjectKey{Key: p.Key, Slug: p.Slug}, Dir: dir,
		Manifest: filepath.Join(dir, export.ManifestFile), Redacted: !red.Empty(), Result: res}, nil
}

func exportMessage(m mailbox.Message) export.Message {
	out := export.Message{ID: m.ID, Thread: m.Thread, From: m.From, To: m.To, Cc: m.Cc, Subject: m.Subject,
		Importance: m.Importance, AckRequired: m.AckRequired, Category: m.Category, Topic: m.Topic,
		ReplyTo: m.ReplyTo, Created: m.Created, Body: m.Body}
	for _, a := range m.Attachments {
		out.Attachments = append(out.Attachments, export.Attachment{Name: a.Name, Size: a.Size, MediaType: a.MediaType})
	}
	return out
}

func exportTask(t Task, column string) export.Task {
	out := export.Task{ID: t.ID, Title: t.Title, Description: t.Description, Type: t.Type, Priority: t.Priority, Status: t.Status,
		Column: column, CloseReason: t.CloseReason, Parent: t.Parent, Deps: t.Deps, Labels: t.Labels, Created: t.Created.Time, Closed: t.Closed.Time}
	if t.Claim != nil {
		out.Claim = t.Claim.Agent
	}
	return out
}

func exportAgent(a mailbox.Agent) export.Agent {
	return export.Agent{Name: a.Name, Program: a.Program, Model: a.Model, Task: a.Task,
		Registered: a.Registered, LastSeen: a.LastSeen, Retired: a.Retired}
}

// VerifyExportRequest asks to check an export.
type VerifyExportRequest struct {
	Dir string `json:"dir"`
	// AllowedSigners is an ssh-keygen allowed signers file the signature
	// must verify against ("": the signature is checked for soundness only).
	AllowedSigners string `json:"allowed_signers,omitempty"`
}

// VerifyExportResponse is the document of export verification.
type VerifyExportResponse struct {
	Dir string `json:"dir"`
	export.Verification
}

// VerifyExport checks the export in req.Dir against its manifest and
// signature: ErrExportModified naming the first file that differs.
func (s *Service) VerifyExport(ctx context.Context, req VerifyExportRequest) (VerifyExportResponse, error) {
	if req.Dir == "" {
		return VerifyExportResponse{}, UsageField("dir", "name the directory of the export to verify")
	}
	v, err := export.Verify(req.Dir, req.AllowedSigners, "")
	return VerifyExportResponse{Dir: req.Dir, Verification: v}, err
}
