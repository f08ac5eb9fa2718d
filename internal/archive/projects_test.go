package archive

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// commitProjects writes files (path, content, ...) on top of the archive's
// state and returns the new state.
func commitProjects(t testing.TB, a *Archive, msg string, kv ...string) string {
	t.Helper()
	st, err := a.State()
	if err != nil {
		t.Fatalf("State: %v", err)
	}
	var changes []Change
	for i := 0; i < len(kv); i += 2 {
		changes = append(changes, Change{Path: kv[i], Data: []byte(kv[i+1])})
	}
	res, err := a.CommitProjects(st.String(), changes, author("GreenCastle"), msg, nil)
	if err != nil {
		t.Fatalf("CommitProjects(%s): %v", msg, err)
	}
	if now, _ := a.State(); now.String() != res.Head {
		t.Fatalf("CommitProjects returned %s but the state is %s", res.Head, now)
	}
	return res.Head
}

// changed lists what ProjectChanges reports between two states.
func changed(t *testing.T, a *Archive, from, to string) map[string]string {
	t.Helper()
	got := map[string]string{}
	if err := a.ProjectChanges(from, to, nil, func(p string, data []byte) error {
		got[p] = string(data)
		return nil
	}); err != nil {
		t.Fatalf("ProjectChanges: %v", err)
	}
	return got
}

// Each project has its own branch rooted at its directory; a write moves
// only the branches of the projects it touches.
func TestCommitProjects(t *testing.T) {
	a := newArchive(t)
	if _, err := a.Migrate(); err != nil { // as a store does at once
		t.Fatal(err)
	}
	s1 := commitProjects(t, a, "a1", "projects/a/project.json", "A", "projects/a/messages/m1.md", "m1")
	aBranch := runGit(t, a.Dir(), "rev-parse", ProjectRef("a"))
	if s1 != "a:"+aBranch {
		t.Errorf("state %q, want a:%s", s1, aBranch)
	}
	if got := lsTree(t, a.Dir(), ProjectRef("a")); !reflect.DeepEqual(got, map[string]string{
		"project.json": blobHash([]byte("A")), "messages/m1.md": blobHash([]byte("m1"))}) {
		t.Errorf("a's tree: %v", got)
	}
	if got := runGit(t, a.Dir(), "symbolic-ref", "HEAD"); got != ProjectRef("a") {
		t.Errorf("HEAD -> %s, want the first project's branch", got)
	}
	s2 := commitProjects(t, a, "b1", "projects/b/project.json", "B")
	if got := runGit(t, a.Dir(), "rev-parse", ProjectRef("a")); got != aBranch {
		t.Errorf("a write to b moved a's branch")
	}
	if got := runGit(t, a.Dir(), "rev-list", "--count", ProjectRef("b")); got != "1" {
		t.Errorf("b's history has %s commits, want 1", got)
	}
	if got := runGit(t, a.Dir(), "symbolic-ref", "HEAD"); got != ProjectRef("a") {
		t.Errorf("HEAD moved to %s", got)
	}
	s3 := commitProjects(t, a, "a2", "projects/a/messages/m2.md", "m2")
	if got := runGit(t, a.Dir(), "rev-parse", ProjectRef("a")+"^"); got != aBranch {
		t.Errorf("a2's parent %s, want %s", got, aBranch)
	}
	if got := changed(t, a, s1, s3); !reflect.DeepEqual(got, map[string]string{
		"projects/b/project.json": "B", "projects/a/messages/m2.md": "m2"}) {
		t.Errorf("changes s1..s3: %v", got)
	}
	if got := changed(t, a, "", s2); len(got) != 3 {
		t.Errorf("changes from nothing to s2: %v", got)
	}
	// A stale parent for the project written is a compare-and-swap failure.
	_, err := a.CommitProjects(s2, []Change{{Path: "projects/a/x", Data: []byte("x")}}, author("X"), "stale", nil)
	if !errors.Is(err, ErrMoved) {
		t.Errorf("commit on a stale state: %v, want ErrMoved", err)
	}
	for _, bad := range []string{"project.json", "projects/a", "elsewhere/a/b"} {
		if _, err := a.CommitProjects(s3, []Change{{Path: bad, Data: []byte("x")}}, author("X"), "bad", nil); err == nil {
			t.Errorf("CommitProjects(%q) succeeded", bad)
		}
	}
}

