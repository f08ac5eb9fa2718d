package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// runCLI runs agentmail in this process and returns its exit code, stdout
// and stderr. The store is a fresh directory, which the commands tested
// with it never get far enough to create.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("AGENTMAIL_HOME", t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"agentmail"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestUsageErrors: a command line that does not parse gets one line on
// stderr naming what was typed, saying what was expected, and exit 2.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args   string
		stderr string // a regular expression for the whole of stderr
	}{
		// Unknown commands at every level, with the close ones named.
		{"bogus", `agentmail: unknown command "bogus" \(agentmail --help lists the commands\)`},
		{"sned --to BlueLake", `agentmail: unknown command "sned" \(did you mean send\?\) \(agentmail --help lists the commands\)`},
		{"--agent BlueLake sned", `agentmail: unknown command "sned" \(did you mean send\?\) .*`},
		{"guard instal", `agentmail: unknown command "instal" for agentmail guard \(did you mean install or uninstall\?\) \(agentmail guard --help lists the commands\)`},
		{"import bogus /tmp", `agentmail: unknown command "bogus" for agentmail import \(agentmail import --help lists the commands\)`},
		{"agents retir RedCat", `agentmail: unknown command "retir" for agentmail agents \(did you mean retire or unretire\?\) .*`},
		{"reservations chek src/a.go", `agentmail: unknown command "chek" for agentmail reservations \(did you mean check\?\) .*`},
		{"lock bogus --help", `agentmail: unknown command "bogus" for agentmail lock .*`},
		{"help lock aquire", `agentmail: unknown command "aquire" for agentmail lock \(did you mean acquire\?\) .*`},
		{"-- bogus", `agentmail: unknown command "bogus" .*`},

		// Flags as typed, with the close ones named.
		{"inbox -limt 3", `agentmail: unknown flag -limt \(did you mean --limit\?\) \(see: agentmail inbox --help\)`},
		{"reserve src/a.go --tll 5m", `agentmail: unknown flag --tll \(did you mean --ttl\?\) \(see: agentmail reserve --help\)`},
		{"lock acquire deploy --tttl 5m", `agentmail: unknown flag --tttl \(did you mean --ttl\?\) \(see: agentmail lock acquire --help\)`},
		{"--bogus inbox", `agentmail: unknown flag --bogus \(see: agentmail --help\)`},

		// Bad values say what was expected.
		{"reserve src/a.go --ttl banana", `agentmail: --ttl: "banana" is not a duration \(try 30m or 1h\)`},
		{"reserve src/a.go -ttl=banana", `agentmail: -ttl: "banana" is not a duration \(try 30m or 1h\)`},
		{"inbox --limit x", `agentmail: --limit: "x" is not a whole number \(try a number such as 10\)`},
		{"inbox -n x", `agentmail: -n: "x" is not a whole number .*`},
		{"inbox --limit 99999999999999999999", `agentmail: --limit: "99999999999999999999" is out of range .*`},
		{"inbox --json=maybe", `agentmail: --json: "maybe" is not true or false .*`},
		{"reserve src/a.go --ttl", `agentmail: --ttl needs a value: a duration \(try 30m or 1h\)`},

		// Missing flags and arguments, with the full command named.
		{"send --subject hi --body x", `agentmail: missing required flag --to \(e\.g\. agentmail send --to BlueLake --subject .*\)`},
		{"send --body x", `agentmail: missing required flags --to and --subject \(e\.g\. agentmail send --to .* --subject .*\)`},
		{"lock acquire", `agentmail: expected one KEY, got 0 arguments \(usage: agentmail lock acquire KEY\)`},
		{"lock list deploy/", `agentmail: unexpected argument "deploy/" \(see: agentmail lock list --help\)`},
		{"completion tcsh", `agentmail: unknown shell "tcsh" \(agentmail completion writes scripts for bash, zsh and fish\)`},
		{"completion bsh", `agentmail: unknown shell "bsh" \(did you mean bash\?\) .*`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, strings.Fields(tt.args)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !regexp.MustCompile(`^` + tt.stderr + `\n$`).MatchString(stderr) {
				t.Errorf("stderr %q\nwant %s", stderr, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

func TestUsageErrorJSON(t *testing.T) {
	code, _, stderr := runCLI(t, "--json", "reserve", "src/a.go", "--ttl", "banana")
	var doc struct {
		Error struct{ Code, Message, Hint string }
	}
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
		t.Fatalf("stderr %q: %v", stderr, err)
	}
	want := `--ttl: "banana" is not a duration`
	if code != exitUsage || doc.Error.Code != "USAGE" || doc.Error.Message != want || doc.Error.Hint != "try 30m or 1h" {
		t.Errorf("exit %d, %+v; want %d, USAGE, %q", code, doc.Error, exitUsage, want)
	}
}

// TestNoCommand: agentmail, or a group such as agentmail lock, with no
// command did nothing: the help on stdout and exit 2, or with --json a
// usage error listing the commands.
func TestNoCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"lock"}, {"--agent", "BlueLake", "guard"}} {
		code, stdout, stderr := runCLI(t, args...)
		_, help, _ := runCLI(t, append(args, "--help")...)
		if code != exitUsage || stdout != help || stderr != "" {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q; want %d and the --help text", args, code, stdout, stderr, exitUsage)
		}
	}
	code, stdout, stderr := runCLI(t, "lock", "--json")
	want := `{"error":{"code":"USAGE","message":"agentmail lock needs a command: acquire, renew, release, list or run","hint":"see: agentmail lock --help"}}` + "\n"
	if code != exitUsage || stdout != "" || stderr != want {
		t.Errorf("lock --json: exit %d, stdout %q, stderr %q; want %d, %s", code, stdout, stderr, exitUsage, want)
	}
}

