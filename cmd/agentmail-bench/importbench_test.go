package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmail/agentmail/internal/importer"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
)

// TestCorpusImports: the benchmark's mcp_agent_mail corpus is written the
// same way twice, and imports whole, without a warning.
func TestCorpusImports(t *testing.T) {
	const n = 400
	a, b := t.TempDir(), t.TempDir()
	sa, err := writeAgentMailCorpus(a, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeAgentMailCorpus(b, n); err != nil {
		t.Fatal(err)
	}
	if fa, fb := treeOf(t, a), treeOf(t, b); len(fa) != len(fb) {
		t.Fatalf("two writes differ: %d and %d files", len(fa), len(fb))
	} else {
		for name, data := range fa {
			if fb[name] != data {
				t.Fatalf("two writes differ at %s", name)
			}
		}
	}

	ctx := context.Background()
	st, err := store.Open(t.TempDir(), store.Options{Projections: service.Projections()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	proj, err := project.ProjectFromKey(projectKey)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mailbox.Open(ctx, st, proj, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := importer.AgentMail(ctx, st, mb, a, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := importer.Counts{Agents: sa.Agents, Messages: n, Reservations: sa.Reservations}
	if rep.Imported != want || rep.Malformed != (importer.Counts{}) || len(rep.Warnings) != 0 {
		t.Fatalf("imported %+v, malformed %+v, warnings %q; want %+v imported and nothing else", rep.Imported, rep.Malformed, rep.Warnings, want)
	}
	if rep.Source != corpusSlug {
		t.Errorf("source project %q, want %q", rep.Source, corpusSlug)
	}
}

// treeOf reads every file under dir, by its path relative to dir.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
