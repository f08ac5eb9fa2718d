package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/urfave/cli/v2"
)

// The completion scripts are generated from the command tree, so they
// never fall behind it, and complete without running agentmail.

// shells are the shells agentmail completion writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

// compNode is one command of the tree as completion sees it.
type compNode struct {
	path  string // "agentmail lock acquire"
	cmds  []*cli.Command
	flags []compFlag
	args  []string // fixed choices for the positional arguments
}

type compFlag struct {
	names []string // without dashes; long names first
	value bool     // takes a value
	usage string
}

// dashedNames returns the flag's names as typed: --limit, -n.
func (f compFlag) dashedNames() []string {
	out := make([]string, len(f.names))
	for i, n := range f.names {
		out[i] = dashed(n)
	}
	return out
}

// completionTree walks the app's commands, the app itself first.
func completionTree(app *cli.App) []compNode {
	root := compNode{path: "agentmail", cmds: visible(app.Commands), flags: compFlags(app.Flags)}
	nodes := []compNode{root}
	var walk func(cmds []*cli.Command, parent string)
	walk = func(cmds []*cli.Command, parent string) {
		for _, c := range visible(cmds) {
			n := compNode{path: parent + " " + c.Name, cmds: visible(c.Subcommands), flags: compFlags(append(c.Flags, cli.HelpFlag))}
			switch n.path {
			case "agentmail completion":
				n.args = shells
			case "agentmail help":
				n.args = commandNames(app.Commands)
			case "agentmail policy":
				n.args = []string{"set"}
			}
			nodes = append(nodes, n)
			walk(c.Subcommands, n.path)
		}
	}
	walk(app.Commands, "agentmail")
	return nodes
}

func visible(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

func compFlags(flags []cli.Flag) []compFlag {
	var out []compFlag
	seen := map[string]bool{}
	for _, f := range flags {
		if seen[f.Names()[0]] {
			continue
		}
		seen[f.Names()[0]] = true
		cf := compFlag{names: f.Names()}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			cf.value, cf.usage = d.TakesValue(), strings.ReplaceAll(d.GetUsage(), "`", "")
		}
		out = append(out, cf)
	}
	return out
}

func (n compNode) commandNames() []string { return commandNames(n.cmds) }

func (n compNode) flagNames() []string {
	var out []string
	for _, f := range n.flags {
		out = append(out, f.dashedNames()...)
	}
	return out
}

func (n compNode) valueFlags() []string {
	var out []string
	for _, f := range n.flags {
		if f.value {
			out = append(out, f.dashedNames()...)
		}
	}
	return out
}

func completionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "The script completes commands, subcommands and flags, and file names where a command takes\n" +
			"paths. Load it into the current shell, or install it where the shell looks for completions.",
		Action: func(c *cli.Context) error {
			shell, err := oneArg(c, "bash|zsh|fish")
			if err != nil {
				return err
			}
			write, ok := completionWriters[shell]
			if !ok {
				msg := fmt.Sprintf("unknown shell %q", shell)
				if close := names.Closest(shell, shells, 1); len(close) > 0 {
					msg += " (did you mean " + close[0] + "?)"
				}
				return usagef("agentmail completion writes scripts for bash, zsh and fish", "%s", msg)
			}
			nodes := completionTree(c.App)
			return e.output(c).buffered(func(w io.Writer) { write(w, nodes) })
		},
	}
}

// completionWriters write the script of each shell.
var completionWriters = map[string]func(io.Writer, []compNode){
	"bash": writeBash,
	"zsh":  writeZsh,
	"fish": writeFish,
}

// shellCase writes one arm of a POSIX-style case statement per node,
// skipping the nodes for which body is empty.
func shellCase(w io.Writer, nodes []compNode, body func(compNode) string) {
	for _, n := range nodes {
		if b := body(n); b != "" {
			fmt.Fprintf(w, "    %q) %s ;;\n", n.path, b)
		}
	}
}

// bashWords is a list of words for compgen -W: plain words, no quoting needed.
func bashWords(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return "echo " + strings.Join(words, " ")
}

func writeBash(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `# bash completion for agentmail, written by: agentmail completion bash
# Load it into this shell:  source <(agentmail completion bash)
# or for every new shell:   agentmail completion bash > ~/.local/share/bash-completion/completions/agentmail

_agentmail_commands() {
    case "$1" in
`)
	shellCase(w, nodes, func(n compNode) string { return bashWords(append(n.commandNames(), n.args...)) })
	fmt.Fprint(w, `    esac
}

_agentmail_flags() {
    case "$1" in
`)
	shellCase(w, nodes, func(n compNode) string { return bashWords(n.flagNames()) })
	fmt.Fprint(w, `    esac
}

# The flags that take a value: the word after one is that value.
_agentmail_values() {
    case "$1" in
`)
	shellCase(w, nodes, func(n compNode) string { return bashWords(n.valueFlags()) })
	fmt.Fprint(w, `    esac
}

_agentmail() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local path=agentmail word i skip=
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if [[ -n $skip ]]; then
            skip=
            continue
        fi
        case "$word" in
        --) return 0 ;; # the rest is another command's (lock run): file names
        -*)
            [[ " $(_agentmail_values "$path") " == *" $word "* ]] && skip=1
            continue
            ;;
        esac
        [[ " $(_agentmail_commands "$path") " == *" $word "* ]] && path="$path $word"
    done
    if [[ $prev == -* && " $(_agentmail_values "$path") " == *" $prev "* ]]; then
        return 0 # a flag's value: file names
    fi
    local words
    if [[ $cur == -* ]]; then
        words=$(_agentmail_flags "$path")
    else
        words=$(_agentmail_commands "$path")
    fi
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

complete -o default -F _agentmail agentmail
`)
}

