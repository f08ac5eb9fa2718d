package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderParse(t *testing.T) {
	for _, hook := range Names {
		for _, bin := range []string{"/usr/local/bin/agentmail", "/a b/c'd/$x`y`/agentmail", "agentmail"} {
			store := strings.Replace(bin, "agentmail", "store", 1)
			script, err := Render(Params{Hook: hook, Agentmail: bin, Mode: "warn", Store: store, Project: testProject})
			if err != nil {
				t.Fatal(err)
			}
			set, ok := Parse(script)
			if !ok || set.Agentmail != bin || set.Mode != "warn" || set.Store != store || set.Project != testProject {
				t.Errorf("%s %q: parsed %+v, %v", hook, bin, set, ok)
			}
			if !bytes.HasPrefix(script, []byte("#!/bin/sh\n")) || !bytes.Contains(script, []byte(Marker)) {
				t.Errorf("%s: no shebang or marker", hook)
			}
			if out, err := exec.Command("sh", "-n", "-c", string(script)).CombinedOutput(); err != nil {
				t.Errorf("%s: sh -n: %v %s", hook, err, out)
			}
		}
	}
	if _, ok := Parse([]byte("#!/bin/sh\nexec lint-staged\n")); ok {
		t.Error("a foreign hook parsed as ours")
	}
	for _, p := range []Params{
		{Hook: "post-commit", Agentmail: "x", Mode: "block"},
		{Hook: "pre-commit", Agentmail: "x\ny", Mode: "block"},
		{Hook: "pre-commit", Agentmail: "", Mode: "block"},
		{Hook: "pre-commit", Agentmail: "x", Mode: "loud"},
		{Hook: "pre-commit", Agentmail: "x", Mode: "block", Store: "/s\nt"},
		{Hook: "pre-commit", Agentmail: "x", Mode: "block", Project: "k\ney"},
	} {
		if _, err := Render(p); err == nil {
			t.Errorf("rendered %+v", p)
		}
	}
}

// hookRun runs a rendered hook in dir with a fake agentmail that logs its
// arguments and standard input and exits with $FAKE_EXIT.
type hookRun struct {
	t    *testing.T
	dir  string // the hooks directory
	fake string
	log  string
}

func newHookRun(t *testing.T, hook, mode string) *hookRun {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	h := &hookRun{t: t, dir: t.TempDir()}
	bin := t.TempDir()
	h.fake = filepath.Join(bin, "agentmail")
	h.log = filepath.Join(bin, "log")
	// The hooks pass 10 arguments (guard check --hook H --mode M
	// --default-store S --default-project P), pre-push 2 more (--remote
	// R): any other count is logged, a word split apart.
	argc := "10"
	if hook == "pre-push" {
		argc = "12"
	}
	fake := "#!/bin/sh\necho \"agentmail $*\" >> " + h.log + "\n[ $# = " + argc + " ] || echo \"argc $#\" >> " + h.log + "\ncat >> " + h.log + "\nexit ${FAKE_EXIT:-0}\n"
	if err := os.WriteFile(h.fake, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := Render(Params{Hook: hook, Agentmail: h.fake, Mode: mode, Store: testStore, Project: testProject})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, hook), script, 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// orig installs a kept original hook.
func (h *hookRun) orig(hook, body string, mode os.FileMode) {
	p := filepath.Join(h.dir, hook+OrigSuffix)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), mode); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hookRun) run(hook, stdin string, env ...string) (code int, stderr, log string) {
	os.Remove(h.log)
	cmd := exec.Command(filepath.Join(h.dir, hook), "origin", "/remote/url")
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "LOG=" + h.log}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	b, _ := os.ReadFile(h.log)
	return code, errb.String(), string(b)
}

// testStore is the store the test hooks record: the check receives it as
// one argument, spaces and quotes included.
const testStore = "/data/agent store/it's"

// testProject is the project the test hooks record.
const testProject = "git.example.com/team/it's repo"

// checkArgs is what the hooks pass guard check.
const checkArgs = " --default-store " + testStore + " --default-project " + testProject

