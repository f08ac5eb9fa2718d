package mailbox_test

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/mailbox"
)

func TestNormalizeURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"https://github.com/Org/Repo", "github.com/Org/Repo"},
		{"http://git.example.com:8080/team/app.git", "git.example.com/team/app"},
		{"ssh://git@github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"ssh://git@github.com:2222/Org/Repo.git", "github.com/Org/Repo"},
		{"ssh://github.com/Org/Repo", "github.com/Org/Repo"},
		{"git://github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"git+ssh://git@github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"git@github.com:Org/Repo.git", "github.com/Org/Repo"},
		{"git@github.com:Org/Repo", "github.com/Org/Repo"},
		{"deploy.bot@git.example.com:team/app.git", "git.example.com/team/app"},
		{"https://user@github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"https://user:s3cret@github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"https://github.com/Org/Repo/", "github.com/Org/Repo"},
		{"https://github.com/Org/Repo.git/", "github.com/Org/Repo"},
		{"https://GitHub.COM/Org/Repo", "github.com/Org/Repo"},
		{"HTTPS://GITHUB.COM/Org/Repo", "github.com/Org/Repo"},
		{"git@GitHub.com:Org/Repo.git", "github.com/Org/Repo"},
		{"  https://github.com/Org/Repo.git\n", "github.com/Org/Repo"},
		{"https://gitlab.com/group/sub/project.git", "gitlab.com/group/sub/project"},
		{"https://example.com/repo.github.io.git", "example.com/repo.github.io"},
		{"file:///srv/git/repo.git", "/srv/git/repo"},
		{"file:///srv/git/../git/repo/", "/srv/git/repo"},
	}
	for _, tt := range tests {
		if got := mailbox.NormalizeURL(tt.in); got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNormalizeURLEquivalence: every spelling of one repository gives one
// key, and different repositories different keys.
func TestNormalizeURLEquivalence(t *testing.T) {
	groups := [][]string{
		{"https://github.com/Org/Repo", "https://github.com/Org/Repo.git", "http://github.com:80/Org/Repo",
			"ssh://git@github.com/Org/Repo.git", "ssh://git@github.com:22/Org/Repo", "git@github.com:Org/Repo.git",
			"https://bot:token@GITHUB.com/Org/Repo/", "git://github.com/Org/Repo"},
		{"https://github.com/Org/Other", "git@github.com:Org/Other.git"},
		{"https://github.com/Other/Repo", "git@github.com:Other/Repo.git"},
		{"https://gitlab.com/Org/Repo", "git@gitlab.com:Org/Repo.git"},
		{"https://github.com/org/repo"}, // paths are case-sensitive on most hosts
	}
	seen := map[string]int{}
	for i, g := range groups {
		key := mailbox.NormalizeURL(g[0])
		for _, u := range g[1:] {
			if got := mailbox.NormalizeURL(u); got != key {
				t.Errorf("NormalizeURL(%q) = %q, but NormalizeURL(%q) = %q", u, got, g[0], key)
			}
		}
		if j, ok := seen[key]; ok {
			t.Errorf("groups %d and %d share the key %q", j, i, key)
		}
		seen[key] = i
	}
}

func TestNormalizeURLScpWithoutUser(t *testing.T) {
	for _, u := range []string{"github.com:Org/Repo.git", "myserver:team/app.git"} {
		want := map[string]string{"github.com:Org/Repo.git": "github.com/Org/Repo", "myserver:team/app.git": "myserver/team/app"}[u]
		if got := mailbox.NormalizeURL(u); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestNormalizeURLLocalSpellings(t *testing.T) {
	a, b := mailbox.NormalizeURL("/srv/git/repo.git"), mailbox.NormalizeURL("file:///srv/git/repo.git")
	if a != b {
		t.Errorf("NormalizeURL(path) = %q, NormalizeURL(file URL) = %q", a, b)
	}
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$`)

func wantSlug(base, key string) string {
	sum := sha1.Sum([]byte(key))
	return base + "-" + hex.EncodeToString(sum[:4])
}

func checkSlug(t *testing.T, p mailbox.Project, base string) {
	t.Helper()
	if !slugPattern.MatchString(p.Slug) {
		t.Errorf("slug %q does not look like name-xxxxxxxx", p.Slug)
	}
	if want := wantSlug(base, p.Key); p.Slug != want {
		t.Errorf("slug of %q = %q, want %q", p.Key, p.Slug, want)
	}
}

// git runs git in dir with a clean environment.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GIT_") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newRepo makes a git repository with one commit, a subdirectory and a
// linked worktree.
func newRepo(t *testing.T) (repo, sub, wt string) {
	t.Helper()
	root := realPath(t, t.TempDir())
	repo = filepath.Join(root, "Backend Service")
	sub = filepath.Join(repo, "src", "api")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt = filepath.Join(root, "wt")
	git(t, repo, "worktree", "add", "-q", wt)
	if err := os.MkdirAll(filepath.Join(wt, "deep", "er"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo, sub, wt
}

func TestResolveProjectWithoutOrigin(t *testing.T) {
	repo, sub, wt := newRepo(t)
	git(t, repo, "remote", "add", "upstream", "https://github.com/Someone/Else.git") // not origin
	tests := []struct {
		name, dir, root string
	}{
		{"top", repo, repo},
		{"subdirectory", sub, repo},
		{"git dir itself", filepath.Join(repo, ".git"), repo},
		{"linked worktree", wt, wt},
		{"inside linked worktree", filepath.Join(wt, "deep", "er"), wt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := mailbox.ResolveProject(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if p.Key != repo {
				t.Errorf("Key = %q, want the main worktree %q", p.Key, repo)
			}
			if p.Root != tt.root {
				t.Errorf("Root = %q, want %q", p.Root, tt.root)
			}
			checkSlug(t, p, "backend-service")
		})
	}
}

func TestResolveProjectWithOrigin(t *testing.T) {
	repo, sub, wt := newRepo(t)
	git(t, repo, "remote", "add", "upstream", "https://github.com/Someone/Else.git")
	git(t, repo, "remote", "add", "origin", "git@GitHub.com:Org/Backend.git")
	git(t, repo, "remote", "add", "origin-mirror", "https://github.com/Mirror/Backend.git")
	for _, dir := range []string{repo, sub, wt, filepath.Join(wt, "deep")} {
		p, err := mailbox.ResolveProject(dir)
		if err != nil {
			t.Fatalf("ResolveProject(%s): %v", dir, err)
		}
		if p.Key != "github.com/Org/Backend" {
			t.Errorf("ResolveProject(%s).Key = %q, want github.com/Org/Backend", dir, p.Key)
		}
		checkSlug(t, p, "backend")
	}
	// The same project as given by key, in any spelling.
	want, _ := mailbox.ResolveProject(repo)
	for _, key := range []string{"https://github.com/Org/Backend.git", "git@github.com:Org/Backend.git", "github.com/Org/Backend", " ssh://git@github.com/Org/Backend "} {
		p, err := mailbox.ProjectFromKey(key)
		if err != nil {
			t.Fatalf("ProjectFromKey(%q): %v", key, err)
		}
		if p.Key != want.Key || p.Slug != want.Slug || p.Root != "" {
			t.Errorf("ProjectFromKey(%q) = %+v, want key %q slug %q and no root", key, p, want.Key, want.Slug)
		}
	}
	// Changing origin changes the project.
	git(t, repo, "remote", "set-url", "origin", "https://github.com/Org/Frontend")
	if p, _ := mailbox.ResolveProject(sub); p.Key != "github.com/Org/Frontend" {
		t.Errorf("after set-url: %q", p.Key)
	}
}

func TestResolveProjectThroughSymlink(t *testing.T) {
	repo, sub, _ := newRepo(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Skip(err)
	}
	p, err := mailbox.ResolveProject(link)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != repo || p.Root != repo {
		t.Errorf("through a symlink: key %q root %q, want %q", p.Key, p.Root, repo)
	}
}

func TestResolveProjectRelative(t *testing.T) {
	repo, sub, _ := newRepo(t)
	t.Chdir(sub)
	for _, dir := range []string{".", "..", "../../src"} {
		p, err := mailbox.ResolveProject(dir)
		if err != nil {
			t.Fatalf("ResolveProject(%q): %v", dir, err)
		}
		if p.Key != repo || p.Root != repo {
			t.Errorf("ResolveProject(%q) = %+v, want key and root %q", dir, p, repo)
		}
	}
}

func TestResolveProjectOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("git", "rev-parse", "--git-dir")
	cmd.Dir = dir
	if cmd.Run() == nil {
		t.Skip("the temporary directory is inside a git repository")
	}
	for _, d := range []string{dir, filepath.Join(dir, "does", "not", "exist")} {
		p, err := mailbox.ResolveProject(d)
		if !errors.Is(err, mailbox.ErrNoProject) {
			t.Errorf("ResolveProject(%s) = %+v, %v; want ErrNoProject", d, p, err)
		}
	}
	// A .git that is neither a directory nor a gitdir file is no repository.
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mailbox.ResolveProject(dir); !errors.Is(err, mailbox.ErrNoProject) {
		t.Errorf("with a bogus .git file: %v, want ErrNoProject", err)
	}
}

func TestProjectFromKey(t *testing.T) {
	tests := []struct {
		in, key, base string
	}{
		{"https://GitHub.com/Org/Repo.git", "github.com/Org/Repo", "repo"},
		{"git@github.com:Org/My_Repo.git", "github.com/Org/My_Repo", "my-repo"},
		{"github.com/Org/Repo", "github.com/Org/Repo", "repo"},
		{"/home/me/src/Shop/", "/home/me/src/Shop", "shop"},
		{"/home/me/src/../src/shop", "/home/me/src/shop", "shop"},
		{"  /srv/app  ", "/srv/app", "app"},
		{"file:///srv/app", "/srv/app", "app"},
		{"/", "/", "project"},
		{"/srv/日本", "/srv/日本", "project"},
		{"shop", "shop", "shop"},
	}
	for _, tt := range tests {
		p, err := mailbox.ProjectFromKey(tt.in)
		if err != nil {
			t.Errorf("ProjectFromKey(%q): %v", tt.in, err)
			continue
		}
		if p.Key != tt.key || p.Root != "" {
			t.Errorf("ProjectFromKey(%q) = %+v, want key %q", tt.in, p, tt.key)
		}
		checkSlug(t, p, tt.base)
	}
	for _, in := range []string{"", "   ", "\t\n"} {
		if _, err := mailbox.ProjectFromKey(in); !errors.Is(err, mailbox.ErrInvalidArgument) {
			t.Errorf("ProjectFromKey(%q): %v, want ErrInvalidArgument", in, err)
		}
	}
	// Different keys, different slugs, even with one base name.
	a, _ := mailbox.ProjectFromKey("github.com/a/shop")
	b, _ := mailbox.ProjectFromKey("github.com/b/shop")
	if a.Slug == b.Slug {
		t.Errorf("two projects share the slug %q", a.Slug)
	}
	// Long names are shortened.
	p, _ := mailbox.ProjectFromKey("github.com/org/" + strings.Repeat("very-long-name-", 5))
	if base := strings.TrimSuffix(p.Slug, p.Slug[len(p.Slug)-9:]); len(base) > 25 || !slugPattern.MatchString(p.Slug) {
		t.Errorf("slug of a long name: %q", p.Slug)
	}
}