// ready is called once a write's objects are durable and before any
// branch moves; its error abandons the write: no branch moves, and the
// next write builds on the same state. With two projects it is called
// once, before the first branch.
func TestCommitProjectsWhenReady(t *testing.T) {
	a := newArchive(t)
	if _, err := a.Migrate(); err != nil {
		t.Fatal(err)
	}
	before := commitProjects(t, a, "first", "projects/a/project.json", "A", "projects/b/project.json", "B")
	changes := []Change{{Path: "projects/a/m.md", Data: []byte("m")}, {Path: "projects/b/m.md", Data: []byte("m")}}
	refused := errors.New("the index refused the write")
	calls := 0
	_, err := a.CommitProjectsWhenReady(before, changes, author("GreenCastle"), "refused", nil, func() error {
		calls++
		if st, _ := a.State(); st.String() != before {
			t.Errorf("a branch moved before ready: %s, was %s", st, before)
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("CommitProjectsWhenReady: %v, want ready's error", err)
	}
	if st, _ := a.State(); st.String() != before {
		t.Errorf("state after a refused write: %s, want %s", st, before)
	}
	res, err := a.CommitProjectsWhenReady(before, changes, author("GreenCastle"), "ready", nil, func() error {
		calls++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := a.State(); st.String() != res.Head || res.Head == before {
		t.Errorf("state %s, want the write's %s", st, res.Head)
	}
	if calls != 2 {
		t.Errorf("ready called %d times for two writes, want 2", calls)
	}
	runGit(t, a.Dir(), "fsck", "--no-dangling") // fails the test on an error
}

func TestParseState(t *testing.T) {
	h1, h2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	for _, tc := range []struct {
		in      string
		want    State
		wantErr error
	}{
		{"", State{}, nil},
		{"b:" + h2 + " a:" + h1, State{"a": h1, "b": h2}, nil},
		{h1, nil, ErrLegacyState},
		{"a:zz", nil, errors.New("")},
		{":" + h1, nil, errors.New("")},
	} {
		got, err := ParseState(tc.in)
		if tc.wantErr != nil {
			if err == nil || (errors.Is(tc.wantErr, ErrLegacyState) && !errors.Is(err, ErrLegacyState)) {
				t.Errorf("ParseState(%q): %v, want %v", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("ParseState(%q) = %v, %v", tc.in, got, err)
		}
		if back, _ := ParseState(got.String()); !maps.Equal(back, got) {
			t.Errorf("round trip of %q: %v", tc.in, back)
		}
	}
}

// The index catches up across merges: the changes between a project's
// commit and a merge of it with another history are the other side's.
func TestProjectChangesAcrossMerge(t *testing.T) {
	a := newArchive(t)
	base := commitProjects(t, a, "base", "projects/p/project.json", "P")
	ours := commitProjects(t, a, "ours", "projects/p/messages/ours.md", "ours")
	oursC := strings.TrimPrefix(ours, "p:")
	baseC := strings.TrimPrefix(base, "p:")
	// Theirs, made by git on base: a file ours lacks.
	blob := runGitIn(t, a.Dir(), "theirs", "hash-object", "-w", "--stdin")
	tree := runGitIn(t, a.Dir(), "100644 blob "+blob+"\ttheirs.md\n", "mktree")
	msgs := runGitIn(t, a.Dir(), "040000 tree "+tree+"\tmessages\n100644 blob "+runGitIn(t, a.Dir(), "P", "hash-object", "-w", "--stdin")+"\tproject.json\n", "mktree")
	theirs := runGit(t, a.Dir(), "commit-tree", msgs, "-p", baseC, "-m", "theirs")
	merged := runGit(t, a.Dir(), "merge-tree", "--write-tree", oursC, theirs)
	merge := runGit(t, a.Dir(), "commit-tree", merged, "-p", oursC, "-p", theirs, "-m", "merge")
	runGit(t, a.Dir(), "update-ref", ProjectRef("p"), merge, oursC)
	st, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	if got := changed(t, a, ours, st.String()); !reflect.DeepEqual(got, map[string]string{"projects/p/messages/theirs.md": "theirs"}) {
		t.Errorf("changes across the merge: %v", got)
	}
}

// runGitIn is runGit with stdin.
func runGitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := gitCmd(dir, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// legacyArchive makes an archive as earlier versions did: every project
// under projects/ of the main branch, with history.
func legacyArchive(t *testing.T) (*Archive, string) {
	a := newArchive(t)
	commit(t, a, "a", "projects/a/project.json", "A")
	commit(t, a, "b", "projects/b/project.json", "B", "projects/b/messages/m.md", "m")
	old := commit(t, a, "a2", "projects/a/agents/X/profile.json", "X")
	return a, old
}

func checkMigrated(t *testing.T, a *Archive, old string) {
	t.Helper()
	for _, slug := range []string{"a", "b"} {
		if got, want := runGit(t, a.Dir(), "rev-parse", ProjectRef(slug)+"^{tree}"), runGit(t, a.Dir(), "rev-parse", old+":projects/"+slug); got != want {
			t.Errorf("%s's tree %s, want main's projects/%s %s", slug, got, slug, want)
		}
		if msg := runGit(t, a.Dir(), "log", "-1", "--format=%s", ProjectRef(slug)); msg != "migrate: projects/"+slug+" from main "+old {
			t.Errorf("%s's commit: %q", slug, msg)
		}
	}
	if got := runGit(t, a.Dir(), "rev-parse", LegacyRef); got != old {
		t.Errorf("%s = %s, want %s", LegacyRef, got, old)
	}
	if legacy, err := a.Legacy(); err != nil || legacy {
		t.Errorf("Legacy after Migrate: %v, %v", legacy, err)
	}
	if got := runGit(t, a.Dir(), "symbolic-ref", "HEAD"); got != ProjectRef("a") {
		t.Errorf("HEAD -> %s", got)
	}
	runGit(t, a.Dir(), "fsck", "--strict", "--no-progress")
}

func TestMigrate(t *testing.T) {
	a, old := legacyArchive(t)
	if legacy, err := a.Legacy(); err != nil || !legacy {
		t.Fatalf("Legacy: %v, %v", legacy, err)
	}
	m, err := a.Migrate()
	if err != nil {
		t.Fatal(err)
	}
	if m.From != old || !reflect.DeepEqual(m.Projects, []string{"a", "b"}) {
		t.Errorf("Migrate = %+v", m)
	}
	checkMigrated(t, a, old)
	// The index's legacy head is no state: catching up reads everything.
	if err := a.ProjectChanges(old, "", nil, nil); !errors.Is(err, ErrLegacyState) {
		t.Errorf("changes from a legacy head: %v", err)
	}
}

// A new archive's main branch (Init's empty commit, no project) is no
// history: Migrate removes it and keeps no LegacyRef, which only an archive
// that really held projects on main gets; run again, it is a no-op.
func TestMigrateEmpty(t *testing.T) {
	a := newArchive(t)
	m, err := a.Migrate()
	if err != nil {
		t.Fatal(err)
	}
	if m.From != "" || len(m.Projects) != 0 {
		t.Errorf("Migrate = %+v, want nothing", m)
	}
	if refs := runGit(t, a.Dir(), "for-each-ref", "--format=%(refname)"); refs != "" {
		t.Errorf("refs after migrating a new archive: %q, want none", refs)
	}
	if legacy, err := a.Legacy(); err != nil || legacy {
		t.Errorf("Legacy after Migrate: %v, %v", legacy, err)
	}
}

// A migration stopped at any step (a branch made, all made, main set
// aside but back after a power loss, main only in packed-refs) completes
// when run again, with the same result.
func TestMigrateResumes(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, a *Archive, old string)
	}{
		{"one branch made", func(t *testing.T, a *Archive, old string) {
			m := migrateCopy(t, a)
			runGit(t, a.Dir(), "fetch", "-q", m, ProjectRef("a")+":"+ProjectRef("a"))
		}},
		{"main back after the legacy ref", func(t *testing.T, a *Archive, old string) {
			m := migrateCopy(t, a)
			runGit(t, a.Dir(), "fetch", "-q", m, "refs/heads/projects/*:refs/heads/projects/*")
			runGit(t, a.Dir(), "update-ref", LegacyRef, old)
		}},
		{"main packed", func(t *testing.T, a *Archive, old string) {
			runGit(t, a.Dir(), "pack-refs", "--all", "--prune")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, old := legacyArchive(t)
			tc.stop(t, a, old)
			if _, err := a.Migrate(); err != nil {
				t.Fatal(err)
			}
			checkMigrated(t, a, old)
			if _, err := os.Stat(filepath.Join(a.Dir(), "refs", "heads", "main")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("main is still there: %v", err)
			}
		})
	}
}

// migrateCopy migrates a copy of a's repository and returns its directory.
func migrateCopy(t *testing.T, a *Archive) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copy.git")
	if out, err := gitCmd("", "clone", "-q", "--mirror", a.Dir(), dir).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Migrate(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gitCmd is the git command args on the bare repository dir ("" for none),
// isolated from the user's configuration.
func gitCmd(dir string, args ...string) *exec.Cmd {
	if dir != "" {
		args = append([]string{"--git-dir", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), gitEnv...)
	return cmd
}