func TestHookScript(t *testing.T) {
	h := newHookRun(t, "pre-commit", "block")
	code, _, log := h.run("pre-commit", "")
	if code != 0 || log != "agentmail guard check --hook pre-commit --mode block"+checkArgs+"\n" {
		t.Errorf("plain: %d %q", code, log)
	}
	if code, _, _ := h.run("pre-commit", "", "FAKE_EXIT=1"); code != 1 {
		t.Errorf("the check's failure: exit %d", code)
	}
	// The mode: the environment, AGENTMAIL_GUARD_MODE first.
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"AGENT_MAIL_GUARD_MODE=warn"}, "--mode warn"},
		{[]string{"AGENTMAIL_GUARD_MODE=warn", "AGENT_MAIL_GUARD_MODE=block"}, "--mode warn"},
		{[]string{"AGENTMAIL_GUARD_MODE=", "AGENT_MAIL_GUARD_MODE="}, "--mode block"},
	} {
		if _, _, log := h.run("pre-commit", "", tt.env...); !strings.Contains(log, tt.want) {
			t.Errorf("%v: %q", tt.env, log)
		}
	}
	// Bypass: no check, a line saying so.
	code, stderr, log := h.run("pre-commit", "", "AGENTMAIL_BYPASS=1")
	if code != 0 || log != "" || !strings.Contains(stderr, "AGENTMAIL_BYPASS=1: reservation check skipped (pre-commit)") {
		t.Errorf("bypass: %d %q %q", code, stderr, log)
	}
	// AGENTMAIL_NOW moves the clock: the check still runs, and a line says so.
	code, stderr, log = h.run("pre-commit", "", "AGENTMAIL_NOW=+2h")
	if code != 0 || !strings.Contains(log, "guard check") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "AGENTMAIL_NOW=+2h: reservations are judged at that time") {
		t.Errorf("AGENTMAIL_NOW: %d %q %q", code, stderr, log)
	}
	// A kept original runs first with the hook's arguments; its failure
	// stops everything, bypass or not.
	h.orig("pre-commit", "echo \"orig $*\" >> \"$LOG\"\nexit ${ORIG_EXIT:-0}\n", 0o755)
	if code, _, log := h.run("pre-commit", ""); code != 0 || log != "orig origin /remote/url\nagentmail guard check --hook pre-commit --mode block"+checkArgs+"\n" {
		t.Errorf("chained: %d %q", code, log)
	}
	if code, _, log := h.run("pre-commit", "", "ORIG_EXIT=7"); code != 7 || log != "orig origin /remote/url\n" {
		t.Errorf("original vetoes: %d %q", code, log)
	}
	if code, _, _ := h.run("pre-commit", "", "ORIG_EXIT=7", "AGENTMAIL_BYPASS=1"); code != 7 {
		t.Errorf("original vetoes under bypass: %d", code)
	}
	// A non-executable original is not run (git would not run it either).
	h.orig("pre-commit", "exit 9\n", 0o644)
	if code, _, _ := h.run("pre-commit", ""); code != 0 {
		t.Errorf("non-executable original ran: %d", code)
	}
	// The recorded binary gone: agentmail on PATH, else a clear failure
	// (block) or a warning (warn).
	if err := os.Rename(h.fake, h.fake+".moved"); err != nil {
		t.Fatal(err)
	}
	code, stderr, _ = h.run("pre-commit", "")
	if code != 1 || !strings.Contains(stderr, "is gone and agentmail is not on PATH") {
		t.Errorf("no binary, block: %d %q", code, stderr)
	}
	if code, stderr, _ := h.run("pre-commit", "", "AGENTMAIL_GUARD_MODE=warn"); code != 0 || !strings.Contains(stderr, "going ahead unchecked") {
		t.Errorf("no binary, warn: %d %q", code, stderr)
	}
	onPath := t.TempDir()
	if err := os.Rename(h.fake+".moved", filepath.Join(onPath, "agentmail")); err != nil {
		t.Fatal(err)
	}
	if code, _, log := h.run("pre-commit", "", "PATH="+onPath+":/usr/bin:/bin"); code != 0 || !strings.Contains(log, "guard check --hook pre-commit") {
		t.Errorf("binary on PATH: %d %q", code, log)
	}
}

func TestPrePushScript(t *testing.T) {
	h := newHookRun(t, "pre-push", "warn")
	refs := "refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 2222222222222222222222222222222222222222\n"
	// Without an original, agentmail reads standard input itself.
	if code, _, log := h.run("pre-push", refs); code != 0 || log != "agentmail guard check --hook pre-push --mode warn"+checkArgs+" --remote origin\n"+refs {
		t.Errorf("plain: %d %q", code, log)
	}
	// With one, both read all of it.
	h.orig("pre-push", "echo \"orig $*\" >> \"$LOG\"\ncat >> \"$LOG\"\nexit ${ORIG_EXIT:-0}\n", 0o755)
	code, _, log := h.run("pre-push", refs)
	if want := "orig origin /remote/url\n" + refs + "agentmail guard check --hook pre-push --mode warn" + checkArgs + " --remote origin\n" + refs; code != 0 || log != want {
		t.Errorf("chained: %d\n%q\nwant\n%q", code, log, want)
	}
	if code, _, log := h.run("pre-push", refs, "ORIG_EXIT=1"); code != 1 || strings.Contains(log, "agentmail guard") {
		t.Errorf("original vetoes: %d %q", code, log)
	}
	// The copy of standard input is gone afterwards.
	tmp := t.TempDir()
	h.run("pre-push", refs, "TMPDIR="+tmp)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}
