package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProfiled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	ran := false
	var stderr bytes.Buffer
	if code := profiled(path, &stderr, func() int { ran = true; return 3 }); code != 3 || !ran {
		t.Fatalf("profiled returned %d (ran %v), want fn's 3", code, ran)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A profile is a gzipped protocol buffer.
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Errorf("the profile: %d bytes, %v", len(b), err)
	}

	// No file asked for: fn runs, nothing is written.
	ran = false
	if code := profiled("", &stderr, func() int { ran = true; return 0 }); code != 0 || !ran {
		t.Errorf("without a file: %d (ran %v)", code, ran)
	}

	// A file that cannot be made: one line saying so, and fn does not run.
	ran = false
	code := profiled(filepath.Join(dir, "missing", "cpu.pprof"), &stderr, func() int { ran = true; return 0 })
	if code != exitError || ran {
		t.Errorf("unwritable: %d (ran %v), want %d and not run", code, ran, exitError)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, profileEnv) {
		t.Errorf("stderr: %q, want one line naming %s", got, profileEnv)
	}
}
