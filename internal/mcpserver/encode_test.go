package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A result written once (encodedResult) is the result the SDK writes,
// whatever its texts hold: quotes, backslashes, control characters,
// markup, non-ASCII, invalid UTF-8; with _meta and without.
func TestEncodedResult(t *testing.T) {
	docs := []any{
		map[string]any{"messages": []any{}},
		map[string]any{"body": "a \"quoted\" \\ path\n\ttab \x01\x1f <b>&</b> é 日本 \u2028", "n": 3.5, "list": []any{nil, true}},
	}
	proses := []string{"", "line\nline \"q\" \\", "bad \xff\xfe utf-8 \x00", "<script>&amp;"}
	for _, d := range docs {
		doc, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, prose := range proses {
			for _, meta := range []mcp.Meta{nil, {"k": "v"}} {
				r := &mcp.CallToolResult{Meta: meta, StructuredContent: json.RawMessage(doc),
					Content: []mcp.Content{&mcp.TextContent{Text: string(doc)}, &mcp.TextContent{Text: prose}}}
				res, err := encodeResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return r, nil })(context.Background(), "tools/call", nil)
				if err != nil {
					t.Fatal(err)
				}
				e, ok := res.(*encodedResult)
				if !ok {
					t.Fatalf("not encoded: %T", res)
				}
				got, err := json.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				want, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				var g, w any
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatalf("%v: %s", err, got)
				}
				json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("encoded:\n%s\nthe SDK's:\n%s", got, want)
				}
			}
		}
	}
	// A tool error, or a result of another shape, is left to the SDK.
	var failed mcp.CallToolResult
	failed.SetError(errorf("x"))
	for _, r := range []*mcp.CallToolResult{&failed, {Content: []mcp.Content{&mcp.TextContent{Text: "only"}}}} {
		res, _ := encodeResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return r, nil })(context.Background(), "tools/call", nil)
		if _, ok := res.(*encodedResult); ok {
			t.Errorf("%+v was encoded", r)
		}
	}
}

type errorf string

func (e errorf) Error() string { return string(e) }

// The writing of a tool's result as the SDK's JSON-RPC layer does it (the
// result marshalled without HTML escaping, then the response around it),
// for fetch_inbox's document of 20 messages: by the SDK alone, and
// written once (encodedResult). BenchmarkTools times whole calls, client
// included.
func BenchmarkResultEncoding(b *testing.B) {
	h := newHarness(&testing.T{})
	defer h.cs.Close()
	g := h.peer("GreenCastle")
	g.ok("register_agent", args{})
	bl := h.peer("BlueLake")
	bl.ok("register_agent", args{})
	for range 20 {
		g.ok("send_message", args{"to": "BlueLake", "subject": "a subject of some length", "body_md": "body \"quoted\"\nline two"})
	}
	res := bl.call("fetch_inbox", args{"limit": 20})
	doc, _ := json.Marshal(res.StructuredContent)
	r := &mcp.CallToolResult{StructuredContent: json.RawMessage(doc),
		Content: []mcp.Content{&mcp.TextContent{Text: string(doc)}, res.Content[1]}}
	id, _ := jsonrpc.MakeID(float64(7))
	write := func(b *testing.B, result any) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(result); err != nil {
			b.Fatal(err)
		}
		if _, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage(bytes.TrimSpace(buf.Bytes()))}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("document %d bytes", len(doc))
	b.Run("sdk", func(b *testing.B) {
		reportCPU(b)
		for b.Loop() {
			write(b, r)
		}
	})
	b.Run("once", func(b *testing.B) {
		reportCPU(b)
		for b.Loop() {
			res, _ := encodeResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return r, nil })(context.Background(), "tools/call", nil)
			write(b, res)
		}
	})
}

// reportCPU reports the process's CPU time per operation (cpu-ns/op)
// from when it is called to when the benchmark ends: on a machine other
// work keeps busy, what a call costs shows in its CPU time more than in
// its wall-clock time.
func reportCPU(b *testing.B) {
	start := cpuNow()
	b.Cleanup(func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
		}
	})
}

func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