// TestResolveCommandLine: what reaches the parser.
func TestResolveCommandLine(t *testing.T) {
	app := newApp(&env{})
	tests := []struct{ in, out, err string }{
		{"agentmail send --to x", "agentmail send --to x", ""},
		{"agentmail help lock acquire", "agentmail help lock acquire", ""},
		{"agentmail show 01JD3Y4Q --help", "agentmail help show", ""},
		{"agentmail --agent lock lock acquire -h", "agentmail help lock acquire", ""},
		{"agentmail lock run k -- make --help", "agentmail lock run k -- make --help", ""},
		{"agentmail help --help", "agentmail help help", ""},
		{"agentmail --help", "agentmail help", ""},
		{"agentmail lock aquire --help", "", `unknown command "aquire" for agentmail lock (did you mean acquire?)`},
		{"agentmail search -draft deploy", "agentmail search -draft deploy", ""},
	}
	for _, tt := range tests {
		got, err := resolveCommandLine(app, strings.Fields(tt.in))
		if strings.Join(got, " ") != tt.out || tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
			t.Errorf("%s: %q, %v; want %q, %q", tt.in, got, err, tt.out, tt.err)
		}
	}
}

// TestHelpCommand: agentmail help CMD SUB prints what agentmail CMD SUB
// --help does, whatever arguments come with --help.
func TestHelpCommand(t *testing.T) {
	for _, pair := range [][2]string{
		{"help", "--help"},
		{"help send", "send --help"},
		{"help lock acquire", "lock acquire --help"},
		{"help show", "show 01JD3Y4Q --help"},
		{"help agents retire", "agents retire -h RedCat"},
	} {
		code1, out1, _ := runCLI(t, strings.Fields(pair[0])...)
		code2, out2, _ := runCLI(t, strings.Fields(pair[1])...)
		if code1 != 0 || code2 != 0 || out1 != out2 || !strings.HasPrefix(out1, "NAME:") {
			t.Errorf("%s (exit %d) and %s (exit %d) differ:\n%s\n---\n%s", pair[0], code1, pair[1], code2, out1, out2)
		}
	}
}

