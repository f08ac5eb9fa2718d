package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

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
// type it cannot describe is a programming error. The schema is written
// for the clients that read a `type` as one string (see portable): input
// says whether it describes arguments.
func schemaFor[T any](input bool) *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", reflect.TypeFor[T](), err))
	}
	s = s.CloneSchemas() // the option's schemas are shared
	portable(s, input)
	return s
}

// portable rewrites every type list of s (["null","integer"], which many
// clients and MCP Inspector's schema checks cannot read) as one type: an
// argument that may be null is an optional one of its type (a null
// argument is taken as left out, see decodeArgs); elsewhere the types
// become anyOf branches of one type each.
func portable(s *jsonschema.Schema, input bool) {
	if s == nil {
		return
	}
	if len(s.Types) > 1 {
		types := s.Types
		if input {
			types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
		}
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else if s.AnyOf == nil {
			s.Types = nil
			for _, t := range types {
				s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
			}
		}
	}
	for _, sub := range s.Properties {
		portable(sub, input)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, sub := range list {
			portable(sub, input)
		}
	}
	for _, defs := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions} {
		for _, sub := range defs {
			portable(sub, input)
		}
	}
	portable(s.Items, input)
	portable(s.AdditionalProperties, input)
}

// outline cuts a document's schema to its outline, the output schema a
// tool is listed with: every field of the document with its type and
// whether it is required, and of a field that is an object, or a list of
// objects, only that (its own fields are left open). The whole schemas
// repeated every document a tool's document holds (a macro's holds those
// of four tools, fetch_inbox's its messages three times in two shapes):
// they were two thirds of tools/list, 178 of 286 KB, for what a client
// checks a result by and a model never reads. A looser schema still
// validates every result; docs/mcp-tools.md describes the documents, and
// the tests check every document they see against the whole schema
// (listedTool.document).
func outline(s *jsonschema.Schema) *jsonschema.Schema {
	for _, p := range s.Properties {
		open(p)
	}
	return s
}

