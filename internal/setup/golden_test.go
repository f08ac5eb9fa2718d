package setup

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the after/ trees of testdata/setup with what setup writes")

// goldenDir holds one directory per client, and in it one per case:
//
//	args     flags, as on the command line: --user --hooks --force --agent NAME
//	before/  the files before setup, under home/ and project/
//	after/   the files after setup (go test -update rewrites it)
//	error    instead of after/: setup must fail with this in its message,
//	         and leave every file as it was
const goldenDir = "../../testdata/setup"

// goldenCommand is the agentmail the golden configurations run.
const goldenCommand = "/usr/local/bin/agentmail"

// TestGolden runs setup over the configuration files of each client, as
// they are found in the wild: it writes exactly after/, running it again
// changes nothing, and uninstall gives back before/ byte for byte (with
// the record setup keeps, and in most cases even without it).
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "*", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases in %s: %v", goldenDir, err)
	}
	for _, dir := range dirs {
		client := filepath.Base(filepath.Dir(dir))
		t.Run(client+"/"+filepath.Base(dir), func(t *testing.T) {
			g := loadGolden(t, client, dir)
			if g.wantErr != "" {
				g.checkRefused(t)
				return
			}
			g.checkInstall(t)
			g.checkFallback(t)
		})
	}
}

type golden struct {
	dir, client string
	args        []string
	before      map[string]string
	wantErr     string
}

func loadGolden(t *testing.T, client, dir string) *golden {
	g := &golden{dir: dir, client: client, before: readTree(t, filepath.Join(dir, "before"))}
	if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		g.args = strings.Fields(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "error")); err == nil {
		g.wantErr = strings.TrimSpace(string(b))
	}
	return g
}

// options lays before/ out in a new directory and returns the options
// that point setup there; stateDir "" keeps no record.
func (g *golden) options(t *testing.T, keepRecords bool) (Options, string) {
	root := t.TempDir()
	writeTree(t, root, g.before)
	for _, d := range []string{"home", "project"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	o := Options{Client: g.client, Command: goldenCommand, Project: filepath.Join(root, "project"), Home: home,
		ConfigHome: filepath.Join(home, ".config"), CodexHome: filepath.Join(home, ".codex")}
	if keepRecords {
		o.StateDir = filepath.Join(t.TempDir(), "state")
	}
	for i := 0; i < len(g.args); i++ {
		switch g.args[i] {
		case "--user":
			o.User = true
		case "--hooks":
			o.Hooks = true
		case "--force":
			o.Force = true
		case "--agent":
			i++
			o.Env = map[string]string{"AGENTMAIL_AGENT": g.args[i]}
		case "--no-exact-fallback":
		default:
			t.Fatalf("%s/args: unknown %q", g.dir, g.args[i])
		}
	}
	return o, root
}

func run(t *testing.T, o Options, uninstall bool) *Plan {
	t.Helper()
	do := Install
	if uninstall {
		do = Uninstall
	}
	p, err := do(o)
	if err != nil {
		t.Fatalf("uninstall=%v: %v", uninstall, err)
	}
	if err := p.Apply(); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return p
}

func (g *golden) checkInstall(t *testing.T) {
	o, root := g.options(t, true)
	run(t, o, false)
	got := readTree(t, root)
	afterDir := filepath.Join(g.dir, "after")
	if *update {
		if err := os.RemoveAll(afterDir); err != nil {
			t.Fatal(err)
		}
		writeTree(t, afterDir, got)
	}
	compareTrees(t, "after setup", got, readTree(t, afterDir))

	p := run(t, o, false)
	for _, ch := range p.Changes {
		if ch.Action != "unchanged" {
			t.Errorf("setup again: %s %s", ch.Action, ch.Path)
		}
	}
	compareTrees(t, "after setup twice", readTree(t, root), got)

	run(t, o, true)
	compareTrees(t, "after uninstall", readTree(t, root), g.before)
	if entries, _ := os.ReadDir(o.StateDir); len(entries) > 0 {
		t.Errorf("uninstall left %d records behind", len(entries))
	}
}

// checkFallback uninstalls without the record setup keeps: the entry alone
// is taken out, which gives back the original bytes too unless the case
// says otherwise (setup created the file, or an object the entry needed).
func (g *golden) checkFallback(t *testing.T) {
	o, root := g.options(t, false)
	run(t, o, false)
	run(t, o, true)
	got := readTree(t, root)
	if !slices.Contains(g.args, "--no-exact-fallback") {
		compareTrees(t, "after uninstall without a record", got, g.before)
		return
	}
	if again := run(t, o, true); again.Changes[0].Action != "unchanged" {
		t.Errorf("uninstall without a record left the entry: %s", again.Changes[0].Action)
	}
}

func (g *golden) checkRefused(t *testing.T) {
	o, root := g.options(t, true)
	_, err := Install(o)
	if err == nil {
		t.Fatalf("setup succeeded; want an error with %q", g.wantErr)
	}
	if !strings.Contains(err.Error(), g.wantErr) {
		t.Errorf("error %q\nwant it to contain %q", err, g.wantErr)
	}
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEntryDiffers) && !errors.Is(err, ErrCannotEdit) {
		t.Errorf("error %v is none of the sentinel errors", err)
	}
	compareTrees(t, "after a refused setup", readTree(t, root), g.before)
}

// readTree returns the files under root by slash path, and each directory
// as its path and a slash with an empty content; nil when root is absent.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.IsDir():
			tree[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			tree[rel] = string(b)
			return err
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	// home/ and project/ are always there in a laid out case.
	for _, d := range []string{"home/", "project/"} {
		delete(tree, d)
	}
	return tree
}

func writeTree(t *testing.T, root string, tree map[string]string) {
	t.Helper()
	for rel, content := range tree {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func compareTrees(t *testing.T, when string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: %s is missing", when, p)
		case g != w:
			t.Errorf("%s: %s differs:\n%s", when, p, hunk(lines([]byte(w)), lines([]byte(g))))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s should not be there", when, p)
		}
	}
}
