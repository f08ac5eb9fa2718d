package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmail/agentmail/internal/hooks"
)

// envOf is a getenv over a map.
func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeFile(t testing.TB, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestHooksIn(t *testing.T) {
	home := t.TempDir()
	common := "/repo/.git"
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
	check := func(local, wantDir string, wantGlobal bool) {
		t.Helper()
		got := HooksIn(common, "/repo", local, envOf(env))
		if got.Dir != wantDir || got.Global != wantGlobal {
			t.Errorf("HooksIn(local %q, env %v) = %+v, want %s (global %v)", local, env, got, wantDir, wantGlobal)
		}
	}
	check("", "/repo/.git/hooks", false)
	check(".husky/_", "/repo/.husky/_", false)
	check("/abs/hooks", "/abs/hooks", false)
	check("~/hooks", filepath.Join(home, "hooks"), false)

	// ~/.config/git/config, then ~/.gitconfig, which wins; the local one
	// wins over both.
	writeFile(t, filepath.Join(home, ".config", "git", "config"), "[core]\n\thooksPath = /xdg\n", 0o644)
	check("", "/xdg", true)
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = x\n[Core]\n\tHooksPath = /home-a\n\thooksPath = /home-b\n", 0o644)
	check("", "/home-b", true)
	check("local", "/repo/local", false)
	// GIT_CONFIG_GLOBAL replaces both; the system file counts unless
	// GIT_CONFIG_NOSYSTEM, below the global ones.
	env["GIT_CONFIG_GLOBAL"] = filepath.Join(home, "none")
	check("", "/repo/.git/hooks", false)
	sys := filepath.Join(home, "system")
	writeFile(t, sys, "[core]\n\thooksPath = /sys\n", 0o644)
	env["GIT_CONFIG_SYSTEM"] = sys
	check("", "/repo/.git/hooks", false)
	env["GIT_CONFIG_NOSYSTEM"] = ""
	check("", "/sys", true)
}

func TestDiagnose(t *testing.T) {
	dir := t.TempDir()
	common := filepath.Join(dir, ".git")
	env := envOf(map[string]string{"HOME": dir, "GIT_CONFIG_NOSYSTEM": "1"})
	ours, err := hooks.Render(hooks.Params{Hook: "pre-commit", Agentmail: "/bin/agentmail", Mode: "block"})
	if err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(common, "hooks")
	if d := Diagnose(common, dir, "", "", env); d != nil {
		t.Errorf("never installed: %+v", d)
	}
	writeFile(t, filepath.Join(def, "pre-commit"), string(ours), 0o755)
	if d := Diagnose(common, dir, "", def, env); d != nil {
		t.Errorf("ours run: %+v", d)
	}
	// core.hooksPath set afterwards, recorded or not (installed before
	// installs were recorded: found in the default directory).
	for _, recorded := range []string{def, ""} {
		d := Diagnose(common, dir, ".husky/_", recorded, env)
		if d == nil || d.Installed != def || d.Runs.Dir != filepath.Join(dir, ".husky/_") || d.Runs.Global {
			t.Errorf("recorded %q: %+v", recorded, d)
		}
	}
	// Ours where git runs them now: fine.
	writeFile(t, filepath.Join(dir, ".husky/_/pre-commit"), string(ours), 0o755)
	if d := Diagnose(common, dir, ".husky/_", def, env); d != nil {
		t.Errorf("ours in the new place: %+v", d)
	}
	// Replaced, or not executable: git does not run ours.
	writeFile(t, filepath.Join(def, "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	if d := Diagnose(common, dir, "", def, env); d == nil || d.Runs.Dir != def {
		t.Errorf("replaced: %+v", d)
	}
	writeFile(t, filepath.Join(def, "pre-commit"), string(ours), 0o644)
	if d := Diagnose(common, dir, "", def, env); d == nil {
		t.Error("not executable: no drift")
	}
}

// BenchmarkDiagnose is what every reserve, check and agents adds: the
// guard's hooks run where git runs hooks, a global configuration file
// exists.
func BenchmarkDiagnose(b *testing.B) {
	dir := b.TempDir()
	common := filepath.Join(dir, ".git")
	writeFile(b, filepath.Join(dir, ".gitconfig"), "[user]\n\tname = x\n\temail = x@example.com\n", 0o644)
	ours, err := hooks.Render(hooks.Params{Hook: "pre-commit", Agentmail: "/bin/agentmail", Mode: "block"})
	if err != nil {
		b.Fatal(err)
	}
	def := filepath.Join(common, "hooks")
	writeFile(b, filepath.Join(def, "pre-commit"), string(ours), 0o755)
	env := envOf(map[string]string{"HOME": dir})
	for b.Loop() {
		if d := Diagnose(common, dir, "", def, env); d != nil {
			b.Fatal(d)
		}
	}
}
