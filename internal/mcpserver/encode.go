package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool's document goes out twice, as the specification asks of a tool
// with structured content: as the structured content, and as JSON in the
// first text. The SDK writes a result by marshalling it, with each text
// marshalled by itself and every part compacted again by the marshal
// around it: the document was read or written eight times over, and
// fetch_inbox took twice as long as with a short text. A tool's result
// is therefore written here, once, from the document marshalled once
// (register): the structured content as it is, the text escaped in one
// pass, the rest of the result (its _meta, and what the SDK adds to it
// after the tool) marshalled by the SDK. The SDK still compacts the
// result as it writes the JSON-RPC response.

// encodedResult is a successful tool result whose document, doc, is both
// its structured content and its first text.
type encodedResult struct {
	*mcp.CallToolResult
	doc   []byte
	prose string // the second text, for the model
}

// encodeResults is the receiving middleware that writes the results of
// register's tools as encodedResult.
func encodeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || r.IsError || len(r.Content) != 2 {
			return res, err
		}
		doc, ok := r.StructuredContent.(json.RawMessage)
		first, ok1 := r.Content[0].(*mcp.TextContent)
		second, ok2 := r.Content[1].(*mcp.TextContent)
		if !ok || !ok1 || !ok2 || len(first.Text) != len(doc) || first.Meta != nil || first.Annotations != nil || second.Meta != nil || second.Annotations != nil {
			return res, err
		}
		return &encodedResult{CallToolResult: r, doc: doc, prose: second.Text}, nil
	}
}

// MarshalJSON writes the result: the SDK's marshalling of all but the
// content and the structured content, which are written in.
func (e *encodedResult) MarshalJSON() ([]byte, error) {
	rest := *e.CallToolResult
	rest.Content, rest.StructuredContent = nil, nil
	shell, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	const empty = `"content":null`
	i := bytes.Index(shell, []byte(empty))
	if i < 0 || shell[len(shell)-1] != '}' {
		return json.Marshal(e.CallToolResult) // not the shape expected: the SDK's way
	}
	out := make([]byte, 0, len(shell)+2*len(e.doc)+len(e.doc)/4+len(e.prose)+96)
	out = append(out, shell[:i]...)
	out = append(out, `"content":[{"type":"text","text":`...)
	out = appendString(out, e.doc)
	out = append(out, `},{"type":"text","text":`...)
	out = appendString(out, []byte(e.prose))
	out = append(out, `}]`...)
	out = append(out, shell[i+len(empty):len(shell)-1]...)
	out = append(out, `,"structuredContent":`...)
	out = append(out, e.doc...)
	return append(out, '}'), nil
}

// appendString appends s as a JSON string. Valid UTF-8 is written as it
// is but for the quote, the backslash and control characters; anything
// else is left to encoding/json.
func appendString(out, s []byte) []byte {
	if !utf8.Valid(s) {
		b, _ := json.Marshal(string(s))
		return append(out, b...)
	}
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
