package layering

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/testbin"
)

// startupGolden lists the packages of other modules whose initialisation
// runs before every agentmail command, one a line.
const startupGolden = "testdata/startup_inits.txt"

// TestStartupInits: the packages of other modules (the dependencies) that
// agentmail initialises before any command, as GODEBUG=inittrace=1 lists
// them for --version, are those startup_inits.txt names. Every command
// line process pays for their init functions and package variables (a
// one-shot start-up cost, docs/design.md §8): the list grew from 78
// packages to 176 in a few days without anyone noticing, and the command
// line got 1.3 times slower (issue 25). A dependency worth its start-up
// is added to the list on purpose: UPDATE_GOLDEN=1 writes it. The
// standard library's packages are left out (they change with Go), and so
// are this module's own.
func TestStartupInits(t *testing.T) {
	bin := testbin.Agentmail(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agentmail --version: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		first, _, _ := strings.Cut(f[1], "/")
		// Another module's: not the standard library's, nor ours, whose
		// inits are small (0.12 ms in all) and come and go with its code.
		if strings.Contains(first, ".") && !strings.HasPrefix(f[1], module) {
			got = append(got, f[1])
		}
	}
	if len(got) == 0 {
		t.Fatalf("GODEBUG=inittrace=1 agentmail --version listed no package of another module:\n%s", out)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(startupGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(startupGolden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(startupGolden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	want := strings.Fields(string(data))
	var added, gone []string
	for _, p := range got {
		if !slices.Contains(want, p) {
			added = append(added, p)
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			gone = append(gone, p)
		}
	}
	if len(added) > 0 {
		t.Errorf("initialised before every command now, and not in %s: %s\n"+
			"Each one's init runs in every command line process. If it is worth that, add it: "+
			"UPDATE_GOLDEN=1 go test -tags sqlite_fts5 ./internal/layering -run TestStartupInits", startupGolden, strings.Join(added, ", "))
	}
	if len(gone) > 0 {
		t.Errorf("no longer initialised, still in %s: %s (UPDATE_GOLDEN=1 rewrites it)", startupGolden, strings.Join(gone, ", "))
	}
}
