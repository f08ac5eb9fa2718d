package archive

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func author(name string) Author {
	return Author{Name: name, Email: strings.ToLower(name) + "@agentmail", When: t0}
}

// gitEnv isolates the git the tests run from the user's configuration.
var gitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com"}

// runGit runs git on the bare repository dir and returns its trimmed output.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), stderr.String())
	}
	return strings.TrimSpace(out.String())
}

func newArchive(t testing.TB) *Archive {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "archive.git")
	if err := Init(dir, t0); err != nil {
		t.Fatalf("Init: %v", err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		a.Close()
		if !t.Failed() {
			runGit(t, dir, "fsck", "--strict", "--no-progress")
		}
	})
	return a
}

func head(t testing.TB, a *Archive) string {
	t.Helper()
	h, err := a.Head()
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	return h
}

// commit writes files (path, content, path, content, ...) on top of the head.
func commit(t testing.TB, a *Archive, msg string, kv ...string) string {
	t.Helper()
	var changes []Change
	for i := 0; i < len(kv); i += 2 {
		changes = append(changes, Change{Path: kv[i], Data: []byte(kv[i+1])})
	}
	res, err := a.Commit(head(t, a), changes, author("GreenCastle"), msg, nil)
	if err != nil {
		t.Fatalf("Commit(%s): %v", msg, err)
	}
	if h := head(t, a); h != res.Head {
		t.Fatalf("Commit returned %s but the branch is at %s", res.Head, h)
	}
	return res.Head
}

func blobHash(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// lsTree returns path -> blob hash of every file in rev, as git sees it.
func lsTree(t testing.TB, dir, rev string) map[string]string {
	t.Helper()
	files := map[string]string{}
	out := runGit(t, dir, "ls-tree", "-r", "-z", "--full-tree", rev)
	for _, line := range strings.Split(out, "\x00") {
		if line == "" {
			continue
		}
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[0] != "100644" || f[1] != "blob" {
			t.Fatalf("unexpected ls-tree entry %q", line)
		}
		files[p] = f[2]
	}
	return files
}

func TestInit(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "archive.git")
	if Exists(dir) {
		t.Fatal("Exists before Init")
	}
	if _, err := Open(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open before Init: %v, want os.ErrNotExist", err)
	}
	if err := Init(dir, t0); err != nil {
		t.Fatal(err)
	}
	if !Exists(dir) {
		t.Fatal("!Exists after Init")
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", a.Dir(), dir)
	}
	h := head(t, a)
	if got := runGit(t, dir, "rev-parse", "refs/heads/main"); got != h {
		t.Errorf("git rev-parse main = %s, Head() = %s", got, h)
	}
	if got := runGit(t, dir, "symbolic-ref", "HEAD"); got != Branch {
		t.Errorf("HEAD -> %q, want %q", got, Branch)
	}
	if got := runGit(t, dir, "rev-parse", "--is-bare-repository"); got != "true" {
		t.Errorf("is-bare-repository = %q", got)
	}
	if got := runGit(t, dir, "log", "--format=%H %an <%ae> %at %s"); got != fmt.Sprintf("%s agentmail <agentmail@agentmail> %d init: agentmail archive", h, t0.Unix()) {
		t.Errorf("git log = %q", got)
	}
	if got := runGit(t, dir, "ls-tree", "-r", "main"); got != "" {
		t.Errorf("initial tree not empty: %q", got)
	}
	runGit(t, dir, "fsck", "--strict", "--no-progress")
	if err := a.Fsck(); err != nil {
		t.Errorf("Fsck: %v", err)
	}
	// The repository was built aside and renamed into place.
	if m, _ := filepath.Glob(filepath.Join(parent, ".archive-init-*")); len(m) != 0 {
		t.Errorf("Init left %v behind", m)
	}

	// A second Init changes nothing, even with history on the branch.
	c := commit(t, a, "first", "a.txt", "a")
	if err := Init(dir, t0.Add(time.Hour)); err != nil {
		t.Fatalf("second Init: %v", err)
	}
	if h2 := head(t, a); h2 != c {
		t.Errorf("second Init moved the branch from %s to %s", c, h2)
	}
	if n := runGit(t, dir, "rev-list", "--count", "main"); n != "2" {
		t.Errorf("rev-list --count = %s, want 2", n)
	}
}

