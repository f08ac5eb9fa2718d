package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// legacyDir holds a store made by a release from before each project had
// its own branch, and that release's answers (see its make.sh).
var legacyDir = filepath.Join("..", "..", "testdata", "legacy")

// legacystore STORE ANSWERS unpacks the legacy store into the directory
// STORE, copies the old release's --json answers into ANSWERS and sets
// $LEGACY_ID to the id of the message they show.
func cmdLegacyStore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: legacystore STORE ANSWERS")
	}
	store, answers := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(store, 0o755))
	ts.Check(os.MkdirAll(answers, 0o755))
	tarball, err := filepath.Abs(filepath.Join(legacyDir, "store.tar.gz"))
	ts.Check(err)
	if out, err := exec.Command("tar", "-C", store, "-xzf", tarball).CombinedOutput(); err != nil {
		ts.Fatalf("untar %s: %v: %s", tarball, err, out)
	}
	docs, err := filepath.Glob(filepath.Join(legacyDir, "*.json"))
	ts.Check(err)
	for _, d := range docs {
		b, err := os.ReadFile(d)
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(answers, filepath.Base(d)), b, 0o644))
	}
	id, err := os.ReadFile(filepath.Join(legacyDir, "id"))
	ts.Check(err)
	ts.Setenv("LEGACY_ID", strings.TrimSpace(string(id)))
}
