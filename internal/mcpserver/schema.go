package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names is a list of agent names that also takes one name as a bare
// string, as mcp_agent_mail's to, cc and bcc do.
type Names []string

// UnmarshalJSON reads a list of names, or one name.
func (n *Names) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*n = Names{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("want a name or a list of names: %w", err)
	}
	*n = list
	return nil
}

// schemaOptions infer the schemas of the tools' arguments and documents:
// a document's time is an RFC 3339 string or null, and Names is a string
// or a list of them.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[service.Time](): {Types: []string{"null", "string"}, Format: "date-time"},
	reflect.TypeFor[Names](): {AnyOf: []*jsonschema.Schema{
		{Type: "string"},
		{Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}},
}}

// schemaFor infers the schema of T; the types are the package's own, so a
// type it cannot describe is a programming error.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", reflect.TypeFor[T](), err))
	}
	return s
}

// tool describes a tool: its name and what it does, for the model.
type tool struct {
	name, desc string
	readOnly   bool // changes nothing
}

// addTool registers a tool whose handler runs holding the server's lock.
// The handler's document is the structured content, text renders it for
// the model; an error becomes a tool error carrying its JSON document, and
// the agent a successful call acted as becomes the session's when it has
// none.
func addTool[In, Out any](s *Server, t tool, text func(Out) string, h func(ctx context.Context, c *call, in In) (Out, error)) {
	register(s, t, text, func(ctx context.Context, req *mcp.CallToolRequest, in In) (out Out, err error) {
		err = s.locked(func(*service.Service) error {
			c := &call{s: s}
			if out, err = h(ctx, c, in); err == nil {
				s.bind(c.agent)
			}
			return err
		})
		return out, err
	})
}

// register registers a tool whose handler takes the server's lock itself,
// if at all.
func register[In, Out any](s *Server, t tool, text func(Out) string, h func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error)) {
	mt := &mcp.Tool{
		Name:         t.name,
		Description:  t.desc,
		InputSchema:  schemaFor[In](),
		OutputSchema: schemaFor[Out](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly},
	}
	mcp.AddTool(s.mcp, mt, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := h(ctx, req, in)
		if err != nil {
			var zero Out
			return nil, zero, failure(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text(out)}}}, out, nil
	})
}
