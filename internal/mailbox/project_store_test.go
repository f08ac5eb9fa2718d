package mailbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/store"
)

// TestOpenAdoptsStoredSpelling: a store written before keys of
// case-insensitive hosts were folded keeps github.com/Acme/Shop; the folded
// key github.com/acme/shop opens that project, not an empty one. Other
// hosts keep case apart.
func TestOpenAdoptsStoredSpelling(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	for _, old := range []string{"github.com/Acme/Shop", "git.example.com/Acme/Shop"} {
		f.proj = project.Project{Key: old, Slug: project.Slug(old)}
		if _, err := f.as("").Register(ctx, RegisterInput{Name: "GreenCastle"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		key, wantKey string
		known        bool
	}{
		{"https://github.com/acme/shop.git", "github.com/Acme/Shop", true},
		{"git@GitHub.com:ACME/SHOP", "github.com/Acme/Shop", true},
		{"https://git.example.com/acme/shop", "git.example.com/acme/shop", false},
		{"https://git.example.com/Acme/Shop", "git.example.com/Acme/Shop", true},
	}
	for _, tt := range tests {
		p, err := project.ProjectFromKey(tt.key)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := Open(ctx, f.st, p, "GreenCastle")
		if err != nil {
			t.Fatal(err)
		}
		got := mb.Project()
		if got.Key != tt.wantKey || got.Slug != project.Slug(tt.wantKey) || mb.Known() != tt.known {
			t.Errorf("Open(%q): key %q slug %q known %v; want key %q known %v", tt.key, got.Key, got.Slug, mb.Known(), tt.wantKey, tt.known)
		}
		h, err := mb.Holdings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[tt.known]; h.Agents != want {
			t.Errorf("Open(%q): %d agents, want %d", tt.key, h.Agents, want)
		}
	}
}

// TestEnsureProject: the project is recorded once, with no agent, and a
// second call writes nothing.
func TestEnsureProject(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	mb := f.as("")
	if mb.Known() {
		t.Fatal("a fresh store knows the project")
	}
	if err := mb.EnsureProject(ctx); err != nil {
		t.Fatal(err)
	}
	head, _ := f.st.Head()
	again := f.as("")
	if !again.Known() {
		t.Fatal("EnsureProject did not record the project")
	}
	if err := again.EnsureProject(ctx); err != nil {
		t.Fatal(err)
	}
	if h, _ := f.st.Head(); h != head {
		t.Errorf("a second EnsureProject committed %s", h)
	}
	if h, err := again.Holdings(ctx); err != nil || !h.Empty() {
		t.Errorf("Holdings of a bare project: %+v, %v", h, err)
	}
}

// newRepo returns a git repository with one commit and a linked worktree
// of it.
func newRepo(t *testing.T) (repo, wt string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, wt = filepath.Join(root, "repo"), filepath.Join(root, "wt")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	gitIn(t, repo, "worktree", "add", "-q", wt)
	return repo, wt
}

// gitIn runs git in dir, away from the user's configuration.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestOpenAdoptsLegacyKey: a store written when a relative origin kept its
// relative key (../remote) stays in view at the repository's first use,
// which then pins that key; a repository pinned to another key does not
// adopt it.
func TestOpenAdoptsLegacyKey(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(t.TempDir(), store.Options{Projections: testProjections})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old, err := project.ProjectFromKey("../remote")
	if err != nil || old.Key != "../remote" {
		t.Fatalf("ProjectFromKey(../remote) = %+v, %v", old, err)
	}
	mb, err := Open(ctx, st, old, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mb.Register(ctx, RegisterInput{Name: "GreenCastle"}); err != nil {
		t.Fatal(err)
	}

	repo, wt := newRepo(t)
	gitIn(t, repo, "remote", "add", "origin", "../remote.git")
	p, err := project.ResolveProject(wt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != project.SourceOrigin || p.Repo.LegacyKey != "../remote" || p.Key == "../remote" {
		t.Fatalf("ResolveProject: key %q from %s, legacy %q", p.Key, p.Source, p.Repo.LegacyKey)
	}
	mb, err = Open(ctx, st, p, "GreenCastle")
	if err != nil {
		t.Fatal(err)
	}
	if got := mb.Project(); got.Key != "../remote" || got.Slug != old.Slug || !mb.Known() {
		t.Fatalf("Open adopted key %q slug %q (known %v), want %q %q", got.Key, got.Slug, mb.Known(), old.Key, old.Slug)
	}
	if _, err := mb.Whoami(ctx); err != nil {
		t.Errorf("the agent of the legacy key: %v", err)
	}
	adopted := mb.Project()
	if wrote, err := adopted.Pin(ctx); !wrote || err != nil {
		t.Fatalf("Pin: %v, %v", wrote, err)
	}
	if p, _ := project.ResolveProject(repo); p.Key != "../remote" || p.Source != project.SourcePinned {
		t.Errorf("after pinning: key %q from %s", p.Key, p.Source)
	}

	// Pinned elsewhere: no adoption.
	other, _ := newRepo(t)
	gitIn(t, other, "remote", "add", "origin", "../remote.git")
	r, _ := project.FindRepository(other)
	if err := r.SetPin(ctx, "/srv/elsewhere"); err != nil {
		t.Fatal(err)
	}
	p, _ = project.ResolveProject(other)
	if mb, err = Open(ctx, st, p, ""); err != nil || mb.Known() || mb.Project().Key != "/srv/elsewhere" {
		t.Errorf("a pinned repository adopted %q (known %v, %v)", mb.Project().Key, mb.Known(), err)
	}
}
