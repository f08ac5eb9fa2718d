package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

// bareWait gives a --wait with no duration after it (send --wait) the
// default value, so that the flag can be used bare as the README shows.
func bareWait(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--wait" || a == "-wait" {
			if i+1 >= len(args) || !isDuration(args[i+1]) {
				a = "--wait=" + service.DefaultReplyWait.String()
			}
		}
		out = append(out, a)
	}
	return out
}

func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

// reorderArgs moves flags that follow positional arguments in front of them,
// so that `agentmail show ID --json` works like `agentmail show --json ID`.
// A single-dash word that is not one of the command's flags is an argument
// (`agentmail search deploy -draft`). Everything after "--" is left alone.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	flags := app.Flags
	cmds := app.Commands
	i := 1
	// Walk the command path, carrying global flags given before it.
	for i < len(args) && args[i] != "--" {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			out = append(out, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		out = append(out, a)
		flags, cmds = cmd.Flags, cmd.Subcommands
		i++
	}
	var rest []string
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(append(append(out, "--"), rest...), args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-" && (strings.HasPrefix(a, "--") || isFlag(flags, a)):
			out = append(out, a)
			if takesValue(flags, a) && !strings.Contains(a, "=") {
				if i+1 >= len(args) {
					return out // a value is missing: the flag is last, for the parser to say so
				}
				out = append(out, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) > 0 {
		out = append(append(out, "--"), rest...)
	}
	return out
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func isFlag(flags []cli.Flag, arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// noArgs refuses arguments; to a command that has subcommands, an argument
// is an unknown subcommand.
func noArgs(c *cli.Context) error {
	if !c.Args().Present() {
		return nil
	}
	if len(c.Command.Subcommands) > 0 {
		return unknownCommand(c, c.Args().First())
	}
	return usagef("see: "+c.Command.HelpName+" --help", "unexpected argument %q", c.Args().First())
}

func oneArg(c *cli.Context, what string) (string, error) {
	if c.Args().Len() != 1 {
		return "", usagef("usage: "+c.Command.HelpName+" "+what, "expected one %s, got %s", what, count(c.Args().Len(), "argument", "arguments"))
	}
	return c.Args().First(), nil
}
