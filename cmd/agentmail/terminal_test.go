package main

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

func TestEscapeControls(t *testing.T) {
	tests := []struct {
		in, line, text string
	}{
		{"plain text, ünïcödé, 中文", "plain text, ünïcödé, 中文", "plain text, ünïcödé, 中文"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"title\x1b]0;owned\x07", `title\x1b]0;owned\x07`, `title\x1b]0;owned\x07`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"nul\x00del\x7f", `nul\x00del\x7f`, `nul\x00del\x7f`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`, `c1 \u009b31m csi`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`, `bidi \u202eevil\u202c`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{`a \ backslash stays`, `a \ backslash stays`, `a \ backslash stays`},
	}
	for _, tt := range tests {
		x := escaper{on: true}
		if got := x.line(tt.in); got != tt.line {
			t.Errorf("line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := x.text(tt.in); got != tt.text {
			t.Errorf("text(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if off := (escaper{}); off.line(tt.in) != tt.in || off.text(tt.in) != tt.in {
			t.Errorf("an escaper that is off changed %q", tt.in)
		}
	}
}

// Stored text with escape sequences is shown escaped on a terminal (a real
// one: a pty), exactly as stored when piped or with --json; search hits are
// bold on a terminal unless NO_COLOR is set, and never ANSI when piped.
func TestTerminalOutput(t *testing.T) {
	const (
		body = "\x1b[31mred\x1b[0m alert\r\nline2\tcolumn\x00\u202eevil\x1b]0;owned\x07\n"
		task = "deploy \x1b[2J\x1b]0;owned\x07\nnow"
	)
	global := []string{"--store", t.TempDir(), "--project", "github.com/acme/shop"}
	cmd := func(args ...string) []string { return append(append([]string{"agentmail"}, args...), global...) }
	piped(t, cmd("register", "--name", "GreenCastle", "--policy", "open"))
	piped(t, cmd("register", "--name", "BlueLake", "--policy", "open", "--task", task))
	var sent struct{ Message struct{ ID string } }
	if err := json.Unmarshal([]byte(piped(t, cmd("send", "--agent", "GreenCastle", "--to", "BlueLake", "--subject", "Alert", "--body", body, "--json"))), &sent); err != nil {
		t.Fatal(err)
	}
	id := sent.Message.ID
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")

	show := onTerminal(t, cmd("show", id, "--agent", "BlueLake"))
	for _, want := range []string{`\x1b[31mred\x1b[0m alert\r` + "\n" + "line2\tcolumn" + `\x00\u202eevil\x1b]0;owned\x07`} {
		if !strings.Contains(show, want) {
			t.Errorf("show on a terminal lacks %q:\n%s", want, show)
		}
	}
	who := onTerminal(t, cmd("whoami", "--agent", "BlueLake"))
	agents := onTerminal(t, cmd("agents"))
	for name, out := range map[string]string{"show": show, "whoami": who, "agents": agents} {
		if strings.ContainsAny(out, "\x1b\x07\x00\r\u202e") {
			t.Errorf("%s on a terminal printed control characters: %q", name, out)
		}
	}
	if want := `deploy \x1b[2J\x1b]0;owned\x07\nnow`; !strings.Contains(who, want) {
		t.Errorf("whoami on a terminal lacks the escaped task %q:\n%s", want, who)
	}

	search := onTerminal(t, cmd("search", "alert", "--agent", "BlueLake"))
	if !strings.Contains(search, "\x1b[1malert\x1b[22m") {
		t.Errorf("search on a terminal does not show the hit in bold:\n%q", search)
	}
	if other := regexp.MustCompile(`\x1b[^\[]|\x1b\[[^12]`).FindString(search); other != "" {
		t.Errorf("search on a terminal printed an escape sequence other than bold: %q in %q", other, search)
	}
	t.Setenv("NO_COLOR", "1")
	if plain := onTerminal(t, cmd("search", "alert", "--agent", "BlueLake")); strings.Contains(plain, "\x1b") || !strings.Contains(plain, "[alert]") {
		t.Errorf("search with NO_COLOR:\n%q", plain)
	}
	t.Setenv("NO_COLOR", "")

	// --json and pipes get the text as stored.
	var doc struct{ Message struct{ Body string } }
	if err := json.Unmarshal([]byte(onTerminal(t, cmd("show", id, "--agent", "BlueLake", "--json"))), &doc); err != nil || doc.Message.Body != body {
		t.Errorf("show --json on a terminal: body %q, %v; want %q", doc.Message.Body, err, body)
	}
	if out := piped(t, cmd("show", id, "--agent", "BlueLake")); !strings.Contains(out, body) {
		t.Errorf("show into a pipe does not print the body as stored:\n%q", out)
	}
	if out := piped(t, cmd("search", "alert", "--agent", "BlueLake")); strings.Contains(out, "\x1b[1m") || !strings.Contains(out, "[alert]") {
		t.Errorf("search into a pipe:\n%q", out)
	}
}

// piped runs agentmail with its output into a buffer, and returns it.
func piped(t *testing.T, args []string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errOut.String())
	}
	return out.String()
}

// onTerminal runs agentmail with its output on a pseudo-terminal, and
// returns what the terminal received (newlines as written).
func onTerminal(t *testing.T, args []string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pty: %v", err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, ptmx) // ends with EIO once the terminal side is closed
		close(done)
	}()
	var errOut bytes.Buffer
	code := run(args, strings.NewReader(""), tty, &errOut)
	tty.Close()
	<-done
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errOut.String())
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n") // the terminal's own line endings
}