// TestHelpWalk walks the whole command tree: every command's help has a
// usage line with its full path and examples that run it, and every
// example names only commands and flags that exist.
func TestHelpWalk(t *testing.T) {
	app := newApp(&env{})
	var paths [][]string
	var walk func(cmds []*cli.Command, parent []string)
	walk = func(cmds []*cli.Command, parent []string) {
		for _, c := range cmds {
			path := append(slices.Clip(parent), c.Name)
			paths = append(paths, path)
			walk(c.Subcommands, path)
		}
	}
	walk(app.Commands, nil)
	paths = append(paths, nil) // agentmail itself
	for _, path := range paths {
		full := strings.Join(append([]string{"agentmail"}, path...), " ")
		code, out, stderr := runCLI(t, append(path, "--help")...)
		if code != 0 || stderr != "" {
			t.Errorf("%s --help: exit %d, stderr %q", full, code, stderr)
			continue
		}
		if !regexp.MustCompile(`(?m)^USAGE:\n   ` + regexp.QuoteMeta(full) + `( |$)`).MatchString(out) {
			t.Errorf("%s --help: no usage line naming %q:\n%s", full, full, out)
		}
		_, section, ok := strings.Cut(out, "\nEXAMPLES:\n")
		runs := false
		for _, line := range strings.Split(section, "\n") {
			runs = runs || strings.HasPrefix(line, "   "+full+" ") || line == "   "+full
		}
		if !ok || !runs {
			t.Errorf("%s --help: no EXAMPLES section with an example that runs it:\n%s", full, out)
		}
	}
	for path, exs := range examples {
		if path != "" && findPath(app.Commands, strings.Fields(path)) == nil {
			t.Errorf("examples for %q, which is not a command", path)
		}
		for _, ex := range exs {
			for _, inv := range invocations(ex) {
				if err := checkInvocation(app, inv); err != "" {
					t.Errorf("example %q: %s", ex, err)
				}
			}
		}
	}
}

func findPath(cmds []*cli.Command, path []string) *cli.Command {
	var cmd *cli.Command
	for _, name := range path {
		if cmd = findCommand(cmds, name); cmd == nil {
			return nil
		}
		cmds = cmd.Subcommands
	}
	return cmd
}

// invocations splits a shell line into words, as far as the examples need
// (quotes, pipes, lists, redirections, $(...), comments), and returns the
// word lists of its agentmail commands, without the leading "agentmail".
func invocations(line string) [][]string {
	var words []string
	var word strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(line[i+1:], ch)
			word.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '#' && !inWord:
			i = len(line)
		case strings.IndexByte(" |&;<>()$", ch) >= 0:
			end()
			if ch != ' ' && ch != '$' {
				words = append(words, string(ch)) // a separator
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	end()
	var out [][]string
	for i := 0; i < len(words); i++ {
		if words[i] != "agentmail" {
			continue
		}
		j := i + 1
		for j < len(words) && !strings.Contains("|&;<>()", words[j]) {
			j++
		}
		out = append(out, words[i+1:j])
		i = j
	}
	return out
}

// checkInvocation says what is wrong with agentmail args, or "".
func checkInvocation(app *cli.App, args []string) string {
	flags, cmds, path := app.Flags, app.Commands, "agentmail"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "-") && a != "-": // "-" alone is standard input, an argument
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name != "help" && name != "h" && findFlag(flags, name) == nil {
				return path + " has no flag " + a
			}
			if takesValue(flags, a) && !hasValue {
				i++
			}
		case len(cmds) > 0:
			cmd := findCommand(cmds, a)
			if cmd == nil {
				return path + " has no command " + a
			}
			flags, cmds, path = cmd.Flags, cmd.Subcommands, path+" "+a
		}
	}
	if path == "agentmail" {
		return "runs no command"
	}
	return ""
}

// TestVersion: version and --version print the same, with the build
// information the go command recorded; --json as a document.
func TestVersion(t *testing.T) {
	code1, out1, _ := runCLI(t, "version")
	code2, out2, _ := runCLI(t, "--version")
	if code1 != 0 || code2 != 0 || out1 != out2 {
		t.Fatalf("version (exit %d) %q and --version (exit %d) %q differ", code1, out1, code2, out2)
	}
	for _, want := range []string{"agentmail ", "go         " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, "cgo        on", "sqlite_fts5"} {
		if !strings.Contains(out1, want) {
			t.Errorf("version output lacks %q:\n%s", want, out1)
		}
	}
	code, out, _ := runCLI(t, "version", "--json")
	var info buildInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil || code != 0 {
		t.Fatalf("version --json: exit %d, %v: %s", code, err, out)
	}
	if info.Go != runtime.Version() || !info.Cgo || !slices.Contains(info.Tags, "sqlite_fts5") || info.Module != "github.com/agentmail/agentmail" || info.Version == "" {
		t.Errorf("version --json: %+v", info)
	}
	for _, key := range []string{`"revision":`, `"time":`, `"modified":`, `"os":`, `"arch":`} {
		if !strings.Contains(out, key) {
			t.Errorf("version --json lacks %s:\n%s", key, out)
		}
	}
}
