package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionDrivers run a completion script in its shell: the script's
// path, then one command line per argument (a trailing space starts a new
// word); each prints the completions of one line, space-separated. zsh's
// completion system needs a terminal, so its driver stands in for the
// three functions the script calls, filtering by the word's prefix as
// zsh would.
var completionDrivers = map[string][]string{
	"bash": {"bash", "-c", `source "$1"; shift
for line; do
    read -ra COMP_WORDS <<< "$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMPREPLY=()
    _agentmail
    echo "${COMPREPLY[*]}"
done`, "driver"},
	"zsh": {"zsh", "-c", `compdef() { : }
_describe() { local x; local -a out; for x in ${(P)4}; do x=${x%%:*}; [[ $x == ${words[CURRENT]}* ]] && out+=$x; done; print -r -- $out }
compadd() { local x; local -a out; for x in ${(P)2}; do [[ $x == ${words[CURRENT]}* ]] && out+=$x; done; print -r -- $out }
_files() { print }
source "$1"; shift
for line; do
    words=(${(z)line})
    [[ $line == *" " ]] && words+=('')
    CURRENT=${#words}
    _agentmail
done`, "driver"},
	"fish": {"fish", "-c", `source $argv[1]
for line in $argv[2..-1]
    echo (complete -C"$line" | string replace -r '\t.*' '' | string join ' ')
end`},
}

// TestCompletionScripts: each script names every command, subcommand and
// flag; where its shell is installed, it parses and completes commands,
// subcommands, flags and fixed arguments, skipping flag values.
func TestCompletionScripts(t *testing.T) {
	nodes := completionTree(newApp(&env{}))
	cases := []struct{ line, want string }{
		{"agentmail lock a", "acquire"},
		{"agentmail --agent lock l", "lock"}, // lock is --agent's value: still at the top
		{"agentmail reserve --t", "--ttl"},
		{"agentmail lock acquire --ttl 5m --w", "--wait"},
		{"agentmail guard check --h", "--help --hook"},
		{"agentmail completion ", "bash fish zsh"},
		{"agentmail send --to ", ""}, // a value: no commands or flags
	}
	for _, shell := range shells {
		t.Run(shell, func(t *testing.T) {
			code, script, stderr := runCLI(t, "completion", shell)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, n := range nodes {
				for _, word := range append(n.commandNames(), n.flagNames()...) {
					if shell == "fish" { // complete -l ttl -s n
						word = strings.TrimLeft(word, "-")
					}
					if !strings.Contains(script, word) {
						t.Errorf("the script does not name %s of %s", word, n.path)
					}
				}
			}
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not installed: the script was not run", shell)
			}
			dir := t.TempDir() // empty: no file names to complete
			file := filepath.Join(t.TempDir(), "agentmail."+shell)
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			syntax := map[string]string{"bash": "-n", "zsh": "-n", "fish": "--no-execute"}[shell]
			if out, err := exec.Command(shell, syntax, file).CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", shell, syntax, err, out)
			}
			driver := completionDrivers[shell]
			args := append(slices.Clone(driver), file)
			for _, c := range cases {
				args = append(args, c.line)
			}
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(got) != len(cases) {
				t.Fatalf("%d lines of completions for %d cases:\n%s", len(got), len(cases), out)
			}
			for i, c := range cases {
				words := strings.Fields(got[i])
				slices.Sort(words)
				if strings.Join(words, " ") != c.want {
					t.Errorf("%q completes to %q, want %q", c.line, got[i], c.want)
				}
			}
		})
	}
}
