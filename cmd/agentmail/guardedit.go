package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func newGuardEditCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "edit",
		Usage:     "decide a coding agent's file edit before it is made (what the PreToolUse hook runs)",
		ArgsUsage: " ",
		Description: "Reads the JSON a pre-tool hook receives on standard input (Claude Code's PreToolUse, Gemini CLI's\n" +
			"BeforeTool: tool_name, tool_input, cwd). For Edit, Write, MultiEdit (tool_input.file_path) and\n" +
			"NotebookEdit (tool_input.notebook_path), Gemini CLI's write_file and replace (tool_input.file_path),\n" +
			"the file is checked like a staged path by guard check, in the store, project and mode guard install\n" +
			"recorded in the repository's hooks: when another agent holds it exclusively, it prints the client's\n" +
			"deny decision (Claude Code: hookSpecificOutput, permissionDecision \"deny\"; Gemini CLI: decision\n" +
			"\"deny\" and reason) with a reason naming the holder, the pattern, the expiry and the next steps. Everything else is\n" +
			"allowed without a word (exit 0, no output). A check that cannot be made denies in block mode and\n" +
			"is allowed in warn mode, as for commits; AGENTMAIL_BYPASS=1 skips it. The agent is AGENTMAIL_AGENT\n" +
			"(or --agent). --json prints the decision as agentmail's own document instead.\n\n" +
			"--auto-reserve (setup claude-code --hooks --auto-reserve): an allowed edit of a file nobody holds takes\n" +
			"an exclusive lease of it for the agent, marked auto, lasting " + service.AutoReserveTTL.String() + "; a further edit of a file the\n" +
			"agent holds that way renews it; guard session-end (the SessionEnd hook) releases them, else they\n" +
			"expire. A file another agent holds is denied as without it. A lease that cannot be taken (no agent\n" +
			"named, an unregistered one) is a check that cannot be made. Files that shell commands (Bash) write\n" +
			"cannot be read from the call reliably: they are not reserved or checked here; the commit guard\n" +
			"stops those at git commit.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "auto-reserve", Usage: "an allowed edit of a file nobody holds takes a short exclusive lease of it for the agent (renewed by further edits)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			sc, err := scopeOf(c)
			if err != nil {
				return err
			}
			req := service.GuardEditRequest{Store: global(c, "store"), Env: os.Getenv, AutoReserve: c.Bool("auto-reserve")}
			req.Now, req.EnvErr = clock()
			o := e.output(c)
			if req.Payload, err = io.ReadAll(e.stdin); err != nil {
				return err
			}
			resp, err := service.GuardEdit(c.Context, sc, req, e.service)
			if err != nil {
				return err
			}
			if o.JSON {
				return o.printJSON(resp)
			}
			return o.editDecision(resp)
		},
	}
}

func newGuardSessionEndCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "session-end",
		Usage:     "release the leases guard edit --auto-reserve took for the agent's session (what the SessionEnd hook runs)",
		ArgsUsage: " ",
		Description: "Reads the JSON a session-end hook receives on standard input (Claude Code's SessionEnd: session_id,\n" +
			"cwd, reason) and releases the agent's (AGENTMAIL_AGENT or --agent) active leases marked auto that guard\n" +
			"edit --auto-reserve took or renewed in that session, in the project of the repository around cwd, in\n" +
			"the store and project guard install recorded there. The agent's other leases stay. It prints what it\n" +
			"released on standard error (Claude Code shows a SessionEnd hook's output to no model); --json prints\n" +
			"the document on standard output.",
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			sc, err := scopeOf(c)
			if err != nil {
				return err
			}
			req := service.GuardSessionEndRequest{Store: global(c, "store"), Env: os.Getenv}
			o := e.output(c)
			if req.Payload, err = io.ReadAll(e.stdin); err != nil {
				return err
			}
			resp, err := service.GuardSessionEnd(c.Context, sc, req, e.service)
			if err != nil {
				return err
			}
			if o.JSON {
				return o.printJSON(resp)
			}
			for _, r := range mapSlice(resp.Released, o.esc.reservation) {
				fmt.Fprintf(o.Stderr, "released %s (taken on edit)\n", r.Pattern)
			}
			return nil
		},
	}
}

// claudeDecision is Claude Code's PreToolUse decision document.
type claudeDecision struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// geminiDecision is Gemini CLI's BeforeTool decision document: the
// reason is sent to the agent as the tool's error.
type geminiDecision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// editDecision writes a denial as Claude Code's PreToolUse decision (or,
// for a BeforeTool payload, Gemini CLI's) on
// standard output (exit 0, as its documentation asks for a JSON
// decision); an allowed call writes nothing there. In warn mode what
// would have been denied is said on standard error, which Claude Code
// keeps out of the model's context.
func (o output) editDecision(r service.GuardEditResponse) error {
	reason := editReason(r)
	if !r.Denied() {
		if reason != "" {
			fmt.Fprintf(o.Stderr, "agentmail guard: warning (warn mode: allowed): %s\n", reason)
		}
		return nil
	}
	var d any
	if r.Event == service.EventBeforeTool {
		d = geminiDecision{Decision: "deny", Reason: reason}
	} else {
		var c claudeDecision
		c.HookSpecificOutput.HookEventName = service.EventPreToolUse
		c.HookSpecificOutput.PermissionDecision = "deny"
		c.HookSpecificOutput.PermissionDecisionReason = reason
		d = c
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Stdout, "%s\n", b)
	return err
}

// editReason is what the agent is told of a denied edit (or, in warn
// mode, of one that would be): "" when there is nothing to say.
func editReason(r service.GuardEditResponse) string {
	if p := r.Paused; p != nil {
		s := fmt.Sprintf("agentmail: you (%s) are paused by %s", p.Agent, p.PauseBy)
		if p.PauseReason != "" {
			s += ": " + p.PauseReason
		}
		return s + ". Stop and wait to be resumed (agentmail wait returns when you are); agentmail check shows the pause."
	}
	if r.Unchecked != nil {
		s := "agentmail guard: cannot check the file reservations, so the edit is stopped (block mode): " + *r.Unchecked
		if r.Mode != "block" {
			s = "agentmail guard: cannot check the file reservations: " + *r.Unchecked
		}
		if h := uncheckedHint(r.UncheckedErr); h != "" {
			s += " (" + h + ")"
		}
		return s + ". A human may bypass the guard with AGENTMAIL_BYPASS=1 in the agent's environment."
	}
	if len(r.Conflicts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("agentmail guard: do not edit this file now: ")
	var holders, patterns []string
	for i, k := range r.Conflicts {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s is reserved exclusively by %s (pattern %s, expires %s, %s)",
			k.Path, k.Holder, k.Pattern, k.Expires.Time.UTC().Format("2006-01-02T15:04:05Z"), ago(k.Expires.Time, r.Now))
		if !slices.Contains(holders, k.Holder) {
			holders = append(holders, k.Holder)
		}
		if !slices.Contains(patterns, k.Pattern) {
			patterns = append(patterns, k.Pattern)
		}
	}
	b.WriteString(". Next steps: message the holder (")
	for i, h := range holders {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "agentmail send --to %s --subject %s --body 'what you need'", h, shellWord("Need "+strings.Join(patterns, ", ")))
	}
	b.WriteString("), work on something else (agentmail reserve OTHER_PATHS), or wait for the reply or the release (agentmail wait) and try the edit again.")
	return b.String()
}
