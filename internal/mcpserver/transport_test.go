package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkMarshal marshals v as the SDK marshals a result: encoding/json's
// Encoder without HTML escaping, without the newline.
func sdkMarshal(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// randomText is a string of the characters JSON treats specially, and
// some it does not.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "\t", "\n", `"`, `\`, "/", "<", ">", "&", "\u2028", "\u2029", "é", "日本", "😀", "\x00", "\x1f", "\x7f", "\xff", "[", "]", "{", "}", ",", ":"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomInbox is a tool result as fetch_inbox answers it, of random
// messages.
func randomInbox(r *rand.Rand) *mcp.CallToolResult {
	var doc service.InboxResponse
	doc.Messages = []service.InboxMessage{}
	for range r.IntN(25) {
		var m service.InboxMessage
		m.ID, m.Thread, m.From, m.Subject = randomText(r), randomText(r), randomText(r), randomText(r)
		m.To, m.Cc, m.Bcc = []string{randomText(r)}, []string{}, []string{randomText(r), randomText(r)}
		m.Importance, m.AckRequired, m.Path = randomText(r), r.IntN(2) == 0, randomText(r)
		if r.IntN(2) == 0 {
			c := randomText(r)
			m.Category = &c
		}
		m.Created = service.Time{Time: time.Unix(r.Int64N(1<<35), 0)}
		if r.IntN(2) == 0 {
			body := randomText(r)
			m.Body = &body
		}
		doc.Messages = append(doc.Messages, m)
	}
	return &mcp.CallToolResult{StructuredContent: doc, Content: []mcp.Content{&mcp.TextContent{Text: randomText(r)}}, IsError: r.IntN(5) == 0}
}

// A response written by the Transport is byte for byte what the SDK's
// connection writes.
func TestResponseAsTheSDKEncodesIt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64}
	for i := range 2000 {
		id := ids[i%len(ids)]
		if i >= len(ids) {
			id = r.Int64() - r.Int64()
		}
		var result any = randomInbox(r)
		if i%4 == 0 {
			result = map[string]any{"text": randomText(r), "n": r.Float64() * 1e6, "list": []any{randomText(r), nil, true}}
		}
		resp := &jsonrpc.Response{ID: int64ID(t, id), Result: sdkMarshal(t, result)}
		want, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got := appendResponse(nil, resp.ID.Raw().(int64), resp.Result)
		if !bytes.Equal(got, want) {
			t.Fatalf("response %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// int64ID is the id the SDK decodes from a request whose id is n.
func int64ID(t *testing.T, n int64) jsonrpc.ID {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n))
	if err != nil {
		t.Fatal(err)
	}
	return msg.(*jsonrpc.Request).ID
}

// recorder is a connection that records the messages written through it.
type recorder struct {
	mcp.Connection
	wrote []jsonrpc.Message
}

func (r *recorder) Write(_ context.Context, msg jsonrpc.Message) error {
	r.wrote = append(r.wrote, msg)
	return nil
}

// The Transport writes a successful response itself, and hands the SDK's
// connection everything else.
func TestTransportWritesWhatItMay(t *testing.T) {
	result := []byte(`{"content":[{"type":"text","text":"ok"}]}`)
	ok := &jsonrpc.Response{ID: int64ID(t, 7), Result: result}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		msg     jsonrpc.Message
		batched bool
		itself  bool
	}{
		{"a result", context.Background(), ok, false, true},
		{"an error", context.Background(), &jsonrpc.Response{ID: int64ID(t, 7), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}}, false, false},
		{"a string id", context.Background(), &jsonrpc.Response{ID: mustID(t, "seven"), Result: result}, false, false},
		{"a request", context.Background(), &jsonrpc.Request{ID: int64ID(t, 1), Method: "ping"}, false, false},
		{"after a batch", context.Background(), ok, true, false},
		{"a closed context", done, ok, false, false},
	} {
		var out bytes.Buffer
		sdk := &recorder{}
		c := &conn{Connection: sdk, w: &out, in: &batchWatch{}}
		c.in.batched.Store(tt.batched)
		if err := c.Write(tt.ctx, tt.msg); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.itself {
			if len(sdk.wrote) != 0 || out.String() != `{"jsonrpc":"2.0","id":7,"result":`+string(result)+"}\n" {
				t.Errorf("%s: SDK wrote %d, the transport %q", tt.name, len(sdk.wrote), out.String())
			}
		} else if len(sdk.wrote) != 1 || out.Len() != 0 {
			t.Errorf("%s: SDK wrote %d, the transport %q", tt.name, len(sdk.wrote), out.String())
		}
	}
}

// A batch is an array at the top level of the stream, wherever the reads
// split it; brackets in strings and inside messages are not.
func TestBatchWatch(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", false},
		{`{"a":["[",{"b":"]["}],"c":"\"["}` + "\n" + `{"d":"\\"}` + "\n", false},
		{`{"a":"\\\"["}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n", true},
		{` [{"jsonrpc":"2.0","id":2,"method":"ping"}]`, true},
	} {
		for _, size := range []int{1, 3, len(tt.in)} {
			w := &batchWatch{r: io.NopCloser(&chunks{s: tt.in, size: size})}
			if _, err := io.ReadAll(w); err != nil {
				t.Fatal(err)
			}
			if got := w.batched.Load(); got != tt.want {
				t.Errorf("%s in reads of %d: batch %v, want %v", tt.in, size, got, tt.want)
			}
		}
	}
}

// chunks reads s size bytes at a time.
type chunks struct {
	s    string
	size int
}

func (c *chunks) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.s)
	c.s = c.s[n:]
	return n, nil
}

// A session over the Transport is what it is over the SDK's IOTransport,
// message for message: in the older protocol a batch gets one answer, the
// array of the SDK's; from 2025-06-18 on a batch ends the session.
func TestTransportAsTheSDKs(t *testing.T) {
	h := newHarness(t, overseer)
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		sdk := transcript(t, h.srv, version, func(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
			return &mcp.IOTransport{Reader: r, Writer: w}
		})
		ours := transcript(t, h.srv, version, func(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
			return &Transport{Reader: r, Writer: w}
		})
		if !slices.Equal(ours, sdk) {
			t.Errorf("protocol %s:\nthe Transport's session\n%s\nthe SDK's\n%s", version, strings.Join(ours, "\n"), strings.Join(sdk, "\n"))
		}
		batched := slices.ContainsFunc(sdk, func(line string) bool { return strings.HasPrefix(line, "[") })
		if want := version < "2025-06-18"; batched != want {
			t.Errorf("protocol %s: a batch answered %v, want %v:\n%s", version, batched, want, strings.Join(sdk, "\n"))
		}
	}
}

// transcript runs a session of the protocol version with srv over the
// transport connect makes, and returns the server's lines: the answers to
// single calls, then to a batch of two, then to a single call again,
// until the server stops answering.
func transcript(t *testing.T, srv *Server, version string, connect func(io.ReadCloser, io.WriteCloser) mcp.Transport) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), connect(inR, outW))
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	var out []string
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"health_check","arguments":{}}}`
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		fmt.Sprintf(call, 2),
		"[" + fmt.Sprintf(call, 3) + "," + fmt.Sprintf(call, 4) + "]",
		fmt.Sprintf(call, 5),
	} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			break // the server stopped reading
		}
		if strings.Contains(line, "notifications/") {
			continue
		}
		if !lines.Scan() {
			break
		}
		out = append(out, lines.Text())
	}
	inW.Close()
	<-done
	return out
}
