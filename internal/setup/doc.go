// Package setup adds the agentmail MCP server (agentmail mcp) to the
// configuration of a coding agent, and takes it out again.
//
// # Where each client keeps its MCP servers
//
// Checked against each client's documentation (and source, where noted),
// November 2026:
//
//	client       project scope                  user scope (--user)                          format
//	claude-code  .mcp.json                      ~/.claude.json                               JSON, "mcpServers"
//	codex        .codex/config.toml             $CODEX_HOME/config.toml (~/.codex)           TOML, [mcp_servers.NAME]
//	cursor       .cursor/mcp.json               ~/.cursor/mcp.json                           JSON, "mcpServers"
//	gemini       .gemini/settings.json          ~/.gemini/settings.json                      JSON with comments, "mcpServers"
//	opencode     opencode.jsonc, opencode.json  $XDG_CONFIG_HOME/opencode/opencode.json(c)  JSONC, "mcp"
//
// In detail, with the sources:
//
//   - Claude Code (code.claude.com/docs/en/mcp): `claude mcp add --scope
//     project` writes .mcp.json at the project root, `--scope user` the
//     top-level "mcpServers" of ~/.claude.json; an entry is {"type": "stdio",
//     "command", "args", "env"}. Claude Code asks before it starts a server
//     of a project's .mcp.json. Hooks (code.claude.com/docs/en/hooks) live in
//     .claude/settings.json and ~/.claude/settings.json under
//     "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
//     "command"}]}]}; what a UserPromptSubmit hook prints on exit 0 is added
//     to the model's context, exit 2 would block the prompt. These files are
//     read as plain JSON: a comment or a trailing comma breaks them.
//   - Codex (developers.openai.com/codex/config-basic, codex-rs config
//     loader): [mcp_servers.NAME] tables with command, args, env in
//     ~/.codex/config.toml ($CODEX_HOME), and in a project's
//     .codex/config.toml, which Codex reads only for a project the user
//     trusts ([projects."PATH"] trust_level = "trusted").
//   - Cursor (cursor.com/docs/mcp): .cursor/mcp.json in the project,
//     ~/.cursor/mcp.json for every project; "mcpServers" entries with
//     command, args, env. Plain JSON: a trailing comma is reported as an
//     error (upstash/context7#563).
//   - Gemini CLI (geminicli.com/docs/cli/configuration,
//     docs/tools/mcp-server.md): .gemini/settings.json in the project,
//     ~/.gemini/settings.json for the user; "mcpServers" entries with
//     command, args, env. The loader strips comments (strip-json-comments)
//     before JSON.parse, so comments are allowed, trailing commas are not.
//     Hooks (geminicli.com/docs/hooks/reference) live in the same file under
//     "hooks": {"BeforeTool": [{"matcher": "write_file|replace", "hooks":
//     [{"type": "command", "command"}]}]}; a BeforeTool hook denies the call
//     with {"decision": "deny", "reason"} on stdout, exit 0 (the reason
//     goes to the model as the tool's error). Gemini CLI parses a hook's
//     stdout as JSON, so no prompt hook printing text is added. Hooks run
//     once the hooks system is enabled (tools.enableHooks, /settings).
//   - opencode (opencode.ai/docs/config, opencode.ai/docs/mcp-servers):
//     opencode.json or opencode.jsonc at the project root,
//     ~/.config/opencode/opencode.json for the user; JSONC (comments and
//     trailing commas); "mcp": {"NAME": {"type": "local", "command":
//     [argv...], "enabled": true, "environment": {...}}}.
//
// # How files are edited
//
// A file is parsed by a real parser that keeps every byte (hujson for JSON
// and JSONC, go-toml's parser for TOML, which reports where each
// expression is), and setup's entry is spliced into the original text:
// every other entry, key, comment and blank line stays as it was, and the
// new entry follows the file's indentation. What an edit produces is parsed
// again, and written only if the client can read it and it holds exactly
// the entry setup meant (or, on uninstall, none). A file that does not
// parse is refused with its line and column, and left alone.
//
// Setting up twice changes nothing. An agentmail entry that differs from
// the one setup would write is left alone unless Options.Force.
//
// To uninstall exactly, setup keeps a small record per file it changed
// (in Options.StateDir): the one stretch of the original that the change
// replaced, and a digest of what it wrote. While the file is as setup left
// it, uninstall writes the original bytes back (and removes a file, and
// the directories, that setup created); once anything else has changed it,
// uninstall takes out agentmail's entries alone, keeping that change.
package setup
