package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentmail/agentmail/internal/names"
	"github.com/urfave/cli/v2"
)

// setupCommand readies cmd and its subcommands: the global flags, usage
// errors as one line each, and for a command that only groups others, an
// action that refuses unknown subcommands. Their help waits for setupHelp.
func (e *env) setupCommand(cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, globalFlags...)
	cmd.OnUsageError = e.usageError
	cmd.HideHelpCommand = true // "agentmail help CMD SUB" is the one help command
	if cmd.Action == nil {
		cmd.Action = e.group
		e.groups = append(e.groups, cmd)
	}
	for _, sub := range cmd.Subcommands {
		e.setupCommand(sub)
	}
}

// usageText is the USAGE section of a command's help: its full path, then
// [flags] and its arguments; a command with subcommands shows that form
// too, and a group of commands only that form.
func usageText(cmd *cli.Command, path string, group bool) string {
	full := "agentmail " + path
	var lines []string
	if !group {
		line := full + " [flags]"
		if args := strings.TrimSpace(cmd.ArgsUsage); args != "" {
			line += " " + args
		}
		lines = append(lines, line)
	}
	if len(cmd.Subcommands) > 0 {
		lines = append(lines, full+" COMMAND [flags] [ARGS...]")
	}
	return strings.Join(lines, "\n")
}

// commandLine is what a command line names before any "--": the chain
// of commands, the first word after them that is not a flag or a flag's
// value, and whether --help (or -h) is among the flags.
type commandLine struct {
	cmds []*cli.Command
	word string
	help bool
}

func parseCommandLine(app *cli.App, args []string) commandLine {
	var line commandLine
	flags, subs := app.Flags, app.Commands
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			line.help = line.help || a == "--help" || a == "-h" || a == "-help"
			if takesValue(flags, a) && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		if line.word != "" {
			continue
		}
		cmd := findCommand(subs, a)
		if cmd == nil {
			line.word = a
			continue
		}
		line.cmds = append(line.cmds, cmd)
		flags, subs = cmd.Flags, cmd.Subcommands
	}
	return line
}

// resolveCommandLine checks the commands args names before the parser
// sees them: a word where a subcommand belongs must be one (flags after it
// would otherwise be blamed). A line asking for --help becomes "agentmail
// help PATH...", the help of the command it names whatever follows.
func resolveCommandLine(app *cli.App, args []string) ([]string, error) {
	line := parseCommandLine(app, args)
	parent, subs := app.Name, app.Commands
	path := []string{args[0], "help"}
	for _, c := range line.cmds {
		parent, subs = parent+" "+c.Name, c.Subcommands
		path = append(path, c.Name)
	}
	if len(line.cmds) > 0 && line.cmds[0].Name == "help" && !line.help {
		return args, nil // its words are command names: it checks them
	}
	if line.word != "" && len(subs) > 0 {
		return nil, unknownIn(parent, subs, line.word)
	}
	if line.help {
		return path, nil
	}
	return args, nil
}

// isRoot reports whether c is the app's own context, before any command.
func isRoot(c *cli.Context) bool {
	return c.Command == nil || c.Command.HelpName == c.App.HelpName
}

// group is the action of the app and of the commands that only group
// others (lock, guard, ...). Without a subcommand it prints the help and
// exits 2, since nothing was done; with an unknown one it says so and
// names the close ones.
func (e *env) group(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.Args().First())
	}
	if isRoot(c) && c.Bool("version") {
		return e.printVersion(c)
	}
	if jsonOutput(c) {
		return usagef("see: "+c.Command.HelpName+" --help", "%s needs a command: %s",
			c.Command.HelpName, orList(commandNames(c.Command.Subcommands)))
	}
	e.setupHelp(c.App)
	if isRoot(c) {
		cli.ShowAppHelp(c)
	} else {
		cli.ShowSubcommandHelp(c)
	}
	return exitStatus(exitUsage)
}

// unknownCommand is the error for a word that is not one of the
// subcommands of c's command, naming the close ones.
func unknownCommand(c *cli.Context, word string) error {
	return unknownIn(c.Command.HelpName, c.Command.Subcommands, word)
}

