// Package parity holds the face-parity suite (issue 26): each operation
// that more than one face offers — the command line's --json, the MCP
// tools over stdio and serve's JSON API — run through each face on the
// same store gives the same document, modulo the face's envelope, and for
// bad input the same error code and field. The faces are driven as their
// users drive them: the real binary, the MCP server over the wire, the
// HTTP API over a real socket. It has no code of its own.
package parity
