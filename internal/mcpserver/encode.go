package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
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
// after the tool) marshalled by the SDK.
//
// The SDK then reads the result through twice more, compacting it once
// as it marshals the result and once as it marshals the JSON-RPC response
// around it: for fetch_inbox's 38 kB, eight times the work of writing
// it. Over standard input and output (ServeStdio) the result is therefore
// carried past the SDK: the SDK writes a short token in its place, and
// the writer of the output writes the result for the token (carrier).

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
		e := &encodedResult{CallToolResult: r, doc: doc, prose: second.Text}
		if c, ok := ctx.Value(carrierKey{}).(*carrier); ok {
			b, err := e.MarshalJSON()
			if err != nil {
				return nil, err
			}
			return &carriedResult{encodedResult: e, token: c.put(b)}, nil
		}
		return e, nil
	}
}

// carrierKey is the context key of the carrier of a session's results.
type carrierKey struct{}

// A carrier keeps the results written for a session's calls (encodedResult)
// until its output writes them in place of their tokens (expand). The
// result is compact JSON as the SDK would write it (encoding/json's, the
// texts escaped as the SDK escapes them, without HTML escapes), so that
// the bytes sent are the SDK's, byte for byte.
type carrier struct {
	mu      sync.Mutex
	next    uint64
	results map[uint64][]byte
}

// tokenPrefix begins a token: {"agentmail.result":N}, the result a
// session's output writes result N of its carrier for.
const tokenPrefix = `{"agentmail.result":`

// put keeps result and returns its token.
func (c *carrier) put(result []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	if c.results == nil {
		c.results = map[uint64][]byte{}
	}
	c.results[c.next] = result
	return append(strconv.AppendUint([]byte(tokenPrefix), c.next, 10), '}')
}

// expand returns msg, a JSON-RPC message as the SDK writes it (one line),
// with the result whose token it carries written in place of the token:
// a response ends with the result ({"jsonrpc","id","result"}, an error
// or a result omitted). msg is returned as it is when it carries no token
// of c's.
func (c *carrier) expand(msg []byte) []byte {
	const end = "}}\n"
	if !bytes.HasSuffix(msg, []byte(end)) {
		return msg
	}
	i := bytes.LastIndex(msg, []byte(`,"result":`+tokenPrefix))
	if i < 0 {
		return msg
	}
	digits := msg[i+len(`,"result":`+tokenPrefix) : len(msg)-len(end)]
	n, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return msg
	}
	c.mu.Lock()
	result, ok := c.results[n]
	delete(c.results, n)
	c.mu.Unlock()
	if !ok {
		return msg
	}
	at := i + len(`,"result":`)
	out := make([]byte, 0, at+len(result)+2)
	out = append(out, msg[:at]...)
	out = append(out, result...)
	return append(out, "}\n"...)
}

// carriedResult is an encodedResult carried past the SDK: it marshals as
// its token.
type carriedResult struct {
	*encodedResult
	token []byte
}

// MarshalJSON writes the token.
func (r *carriedResult) MarshalJSON() ([]byte, error) { return r.token, nil }

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
