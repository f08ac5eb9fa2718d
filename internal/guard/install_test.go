package guard

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/hooks"
)

func actions(chs []HookChange) string {
	var parts []string
	for _, c := range chs {
		parts = append(parts, c.Hook+"="+c.Action)
	}
	return strings.Join(parts, " ")
}

func TestInstallUninstall(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	hooksDir := filepath.Join(dir, ".git", "hooks")
	bin := "/opt/agent mail/it's/agentmail" // needs quoting in the script

	// A foreign pre-push (a symbolic link, mode kept as is) and a foreign
	// pre-commit with an unusual mode.
	orig := []byte("#!/bin/sh\necho theirs\n")
	if err := os.WriteFile(filepath.Join(hooksDir, "pre-commit"), orig, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "theirs-push"), orig, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("theirs-push", filepath.Join(hooksDir, "pre-push")); err != nil {
		t.Fatal(err)
	}

	res, err := Install(ctx, InstallOptions{Repo: dir, PrePush: true, Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res.Hooks); got != "pre-commit=chained pre-merge-commit=installed pre-push=chained" {
		t.Errorf("install: %s", got)
	}
	script, err := os.ReadFile(filepath.Join(hooksDir, "pre-commit"))
	if err != nil {
		t.Fatal(err)
	}
	set, ok := hooks.Parse(script)
	if !ok || set.Agentmail != bin || set.Mode != "block" {
		t.Errorf("recorded settings %+v, %v", set, ok)
	}
	if out, err := exec.Command("sh", "-n", filepath.Join(hooksDir, "pre-commit")).CombinedOutput(); err != nil {
		t.Errorf("sh -n: %v %s", err, out)
	}

	// Idempotent.
	before := snapshot(t, hooksDir)
	res, err = Install(ctx, InstallOptions{Repo: dir, PrePush: true, Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res.Hooks); got != "pre-commit=unchanged pre-merge-commit=unchanged pre-push=unchanged" {
		t.Errorf("second install: %s", got)
	}
	if after := snapshot(t, hooksDir); after != before {
		t.Errorf("second install changed the hooks directory:\n%s\n---\n%s", before, after)
	}

	st, err := Status(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, h := range st.Hooks {
		states = append(states, h.Hook+"="+h.State)
	}
	if got := strings.Join(states, " "); got != "pre-commit=chained pre-merge-commit=ours pre-push=chained" || st.Mode != Block {
		t.Errorf("status: %s, mode %q", got, st.Mode)
	}

	// Someone replaces our pre-commit while the original is still kept:
	// installing would lose one of them, so it refuses.
	if err := os.WriteFile(filepath.Join(hooksDir, "pre-commit"), []byte("#!/bin/sh\necho newer\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(ctx, InstallOptions{Repo: dir, Binary: bin}); !errors.Is(err, ErrHookInTheWay) {
		t.Errorf("hook in the way: %v", err)
	}
	// Uninstall leaves that foreign hook (and the kept original) alone.
	un, err := Uninstall(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(un.Hooks); got != "pre-commit=foreign pre-merge-commit=removed pre-push=restored" {
		t.Errorf("uninstall: %s", got)
	}
	if target, err := os.Readlink(filepath.Join(hooksDir, "pre-push")); err != nil || target != "theirs-push" {
		t.Errorf("pre-push symlink not restored: %q, %v", target, err)
	}
	// Put ours back by hand and uninstall again: the original returns
	// with its bytes and mode.
	ours, _ := hooks.Render(hooks.Params{Hook: "pre-commit", Agentmail: bin, Mode: "block"})
	if err := os.WriteFile(filepath.Join(hooksDir, "pre-commit"), ours, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(ctx, dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(hooksDir, "pre-commit"))
	fi, _ := os.Stat(filepath.Join(hooksDir, "pre-commit"))
	if err != nil || !bytes.Equal(got, orig) || fi.Mode().Perm() != 0o711 {
		t.Errorf("restored pre-commit: %q, %v, mode %v", got, err, fi.Mode())
	}
	if _, err := os.Lstat(filepath.Join(hooksDir, "pre-commit"+hooks.OrigSuffix)); !os.IsNotExist(err) {
		t.Errorf("kept original still there: %v", err)
	}
}

// snapshot describes every entry of dir: name, mode and content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + " " + fi.Mode().String() + " " + fi.ModTime().String() + "\n" + string(data) + "\n")
	}
	return b.String()
}

func TestHooksDir(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
	real, _ := filepath.EvalSymlinks(dir)

	check := func(from, want string, wantGlobal bool) {
		t.Helper()
		got, global, err := HooksDir(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		gotReal, _ := filepath.EvalSymlinks(filepath.Dir(got))
		if filepath.Join(gotReal, filepath.Base(got)) != want && got != want || global != wantGlobal {
			t.Errorf("HooksDir(%s) = %s, %v; want %s, %v", from, got, global, want, wantGlobal)
		}
	}
	check(dir, filepath.Join(real, ".git", "hooks"), false)

	// A linked worktree shares the repository's hooks.
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", wt)
	check(wt, filepath.Join(real, ".git", "hooks"), false)

	// A relative repository-local core.hooksPath, from a subdirectory.
	run(t, dir, "config", "core.hooksPath", ".githooks")
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	check(filepath.Join(dir, "a", "b"), filepath.Join(real, ".githooks"), false)
	run(t, dir, "config", "--unset", "core.hooksPath")

	// A global one.
	global := filepath.Join(t.TempDir(), "global-hooks")
	run(t, dir, "config", "--global", "core.hooksPath", global)
	check(dir, global, true)
	if _, err := Install(ctx, InstallOptions{Repo: dir, Binary: "/x/agentmail"}); !errors.Is(err, ErrGlobalHooksPath) {
		t.Errorf("global hooksPath: %v", err)
	}
	if _, err := os.Stat(global); !os.IsNotExist(err) {
		t.Errorf("refused install created %s: %v", global, err)
	}

	if _, _, err := HooksDir(ctx, t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Errorf("outside a repository: %v", err)
	}
}

// TestInstallOverRewrittenHook: the tool that wrote the kept original
// writes the same hook again over ours (husky on every npm install);
// installing takes it back, while a different hook there stays in the way.
func TestInstallOverRewrittenHook(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	path := filepath.Join(dir, ".git", "hooks", "pre-commit")
	theirs := []byte("#!/bin/sh\n. \"${0%/*}/h\"\n")
	if err := os.WriteFile(path, theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(ctx, InstallOptions{Repo: dir, Binary: "/bin/agentmail"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, theirs, 0o755); err != nil { // written again
		t.Fatal(err)
	}
	res, err := Install(ctx, InstallOptions{Repo: dir, Binary: "/bin/agentmail"})
	if err != nil || res.Hooks[0].Action != "chained" {
		t.Fatalf("install over the same hook: %+v, %v", res.Hooks, err)
	}
	if b, err := os.ReadFile(path + hooks.OrigSuffix); err != nil || !bytes.Equal(b, theirs) {
		t.Errorf("kept original: %q, %v", b, err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(ctx, InstallOptions{Repo: dir, Binary: "/bin/agentmail"}); !errors.Is(err, ErrHookInTheWay) {
		t.Errorf("a different hook over ours: %v, want ErrHookInTheWay", err)
	}
}
