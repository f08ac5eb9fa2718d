package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/gittest"
)

// gitEnv isolates git from the user's configuration and gives it an
// identity.
func gitEnv(t testing.TB) { gittest.Env(t) }

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gittest.Run(t, dir, args...)
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	return dir
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestStagedPaths(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	long := strings.Repeat("line of text that makes the file worth detecting as a copy\n", 20)

	// An unborn HEAD: everything staged is new.
	write(t, dir, "src/api/routes.go", long)
	write(t, dir, "free/keep.go", long+"keep\n")
	write(t, dir, "odd/tab\tname.txt", "x")
	write(t, dir, "my docs/read me.md", "x")
	write(t, dir, "données/é.txt", "x")
	write(t, dir, "gone.txt", "x")
	run(t, dir, "add", "-A")
	got, err := StagedPaths(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"données/é.txt", "free/keep.go", "gone.txt", "my docs/read me.md", "odd/tab\tname.txt", "src/api/routes.go"}
	if !slices.Equal(sorted(got), want) {
		t.Fatalf("unborn: %q, want %q", got, want)
	}
	run(t, dir, "commit", "-q", "-m", "first")

	// Nothing staged.
	if got, err := StagedPaths(ctx, dir); err != nil || len(got) != 0 {
		t.Fatalf("clean: %q, %v", got, err)
	}

	// A rename out of src/api, a deletion, a modification of a file with a
	// newline in its name (added here), and a copy of a modified file.
	run(t, dir, "mv", "src/api/routes.go", "moved.go")
	run(t, dir, "rm", "-q", "gone.txt")
	write(t, dir, "line\nbreak", "x")
	write(t, dir, "free/keep.go", long+"keep\nmore\n")
	write(t, dir, "copy.go", long+"keep\n")
	run(t, dir, "add", "-A")
	got, err = StagedPaths(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/api/routes.go", "moved.go", "gone.txt", "line\nbreak", "free/keep.go", "copy.go"} {
		if !slices.Contains(got, p) {
			t.Errorf("staged paths %q lack %q", got, p)
		}
	}

	// From a subdirectory, paths are still relative to the top.
	sub := filepath.Join(dir, "free")
	if got2, err := StagedPaths(ctx, sub); err != nil || !slices.Equal(sorted(got2), sorted(got)) {
		t.Errorf("from a subdirectory: %q, %v; want %q", got2, err, got)
	}

	// GIT_INDEX_FILE (as git commit -a or git commit PATH sets it) is what
	// counts, not .git/index.
	alt := filepath.Join(t.TempDir(), "index")
	run(t, dir, "reset", "-q")
	write(t, dir, "only-in-alt.txt", "x")
	t.Setenv("GIT_INDEX_FILE", alt)
	run(t, dir, "read-tree", "HEAD")
	run(t, dir, "add", "only-in-alt.txt")
	got, err = StagedPaths(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"only-in-alt.txt"}) {
		t.Errorf("with GIT_INDEX_FILE: %q", got)
	}
	os.Unsetenv("GIT_INDEX_FILE")

	if _, err := StagedPaths(ctx, t.TempDir()); err == nil {
		t.Error("outside a repository: no error")
	}
}

func TestPushedPaths(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	remote := t.TempDir()
	run(t, remote, "init", "-q", "--bare")
	dir := newRepo(t)
	run(t, dir, "remote", "add", "origin", remote)
	write(t, dir, "base.txt", "x")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "base")
	run(t, dir, "push", "-q", "origin", "main")
	base := run(t, dir, "rev-parse", "HEAD")

	write(t, dir, "src/held.go", "x")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "held")
	run(t, dir, "mv", "base.txt", "renamed.txt")
	run(t, dir, "commit", "-q", "-m", "rename")
	write(t, dir, "later.txt", "x")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "later")
	head := run(t, dir, "rev-parse", "HEAD")
	zero := strings.Repeat("0", 40)

	refs, err := ParsePushLines(strings.NewReader("refs/heads/main " + head + " refs/heads/main " + base + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := PushedPaths(ctx, dir, "", refs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base.txt", "later.txt", "renamed.txt", "src/held.go"}
	if !slices.Equal(sorted(got), want) {
		t.Errorf("update: %q, want %q", got, want)
	}

	// A new branch: commits on no remote-tracking ref (origin/main has base).
	got, err = PushedPaths(ctx, dir, "", []PushRef{{"refs/heads/topic", head, "refs/heads/topic", zero}})
	if err != nil || !slices.Equal(sorted(got), want) {
		t.Errorf("new branch: %q, %v; want %q", got, err, want)
	}

	// A remote object this repository does not have: as for a new branch.
	got, err = PushedPaths(ctx, dir, "", []PushRef{{"refs/heads/main", head, "refs/heads/main", strings.Repeat("ab", 20)}})
	if err != nil || !slices.Equal(sorted(got), want) {
		t.Errorf("unknown remote object: %q, %v; want %q", got, err, want)
	}

	// A deletion sends nothing.
	got, err = PushedPaths(ctx, dir, "", []PushRef{{"(delete)", zero, "refs/heads/main", head}})
	if err != nil || len(got) != 0 {
		t.Errorf("deletion: %q, %v", got, err)
	}

	// Up to date: nothing.
	got, err = PushedPaths(ctx, dir, "", []PushRef{{"refs/heads/main", head, "refs/heads/main", head}})
	if err != nil || len(got) != 0 {
		t.Errorf("up to date: %q, %v", got, err)
	}

	// A merge contributes its merged commits' paths (and, with -c, its own
	// resolutions only).
	run(t, dir, "checkout", "-q", "-b", "side", base)
	write(t, dir, "side.txt", "x")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "side")
	run(t, dir, "checkout", "-q", "main")
	run(t, dir, "merge", "-q", "--no-edit", "side")
	merge := run(t, dir, "rev-parse", "HEAD")
	got, err = PushedPaths(ctx, dir, "", []PushRef{{"refs/heads/main", merge, "refs/heads/main", head}})
	if err != nil || !slices.Equal(got, []string{"side.txt"}) {
		t.Errorf("merge: %q, %v", got, err)
	}
}

func TestIgnoreCase(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	run(t, dir, "config", "core.ignorecase", "false")
	if fold, err := IgnoreCase(ctx, dir); err != nil || fold {
		t.Errorf("false: %v, %v", fold, err)
	}
	run(t, dir, "config", "core.ignorecase", "true")
	if fold, err := IgnoreCase(ctx, dir); err != nil || !fold {
		t.Errorf("true: %v, %v", fold, err)
	}
	run(t, dir, "config", "--unset", "core.ignorecase")
	if fold, err := IgnoreCase(ctx, dir); err != nil || fold {
		t.Errorf("unset: %v, %v", fold, err)
	}
	if fold, err := IgnoreCase(ctx, t.TempDir()); err != nil || fold {
		t.Errorf("outside a repository: %v, %v", fold, err)
	}
}
