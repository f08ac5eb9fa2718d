package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// legacystore [FIXTURE] STORE ANSWERS unpacks the store of a fixture made
// by an earlier release into the directory STORE, copies that release's
// --json answers into ANSWERS and sets $LEGACY_ID to the id of the record
// they show (see make.sh in the fixture's directory). FIXTURE names a
// directory of testdata: legacy (the default: from before each project
// had its own branch) or flatres (from before reservations fanned out).
func cmdLegacyStore(ts *testscript.TestScript, neg bool, args []string) {
	fixture := "legacy"
	if len(args) == 3 {
		fixture, args = args[0], args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: legacystore [FIXTURE] STORE ANSWERS")
	}
	legacyDir := filepath.Join("..", "..", "testdata", fixture)
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