func TestInitOnFile(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(parent, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Init(filepath.Join(parent, "archive.git"), t0); err == nil {
		t.Error("Init below a regular file succeeded")
	}
}

// TestCommitReadBack applies a sequence of commits and checks after each one
// that the whole tree, as git reads it, is exactly what was written so far.
func TestCommitReadBack(t *testing.T) {
	a := newArchive(t)
	const day = "projects/p/messages/2026/11/22/"
	steps := []struct {
		name  string
		files []string // path, content, ...
	}{
		{"top-level file", []string{"a.txt", "alpha\n"}},
		{"nested directories", []string{
			day + "01A-hello.md", "---\nhello\n",
			"projects/p/agents/GreenCastle/outbox/2026/11/22/01A-hello.md", "---\nhello\n",
			"projects/p/agents/BlueLake/inbox/2026/11/22/01A-hello.md", "---\nhello\n",
		}},
		{"sibling in an existing directory", []string{day + "01B-second.md", "second\n"}},
		{"modify existing files", []string{"a.txt", "alpha v2\n", day + "01A-hello.md", "---\nhello, edited\n"}},
		{"next day", []string{"projects/p/messages/2026/11/23/01C-x.md", "x"}},
		{"another project", []string{"projects/q/project.json", "{}\n"}},
		{"file and directory with sort-sensitive names", []string{
			"locks/deploy.json", "1",
			"locks/deploy/staging.json", "2",
			"locks/deploy-prod.json", "3",
			"locks/deploy0.json", "4",
			"locks/deploy/staging/x.json", "5",
		}},
		{"empty file and binary data", []string{"empty", "", "bin/data", "\x00\x01\xff\xfe"}},
		{"rewrite with identical content", []string{"a.txt", "alpha v2\n"}},
		{"unicode and spaces in names", []string{"dir with space/Grüße.md", "ü", "x/ü/y", "z"}},
	}
	want := map[string]string{} // path -> content
	before := lsTree(t, a.Dir(), "main")
	commits := []string{head(t, a)}
	for _, st := range steps {
		h := commit(t, a, st.name, st.files...)
		commits = append(commits, h)
		changed := map[string]bool{}
		for j := 0; j < len(st.files); j += 2 {
			want[st.files[j]] = st.files[j+1]
			changed[st.files[j]] = true
		}
		after := lsTree(t, a.Dir(), "main")
		// Unrelated files keep their blob; changed ones hold the new content.
		for p, b := range before {
			if !changed[p] && after[p] != b {
				t.Errorf("step %q: unrelated %s changed from %s to %s", st.name, p, b, after[p])
			}
		}
		wantTree := map[string]string{}
		for p, c := range want {
			wantTree[p] = blobHash([]byte(c))
		}
		if !reflect.DeepEqual(after, wantTree) {
			t.Fatalf("step %q: tree is\n%v\nwant\n%v", st.name, after, wantTree)
		}
		for p, c := range want {
			got, err := a.ReadFile(h, p)
			if err != nil || string(got) != c {
				t.Errorf("step %q: ReadFile(%s) = %q, %v; want %q", st.name, p, got, err, c)
			}
		}
		before = after
	}
	// One commit per step, each on the previous one, with its author and
	// subject.
	var wantLog []string
	for i, st := range steps {
		wantLog = append(wantLog, fmt.Sprintf("%s %s|GreenCastle <greencastle@agentmail> %d|GreenCastle|%s", commits[i+1], commits[i], t0.Unix(), st.name))
	}
	if got := runGit(t, a.Dir(), "log", "--reverse", "--format=%H %P|%an <%ae> %at|%cn|%s", commits[0]+"..main"); got != strings.Join(wantLog, "\n") {
		t.Errorf("git log:\n%s\nwant\n%s", got, strings.Join(wantLog, "\n"))
	}
	// git itself reads the same bytes, and finds nothing wrong.
	for _, p := range []string{"a.txt", "locks/deploy/staging.json", "dir with space/Grüße.md"} {
		if got := runGit(t, a.Dir(), "show", "main:"+p); got != strings.TrimSpace(want[p]) {
			t.Errorf("git show main:%s = %q, want %q", p, got, want[p])
		}
	}
	runGit(t, a.Dir(), "fsck", "--strict", "--no-progress", "--no-dangling")
	// An old commit still reads as it was.
	first := runGit(t, a.Dir(), "rev-list", "--reverse", "main")
	first = strings.Split(first, "\n")[1]
	if got, err := a.ReadFile(first, "a.txt"); err != nil || string(got) != "alpha\n" {
		t.Errorf("ReadFile(first commit, a.txt) = %q, %v", got, err)
	}
	if _, err := a.ReadFile(first, "projects/p/messages/2026/11/22/01A-hello.md"); err == nil {
		t.Error("ReadFile found a file in a commit older than the file")
	}
	for _, p := range []string{"nope", "projects", "projects/p/messages/2026/11/22", "a.txt/x"} {
		if _, err := a.ReadFile(head(t, a), p); err == nil {
			t.Errorf("ReadFile(%q) succeeded", p)
		}
	}
}

func TestCommitRejects(t *testing.T) {
	a := newArchive(t)
	h := commit(t, a, "base", "a/b.txt", "b")
	tests := []struct {
		name    string
		parent  string
		changes []Change
	}{
		{"nothing to write", h, nil},
		{"empty path", h, []Change{{Path: "", Data: []byte("x")}}},
		{"absolute path", h, []Change{{Path: "/etc/passwd", Data: []byte("x")}}},
		{"dot-dot", h, []Change{{Path: "a/../b", Data: []byte("x")}}},
		{"double slash", h, []Change{{Path: "a//b", Data: []byte("x")}}},
		{"trailing slash", h, []Change{{Path: "a/", Data: []byte("x")}}},
		{"dot", h, []Change{{Path: "./a", Data: []byte("x")}}},
		{"nul", h, []Change{{Path: "a\x00b", Data: []byte("x")}}},
		{"one bad among good", h, []Change{{Path: "ok.txt", Data: []byte("x")}, {Path: "bad/", Data: []byte("x")}}},
		{"unknown parent", strings.Repeat("ab", 20), []Change{{Path: "ok.txt", Data: []byte("x")}}},
		{"not a hash", "main", []Change{{Path: "ok.txt", Data: []byte("x")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Commit(tt.parent, tt.changes, author("GreenCastle"), tt.name, nil); err == nil {
				t.Fatal("Commit succeeded")
			}
			if got := head(t, a); got != h {
				t.Errorf("branch moved to %s", got)
			}
		})
	}
}

// TestCommitRejectsDotNames: git refuses trees with ".", ".." or ".git"
// entries (fsck hasDot, hasDotdot, hasDotgit); so must the archive.
func TestCommitRejectsDotNames(t *testing.T) {
	for _, p := range []string{".", "..", "../b", "../../b", ".git", "projects/.git/config", "a/.git"} {
		t.Run(p, func(t *testing.T) {
			a := newArchive(t)
			h := head(t, a)
			if _, err := a.Commit(h, []Change{{Path: p, Data: []byte("x")}}, author("A"), "dot", nil); err == nil {
				t.Errorf("Commit accepted %q; fsck says: %v", p, a.Fsck())
			}
			if got := head(t, a); got != h {
				t.Errorf("branch moved to %s", got)
			}
		})
	}
}

func TestCommitFileDirectoryConflictInOneCommit(t *testing.T) {
	a := newArchive(t)
	h := commit(t, a, "base", "keep", "k")
	for _, paths := range [][]string{
		{"a", "a/b"},
		{"a/b", "a"},
		{"x/a", "x/a/b/c"},
		{"x/a/b/c", "x/a"},
	} {
		var changes []Change
		for _, p := range paths {
			changes = append(changes, Change{Path: p, Data: []byte(p)})
		}
		if _, err := a.Commit(h, changes, author("A"), "conflict", nil); err == nil {
			t.Errorf("Commit(%q) succeeded; fsck says: %v", paths, a.Fsck())
		}
		if got := head(t, a); got != h {
			t.Fatalf("Commit(%q) moved the branch", paths)
		}
	}
	// Across commits a file may become a directory and back; the tree stays
	// valid.
	commit(t, a, "file", "f", "file")
	commit(t, a, "dir", "f/g", "nested")
	if got := lsTree(t, a.Dir(), "main"); !reflect.DeepEqual(got, map[string]string{"keep": blobHash([]byte("k")), "f/g": blobHash([]byte("nested"))}) {
		t.Errorf("after file -> directory: %v", got)
	}
	commit(t, a, "file again", "f", "file2")
	if got := lsTree(t, a.Dir(), "main"); !reflect.DeepEqual(got, map[string]string{"keep": blobHash([]byte("k")), "f": blobHash([]byte("file2"))}) {
		t.Errorf("after directory -> file: %v", got)
	}
	if err := a.Fsck(); err != nil {
		t.Error(err)
	}
}

func TestCommitStaleParent(t *testing.T) {
	a := newArchive(t)
	c1 := commit(t, a, "one", "x", "1")
	c2 := commit(t, a, "two", "x", "2")
	for _, parent := range []string{c1, runGit(t, a.Dir(), "rev-parse", c1+"^")} {
		_, err := a.Commit(parent, []Change{{Path: "x", Data: []byte("lost")}}, author("RedCat"), "stale", nil)
		if !errors.Is(err, ErrMoved) {
			t.Errorf("Commit on stale parent %.8s: %v, want ErrMoved", parent, err)
		}
		if h := head(t, a); h != c2 {
			t.Errorf("branch moved from %s to %s", c2, h)
		}
		if got := runGit(t, a.Dir(), "rev-parse", "main"); got != c2 {
			t.Errorf("git sees main at %s, want %s", got, c2)
		}
	}
	if got, _ := a.ReadFile(c2, "x"); string(got) != "2" {
		t.Errorf("x = %q after rejected writes", got)
	}
	runGit(t, a.Dir(), "fsck", "--strict", "--no-progress")
}

// TestTwoHandles: two Archive values on one directory, as two processes
// would have. Each must see the other's commits.
func TestTwoHandles(t *testing.T) {
	a := newArchive(t)
	b, err := Open(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	c1 := commit(t, a, "one", "x", "1")
	if got, err := b.ReadFile(c1, "x"); err != nil || string(got) != "1" {
		t.Fatalf("b.ReadFile(c1) = %q, %v", got, err)
	}
	c2 := commit(t, a, "two", "x", "2", "y", "3")
	if got, err := b.ReadFile(c2, "x"); err != nil || string(got) != "2" {
		t.Errorf("b.ReadFile(c2) after a's commit = %q, %v", got, err)
	}
	var paths []string
	if err := b.Changes(c1, c2, nil, func(p string, _ []byte) error { paths = append(paths, p); return nil }); err != nil {
		t.Errorf("b.Changes(c1, c2): %v", err)
	}
	if _, err := b.Commit(c2, []Change{{Path: "z", Data: []byte("4")}}, author("B"), "from b", nil); err != nil {
		t.Errorf("b.Commit on a's head: %v", err)
	}
	if got, err := a.ReadFile(head(t, a), "z"); err != nil || string(got) != "4" {
		t.Errorf("a.ReadFile(b's commit) = %q, %v", got, err)
	}
}

// TestHandleAfterRepack: a handle that has read the archive keeps working
// after another process repacks it (git repack -d deletes the old packs).
func TestHandleAfterRepack(t *testing.T) {
	a := newArchive(t)
	for i := 0; i < 3; i++ {
		commit(t, a, fmt.Sprint(i), fmt.Sprintf("f%d", i), fmt.Sprint(i))
	}
	h := head(t, a)
	if _, err := a.ReadFile(h, "f0"); err != nil {
		t.Fatal(err)
	}
	other, _ := Open(a.Dir())
	if err := other.GC(nil); err != nil {
		t.Fatal(err)
	}
	if got, err := a.ReadFile(h, "f1"); err != nil || string(got) != "1" {
		t.Errorf("ReadFile after another handle's GC = %q, %v", got, err)
	}
	if _, err := a.Commit(h, []Change{{Path: "f3", Data: []byte("3")}}, author("A"), "after gc", nil); err != nil {
		t.Errorf("Commit after another handle's GC: %v", err)
	}
}

type change struct{ path, data string }

func TestChanges(t *testing.T) {
	a := newArchive(t)
	c0 := head(t, a)
	c1 := commit(t, a, "c1",
		"projects/p/project.json", "p1",
		"projects/p/messages/2026/11/22/m1.md", "m1",
		"projects/p/agents/BlueLake/inbox/2026/11/22/m1.md", "m1",
		"projects/p/agents/BlueLake/profile.json", "blue",
		"projects/p/agents/GreenCastle/outbox/2026/11/22/m1.md", "m1",
	)
	c2 := commit(t, a, "c2",
		"projects/p/messages/2026/11/22/m2.md", "m2",
		"projects/p/agents/GreenCastle/inbox/2026/11/22/m2.md", "m2",
		"projects/p/agents/BlueLake/profile.json", "blue v2",
		"projects/p/project.json", "p1", // same content: not a change
	)
	c3 := commit(t, a, "c3",
		"projects/q/project.json", "q",
		"projects/p/messages/2026/11/23/m3.md", "m3",
		"projects/p/messages/2026/11/22/m1.md", "m1 edited",
		"projects/p-x/a", "pa",
		"projects/p.json", "dot",
	)
	skipCopies := func(dir string) bool {
		return strings.HasSuffix(dir, "/inbox") || strings.HasSuffix(dir, "/outbox")
	}
	skipAgents := func(dir string) bool { return strings.HasSuffix(dir, "/agents") }
	tests := []struct {
		name     string
		from, to string
		skip     Skip
		want     []change
	}{
		{"same commit", c2, c2, nil, nil},
		{"init to init", c0, c0, nil, nil},
		{"one commit", c1, c2, nil, []change{
			{"projects/p/agents/BlueLake/profile.json", "blue v2"},
			{"projects/p/agents/GreenCastle/inbox/2026/11/22/m2.md", "m2"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
		}},
		{"one commit, copies skipped", c1, c2, skipCopies, []change{
			{"projects/p/agents/BlueLake/profile.json", "blue v2"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
		}},
		{"two commits", c1, c3, skipCopies, []change{
			{"projects/p-x/a", "pa"},
			{"projects/p.json", "dot"},
			{"projects/p/agents/BlueLake/profile.json", "blue v2"},
			{"projects/p/messages/2026/11/22/m1.md", "m1 edited"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
			{"projects/p/messages/2026/11/23/m3.md", "m3"},
			{"projects/q/project.json", "q"},
		}},
		{"everything from empty string", "", c2, nil, []change{
			{"projects/p/agents/BlueLake/inbox/2026/11/22/m1.md", "m1"},
			{"projects/p/agents/BlueLake/profile.json", "blue v2"},
			{"projects/p/agents/GreenCastle/inbox/2026/11/22/m2.md", "m2"},
			{"projects/p/agents/GreenCastle/outbox/2026/11/22/m1.md", "m1"},
			{"projects/p/messages/2026/11/22/m1.md", "m1"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
			{"projects/p/project.json", "p1"},
		}},
		{"everything from init commit equals from empty", c0, c2, nil, []change{
			{"projects/p/agents/BlueLake/inbox/2026/11/22/m1.md", "m1"},
			{"projects/p/agents/BlueLake/profile.json", "blue v2"},
			{"projects/p/agents/GreenCastle/inbox/2026/11/22/m2.md", "m2"},
			{"projects/p/agents/GreenCastle/outbox/2026/11/22/m1.md", "m1"},
			{"projects/p/messages/2026/11/22/m1.md", "m1"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
			{"projects/p/project.json", "p1"},
		}},
		{"everything, agents skipped", "", c3, skipAgents, []change{
			{"projects/p-x/a", "pa"},
			{"projects/p.json", "dot"},
			{"projects/p/messages/2026/11/22/m1.md", "m1 edited"},
			{"projects/p/messages/2026/11/22/m2.md", "m2"},
			{"projects/p/messages/2026/11/23/m3.md", "m3"},
			{"projects/p/project.json", "p1"},
			{"projects/q/project.json", "q"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []change
			err := a.Changes(tt.from, tt.to, tt.skip, func(p string, data []byte) error {
				got = append(got, change{p, string(data)})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Changes(%.7s, %.7s) =\n%v\nwant\n%v", tt.from, tt.to, got, tt.want)
			}
			if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].path < got[j].path }) {
				t.Errorf("not in path order: %v", got)
			}
		})
	}

	// Skip sees directory paths, and only those on changed paths.
	var dirs []string
	err := a.Changes(c2, c3, func(dir string) bool { dirs = append(dirs, dir); return false }, func(string, []byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	wantDirs := []string{"projects", "projects/p-x", "projects/p", "projects/p/messages",
		"projects/p/messages/2026", "projects/p/messages/2026/11", "projects/p/messages/2026/11/22",
		"projects/p/messages/2026/11/23", "projects/q"}
	if !reflect.DeepEqual(dirs, wantDirs) {
		t.Errorf("skip was asked about %v, want %v", dirs, wantDirs)
	}

	// An error from fn stops the walk and comes back.
	stop := errors.New("stop")
	n := 0
	err = a.Changes("", c3, nil, func(string, []byte) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Changes with failing fn: %v after %d calls", err, n)
	}
	if err := a.Changes(strings.Repeat("0", 39)+"1", c3, nil, func(string, []byte) error { return nil }); err == nil {
		t.Error("Changes from an unknown commit succeeded")
	}
}

func TestHead(t *testing.T) {
	a := newArchive(t)
	c1 := commit(t, a, "one", "x", "1")
	ref := filepath.Join(a.Dir(), "refs", "heads", "main")

	// git pack-refs moves the branch into packed-refs.
	runGit(t, a.Dir(), "pack-refs", "--all", "--prune")
	if _, err := os.Stat(ref); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref: %v", err)
	}
	if h := head(t, a); h != c1 {
		t.Errorf("Head from packed-refs = %s, want %s", h, c1)
	}
	// A commit on top writes a loose ref again, which wins over packed-refs.
	c2 := commit(t, a, "two", "x", "2")
	if got := runGit(t, a.Dir(), "rev-parse", "main"); got != c2 {
		t.Errorf("git sees %s, want %s", got, c2)
	}

	tests := []struct {
		name    string
		loose   *string // nil: no loose ref file
		packed  string  // "" : no packed-refs file
		want    string
		wantErr error
	}{
		{"packed with header and peeled tags", nil,
			"# pack-refs with: peeled fully-peeled sorted \n" + c1 + " refs/heads/feature\n" + c2 + " refs/heads/main\n" + c1 + " refs/tags/v1\n^" + c2 + "\n",
			c2, nil},
		{"packed without main", nil, c1 + " refs/heads/other\n", "", ErrNoHead},
		{"no ref at all", nil, "", "", ErrNoHead},
		{"empty loose ref", ptr(""), c1 + " refs/heads/main\n", "", ErrNoHead},
		{"garbage loose ref", ptr("ref: refs/heads/x\n"), "", "", ErrNoHead},
		{"loose ref without newline", ptr(c1), "", c1, nil},
		{"loose ref wins", ptr(c2 + "\n"), c1 + " refs/heads/main\n", c2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(ref)
			os.Remove(filepath.Join(a.Dir(), "packed-refs"))
			if tt.loose != nil {
				if err := os.WriteFile(ref, []byte(*tt.loose), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.packed != "" {
				if err := os.WriteFile(filepath.Join(a.Dir(), "packed-refs"), []byte(tt.packed), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h, err := a.Head()
			if h != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Head() = %q, %v; want %q, %v", h, err, tt.want, tt.wantErr)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// contentWithPrefix returns file content whose blob hash starts with the
// byte b, so that it lands in objects/<b>/ when stored loose.
func contentWithPrefix(b byte) string {
	for i := 0; ; i++ {
		s := fmt.Sprintf("content %d\n", i)
		if h := blobHash([]byte(s)); h[:2] == fmt.Sprintf("%02x", b) {
			return s
		}
	}
}

// explode turns every pack into loose objects, as an older agentmail or
// plain git would have left them.
func explode(t *testing.T, a *Archive) {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "pack-*.pack"))
	aside := t.TempDir()
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(p, ".pack")
		for _, ext := range []string{".pack", ".idx", ".rev"} {
			os.Rename(base+ext, filepath.Join(aside, filepath.Base(base)+ext))
		}
		cmd := exec.Command("git", "--git-dir", a.Dir(), "unpack-objects", "-q")
		cmd.Stdin = bytes.NewReader(data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("unpack-objects: %v\n%s", err, out)
		}
	}
}

func countObjects(t *testing.T, a *Archive) (loose, packs int) {
	t.Helper()
	for _, line := range strings.Split(runGit(t, a.Dir(), "count-objects", "-v"), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		switch k {
		case "count":
			fmt.Sscan(v, &loose)
		case "packs":
			fmt.Sscan(v, &packs)
		}
	}
	return loose, packs
}

func TestPackAndGC(t *testing.T) {
	a := newArchive(t)
	want := map[string]string{"seventeen": contentWithPrefix(0x17)}
	commit(t, a, "seed", "seventeen", want["seventeen"])
	for i := 0; i < 8; i++ {
		p := fmt.Sprintf("projects/p/messages/2026/11/%02d/m%d.md", 20+i%3, i)
		want[p] = fmt.Sprintf("message %d\n", i)
		commit(t, a, p, p, want[p])
	}
	if n := a.Packs(); n < 2 {
		t.Fatalf("Packs() = %d before maintenance", n)
	}
	readAll := func(stage string) {
		t.Helper()
		h := head(t, a)
		for p, c := range want {
			if got, err := a.ReadFile(h, p); err != nil || string(got) != c {
				t.Errorf("%s: ReadFile(%s) = %q, %v", stage, p, got, err)
			}
			if got := runGit(t, a.Dir(), "cat-file", "blob", "main:"+p); got != strings.TrimSpace(c) {
				t.Errorf("%s: git cat-file main:%s = %q", stage, p, got)
			}
		}
		if err := a.Fsck(); err != nil {
			t.Errorf("%s: %v", stage, err)
		}
		if n := runGit(t, a.Dir(), "rev-list", "--count", "main"); n != "10" {
			t.Errorf("%s: %s commits, want 10", stage, n)
		}
	}
	readAll("as written")

	// Loose objects, as plain git writes them.
	explode(t, a)
	loose, packs := countObjects(t, a)
	if loose == 0 || packs != 0 {
		t.Fatalf("after explode: %d loose, %d packs", loose, packs)
	}
	if n := a.LooseObjects(); n < 256 || n%256 != 0 {
		t.Errorf("LooseObjects() = %d with a loose object in objects/17", n)
	}
	a, _ = Open(a.Dir()) // a fresh handle, as the next command would have
	readAll("loose")

	if err := a.Pack(nil); err != nil {
		t.Fatalf("Pack: %v", err)
	}
	if loose, _ := countObjects(t, a); loose != 0 || a.LooseObjects() != 0 {
		t.Errorf("after Pack: %d loose objects, LooseObjects() = %d", loose, a.LooseObjects())
	}
	if a.Packs() == 0 {
		t.Error("after Pack: no pack")
	}
	a, _ = Open(a.Dir())
	readAll("packed")

	// More writes, loose and packed, then GC: one pack, nothing loose.
	explode(t, a)
	a, _ = Open(a.Dir())
	commit(t, a, "after explode", "late", "late\n")
	want["late"] = "late\n"
	if err := a.GC(nil); err != nil {
		t.Fatalf("GC: %v", err)
	}
	loose, packs = countObjects(t, a)
	if loose != 0 || packs != 1 || a.Packs() != 1 || a.LooseObjects() != 0 {
		t.Errorf("after GC: count-objects %d loose %d packs; LooseObjects %d, Packs %d", loose, packs, a.LooseObjects(), a.Packs())
	}
	if m, _ := filepath.Glob(filepath.Join(a.Dir(), ".ref-main-*")); len(m) != 0 {
		t.Errorf("GC left %v", m)
	}
	a, _ = Open(a.Dir())
	// The "late" commit makes 11.
	h := head(t, a)
	for p, c := range want {
		if got, err := a.ReadFile(h, p); err != nil || string(got) != c {
			t.Errorf("after GC: ReadFile(%s) = %q, %v", p, got, err)
		}
	}
	if n := runGit(t, a.Dir(), "rev-list", "--count", "main"); n != "11" {
		t.Errorf("after GC: %s commits, want 11", n)
	}
	if sz, err := a.Size(); err != nil || sz <= 0 {
		t.Errorf("Size() = %d, %v", sz, err)
	}
}

// message files like record.Message.Files produces: canonical, outbox, inbox.
func messageChanges(i int) []Change {
	day := t0.AddDate(0, 0, i/20).Format("2006/01/02")
	name := fmt.Sprintf("01JD%022d-subject-of-message-%d.md", i, i)
	body := []byte(fmt.Sprintf("---\nid: 01JD%022d\nfrom: GreenCastle\nto: [BlueLake]\nsubject: \"subject %d\"\n---\n\n%s", i, i, strings.Repeat("body text ", 40)))
	return []Change{
		{Path: "projects/backend-3fa1c2d9/messages/" + day + "/" + name, Data: body},
		{Path: "projects/backend-3fa1c2d9/agents/GreenCastle/outbox/" + day + "/" + name, Data: body},
		{Path: "projects/backend-3fa1c2d9/agents/BlueLake/inbox/" + day + "/" + name, Data: body},
	}
}

var bench struct {
	once  sync.Once
	dir   string
	n     int
	err   error
	setup time.Duration
}

// benchPrefill is the number of commits BenchmarkCommit starts from;
// AGENTMAIL_BENCH_PREFILL overrides it to see how the cost scales.
var benchPrefill = func() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTMAIL_BENCH_PREFILL")); err == nil && n >= 0 {
		return n
	}
	return 2000
}()

// mapCache keeps the objects of the head's changed paths, as the store's
// objects table does.
type mapCache map[string][]byte

func (c mapCache) Object(h string) ([]byte, bool) { d, ok := c[h]; return d, ok }

func (c mapCache) update(res Result) {
	for _, h := range res.Stale {
		delete(c, h)
	}
	for h, d := range res.Written {
		c[h] = d
	}
}

// maintain packs the way the store does once packs pile up.
func maintain(a *Archive) error {
	if a.Packs() > 64 {
		return a.Pack(nil)
	}
	return nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// BenchmarkCommit measures one message-like commit (three files on dated
// paths, as record.Message.Files makes them) on an archive that already
// holds benchPrefill such commits. "nocache" reads the parent trees from
// the repository; "cache" serves them from a cache of the previous write's
// objects, as the store does; "cache-nosync" leaves out the syncs that make
// a commit durable, to show what they cost.
func BenchmarkCommit(b *testing.B) {
	bench.once.Do(func() {
		start := time.Now()
		if bench.dir, bench.err = os.MkdirTemp("", "agentmail-bench-"); bench.err != nil {
			return
		}
		dir := filepath.Join(bench.dir, "archive.git")
		if bench.err = Init(dir, t0); bench.err != nil {
			return
		}
		a, _ := Open(dir)
		defer a.Close()
		h, _ := a.Head()
		cache := mapCache{}
		for ; bench.n < benchPrefill; bench.n++ {
			res, err := a.Commit(h, messageChanges(bench.n), author("GreenCastle"), "prefill", cache)
			if err != nil {
				bench.err = err
				return
			}
			cache.update(res)
			h = res.Head
			if bench.err = maintain(a); bench.err != nil {
				return
			}
		}
		bench.setup = time.Since(start)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	b.Logf("archive prefilled with %d commits in %v", benchPrefill, bench.setup)
	for _, v := range []struct {
		name           string
		cached, unsafe bool
	}{{"nocache", false, false}, {"cache", true, false}, {"cache-nosync", true, true}} {
		b.Run(v.name, func(b *testing.B) {
			a, err := Open(filepath.Join(bench.dir, "archive.git"))
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			if v.unsafe {
				a.fs = noSync{}
			}
			var cache mapCache
			if v.cached {
				cache = mapCache{}
			}
			bench.n = commitEach(b, a, head(b, a), cache, messageChanges, bench.n)
		})
	}
}

// noSync is the operating system's file system with syncs left out: what a
// commit would cost without durability ("cache-nosync" in BenchmarkCommit).
type noSync struct{ osFS }

func (noSync) syncFile(string) error { return nil }
func (noSync) syncDir(string) error  { return nil }

// commitEach commits changes(n), changes(n+1), ... on a from h, one per
// benchmark iteration, keeping cache (nil for none) up to date and rolling
// packs up past 64 outside the timer, as the store does. It returns the
// next n.
func commitEach(b *testing.B, a *Archive, h string, cache mapCache, changes func(int) []Change, n int) int {
	var c Cache
	if cache != nil {
		c = cache
	}
	for ; b.Loop(); n++ {
		res, err := a.Commit(h, changes(n), author("GreenCastle"), "bench", c)
		if err != nil {
			b.Fatal(err)
		}
		if cache != nil {
			cache.update(res)
		}
		h = res.Head
		if a.Packs() > 64 {
			b.StopTimer()
			if err := maintain(a); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	return n
}

func TestGeometricSplit(t *testing.T) {
	for _, c := range []struct {
		objects []int
		want    int
	}{
		{nil, 0},
		{[]int{20}, 0},
		{[]int{20, 20, 20}, 3},
		{[]int{1, 2, 4, 8}, 0},               // already a progression
		{[]int{20, 20, 20, 1000}, 3},         // the big pack stays
		{[]int{20, 20, 20, 100, 1000}, 4},    // 60 rolled up would break 100
		{[]int{3, 20, 20, 100, 150, 400}, 6}, // rolling up grows into the next ones
		{[]int{3, 20, 20, 100, 150, 1000}, 5},
	} {
		packs := make([]packFile, len(c.objects))
		for i, n := range c.objects {
			packs[i].objects = n
		}
		if got := geometricSplit(packs); got != c.want {
			t.Errorf("geometricSplit(%v) = %d, want %d", c.objects, got, c.want)
		}
	}
}

// Pack rolls the small packs into one and leaves a big pack untouched.
func TestPackLeavesBigPack(t *testing.T) {
	a := newArchive(t)
	var big []Change
	for i := 0; i < 200; i++ {
		big = append(big, Change{Path: fmt.Sprintf("projects/p/messages/2026/11/20/m%d.md", i), Data: []byte(fmt.Sprintf("message %d\n", i))})
	}
	packs := func() []string {
		p, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "pack-*.pack"))
		return p
	}
	before := packs()
	if _, err := a.Commit(head(t, a), big, author("GreenCastle"), "big", nil); err != nil {
		t.Fatal(err)
	}
	var bigPack string
	for _, p := range packs() {
		if !slices.Contains(before, p) {
			bigPack = p
		}
	}
	want := map[string]string{}
	for i := 0; i < 10; i++ {
		p := fmt.Sprintf("projects/p/messages/2026/11/21/m%d.md", i)
		want[p] = fmt.Sprintf("small %d\n", i)
		commit(t, a, p, p, want[p])
	}
	if err := a.Pack(nil); err != nil {
		t.Fatal(err)
	}
	if n := a.Packs(); n != 2 { // the big one and the rest rolled up
		t.Errorf("Packs() = %d after Pack, want 2", n)
	}
	if _, err := os.Stat(bigPack); err != nil {
		t.Errorf("Pack removed the big pack: %v", err)
	}
	a, _ = Open(a.Dir())
	h := head(t, a)
	for p, c := range want {
		if got, err := a.ReadFile(h, p); err != nil || string(got) != c {
			t.Errorf("ReadFile(%s) = %q, %v", p, got, err)
		}
	}
	if got, err := a.ReadFile(h, "projects/p/messages/2026/11/20/m7.md"); err != nil || string(got) != "message 7\n" {
		t.Errorf("ReadFile(m7) = %q, %v", got, err)
	}
	if err := a.Fsck(); err != nil {
		t.Error(err)
	}
}

// Names that sort differently as files and as directories ("a" sorts as
// "a/" when it is a directory), added one commit at a time, must give trees
// in git's order.
func TestCommitKeepsGitOrder(t *testing.T) {
	a := newArchive(t)
	paths := []string{"d/a.b", "d/a/x", "d/a-", "d/a0", "d/b", "d/a/y", "d/0", "d/a.b.c", "d/ab/z", "d/a+"}
	for _, p := range paths {
		commit(t, a, p, p, p+"\n")
	}
	commit(t, a, "replace", "d/a.b", "new\n")
	if err := a.Fsck(); err != nil {
		t.Fatal(err)
	}
	got := lsTree(t, a.Dir(), "main")
	if len(got) != len(paths) {
		t.Errorf("ls-tree lists %d files, want %d: %v", len(got), len(paths), got)
	}
	if got["d/a.b"] != blobHash([]byte("new\n")) {
		t.Errorf("d/a.b = %s, want the replaced content", got["d/a.b"])
	}
	// The same files added in one commit, among entries already there:
	// the new entries go between the old ones in git's order.
	b := newArchive(t)
	commit(t, b, "first", "d/a-", "d/a-\n", "d/ab/z", "d/ab/z\n", "d/0", "d/0\n")
	var kv []string
	for _, p := range paths {
		kv = append(kv, p, p+"\n")
	}
	commit(t, b, "rest", kv...)
	commit(t, b, "replace", "d/a.b", "new\n")
	if err := b.Fsck(); err != nil {
		t.Fatal(err)
	}
	if again := lsTree(t, b.Dir(), "main"); !reflect.DeepEqual(again, got) {
		t.Errorf("added at once, ls-tree lists %v, want %v", again, got)
	}
}

// busyDay returns an archive whose day directories already hold a
// thousand messages each, as a busy project's do, its head, a cache of
// its objects, and the changes of the i-th message-like commit into them.
func busyDay(tb testing.TB) (*Archive, string, mapCache, func(i int) []Change) {
	day := t0.Format("2006/01/02")
	changes := func(i int) []Change {
		name := fmt.Sprintf("01JD%022d-subject-of-message-%d.md", i, i)
		body := []byte(fmt.Sprintf("---\nid: 01JD%022d\nfrom: GreenCastle\nto: [BlueLake]\nsubject: \"subject %d\"\n---\n\nbody text\n", i, i))
		return []Change{
			{Path: "projects/backend-3fa1c2d9/messages/" + day + "/" + name, Data: body},
			{Path: "projects/backend-3fa1c2d9/agents/GreenCastle/outbox/" + day + "/" + name, Data: body},
			{Path: "projects/backend-3fa1c2d9/agents/BlueLake/inbox/" + day + "/" + name, Data: body},
		}
	}
	a := newArchive(tb)
	var seed []Change
	for i := 0; i < 1000; i++ {
		seed = append(seed, changes(i)...)
	}
	cache := mapCache{}
	res, err := a.Commit(head(tb, a), seed, author("GreenCastle"), "seed", cache)
	if err != nil {
		tb.Fatal(err)
	}
	cache.update(res)
	return a, res.Head, cache, changes
}

// BenchmarkCommitBusyDay measures one message-like commit into day
// directories that already hold a thousand messages each, as a busy
// project's do: the three day trees dominate the cost of a write.
func BenchmarkCommitBusyDay(b *testing.B) {
	a, h, cache, changes := busyDay(b)
	commitEach(b, a, h, cache, changes, 1000)
}

// BenchmarkEncodeBusyDay is the processor's part of BenchmarkCommitBusyDay:
// encoding the commit and its pack, without writing them.
func BenchmarkEncodeBusyDay(b *testing.B) {
	a, h, cache, changes := busyDay(b)
	b.ReportAllocs()
	for i := 1000; b.Loop(); i++ {
		encodeBusyDay(b, a, h, cache, changes(i))
	}
}

// encodeBusyDay encodes the commit of changes on h and its pack.
func encodeBusyDay(tb testing.TB, a *Archive, h string, cache Cache, changes []Change) {
	w, _, err := a.encodeCommit(h, changes, author("GreenCastle"), "bench", cache)
	if err != nil {
		tb.Fatal(err)
	}
	var pack bytes.Buffer
	if _, _, err := encodePack(&pack, w.objs); err != nil {
		tb.Fatal(err)
	}
}

// TestEncodeBusyDayAllocs: adding a file to a directory of thousands
// allocates for the trees it writes, not for each entry it copies (a
// lookup of each entry's name by a string made from it did: 3,475
// allocations a message, 911 KB).
func TestEncodeBusyDayAllocs(t *testing.T) {
	a, h, cache, changes := busyDay(t)
	i := 1000
	allocs := testing.AllocsPerRun(20, func() {
		encodeBusyDay(t, a, h, cache, changes(i))
		i++
	})
	if allocs > 1000 {
		t.Errorf("%.0f allocations to add a message to day directories of a thousand, want well under one an entry", allocs)
	}
}

// TestPackAfterHumanMaintenance: a roll-up after a human wrote a
// multi-pack index (git maintenance does) leaves an archive git fsck
// accepts, and removes what a killed roll-up left behind.
func TestPackAfterHumanMaintenance(t *testing.T) {
	a := newArchive(t)
	for i := 0; i < 5; i++ {
		commit(t, a, fmt.Sprint("a", i), fmt.Sprintf("a/%d.md", i), "x")
	}
	runGit(t, a.Dir(), "multi-pack-index", "write")
	for i := 0; i < 5; i++ {
		commit(t, a, fmt.Sprint("b", i), fmt.Sprintf("b/%d.md", i), "y")
	}
	left := filepath.Join(a.Dir(), "objects", "pack", ".tmp-roll-"+strings.Repeat("0", 40)+".pack")
	if err := os.WriteFile(left, []byte("half a pack"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Pack(nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Fsck(); err != nil {
		t.Errorf("fsck after a roll-up over a multi-pack index: %v", err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a killed roll-up's leftover is still there: %v", err)
	}
}

// TestCommitWritesEachTreeOnce: two directories alike are one tree, and
// the commit's pack holds it once (git verify-pack refuses duplicates).
func TestCommitWritesEachTreeOnce(t *testing.T) {
	a := newArchive(t)
	packsBefore, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "pack-*.idx"))
	commit(t, a, "twins", "a/x/y.md", "same", "b/x/y.md", "same")
	packs, _ := filepath.Glob(filepath.Join(a.Dir(), "objects", "pack", "pack-*.idx"))
	for _, p := range packs {
		if !slices.Contains(packsBefore, p) {
			runGit(t, a.Dir(), "verify-pack", p)
		}
	}
}

// TestPacksAbout: PacksAbout counts the packs this handle writes without
// listing the pack directory, which it lists again every recountEvery of
// them and after a roll-up; meanwhile another process's pack goes unseen.
func TestPacksAbout(t *testing.T) {
	a := newArchive(t)
	commit(t, a, "seed", "a", "a\n")
	n := a.PacksAbout()
	if n != a.Packs() {
		t.Fatalf("PacksAbout() = %d, Packs() = %d", n, a.Packs())
	}
	// Another process's pack: a copy of one under another name.
	dir := filepath.Join(a.Dir(), "objects", "pack")
	idx, err := filepath.Glob(filepath.Join(dir, "pack-*.idx"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("no pack index: %v", err)
	}
	base := strings.TrimSuffix(idx[0], ".idx")
	for _, ext := range []string{".idx", ".pack"} {
		data, err := os.ReadFile(base + ext)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pack-"+strings.Repeat("0", 40)+ext), data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < recountEvery; i++ {
		commit(t, a, "more", fmt.Sprintf("f%d", i), "x\n")
		if got := a.PacksAbout(); got != n+i {
			t.Fatalf("after %d writes: PacksAbout() = %d, want %d (the foreign pack unseen)", i, got, n+i)
		}
	}
	commit(t, a, "more", "last", "x\n")
	if got, want := a.PacksAbout(), n+recountEvery+1; got != want {
		t.Fatalf("after %d writes: PacksAbout() = %d, want %d (counted again)", recountEvery, got, want)
	}
	if err := a.Pack(nil); err != nil {
		t.Fatal(err)
	}
	if got, want := a.PacksAbout(), a.Packs(); got != want || got >= n+recountEvery {
		t.Fatalf("after a roll-up: PacksAbout() = %d, Packs() = %d", got, want)
	}
}
