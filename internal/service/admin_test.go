package service

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestInitArchiveDoctor(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	init, err := f.svc.Init(ctx, Scope{})
	if err != nil || init.Store != f.svc.Dir() || init.Archive != filepath.Join(f.svc.Dir(), "archive.git") || init.Project != nil {
		t.Errorf("init without a project: %+v, %v", init, err)
	}
	init, err = f.svc.Init(ctx, as(""))
	if err != nil || init.Project == nil || init.Project.Key != projectKey || !strings.HasPrefix(init.Project.Slug, "shop-") {
		t.Errorf("init: %+v, %v", init, err)
	}
	if got := keys(t, init); !slices.Equal(got, []string{"archive", "project", "store"}) {
		t.Errorf("init document keys %q", got)
	}
	if p, err := f.svc.ArchivePath(ctx); err != nil || p.Path != init.Archive {
		t.Errorf("archive path: %+v, %v", p, err)
	}

	f.register("GreenCastle", "BlueLake")
	f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "s", Body: "b"})
	var progress []int
	tests := []struct {
		req  DoctorRequest
		keys []string
	}{
		{req: DoctorRequest{}, keys: []string{"check"}},
		{req: DoctorRequest{Reindex: true, Progress: func(done, total int) { progress = append(progress, done) }}, keys: []string{"reindex"}},
		{req: DoctorRequest{GC: true}, keys: []string{"gc"}},
		{req: DoctorRequest{Check: true, Reindex: true}, keys: []string{"check", "reindex"}},
	}
	for _, tt := range tests {
		resp, err := f.svc.Doctor(ctx, tt.req)
		if err != nil {
			t.Errorf("doctor %+v: %v", tt.req, err)
		}
		if got := keys(t, resp); !slices.Equal(got, tt.keys) {
			t.Errorf("doctor %+v: document keys %q, want %q", tt.req, got, tt.keys)
		}
		if resp.Check != nil && (!resp.Check.OK || resp.Check.Problems == nil) {
			t.Errorf("check %+v", resp.Check)
		}
		if resp.Reindex != nil && resp.Reindex.Messages != 1 {
			t.Errorf("reindex %+v", resp.Reindex)
		}
		if resp.GC != nil && (resp.GC.Packs != 1 || resp.GC.String() == "") {
			t.Errorf("gc %+v", resp.GC)
		}
	}
	if len(progress) == 0 {
		t.Errorf("no progress reported")
	}
}

func TestProject(t *testing.T) {
	gitEnv(t)
	f := newFixture(t)
	ctx := context.Background()
	repo := newRepo(t)
	if _, err := f.svc.Register(ctx, in(repo, ""), RegisterRequest{Name: ptr("GreenCastle")}); err != nil {
		t.Fatal(err)
	}

	resp, err := f.svc.Project(ctx, in(repo, ""))
	if err != nil || resp.Project.Key != "github.com/acme/shop" || resp.Project.Source != SourcePinned || resp.Project.Root == nil || *resp.Project.Root != repo ||
		resp.Pinned == nil || resp.Config == nil || resp.Origin == nil || resp.Origin.Key != resp.Project.Key || resp.Holds != (Counts{Agents: 1}) {
		t.Fatalf("project: %+v, %v", resp, err)
	}
	if len(resp.Others) != 1 || resp.Others[0].From != SourcePath || resp.Others[0].Key != repo || !resp.Others[0].Holds.Empty() {
		t.Errorf("others %+v", resp.Others)
	}
	if got := keys(t, resp); !slices.Equal(got, []string{"config", "holds", "origin", "others", "pinned", "project"}) {
		t.Errorf("project document keys %q", got)
	}
	byKey, err := f.svc.Project(ctx, as(""))
	if err != nil || byKey.Project.Source != SourceFlag || byKey.Config != nil || byKey.Others == nil {
		t.Errorf("project by key: %+v, %v", byKey, err)
	}

	moved, err := f.svc.SetProject(ctx, in(repo, ""), "github.com/acme/other")
	if err != nil || moved.Project.Key != "github.com/acme/other" || moved.Project.Source != SourcePinned || moved.Previous == nil ||
		moved.Previous.Key != "github.com/acme/shop" || moved.Previous.Holds != (Counts{Agents: 1}) || moved.Config == "" {
		t.Fatalf("set: %+v, %v", moved, err)
	}
	if got := keys(t, moved); !slices.Equal(got, []string{"previous", "project"}) {
		t.Errorf("set document keys %q", got)
	}
	if again, err := f.svc.SetProject(ctx, in(repo, ""), "github.com/acme/other"); err != nil || again.Previous != nil {
		t.Errorf("set to the same key: %+v, %v", again, err)
	}
	_, err = f.svc.SetProject(ctx, in(t.TempDir(), ""), "github.com/acme/other")
	wantCode(t, "set outside a repository", err, "NO_PROJECT")
	_, err = f.svc.SetProject(ctx, in(repo, ""), "bad\x1bkey")
	wantCode(t, "set a bad key", err, "INVALID_ARGUMENT")
}

// pyArchive writes the mcp_agent_mail archive of the import journey into a
// directory and returns it.
func pyArchive(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "import.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, file := range ar.Files {
		if rel, ok := strings.CutPrefix(file.Name, "py/"); ok {
			writeFile(t, filepath.Join(dir, rel), file.Data)
		}
	}
	return dir
}

func TestImportAgentMail(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	dir := pyArchive(t)
	tests := []struct {
		name     string
		req      ImportRequest
		imported Counts
		code     string
	}{
		{name: "batch 0", req: ImportRequest{Dir: dir}, code: "USAGE"},
		{name: "no such directory", req: ImportRequest{Dir: filepath.Join(dir, "nothing"), Batch: 10}, code: "INVALID_ARGUMENT"},
		{name: "import", req: ImportRequest{Dir: dir, Batch: 3}, imported: Counts{4, 10, 2}},
		{name: "again: nothing new", req: ImportRequest{Dir: dir, Batch: DefaultImportBatch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.svc.ImportAgentMail(ctx, as(""), tt.req)
			wantCode(t, "import", err, tt.code)
			if err != nil {
				return
			}
			if resp.Imported != tt.imported || resp.Project.Key != projectKey || resp.Source.Dir != dir || resp.Source.Project == "" {
				t.Errorf("import %+v", resp)
			}
			if got := keys(t, resp); !slices.Equal(got, []string{"imported", "malformed", "project", "skipped", "source", "warnings"}) {
				t.Errorf("document keys %q", got)
			}
		})
	}
}
