package project_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
)

func TestRepoPath(t *testing.T) {
	root := "/work/shop"
	tests := []struct {
		dir, arg string
		glob     bool
		want     string // "" for an error
	}{
		// At the root, paths are what they were.
		{root, "src/api/routes.py", false, "src/api/routes.py"},
		{root, "./src/api/", true, "src/api/"},
		{root, "src/**", true, "src/**"},
		{root, ".", true, "."},
		// In a subdirectory, relative to it.
		{root + "/src/api", "routes.py", false, "src/api/routes.py"},
		{root + "/src/api", "./routes.py", false, "src/api/routes.py"},
		{root + "/src/api", "*.py", true, "src/api/*.py"},
		{root + "/src/api", "**", true, "src/api/**"},
		{root + "/src/api", ".", true, "src/api/"},
		{root + "/src/api", "v2/", true, "src/api/v2/"},
		{root + "/src/api", "../../src/api/routes.py", false, "src/api/routes.py"},
		{root + "/src/api", "../web/*.ts", true, "src/web/*.ts"},
		{root + "/src/api", "..", true, "src/"},
		{root + "/src/api", "../..", true, "."},
		{root + "/src/api", "a//b/./c", false, "src/api/a/b/c"},
		// Absolute paths inside the repository.
		{root + "/src/api", root + "/src/api/routes.py", false, "src/api/routes.py"},
		{root + "/src/api", root + "/docs/*.md", true, "docs/*.md"},
		{root + "/src/api", root, true, "."},
		{root + "/src/api", root + "/src/../docs/", true, "docs/"},
		// A directory named like a glob is escaped when it is the prefix,
		// and `..` resolves past it.
		{root + "/app/[id]", "page.tsx", true, `app/\[id\]/page.tsx`},
		{root + "/app/[id]", "page.tsx", false, "app/[id]/page.tsx"},
		{root + "/app/{a,b}", "*.go", true, `app/\{a,b\}/*.go`},
		{root + "/app/[id]", "../x.go", true, "app/x.go"},
		// A `..` after a glob is left for the pattern check to refuse.
		{root, "src/*/../x", true, "src/*/../x"},
		{root, "src/*/../x", false, "src/x"},
		// Outside the repository.
		{root + "/src/api", "../../../other/x.py", false, ""},
		{root, "..", true, ""},
		{root + "/src", "/work/other/x.py", false, ""},
		{root + "/src", "/work/shopping/x.py", false, ""},
		{root, "/", false, ""},
	}
	for _, tt := range tests {
		got, err := project.RepoPath(root, tt.dir, tt.arg, tt.glob)
		if tt.want == "" {
			if !errors.Is(err, project.ErrInvalidArgument) || fault.Hint(err) == "" {
				t.Errorf("RepoPath(%q, %q, glob=%v) = %q, %v; want an invalid argument with a hint", tt.dir, tt.arg, tt.glob, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("RepoPath(%q, %q, glob=%v) = %q, %v; want %q", tt.dir, tt.arg, tt.glob, got, err, tt.want)
		}
	}
}

// TestRepoPathThroughSymlink: an absolute path spelled through a symbolic
// link to the repository is inside it.
func TestRepoPathThroughSymlink(t *testing.T) {
	root := realPath(t, t.TempDir())
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip(err)
	}
	for _, arg := range []string{filepath.Join(link, "src", "new.go"), filepath.Join(link, "src", "*.go")} {
		got, err := project.RepoPath(root, root, arg, true)
		if want := "src/" + filepath.Base(arg); err != nil || got != want {
			t.Errorf("RepoPath(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
}

// TestProjectRepoPaths: a project with a working tree resolves paths from
// its directory; one given by key outside any repository takes them as
// they are.
func TestProjectRepoPaths(t *testing.T) {
	repo, sub, _ := newRepo(t)
	p, err := project.ResolveProject(sub)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.RepoPatterns([]string{"*.py", "../web/"})
	if err != nil || len(got) != 2 || got[0] != "src/api/*.py" || got[1] != "src/web/" {
		t.Errorf("RepoPatterns in %s: %q, %v", sub, got, err)
	}
	if _, err := p.RepoPaths([]string{"ok.py", filepath.Dir(repo)}); !errors.Is(err, project.ErrInvalidArgument) {
		t.Errorf("a path outside: %v", err)
	}
	if got, err := p.RepoPaths(nil); got != nil || err != nil {
		t.Errorf("RepoPaths(nil) = %#v, %v; want nil (no paths given is not an empty list)", got, err)
	}
	given, _ := project.ProjectFromKey("github.com/acme/shop")
	if got, err := given.RepoPaths([]string{"../x", "*.py"}); err != nil || got[0] != "../x" || got[1] != "*.py" {
		t.Errorf("given by key, outside a repository: %q, %v", got, err)
	}
	if got, err := given.In(sub).RepoPaths([]string{"x.py"}); err != nil || got[0] != "src/api/x.py" {
		t.Errorf("given by key, in %s: %q, %v", sub, got, err)
	}
}
