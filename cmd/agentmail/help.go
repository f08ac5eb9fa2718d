package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// The help of every command: its full usage line, what it does, its
// subcommands and flags, then the examples of examples.go.
const commandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{wrap .UsageText 3}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandCategoryTemplate" .}}{{end}}{{if .VisibleFlags}}

FLAGS:{{template "visibleFlagTemplate" .}}{{end}}`

// The help of the app itself.
const appHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{.HelpName}} [global flags] COMMAND [flags] [ARGS...]{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}

COMMANDS:{{template "visibleCommandCategoryTemplate" .}}

GLOBAL FLAGS:{{template "visibleFlagTemplate" .}}`

// setupHelp gives the app and every command their usage lines and help
// templates, with their examples. Only a command line that prints help
// needs them: building them would be most of the cost of starting.
func (e *env) setupHelp(app *cli.App) {
	app.CustomAppHelpTemplate = helpTemplate(appHelpTemplate, "")
	var walk func(cmds []*cli.Command, parent string)
	walk = func(cmds []*cli.Command, parent string) {
		for _, c := range cmds {
			path := strings.TrimPrefix(parent+" "+c.Name, " ")
			if c.UsageText == "" {
				c.UsageText = usageText(c, path, slices.Contains(e.groups, c))
			}
			c.CustomHelpTemplate = helpTemplate(commandHelpTemplate, path)
			walk(c.Subcommands, path)
		}
	}
	walk(app.Commands, "")
}

// helpTemplate is base followed by the examples of the command at path
// ("" for the app), quoted so that nothing in them is read as a template.
func helpTemplate(base, path string) string {
	ex := examples[path]
	if len(ex) == 0 {
		return base + "\n"
	}
	section := "\n\nEXAMPLES:\n   " + strings.Join(ex, "\n   ") + "\n"
	return base + "{{" + strconv.Quote(section) + "}}"
}

// exampleWith returns the first example of the command at path that uses
// every one of flags, or "".
func exampleWith(path string, flags []string) string {
	for _, ex := range examples[path] {
		words := strings.Fields(ex)
		all := true
		for _, f := range flags {
			all = all && slices.Contains(words, f)
		}
		if all {
			return ex
		}
	}
	return ""
}

// helpCommand is "agentmail help [COMMAND [SUBCOMMAND]]": the same help as
// --help, found by name, with a "did you mean" for a name that is not there.
func helpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the help of agentmail or of one command",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			path := c.Args().Slice()
			parent, cmds := c.App.HelpName, c.App.Commands
			for _, word := range path {
				cmd := findCommand(cmds, word)
				if cmd == nil {
					return unknownIn(parent, cmds, word)
				}
				parent, cmds = parent+" "+word, cmd.Subcommands
			}
			if slices.Equal(path, []string{c.Command.Name}) {
				e.setupHelp(c.App)
				return cli.ShowSubcommandHelp(c) // urfave/cli shows the app's for "help --help"
			}
			e.setupHelp(c.App)
			args := append(append([]string{c.App.Name}, path...), "--help")
			return c.App.RunContext(c.Context, args)
		},
	}
}
