package archive

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// maxBytes is a resolve that is commutative, associative and idempotent.
// It drops the smaller version of a message (a path under messages/).
func maxBytes(p string, a, b []byte) ([]byte, bool, error) {
	dropped := strings.HasPrefix(p, "messages/")
	if bytes.Compare(a, b) >= 0 {
		return a, dropped, nil
	}
	return b, dropped, nil
}

// randomHistory writes n random commits on the branch name and returns
// its head and the files as the last write left them.
func randomHistory(t *testing.T, a *Archive, r *rand.Rand, name string, n int) (string, map[string]string) {
	t.Helper()
	files := map[string]string{}
	head := ""
	paths := []string{"project.json", "messages/2026/11/22/a.md", "messages/2026/11/22/b.md", "messages/2026/11/23/c.md", "receipts/x/R.json", "agents/A/profile.json"}
	for i := 0; i < n; i++ {
		var changes []Change
		for _, p := range paths {
			if r.Intn(3) == 0 {
				v := fmt.Sprintf("%s %d", p, r.Intn(4))
				changes = append(changes, Change{Path: p, Data: []byte(v)})
				files[p] = v
			}
		}
		if len(changes) == 0 {
			continue
		}
		res, err := a.commitOn(ProjectRef(name), head, changes, Author{Name: "X", Email: "x@agentmail", When: t0.Add(time.Duration(r.Intn(1000)) * time.Second)}, "w", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		head = res.Head
	}
	if head == "" {
		return randomHistory(t, a, r, name, n)
	}
	return head, files
}

func treeOf(t *testing.T, a *Archive, c string) string {
	t.Helper()
	return runGit(t, a.Dir(), "rev-parse", c+"^{tree}")
}

func merge(t *testing.T, a *Archive, x, y string) string {
	t.Helper()
	m, err := a.Merge(x, y, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Merging random histories is commutative (the very same commit),
// associative and idempotent, and its tree is the union of the sides'
// files, each resolved.
func TestMergeProperties(t *testing.T) {
	a := newArchive(t)
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 10; trial++ {
		x, fx := randomHistory(t, a, r, fmt.Sprintf("x%d", trial), 1+r.Intn(4))
		y, fy := randomHistory(t, a, r, fmt.Sprintf("y%d", trial), 1+r.Intn(4))
		z, _ := randomHistory(t, a, r, fmt.Sprintf("z%d", trial), 1+r.Intn(4))
		xy, yx := merge(t, a, x, y), merge(t, a, y, x)
		if xy != yx {
			t.Fatalf("trial %d: merge(x,y) = %s, merge(y,x) = %s", trial, xy, yx)
		}
		want := maps.Clone(fx)
		for p, v := range fy {
			if w, ok := want[p]; !ok || v > w {
				want[p] = v
			}
		}
		got := map[string]string{}
		for p := range lsTree(t, a.Dir(), xy) {
			got[p] = runGit(t, a.Dir(), "cat-file", "blob", xy+":"+p)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("trial %d: merged files %v, want %v", trial, got, want)
		}
		if l, r := treeOf(t, a, merge(t, a, xy, z)), treeOf(t, a, merge(t, a, x, merge(t, a, y, z))); l != r {
			t.Fatalf("trial %d: not associative: %s vs %s", trial, l, r)
		}
		if m := merge(t, a, x, x); m != x {
			t.Fatalf("trial %d: merge(x,x) = %s", trial, m)
		}
		if m := merge(t, a, xy, x); m != xy {
			t.Fatalf("trial %d: merge(merge(x,y),x) = %s, want the merge itself", trial, m)
		}
		if m := merge(t, a, x, xy); m != xy {
			t.Fatalf("trial %d: merge(x, merge(x,y)) = %s, want a fast-forward", trial, m)
		}
	}
	runGit(t, a.Dir(), "fsck", "--strict", "--no-progress")
}

// A file whose two versions a merge settled by dropping one is named in
// the merge commit (the same whichever side merges) and by MergeFindings;
// both versions stay reachable through the merge's parents. A file merged
// by its rule is no finding.
func TestMergeFindings(t *testing.T) {
	a := newArchive(t)
	write := func(ref string, files map[string]string) string {
		var changes []Change
		for p, v := range files {
			changes = append(changes, Change{Path: p, Data: []byte(v)})
		}
		res, err := a.commitOn(ProjectRef(ref), "", changes, Author{Name: "X", Email: "x@agentmail", When: t0}, "w", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Head
	}
	const msg = "messages/2026/11/22/01JD-hello.md"
	x := write("p", map[string]string{msg: "version one", "receipts/r.json": "a", "project.json": "p"})
	y := write("q", map[string]string{msg: "version two", "receipts/r.json": "b", "project.json": "p"})
	m := merge(t, a, x, y)
	if err := a.MoveProject("p", x, m); err != nil {
		t.Fatal(err)
	}
	findings, err := a.MergeFindings("p")
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 || !strings.Contains(findings[0], msg) || !strings.Contains(findings[0], m[:12]) {
		t.Fatalf("findings %q, want one naming %s in merge %.12s", findings, msg, m)
	}
	var versions []string
	for _, parent := range strings.Fields(runGit(t, a.Dir(), "log", "-1", "--format=%P", m)) {
		versions = append(versions, runGit(t, a.Dir(), "cat-file", "blob", parent+":"+msg))
	}
	if strings.Join(versions, ",") != "version one,version two" && strings.Join(versions, ",") != "version two,version one" {
		t.Errorf("the parents hold %q, want both versions", versions)
	}
	if none, err := a.MergeFindings("q"); err != nil || len(none) != 0 {
		t.Errorf("a branch without merges: findings %q, %v", none, err)
	}
}

// IsAncestor answers as git merge-base --is-ancestor does, on a history
// with merges; within ancestorWalk commits of y it starts no git process.
func TestIsAncestor(t *testing.T) {
	a := newArchive(t)
	r := rand.New(rand.NewSource(3))
	x, _ := randomHistory(t, a, r, "x", 5)
	y, _ := randomHistory(t, a, r, "y", 5)
	m := merge(t, a, x, y)
	long, _ := randomHistory(t, a, r, "long", 2*ancestorWalk)
	commits := strings.Fields(runGit(t, a.Dir(), "rev-list", "--all"))
	for _, c := range []string{m, long} {
		for _, b := range commits {
			want := exec.Command("git", "--git-dir", a.Dir(), "merge-base", "--is-ancestor", b, c).Run() == nil
			if got, err := a.IsAncestor(b, c); err != nil || got != want {
				t.Errorf("IsAncestor(%.7s, %.7s) = %v, %v; git says %v", b, c, got, err, want)
			}
		}
	}

	trace := filepath.Join(t.TempDir(), "trace2.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	for _, b := range []string{x, y, m, long} {
		if _, err := a.IsAncestor(b, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(trace); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("IsAncestor within %d commits ran git (%v)", ancestorWalk, err)
	}
}