// open leaves the fields of the object that s describes (or of the
// objects of a list, or of one branch of an anyOf) unspecified.
func open(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil {
		s.Properties, s.Required, s.AdditionalProperties = nil, nil, nil
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Properties != nil {
		s.AdditionalProperties = nil
	}
	open(s.Items)
	for _, b := range s.AnyOf {
		open(b)
	}
}

// tool describes a tool: its name and what it does, for the model.
type tool struct {
	name, desc string
	readOnly   bool // changes nothing
}

// addTool registers a tool whose handler runs on the server's service (see
// Server.do).
// The handler's document is the structured content, and the first text
// as JSON; text renders it for the model, as the second; an error becomes a tool error carrying its JSON document, and
// the agent a successful call acted as becomes the session's when it has
// none.
func addTool[In, Out any](s *Server, t tool, text func(Out) string, h func(ctx context.Context, c *call, in In) (Out, error)) {
	register(s, t, text, func(ctx context.Context, req *mcp.CallToolRequest, in In) (out Out, err error) {
		err = s.do(func(svc *service.Service) error {
			c := &call{s: s, svc: svc, token: callToken(req)}
			if out, err = h(ctx, c, in); err == nil {
				s.bind(c.bindable())
			}
			return err
		})
		return out, err
	})
}

// defaulted is the arguments of a tool some of which have a default:
// argDefaults gives them by argument name, as the argument's JSON value,
// from the one definition the service's requests own
// (service.DefaultReserveTTL, ...).
type defaulted interface{ argDefaults() map[string]any }

// showDefaults puts the defaults of In's arguments in their schema: as
// "default", and at the end of the description, which is what most models
// read.
func showDefaults[In any](tool string, in *jsonschema.Schema) {
	d, ok := any(*new(In)).(defaulted)
	if !ok {
		return
	}
	for name, v := range d.argDefaults() {
		p := in.Properties[name]
		b, err := json.Marshal(v)
		if p == nil || err != nil {
			panic(fmt.Sprintf("mcpserver: %s has no argument %s to default (%v)", tool, name, err))
		}
		p.Default = b
		p.Description += fmt.Sprintf("; default %s", b)
	}
}

// secondsOf is d as a tool's argument in seconds.
func secondsOf(d time.Duration) int { return int(d / time.Second) }

// beforeCall, when set (by a test), is called with a tool's name before
// its handler runs: a test makes a call panic with it.
var beforeCall func(tool string)

// register registers a tool whose handler calls Server.do (or unlocked) itself,
// if at all.
//
// It does what the SDK's typed mcp.AddTool does, but for the output: the
// arguments are validated against the input schema and decoded, and the
// document is the structured content as it is, marshalled once, by the
// SDK, along with the rest of the result: without the SDK's round trip
// through a map to validate it against the output schema (the schema is
// inferred from the document's own type, and the tests check every
// document they see against it), which on a list of twenty messages cost
// more than the operation, and without marshalling it first ourselves,
// which the SDK would then copy and compact.
func register[In, Out any](s *Server, t tool, text func(Out) string, h func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error)) {
	if !inProfile(s.cfg.Tools, t.name) {
		return
	}
	in := schemaFor[In](true)
	showDefaults[In](t.name, in)
	args, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %s: %v", t.name, err))
	}
	shape := argShape(t.name, in)
	mt := &mcp.Tool{
		Name:         t.name,
		Description:  t.desc,
		InputSchema:  in,
		OutputSchema: outline(schemaFor[Out](false)),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, OpenWorldHint: new(bool)},
	}
	s.tools = append(s.tools, listedTool{mt, s.cluster, t.readOnly, func() *jsonschema.Schema { return schemaFor[Out](false) }})
	s.mcp.AddTool(mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if beforeCall != nil {
			beforeCall(t.name)
		}
		var res mcp.CallToolResult
		in, err := decodeArgs[In](req.Params.Arguments, args, shape)
		if err != nil {
			res.SetError(err)
			return &res, nil
		}
		ctx, cancel := s.callContext(ctx, req)
		defer cancel()
		out, err := h(ctx, req, in)
		s.usage.note(t.name, s.sessionAgent(), err != nil)
		if err != nil {
			res.SetError(failure(err))
			return &res, nil
		}
		// The document is marshalled once, for the structured content and
		// for the first text, which carries it as JSON (as the
		// specification asks of a tool with structured content, and as
		// scripts reading content[0].text expect); the text for the model
		// follows.
		doc, err := json.Marshal(out)
		if err != nil {
			res.SetError(failure(err))
			return &res, nil
		}
		res.StructuredContent = json.RawMessage(doc)
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(doc)}, &mcp.TextContent{Text: text(out)}}
		return &res, nil
	})
}

// decodeArgs validates a call's arguments against the tool's input schema
// and decodes them. Arguments that do not fit fail as every other failure
// does, with the JSON error document (INVALID_ARGUMENT). Before that, the
// arguments are taken as models send them (shape.loosen): a null is an
// argument left out, a number or a boolean may come as a string, and a
// list as a string of JSON; and an argument the tool does not take is
// named with the one meant, when it is a known other spelling of it.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved, shape *argsShape) (In, error) {
	var in In
	fields := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return in, badArguments(fmt.Errorf("the arguments are not a JSON object: %w", err))
		}
	}
	if err := checkFormat(fields["format"]); err != nil {
		return in, failure(err)
	}
	changed, err := shape.loosen(fields)
	if err != nil {
		return in, err
	}
	if err := schema.Validate(fields); err != nil {
		return in, badArguments(err)
	}
	if changed {
		if raw, err = json.Marshal(fields); err != nil {
			return in, badArguments(err)
		}
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return in, badArguments(err)
		}
	}
	return in, nil
}

// badArguments is the tool error of arguments that do not fit the schema.
func badArguments(err error) error {
	return &toolError{doc: ErrorDoc{Type: "INVALID_ARGUMENT", ErrorDoc: service.ErrorDoc{Code: "INVALID_ARGUMENT", Message: "arguments: " + err.Error(),
		Hint: "pass the arguments the tool's input schema declares, with their types (tools/list shows it)"}},
		err: fmt.Errorf("%w: %v", service.ErrInvalidArgument, err)}
}
