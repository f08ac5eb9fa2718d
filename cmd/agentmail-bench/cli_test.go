package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStageBinaries: every program is copied, whole and executable, into
// one directory, in the order given, even programs of the same name.
func TestStageBinaries(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, sub := range []string{"a", "b"} {
		p := filepath.Join(dir, sub, "agentmail")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho program " + string(rune('0'+i)) + "\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	staged, err := stageBinaries(paths)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(staged[0]))
	if len(staged) != 2 || filepath.Dir(staged[0]) != filepath.Dir(staged[1]) || staged[0] == staged[1] {
		t.Fatalf("staged = %q; want two files in one directory", staged)
	}
	for i, p := range staged {
		out, err := exec.Command(p).Output()
		if want := "program " + string(rune('0'+i)) + "\n"; err != nil || !bytes.Equal(out, []byte(want)) {
			t.Errorf("%s: %q, %v; want %q", p, out, err, want)
		}
	}
	if _, err := stageBinaries([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("staging a missing program: no error")
	}
}

// TestMedianRatio: the median of the turns' ratios and differences, not
// the ratio or difference of the medians.
func TestMedianRatio(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		a, b []time.Duration
		want float64
	}{
		{ms(2, 4, 6), ms(1, 2, 3), 2},
		{ms(1, 2, 3), ms(3, 1, 2), 1.5}, // the ratio of the medians is 1
		{ms(3), ms(4), 0.75},
	} {
		if got := medianRatio(c.a, c.b); got != c.want {
			t.Errorf("medianRatio(%v, %v) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
	if got, want := medianDiff(ms(5, 1, 9), ms(1, 4, 2)), 4*time.Millisecond; got != want { // the difference of the medians is 3
		t.Errorf("medianDiff = %v; want %v", got, want)
	}
}

// TestBuildRevision: -base-rev builds agentmail as the revision named has
// it, whatever the working tree holds, and cleans up its worktree.
func TestBuildRevision(t *testing.T) {
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(say string) {
		t.Helper()
		main := filepath.Join(repo, "cmd", "agentmail", "main.go")
		if err := os.MkdirAll(filepath.Dir(main), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package main\n\nimport \"fmt\"\n\nvar version string\n\nfunc main() { fmt.Println(\"" + say + "\", version) }\n"
		if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("before")
	run("add", "-A")
	run("commit", "-q", "-m", "before")
	write("after")
	run("commit", "-q", "-am", "after")
	write("uncommitted")

	bin, cleanup, err := buildRevision(repo, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "before HEAD~1\n" {
		t.Errorf("the binary built from HEAD~1 says %q, %v; want %q", out, err, "before HEAD~1\n")
	}
	cleanup()
	if _, err := os.Stat(bin); !os.IsNotExist(err) {
		t.Errorf("after cleanup the binary is still there: %v", err)
	}
	if out, err := exec.Command("git", "-C", repo, "worktree", "list").Output(); err != nil || strings.Count(string(out), "\n") != 1 {
		t.Errorf("after cleanup, git worktree list: %q, %v; want the repository alone", out, err)
	}
	if _, _, err := buildRevision(repo, "no-such-rev"); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("an unknown revision: %v; want an error naming it", err)
	}
}
