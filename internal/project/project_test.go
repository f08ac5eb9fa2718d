package project_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/project"
)

func TestNormalizeURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/Org/Repo.git", "github.com/org/repo"},
		{"https://github.com/Org/Repo", "github.com/org/repo"},
		{"http://git.example.com:8080/team/app.git", "git.example.com/team/app"},
		{"ssh://git@github.com/Org/Repo.git", "github.com/org/repo"},
		{"ssh://git@github.com:2222/Org/Repo.git", "github.com/org/repo"},
		{"ssh://github.com/Org/Repo", "github.com/org/repo"},
		{"git://github.com/Org/Repo.git", "github.com/org/repo"},
		{"git+ssh://git@github.com/Org/Repo.git", "github.com/org/repo"},
		{"git@github.com:Org/Repo.git", "github.com/org/repo"},
		{"git@github.com:Org/Repo", "github.com/org/repo"},
		{"deploy.bot@git.example.com:team/app.git", "git.example.com/team/app"},
		{"https://user@github.com/Org/Repo.git", "github.com/org/repo"},
		{"https://user:s3cret@github.com/Org/Repo.git", "github.com/org/repo"},
		{"https://github.com/Org/Repo/", "github.com/org/repo"},
		{"https://github.com/Org/Repo.git/", "github.com/org/repo"},
		{"https://GitHub.COM/Org/Repo", "github.com/org/repo"},
		{"HTTPS://GITHUB.COM/Org/Repo", "github.com/org/repo"},
		{"git@GitHub.com:Org/Repo.git", "github.com/org/repo"},
		{"  https://github.com/Org/Repo.git\n", "github.com/org/repo"},
		{"ssh://git@ssh.github.com:443/Org/Repo.git", "github.com/org/repo"},
		{"https://gitlab.com/Group/Sub/Project.git", "gitlab.com/group/sub/project"},
		{"ssh://git@altssh.gitlab.com:443/Group/Project.git", "gitlab.com/group/project"},
		// Hosts not known to ignore case keep the path's case.
		{"https://Git.Example.COM/Team/App.git", "git.example.com/Team/App"},
		{"git@bitbucket.org:Team/App.git", "bitbucket.org/Team/App"},
		{"https://example.com/repo.github.io.git", "example.com/repo.github.io"},
		{"file:///srv/git/repo.git", "/srv/git/repo"},
		{"FILE:///srv/git/repo.git", "/srv/git/repo"},
		{"file:///srv/git/../git/repo/", "/srv/git/repo"},
		{"/srv/shop/.git", "/srv/shop"},
		// Local paths: no colon, or a slash before it (./a:b is a path).
		{"../remote.git", "../remote"},
		{"some/dir/repo.git", "some/dir/repo"},
		{"./odd:name.git", "odd:name"},
	}
	for _, tt := range tests {
		if got := project.NormalizeURL(tt.in); got != tt.want {
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
			"https://bot:token@GITHUB.com/Org/Repo/", "git://github.com/Org/Repo",
			"https://github.com/org/repo", "git@github.com:ORG/REPO.git"}, // GitHub ignores case in paths
		{"https://github.com/Org/Other", "git@github.com:Org/Other.git"},
		{"https://github.com/Other/Repo", "git@github.com:Other/Repo.git"},
		{"https://gitlab.com/Org/Repo", "git@gitlab.com:org/repo.git"},
		{"https://git.example.com/Org/Repo", "git@GIT.example.com:Org/Repo.git"},
		{"https://git.example.com/org/repo"}, // paths are case-sensitive on other hosts
	}
	seen := map[string]int{}
	for i, g := range groups {
		key := project.NormalizeURL(g[0])
		for _, u := range g[1:] {
			if got := project.NormalizeURL(u); got != key {
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
		want := map[string]string{"github.com:Org/Repo.git": "github.com/org/repo", "myserver:team/app.git": "myserver/team/app"}[u]
		if got := project.NormalizeURL(u); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestNormalizeURLLocalSpellings(t *testing.T) {
	a, b := project.NormalizeURL("/srv/git/repo.git"), project.NormalizeURL("file:///srv/git/repo.git")
	if a != b {
		t.Errorf("NormalizeURL(path) = %q, NormalizeURL(file URL) = %q", a, b)
	}
}

// TestNormalizeRemote: relative remote paths and file:// URLs are taken
// from the repository's main worktree, and resolved to canonical paths.
func TestNormalizeRemote(t *testing.T) {
	dir := realPath(t, t.TempDir())
	base := filepath.Join(dir, "work", "shop")
	remote := filepath.Join(dir, "remote.git")
	for _, d := range []string{base, remote} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip(err)
	}
	want := filepath.Join(dir, "remote")
	tests := []struct{ in, want string }{
		{"../../remote.git", want},
		{"../../remote.git/", want},
		{"./../../remote.git", want},
		{"file://../../remote.git", want},
		{"file://" + remote, want},
		{remote, want},
		{filepath.Join(link, "remote.git"), want}, // through a symbolic link
		{"../../missing.git", filepath.Join(dir, "missing")},
		{"../sibling/.git", filepath.Join(dir, "work", "sibling")},
		{"git@github.com:Acme/Shop.git", "github.com/acme/shop"},
		{"https://git.example.com/Acme/Shop", "git.example.com/Acme/Shop"},
	}
	for _, tt := range tests {
		if got := project.NormalizeRemote(tt.in, base); got != tt.want {
			t.Errorf("NormalizeRemote(%q, %s) = %q, want %q", tt.in, base, got, tt.want)
		}
	}
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$`)

func wantSlug(base, key string) string {
	sum := sha1.Sum([]byte(key))
	return base + "-" + hex.EncodeToString(sum[:4])
}

func checkSlug(t *testing.T, p project.Project, base string) {
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
			p, err := project.ResolveProject(tt.dir)
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
		p, err := project.ResolveProject(dir)
		if err != nil {
			t.Fatalf("ResolveProject(%s): %v", dir, err)
		}
		if p.Key != "github.com/org/backend" || p.Source != project.SourceOrigin {
			t.Errorf("ResolveProject(%s) = key %q from %s, want github.com/org/backend from origin", dir, p.Key, p.Source)
		}
		checkSlug(t, p, "backend")
	}
	// The same project as given by key, in any spelling.
	want, _ := project.ResolveProject(repo)
	for _, key := range []string{"https://github.com/Org/Backend.git", "git@github.com:Org/Backend.git", "github.com/Org/Backend", "GitHub.com/org/backend", " ssh://git@github.com/Org/Backend "} {
		p, err := project.ProjectFromKey(key)
		if err != nil {
			t.Fatalf("ProjectFromKey(%q): %v", key, err)
		}
		if p.Key != want.Key || p.Slug != want.Slug || p.Root != "" {
			t.Errorf("ProjectFromKey(%q) = %+v, want key %q slug %q and no root", key, p, want.Key, want.Slug)
		}
	}
	// Until the key is pinned, changing origin changes the project.
	git(t, repo, "remote", "set-url", "origin", "https://github.com/Org/Frontend")
	if p, _ := project.ResolveProject(sub); p.Key != "github.com/org/frontend" {
		t.Errorf("after set-url: %q", p.Key)
	}
}

func TestResolveProjectThroughSymlink(t *testing.T) {
	repo, sub, _ := newRepo(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Skip(err)
	}
	p, err := project.ResolveProject(link)
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
		p, err := project.ResolveProject(dir)
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
		p, err := project.ResolveProject(d)
		if !errors.Is(err, project.ErrNoProject) {
			t.Errorf("ResolveProject(%s) = %+v, %v; want ErrNoProject", d, p, err)
		}
	}
	// A .git that is neither a directory nor a gitdir file is no repository.
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := project.ResolveProject(dir); !errors.Is(err, project.ErrNoProject) {
		t.Errorf("with a bogus .git file: %v, want ErrNoProject", err)
	}
}

func TestProjectFromKey(t *testing.T) {
	tests := []struct {
		in, key, base string
	}{
		{"https://GitHub.com/Org/Repo.git", "github.com/org/repo", "repo"},
		{"git@github.com:Org/My_Repo.git", "github.com/org/my_repo", "my-repo"},
		{"github.com/Org/Repo", "github.com/org/repo", "repo"},
		{"GITLAB.COM/Org/Repo", "gitlab.com/org/repo", "repo"},
		{"git.example.com/Org/Repo", "git.example.com/Org/Repo", "repo"},
		{"/home/me/src/Shop/", "/home/me/src/Shop", "shop"},
		{"/home/me/src/../src/shop", "/home/me/src/shop", "shop"},
		{"  /srv/app  ", "/srv/app", "app"},
		{"file:///srv/app", "/srv/app", "app"},
		{"/", "/", "project"},
		{"/srv/日本", "/srv/日本", "project"},
		{"shop", "shop", "shop"},
	}
	for _, tt := range tests {
		p, err := project.ProjectFromKey(tt.in)
		if err != nil {
			t.Errorf("ProjectFromKey(%q): %v", tt.in, err)
			continue
		}
		if p.Key != tt.key || p.Root != "" {
			t.Errorf("ProjectFromKey(%q) = %+v, want key %q", tt.in, p, tt.key)
		}
		checkSlug(t, p, tt.base)
	}
	for _, in := range []string{"", "   ", "\t\n", "shop\x01", "github.com/a/b\x1b[31m", "/srv/a\tb", "/srv/a\nb", "x\x7fy", "bad\xffutf8", "a\u0085b"} {
		if _, err := project.ProjectFromKey(in); !errors.Is(err, project.ErrInvalidArgument) {
			t.Errorf("ProjectFromKey(%q): %v, want ErrInvalidArgument", in, err)
		}
	}
	// Different keys, different slugs, even with one base name.
	a, _ := project.ProjectFromKey("github.com/a/shop")
	b, _ := project.ProjectFromKey("github.com/b/shop")
	if a.Slug == b.Slug {
		t.Errorf("two projects share the slug %q", a.Slug)
	}
	// Long names are shortened.
	p, _ := project.ProjectFromKey("github.com/org/" + strings.Repeat("very-long-name-", 5))
	if base := strings.TrimSuffix(p.Slug, p.Slug[len(p.Slug)-9:]); len(base) > 25 || !slugPattern.MatchString(p.Slug) {
		t.Errorf("slug of a long name: %q", p.Slug)
	}
}

// TestPin: the first use pins the key the repository resolves to, in the
// configuration its worktrees share; from then on adding or changing
// origin does not move the project.
func TestPin(t *testing.T) {
	ctx := context.Background()
	repo, sub, wt := newRepo(t)
	p, err := project.ResolveProject(sub)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != repo || p.Source != project.SourcePath || p.Repo.Pinned != "" {
		t.Fatalf("before pinning: key %q from %s, pinned %q", p.Key, p.Source, p.Repo.Pinned)
	}
	if wrote, err := p.Pin(ctx); err != nil || !wrote {
		t.Fatalf("Pin = %v, %v", wrote, err)
	}
	// Real git reads the pin, from the main worktree and a linked one.
	for _, dir := range []string{repo, wt} {
		if got := git(t, dir, "config", "--get", project.PinKey); got != repo {
			t.Errorf("git config in %s: %q, want %q", dir, got, repo)
		}
	}
	git(t, repo, "remote", "add", "origin", "https://github.com/Acme/Shop.git")
	for _, dir := range []string{repo, sub, wt} {
		p, err := project.ResolveProject(dir)
		if err != nil {
			t.Fatal(err)
		}
		if p.Key != repo || p.Source != project.SourcePinned {
			t.Errorf("after adding origin, in %s: key %q from %s, want %q pinned", dir, p.Key, p.Source, repo)
		}
		if p.Repo.OriginKey != "github.com/acme/shop" || p.Repo.PathKey != repo {
			t.Errorf("in %s: origin key %q, path key %q", dir, p.Repo.OriginKey, p.Repo.PathKey)
		}
		if wrote, err := p.Pin(ctx); wrote || err != nil {
			t.Errorf("pinning a pinned project: %v, %v", wrote, err)
		}
	}
	// A key given by flag or environment pins nothing.
	other := newRepoNoWorktree(t)
	given, _ := project.ProjectFromKey("github.com/acme/other")
	given.Source = project.SourceFlag
	given = given.In(other)
	if wrote, err := given.Pin(ctx); wrote || err != nil {
		t.Errorf("pinning a given key: %v, %v", wrote, err)
	}
	if given.Root != other || given.Repo == nil {
		t.Errorf("In(%s): root %q, repo %v", other, given.Root, given.Repo)
	}
	cmd := exec.Command("git", "config", "--get", project.PinKey)
	cmd.Dir = other
	if out, err := cmd.Output(); err == nil {
		t.Errorf("a given key was pinned: %s", out)
	}
}

// newRepoNoWorktree makes an empty repository.
func newRepoNoWorktree(t *testing.T) string {
	t.Helper()
	dir := realPath(t, t.TempDir())
	git(t, dir, "init", "-q")
	return dir
}

// TestPinRoundTrip: keys git must quote in its configuration (spaces,
// comment characters, quotes, backslashes) come back as they were pinned.
func TestPinRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := newRepoNoWorktree(t)
	for _, key := range []string{"/srv/a b", "/srv/x#y;z", `/srv/q"uo\te`, " /srv/lead", "github.com/acme/shop", "日本/リポ"} {
		repo, err := project.FindRepository(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.SetPin(ctx, key); err != nil {
			t.Fatalf("SetPin(%q): %v", key, err)
		}
		p, err := project.ResolveProject(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := project.ProjectFromKey(key)
		if p.Key != want.Key || p.Source != project.SourcePinned {
			t.Errorf("pinned %q, resolved %q from %s, want %q", key, p.Key, p.Source, want.Key)
		}
	}
	repo, _ := project.FindRepository(dir)
	if err := repo.SetPin(ctx, "a\nb"); !errors.Is(err, project.ErrInvalidArgument) {
		t.Errorf("SetPin with a newline: %v", err)
	}
}

// TestResolveProjectRefusesControlCharacters: a key with a control
// character, pinned by hand or from origin, is refused, with the detail a
// face words its hint from (which key was unusable, and whether origin's).
func TestResolveProjectRefusesControlCharacters(t *testing.T) {
	for _, tt := range []struct{ name, config string }{
		{"pinned", "[agentmail]\n\tproject = \"/srv/a\\tb\"\n"},
		{"origin", "[remote \"origin\"]\n\turl = \"https://example.com/a\\bb\"\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepoNoWorktree(t)
			f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tt.config)
			f.Close()
			_, err = project.ResolveProject(dir)
			d := fault.DetailOf(err)
			if !errors.Is(err, project.ErrInvalidArgument) || !strings.Contains(err.Error(), "control character") ||
				d.Field != "project" || d.String("problem") != "unusable" || d.Bool("origin") != (tt.name == "origin") {
				t.Errorf("ResolveProject: %v (detail %+v)", err, d)
			}
		})
	}
}

// TestResolveProjectRelativeOrigin: a relative origin is a path from the
// main worktree, the same for every worktree, whatever its depth.
func TestResolveProjectRelativeOrigin(t *testing.T) {
	repo, sub, wt := newRepo(t)
	git(t, repo, "remote", "add", "origin", "../remote.git")
	want := filepath.Join(filepath.Dir(repo), "remote")
	for _, dir := range []string{repo, sub, wt, filepath.Join(wt, "deep", "er")} {
		p, err := project.ResolveProject(dir)
		if err != nil {
			t.Fatal(err)
		}
		if p.Key != want {
			t.Errorf("ResolveProject(%s).Key = %q, want %q", dir, p.Key, want)
		}
	}
}

// TestResolveProjectWithExtensions: repositories whose configuration names
// extensions (a partial clone, per-worktree configuration) resolve like any
// other. go-git's PlainOpen refuses them ("unknown extension"), which is
// one reason the repository is found here rather than through it.
func TestResolveProjectWithExtensions(t *testing.T) {
	repo, _, wt := newRepo(t)
	git(t, repo, "remote", "add", "origin", "git@github.com:Acme/Shop.git")
	git(t, repo, "config", "core.repositoryformatversion", "1")
	git(t, repo, "config", "extensions.partialClone", "origin")
	git(t, repo, "config", "extensions.worktreeConfig", "true")
	for _, dir := range []string{repo, wt} {
		p, err := project.ResolveProject(dir)
		if err != nil {
			t.Fatalf("ResolveProject(%s): %v", dir, err)
		}
		if p.Key != "github.com/acme/shop" || p.Source != project.SourceOrigin {
			t.Errorf("ResolveProject(%s) = key %q from %s, want github.com/acme/shop from origin", dir, p.Key, p.Source)
		}
	}
}
