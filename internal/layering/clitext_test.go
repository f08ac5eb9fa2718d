package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// faces are the directories whose packages speak to users in their own
// terms: the command line (flags, commands), MCP (tools and arguments),
// the HTTP API and the pages. Only they may name a flag or a command.
// internal/testbin and the other test helpers run the binary for tests and
// are no layer.
var faces = []string{"cmd", "internal/mcpserver", "internal/server", "internal/web",
	"internal/testbin", "internal/service/errorcases", "internal/gittest", "internal/sqlitetest", "internal/layering"}

// cliText finds the command line's vocabulary in a text: a flag, or a
// command to run.
var cliText = regexp.MustCompile(`(^|[^\w-])--[a-z]|\bagentmail [a-z]`)

// argvFlag is a literal that is one argument of another program's command
// line (git's), not a text for a user: "--cached", "--format=%H %P".
var argvFlag = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=.*)?$`)

// notCLIText are literals below the faces that the pattern finds but that
// are no advice to a user of agentmail's command line. Each says why.
var notCLIText = map[string]string{
	"internal/service/faces.go: %s, outside the times agentmail keeps (%d to %d)":                                        "names the program, not a command",
	"internal/service/errors.go: to go ahead anyway: AGENTMAIL_BYPASS=1 git commit ..., or git commit --no-verify":       "advice to run git, which the guard blocks, from any face",
	"internal/service/errors.go: put agentmail on $PATH, then install the hooks again":                                   "names the binary, not a command",
	"internal/service/errors.go: another agentmail holds the store lock; try again in a moment":                          "names another process, not a command",
	"internal/guard/check.go: to go ahead anyway: AGENTMAIL_BYPASS=1 git %s ..., or git %s --no-verify":                  "advice to run git, which the guard blocks, from any face",
	"internal/guard/install.go: find the hooks directory of %s: git rev-parse --git-path hooks printed nothing":          "names the git command that failed",
	"internal/archive/migrate.go: the archive was changed by hand during its migration: inspect it with git --git-dir ":  "advice to inspect the archive with git",
	"internal/project/repository.go: git config --list --local shows where it is broken":                                 "advice to run git on a broken git config",
	"internal/service/sync.go: %s no longer has %s (it was at %.12s; a git push --mirror or update-ref -d deletes it): ": "names git commands that delete a ref",
	"internal/archive/archive.go: agentmail archive: messages, agents and reservations, one commit per change\n":         "the archive's README names the archive, not a command",
	"internal/archive/archive.go: init: agentmail archive":                                                               "the archive's first commit message",
	"internal/events/handler.go: agentmail events of project ":                                                           "the event stream's opening comment line, not advice",
	"internal/hooks/hooks.go: # agentmail-guard: this hook was written by `agentmail guard install`":                     "the hook file's own header, read by whoever opens the hook",
	"internal/hooks/hooks.go: render hook: unusable agentmail path %q":                                                   "names the binary's path, not a command",
	"internal/guard/guard.go: cannot find the agentmail binary":                                                          "names the binary, not a command",
	"internal/guard/guard.go: no agentmail store":                                                                        "names the store, not a command",
	"internal/service/guard.go: this repository has no agentmail project; nothing is reserved here":                      "names the project, not a command",
	"internal/setup/editors.go: agentmail hooks":                                                                         "the command an editor's config runs: setup writes configs that name the binary",
}

// TestNoCLITextBelowFaces fails when a string literal in a package below
// the faces names a command-line flag (--ttl) or an agentmail command: the
// domain and the service say what went wrong as data (fault.Detail) and
// each face words its own advice. Comments and test files are not scanned:
// they speak to maintainers.
func TestNoCLITextBelowFaces(t *testing.T) {
	root := moduleRoot(t)
	leaks := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || isFace(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !cliText.MatchString(s) || argvFlag.MatchString(s) {
				return true
			}
			key := rel + ": " + s
			if _, ok := notCLIText[key]; ok {
				leaks[key] = true
				return true
			}
			t.Errorf("%s: %q names a command-line flag or command below the faces: carry the field and values as data (fault.Detail) and word the advice in each face", fset.Position(lit.Pos()), s)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range notCLIText {
		if !leaks[key] {
			t.Errorf("allowed literal %q is gone: take it off notCLIText", key)
		}
	}
}

func isFace(rel string) bool {
	for _, f := range faces {
		if rel == f || strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// moduleRoot is the directory of go.mod, two levels up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return root
}
