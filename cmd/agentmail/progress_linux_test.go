package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: what is written to tty can be read
// from master.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, tty
}

// runOnTerminal runs agentmail with stderr on a terminal and returns its
// exit code, stdout, and what the terminal showed.
func runOnTerminal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	master, tty := openPTY(t)
	shown := make(chan string)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once tty is closed
		shown <- string(b)
	}()
	var stdout bytes.Buffer
	code := run(append([]string{"agentmail"}, args...), strings.NewReader(""), &stdout, tty)
	tty.Close()
	return code, stdout.String(), <-shown
}

func runQuiet(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"agentmail"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestProgressBarReindex: doctor --reindex draws a bar on a terminal, and
// nothing on a pipe or with --json; what it prints on stdout is the same.
func TestProgressBarReindex(t *testing.T) {
	base := []string{"--store", t.TempDir(), "--project", "example.com/acme/shop"}
	for _, args := range [][]string{
		{"register", "--name", "BlueLake"},
		{"send", "--as-human", "--to", "BlueLake", "--subject", "one", "--body", "x"},
		{"send", "--as-human", "--to", "BlueLake", "--subject", "two", "--body", "y"},
	} {
		if code, _, stderr := runQuiet(t, append(base, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	reindex := append(base, "doctor", "--reindex")
	code, piped, stderr := runQuiet(t, reindex...)
	if code != 0 || stderr != "" {
		t.Fatalf("piped: exit %d, stderr %q (want nothing)", code, stderr)
	}
	code, stdout, shown := runOnTerminal(t, reindex...)
	same := regexp.MustCompile(`^reindexed 2 messages in \S+ \(\d+ messages/s\)\n$`)
	if code != 0 || !same.MatchString(stdout) || !same.MatchString(piped) {
		t.Errorf("exit %d, stdout %q and %q, want the same line", code, stdout, piped)
	}
	// Drawn at most every 100 ms, then cleared: some count out of 2 shows.
	if !regexp.MustCompile(`reindexing .*\| \([0-2]/2, `).MatchString(shown) {
		t.Errorf("the terminal showed %q, want a bar: reindexing ... (N/2, ...)", shown)
	}
	if _, _, shown := runOnTerminal(t, append(reindex, "--json")...); shown != "" {
		t.Errorf("with --json the terminal showed %q, want nothing", shown)
	}
}

// TestProgressBarImport: import agent-mail draws a bar on a terminal.
func TestProgressBarImport(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "import.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	for _, f := range ar.Files {
		if rel, ok := strings.CutPrefix(f.Name, "py/"); ok {
			path := filepath.Join(src, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, stdout, shown := runOnTerminal(t, "--store", t.TempDir(), "--project", "example.com/acme/shop", "import", "agent-mail", src, "--batch", "4")
	if code != 0 || !strings.Contains(stdout, "imported agent-mail project") {
		t.Fatalf("exit %d, stdout %q, terminal %q", code, stdout, shown)
	}
	if !regexp.MustCompile(`importing .*\| \(\d+/16, `).MatchString(shown) {
		t.Errorf("the terminal showed %q, want a bar: importing ... (N/16, ...)", shown)
	}
}
