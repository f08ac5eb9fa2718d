// A client of agentmail's MCP server that none of us wrote, mark3labs/mcp-go,
// in a module of its own so that agentmail does not depend on it:
// internal/mcpserver's TestMCPGoClient runs its test (go test here) with
// the agentmail binary to drive.
module agentmail.test/mcp-go

go 1.25.5

require github.com/mark3labs/mcp-go v1.2.1

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.14.0 // indirect
)