// unknownIn is the error for word, which is none of cmds, the commands of
// parent (such as "agentmail lock").
func unknownIn(parent string, cmds []*cli.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q", word)
	if parent != "agentmail" {
		msg += " for " + parent
	}
	if close := names.Closest(word, commandNames(cmds), 3); len(close) > 0 {
		msg += " (did you mean " + orList(close) + "?)"
	}
	return usagef(parent+" --help lists the commands", "%s", msg)
}

// commandNames lists the names of the visible commands.
func commandNames(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return out
}

// orList joins words as "a, b or c".
func orList(words []string) string { return joinWords(words, "or") }

// andList joins words as "a, b and c".
func andList(words []string) string { return joinWords(words, "and") }

func joinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// The errors of the flag package, which urfave/cli passes on.
var (
	undefinedFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag provided but not defined: -(.+)$`) })
	badFlagValue  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)
	})
	flagNeedsArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^flag needs an argument: -(.+)$`) })
)

// usageError turns a flag parsing error into one line that names the flag
// as it was typed and says what was expected.
func (e *env) usageError(c *cli.Context, err error, _ bool) error {
	help := "see: " + c.Command.HelpName + " --help"
	msg := err.Error()
	if m := undefinedFlag().FindStringSubmatch(msg); m != nil {
		text := "unknown flag " + e.typedFlag(m[1])
		if close := closeFlags(c.Command.Flags, m[1]); len(close) > 0 {
			text += " (did you mean " + orList(close) + "?)"
		}
		return usagef(help, "%s", text)
	}
	if m := badFlagValue().FindStringSubmatch(msg); m != nil {
		value, _ := strconv.Unquote(m[1])
		what, try := expected(findFlag(c.Command.Flags, m[2]), help)
		if strings.Contains(m[3], "out of range") {
			return usagef(try, "%s: %q is out of range", e.typedFlag(m[2]), value)
		}
		return usagef(try, "%s: %q is not %s", e.typedFlag(m[2]), value, what)
	}
	if m := flagNeedsArg().FindStringSubmatch(msg); m != nil {
		what, try := expected(findFlag(c.Command.Flags, m[1]), help)
		return usagef(try, "%s needs a value: %s", e.typedFlag(m[1]), what)
	}
	return usagef(help, "%s", msg)
}

// typedFlag returns the flag called name as the user typed it (-ttl,
// --ttl), without any =value.
func (e *env) typedFlag(name string) string {
	for _, a := range e.args[min(1, len(e.args)):] {
		if a == "--" {
			break
		}
		if typed, _, _ := strings.Cut(a, "="); strings.HasPrefix(typed, "-") && strings.TrimLeft(typed, "-") == name {
			return typed
		}
	}
	return dashed(name)
}

// dashed writes a flag name as help shows it: -n, --limit.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// closeFlags returns the flags of a command that are close to name, dashed.
func closeFlags(flags []cli.Flag, name string) []string {
	var all []string
	for _, f := range flags {
		all = append(all, f.Names()...)
	}
	close := names.Closest(name, all, 3)
	for i, n := range close {
		close[i] = dashed(n)
	}
	return close
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// expected says what kind of value a flag takes, and what to try: an
// example when it knows one, else otherwise.
func expected(f cli.Flag, otherwise string) (what, try string) {
	switch f.(type) {
	case *cli.DurationFlag:
		return "a duration", "try 30m or 1h"
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return "a whole number", "try a number such as 10"
	case *cli.BoolFlag:
		return "true or false", "give the flag alone, or =true or =false"
	case *cli.Float64Flag:
		return "a number", "try a number such as 1.5"
	}
	return "a value", otherwise
}

// requireFlags returns a usage error naming those of the required flags
// that c's command line lacks, with an example that has them all.
func requireFlags(c *cli.Context, required ...string) error {
	var missing []string
	for _, name := range required {
		if !c.IsSet(name) {
			missing = append(missing, dashed(name))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	hint := "see: " + c.Command.HelpName + " --help"
	if ex := exampleWith(strings.TrimPrefix(c.Command.HelpName, "agentmail "), missing); ex != "" {
		hint = "e.g. " + ex
	}
	what := "flag"
	if len(missing) > 1 {
		what = "flags"
	}
	return usagef(hint, "missing required %s %s", what, andList(missing))
}
