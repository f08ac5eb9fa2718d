package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is the SDK's mcp.IOTransport (newline-delimited JSON-RPC over
// Reader and Writer) that writes a successful response to a call with a
// number for its id as the SDK would, but without marshalling it again.
//
// The SDK marshals a result once (with encoding/json, compact) and then
// marshals the whole response around it, which scans and copies the result
// a second time to the same bytes: for fetch_inbox of 20 messages, 10 KB
// and 70-90 µs of the server's CPU a call. Every other message, and every
// message once the client has sent a JSON-RPC batch (whose answers the SDK
// collects into one), goes through the SDK's connection.
//
// The SDK tells its own connection which protocol version the session
// settled on, through a method a connection of another package cannot
// have: that connection then refuses batches from 2025-06-18 on, as the
// protocol does. This one reads the version from the answer to initialize,
// and refuses them itself.
type Transport struct {
	Reader io.ReadCloser  // the client's messages, such as standard input
	Writer io.WriteCloser // the server's, such as standard output
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	in := &batchWatch{r: t.Reader}
	sdk, err := (&mcp.IOTransport{Reader: in, Writer: t.Writer}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: sdk, w: t.Writer, in: in}, nil
}

// conn is the SDK's connection, with responses written as Transport says.
type conn struct {
	mcp.Connection
	w  io.Writer
	in *batchWatch

	mu     sync.Mutex // one message at a time on w
	buf    []byte
	initID jsonrpc.ID // the id of the initialize call, once read

	noBatch atomic.Bool // the session's protocol has no batches
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	if c.noBatch.Load() && c.in.batched.Load() {
		return nil, errNoBatches
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && req.ID.IsValid() {
		c.mu.Lock()
		c.initID = req.ID
		c.mu.Unlock()
	}
	return msg, nil
}

// errNoBatches is what the SDK's connection says of a batch in a protocol
// without them.
var errNoBatches = errors.New("JSON-RPC batching is not supported in 2025-06-18 and later")

// noteProtocol notes the protocol version the answer to initialize settles
// on.
func (c *conn) noteProtocol(r *jsonrpc.Response) {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if r.Error == nil && json.Unmarshal(r.Result, &res) == nil {
		c.noBatch.Store(res.ProtocolVersion >= "2025-06-18")
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := msg.(*jsonrpc.Response)
	if ok && c.initID.IsValid() && r.ID == c.initID {
		c.noteProtocol(r)
		c.initID = jsonrpc.ID{}
	}
	if !ok || r.Error != nil || len(r.Result) == 0 || c.in.batched.Load() || ctx.Err() != nil {
		return c.Connection.Write(ctx, msg)
	}
	id, ok := r.ID.Raw().(int64)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	c.buf = appendResponse(c.buf[:0], id, r.Result)
	_, err := c.w.Write(c.buf)
	if cap(c.buf) > 1<<20 {
		c.buf = nil // keep no rare huge answer
	}
	return err
}

// appendResponse appends the line of the response to call id whose result
// is result, compact JSON as the SDK marshals it: what
// jsonrpc.EncodeMessage and a newline make of it.
func appendResponse(b []byte, id int64, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// batchWatch reads r, noting whether a JSON-RPC batch (an array at the top
// level of the stream) went by.
type batchWatch struct {
	r       io.ReadCloser
	batched atomic.Bool

	depth            int
	inString, escape bool
}

func (w *batchWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if !w.batched.Load() {
		w.scan(p[:n])
	}
	return n, err
}

func (w *batchWatch) Close() error { return w.r.Close() }

// scan follows the nesting of the JSON values in b.
func (w *batchWatch) scan(b []byte) {
	for _, c := range b {
		switch {
		case w.escape:
			w.escape = false
		case w.inString:
			switch c {
			case '\\':
				w.escape = true
			case '"':
				w.inString = false
			}
		case c == '"':
			w.inString = true
		case c == '[' && w.depth == 0:
			w.batched.Store(true)
			return
		case c == '{' || c == '[':
			w.depth++
		case c == '}' || c == ']':
			w.depth--
		}
	}
}