// zshQuote quotes s for zsh (and fish, which reads the same single quotes
// except for backslashes, escaped by fishQuote).
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// described is name:description, for _describe; colons in the name are
// escaped.
func described(name, usage string) string {
	return zshQuote(strings.ReplaceAll(name, ":", `\:`) + ":" + oneLine(usage))
}

// oneLine is the first line of s.
func oneLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func writeZsh(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `#compdef agentmail
# zsh completion for agentmail, written by: agentmail completion zsh
# Load it into this shell:  source <(agentmail completion zsh)
# or for every new shell:   agentmail completion zsh > "${fpath[1]}/_agentmail"

# _agentmail_node PATH sets the subcommands, flags, flags taking a value and
# argument choices of the command PATH.
_agentmail_node() {
    am_cmds=() am_flags=() am_values=() am_args=()
    case "$1" in
`)
	for _, n := range nodes {
		fmt.Fprintf(w, "    %q)\n", n.path)
		var cmds, flags []string
		for _, c := range n.cmds {
			cmds = append(cmds, described(c.Name, c.Usage))
		}
		for _, f := range n.flags {
			for _, name := range f.dashedNames() {
				flags = append(flags, described(name, f.usage))
			}
		}
		zshArray(w, "am_cmds", cmds)
		zshArray(w, "am_flags", flags)
		zshArray(w, "am_values", n.valueFlags())
		zshArray(w, "am_args", n.args)
		fmt.Fprint(w, "        ;;\n")
	}
	fmt.Fprint(w, `    esac
}

_agentmail() {
    local am_path=agentmail word i skip=0
    local -a am_cmds am_flags am_values am_args am_names
    for ((i = 2; i < CURRENT; i++)); do
        word=${words[i]}
        if (( skip )); then
            skip=0
            continue
        fi
        _agentmail_node "$am_path"
        case $word in
        (--) _files; return ;;
        (-*) (( ${am_values[(Ie)$word]} )) && skip=1; continue ;;
        esac
        am_names=(${am_cmds%%:*})
        (( ${am_names[(Ie)$word]} )) && am_path="$am_path $word"
    done
    _agentmail_node "$am_path"
    if (( ${am_values[(Ie)${words[CURRENT-1]}]} )); then
        _files
    elif [[ ${words[CURRENT]} == -* ]]; then
        _describe -t flags 'flag' am_flags
    elif (( ${#am_cmds} )); then
        _describe -t commands 'command' am_cmds
    elif (( ${#am_args} )); then
        compadd -a am_args
    else
        _files
    fi
}

if [ "$funcstack[1]" = "_agentmail" ]; then
    _agentmail "$@"
else
    compdef _agentmail agentmail
fi
`)
}

func zshArray(w io.Writer, name string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "        %s=(\n", name)
	for _, it := range items {
		if !strings.HasPrefix(it, "'") {
			it = zshQuote(it)
		}
		fmt.Fprintf(w, "            %s\n", it)
	}
	fmt.Fprint(w, "        )\n")
}

// fishQuote quotes s for fish, whose single quotes take \' and \\.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer, nodes []compNode) {
	fmt.Fprint(w, `# fish completion for agentmail, written by: agentmail completion fish
# Load it into this shell:  agentmail completion fish | source
# or for every new shell:   agentmail completion fish > ~/.config/fish/completions/agentmail.fish

function __agentmail_commands
    switch $argv[1]
`)
	fishSwitch(w, nodes, func(n compNode) []string { return append(n.commandNames(), n.args...) })
	fmt.Fprint(w, `    end
end

# The flags that take a value: the word after one is that value.
function __agentmail_values
    switch $argv[1]
`)
	fishSwitch(w, nodes, compNode.valueFlags)
	fmt.Fprint(w, `    end
end

# __agentmail_path prints the command the line names so far: "agentmail lock acquire".
function __agentmail_path
    set -l path agentmail
    set -l skip 0
    set -l tokens (commandline -opc)
    set -e tokens[1]
    for word in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $word
            case --
                echo "$path --"
                return
            case '-*'
                contains -- $word (__agentmail_values $path); and set skip 1
                continue
        end
        contains -- $word (__agentmail_commands $path); and set path "$path $word"
    end
    echo $path
end

function __agentmail_at
    test (__agentmail_path) = "$argv[1]"
end

`)
	for _, n := range nodes {
		cond := fishQuote("__agentmail_at " + fishQuote(n.path))
		for _, c := range n.cmds {
			fmt.Fprintf(w, "complete -c agentmail -n %s -f -a %s -d %s\n", cond, fishQuote(c.Name), fishQuote(oneLine(c.Usage)))
		}
		for _, a := range n.args {
			fmt.Fprintf(w, "complete -c agentmail -n %s -f -a %s\n", cond, fishQuote(a))
		}
		for _, f := range n.flags {
			opts := ""
			for _, name := range f.names {
				if len(name) == 1 {
					opts += " -s " + name
				} else {
					opts += " -l " + name
				}
			}
			if f.value {
				opts += " -r"
			}
			fmt.Fprintf(w, "complete -c agentmail -n %s%s -d %s\n", cond, opts, fishQuote(oneLine(f.usage)))
		}
	}
}

func fishSwitch(w io.Writer, nodes []compNode, words func(compNode) []string) {
	for _, n := range nodes {
		if ws := words(n); len(ws) > 0 {
			fmt.Fprintf(w, "        case %s\n            printf '%%s\\n' %s\n", fishQuote(n.path), strings.Join(ws, " "))
		}
	}
}
