package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentmail/agentmail/internal/service"
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
	write := func(b *testing.B, result any) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(result); err != nil {
			b.Fatal(err)
		}
		msg, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage(bytes.TrimSpace(buf.Bytes()))})
		if err != nil {
			b.Fatal(err)
		}
		return append(msg, '\n')
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
	// Over stdio (ServeStdio): the SDK writes a token, the output the
	// result for it.
	b.Run("carried", func(b *testing.B) {
		c := &carrier{}
		ctx := context.WithValue(context.Background(), carrierKey{}, c)
		reportCPU(b)
		for b.Loop() {
			res, _ := encodeResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return r, nil })(ctx, "tools/call", nil)
			if len(c.expand(write(b, res))) < len(doc) {
				b.Fatal("the result was not written for its token")
			}
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

// Over standard input and output, a tool's result carried past the SDK
// (carrier) is sent byte for byte as the SDK sends it: the same session,
// answered with the results carried and by the SDK alone, writes the
// same lines, for texts of quotes, backslashes, control characters,
// markup, line separators and non-ASCII, a tool error and the calls that
// are not tools.
func TestStdioCarriedResults(t *testing.T) {
	h := newHarness(t)
	body := "a \"quoted\" \\ path\n\ttab \x01\x1f <b>&amp;</b> é 日本 \u2028 \u2029 end"
	var script strings.Builder
	line := func(id int, tool string, a args) {
		b, err := json.Marshal(args{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": args{"name": tool, "arguments": a}})
		if err != nil {
			t.Fatal(err)
		}
		script.Write(append(b, '\n'))
	}
	script.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"carried","version":"0"}}}` + "\n")
	script.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	seed := script.String()
	serve := func(input string, carry *carrier) []string {
		srv := New(Config{Store: service.Config{Dir: h.store}, Project: service.ProjectRef{Dir: h.repo}, Overseer: true})
		defer srv.Close()
		var out bytes.Buffer
		if err := srv.serveStdio(context.Background(), strings.NewReader(input), &out, carry); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		slices.Sort(lines) // answered in any order
		return lines
	}
	// The calls of a session run at once: the agents are registered first.
	for step := range 2 {
		script.Reset()
		script.WriteString(seed)
		if step == 0 {
			line(1, "register_agent", args{"name": "GreenCastle"})
			line(2, "register_agent", args{"name": "BlueLake"})
		}
		for i := range 3 * step {
			line(3+i, "send_message", args{"sender_name": "GreenCastle", "to": []string{"BlueLake"}, "subject": fmt.Sprintf("<%d> & \"s\"", i), "body_md": body})
		}
		for _, l := range serve(script.String(), nil) {
			if strings.Contains(l, `"isError":true`) {
				t.Fatalf("seeding: %.300s", l)
			}
		}
	}
	script.Reset()
	script.WriteString(seed)
	line(1, "fetch_inbox", args{"agent_name": "BlueLake", "include_bodies": true})
	line(2, "fetch_inbox", args{"agent_name": "BlueLake"})
	line(3, "whois", args{"agent_name": "GreenCastle"})
	line(4, "fetch_inbox", args{"agent_name": "Nobody"})
	script.WriteString(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}` + "\n")
	carry := &carrier{}
	got, want := serve(script.String(), carry), serve(script.String(), nil)
	if carry.next < 3 || len(carry.results) != 0 {
		t.Errorf("%d results carried, %d left unwritten; want 3 or more, none left", carry.next, len(carry.results))
	}
	if len(got) != len(want) || len(got) != 6 {
		t.Fatalf("%d lines carried, %d by the SDK, want 6", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("carried:\n%s\nby the SDK:\n%s", got[i], want[i])
		}
	}
	if !strings.Contains(strings.Join(got, ""), `\u003cb\u003e\u0026amp;\u003c/b\u003e`) {
		t.Errorf("no body with markup in the answers:\n%s", strings.Join(got, "\n"))
	}
}
