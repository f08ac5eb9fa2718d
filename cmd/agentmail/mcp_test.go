package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// mcpcall [--agent NAME] [--overseer] [--text] TOOL [ARGUMENTS] calls one
// tool of an `agentmail mcp` started for the call in the script's
// directory, as an MCP client does, with ARGUMENTS as a JSON object. The
// structured content goes to stdout as indented JSON (with --text, the
// text content instead); a tool error's text (the JSON error document) to
// stderr, and fails the command unless it is negated.
func cmdMCPCall(ts *testscript.TestScript, neg bool, args []string) {
	var flags []string
	text := false
	env := scriptEnv(ts)
	for len(args) > 0 && len(args[0]) > 2 && args[0][:2] == "--" {
		switch {
		case args[0] == "--agent" && len(args) > 1:
			env = append(env, "AGENTMAIL_AGENT="+args[1])
			args = args[2:]
		case args[0] == "--overseer":
			flags = append(flags, args[0])
			args = args[1:]
		case args[0] == "--text":
			text = true
			args = args[1:]
		default:
			ts.Fatalf("mcpcall: unknown flag %s", args[0])
		}
	}
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: mcpcall [--agent NAME] [--overseer] [--text] TOOL [ARGUMENTS]")
	}
	var arguments map[string]any
	if len(args) == 2 {
		ts.Check(json.Unmarshal([]byte(args[1]), &arguments))
	}
	for _, k := range []string{"AGENTMAIL_NOW", "AGENTMAIL_PROJECT"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(agentmailPath(ts), append([]string{"mcp"}, flags...)...)
	cmd.Dir, cmd.Env = ts.MkAbs("."), env
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "testscript", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	ts.Check(err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: args[0], Arguments: arguments})
	ts.Check(err)
	if res.IsError {
		fmt.Fprintln(ts.Stderr(), res.Content[0].(*mcp.TextContent).Text)
		if !neg {
			ts.Fatalf("mcpcall %s: a tool error", args[0])
		}
		return
	}
	if neg {
		ts.Fatalf("mcpcall %s succeeded, want a tool error", args[0])
	}
	if text {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintln(ts.Stdout(), t.Text)
			}
		}
		return
	}
	b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), string(b))
}
