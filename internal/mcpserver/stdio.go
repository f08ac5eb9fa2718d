package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC 2.0 error codes of a message the server cannot take.
const (
	codeParseError     = -32700 // not JSON
	codeInvalidRequest = -32600 // JSON, but not a request the server can take
)

// ServeStdio serves one client on newline-delimited JSON-RPC read from in
// and written to out (agentmail mcp's standard input and output), until in
// ends or ctx does.
//
// The SDK's stdio transport carries the session, behind a reader that
// takes each line first: a line that is not one JSON-RPC message the SDK
// can take (not JSON, not an object, a batch, another version, an id that
// is neither a string nor an integer, no method, longer than a request
// carrying the largest message body may be: service.RequestLimit) is
// answered here with the JSON-RPC error the specification names, through
// the same writer, and the session goes on. At the end of in, the calls
// already received are answered before the server stops: calls that block
// (wait_for_mail, a lock's wait) end at once, answered with an error.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.serveStdio(ctx, in, out, &carrier{})
}

// serveStdio is ServeStdio, with the tool results carried past the SDK by
// carry (nil: left to the SDK).
func (s *Server) serveStdio(ctx context.Context, in io.Reader, out io.Writer, carry *carrier) error {
	w := &stdioWriter{out: out, pending: map[string]int{}, drained: make(chan struct{}), carrier: carry}
	if carry != nil {
		ctx = context.WithValue(ctx, carrierKey{}, carry)
	}
	var maxBody int
	s.gate.Do(func(svc *service.Service) error { maxBody = svc.MaxBody(); return nil })
	limit := int(service.RequestLimit(maxBody))
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: limit + 2})
		pr.CloseWithError(io.ErrClosedPipe) // a forward under way gives up
	}()
	go func() {
		err := s.readLines(in, pw, w, limit, maxBody)
		// The end of the input: answer what was received, then let the
		// SDK see the end.
		s.interrupt()
		w.finish()
		select {
		case <-w.drained:
		case <-ctx.Done():
		}
		pw.CloseWithError(err)
	}()
	err := <-done
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// readLines reads in line by line until it ends, forwarding each message
// the SDK can take to sdk and answering each other one itself (a line
// longer than limit among them: maxBody is the message body that
// limit is made for). It returns the error that ended in, nil
// for its end.
func (s *Server) readLines(in io.Reader, sdk io.Writer, w *stdioWriter, limit, maxBody int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, limit)
		if tooLong {
			w.answer(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: a message longer than %d bytes; send one JSON-RPC message a line, with a message body of at most %d bytes", limit, maxBody))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if id, key, code, msg := checkMessage(line); code != 0 {
				w.answer(id, code, msg)
			} else {
				w.expect(key)
				if _, werr := sdk.Write(append(line, '\n')); werr != nil {
					return nil // the session ended
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line, without its newline; a line longer than
// limit is read to its end and reported as tooLong, not returned.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+2 { // the newline and a \r
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// integerID is an id the SDK keeps as it came: an integer it can hold
// exactly (it reads ids as float64 numbers).
var integerID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(0|-?[1-9][0-9]{0,14})$`) })

// checkMessage checks that line is one JSON-RPC 2.0 message the SDK can
// take. If it is, key is the key of its id when it is a call ("" for a
// notification or a response); if not, code and msg are the error to
// answer it with, and id the id to answer it under (nil for null).
func checkMessage(line []byte) (id json.RawMessage, key string, code int, msg string) {
	if !json.Valid(line) {
		var v json.RawMessage
		err := json.Unmarshal(line, &v)
		return nil, "", codeParseError, "Parse error: " + err.Error() + "; send one JSON-RPC message a line"
	}
	if depth(line) > maxDepth {
		return nil, "", codeInvalidRequest, fmt.Sprintf("Invalid Request: JSON nested deeper than %d levels", maxDepth)
	}
	switch line[0] {
	case '{':
	case '[':
		if bytes.Equal(bytes.Join(bytes.Fields(line), nil), []byte("[]")) {
			return nil, "", codeInvalidRequest, "Invalid Request: an empty batch"
		}
		return nil, "", codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message a line"
	default:
		return nil, "", codeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object, not " + string(truncate(line, 40))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, "", codeParseError, "Parse error: " + err.Error()
	}
	rawID, hasID := m["id"]
	if hasID {
		switch {
		case len(rawID) > 0 && rawID[0] == '"':
			var s string
			if json.Unmarshal(rawID, &s) == nil {
				id, key = rawID, "s"+s
			}
		case integerID().Match(rawID):
			id, key = rawID, "n"+string(rawID)
		}
		if id == nil {
			if len(rawID) > 0 && (rawID[0] == '-' || rawID[0] >= '0' && rawID[0] <= '9') {
				id = rawID // a number: answered under it
			}
			return id, "", codeInvalidRequest, "Invalid Request: id must be a string or an integer, got " + string(truncate(rawID, 40))
		}
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return id, "", codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	method, hasMethod := m["method"]
	if !hasMethod {
		_, result := m["result"]
		_, failed := m["error"]
		if hasID && (result || failed) {
			return nil, "", 0, "" // a response to the server's request
		}
		return id, "", codeInvalidRequest, "Invalid Request: no method"
	}
	if len(method) == 0 || method[0] != '"' {
		return id, "", codeInvalidRequest, "Invalid Request: method must be a string"
	}
	if p, ok := m["params"]; ok && len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return id, "", codeInvalidRequest, "Invalid Request: params must be an object"
	}
	if !hasID {
		key = "" // a notification
	}
	return nil, key, 0, ""
}

// maxDepth is the deepest nesting of arrays and objects a message may
// have: the SDK stops reading its input at a message nested deeper than
// 1,000 levels.
const maxDepth = 512

// depth returns how deep the arrays and objects of the valid JSON b nest.
func depth(b []byte) int {
	d, most, str := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case str:
			if c == '\\' {
				i++
			} else if c == '"' {
				str = false
			}
		case c == '"':
			str = true
		case c == '[' || c == '{':
			if d++; d > most {
				most = d
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// truncate shortens b to n bytes, marking the cut.
func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(bytes.Clone(b[:n]), "..."...)
}

// stdioWriter is the one writer of the session's output: the SDK's
// messages and the reader's answers, a whole line at a time. It counts
// the calls forwarded to the SDK and not yet answered, so that the end of
// the input waits for their answers.
type stdioWriter struct {
	mu      sync.Mutex
	out     io.Writer
	pending map[string]int // by id key, as checkMessage makes it
	n       int            // the sum of pending
	ended   bool           // the input ended: close drained at n == 0
	drained chan struct{}
	carrier *carrier // the tool results the SDK writes as tokens (encode.go)
}

// expect counts a call forwarded to the SDK under key ("" for no call).
func (w *stdioWriter) expect(key string) {
	if key == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[key]++
	w.n++
}

// finish notes the end of the input: drained closes once every call
// received is answered.
func (w *stdioWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.check()
}

// check closes drained when the input ended and nothing is pending; w.mu
// is held.
func (w *stdioWriter) check() {
	if w.ended && w.n == 0 {
		select {
		case <-w.drained:
		default:
			close(w.drained)
		}
	}
}

// answer writes the error response to a message the reader refused.
func (w *stdioWriter) answer(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(append(b, '\n')) // an output gone is the SDK's to find
}

// responsePrefix begins every message the SDK writes that has an id
// (jsonrpc2 encodes its fields in this order).
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// zeroCode is the code the SDK gives a refusal of its own that carries no
// JSON-RPC code (a call before initialize): JSON-RPC defines none such, and
// the refusal is of a request invalid in the session's state.
var zeroCode = []byte(`"error":{"code":0,`)

// Write writes one message, whole, and counts off the call it answers.
func (w *stdioWriter) Write(p []byte) (int, error) {
	written := len(p)
	if w.carrier != nil {
		p = w.carrier.expand(p)
	}
	key, rest := responseKey(p)
	if key != "" && bytes.HasPrefix(rest, []byte(`,`)) && bytes.HasPrefix(rest[1:], zeroCode) {
		fixed := make([]byte, 0, len(p)+6)
		fixed = append(fixed, p[:len(p)-len(rest)+1]...)
		fixed = append(fixed, `"error":{"code":-32600,`...)
		fixed = append(fixed, rest[1+len(zeroCode):]...)
		p = fixed
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.out.Write(p)
	if key != "" && w.pending[key] > 0 && !bytes.HasPrefix(rest, []byte(`,"method"`)) {
		if w.pending[key]--; w.pending[key] == 0 {
			delete(w.pending, key)
		}
		w.n--
		w.check()
	}
	if err == nil {
		n = written // the message the SDK wrote, whatever was written for it
	}
	return min(n, written), err
}

// responseKey returns the id key of a message the SDK writes, as
// checkMessage makes it, and the bytes after the id; "" when it has none.
func responseKey(p []byte) (key string, rest []byte) {
	if !bytes.HasPrefix(p, responsePrefix) {
		return "", nil
	}
	b := p[len(responsePrefix):]
	if len(b) == 0 {
		return "", nil
	}
	if b[0] == '"' {
		for i := 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				var s string
				if json.Unmarshal(b[:i+1], &s) != nil {
					return "", nil
				}
				return "s" + s, b[i+1:]
			}
		}
		return "", nil
	}
	i := 0
	for i < len(b) && (b[i] == '-' || b[i] >= '0' && b[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", nil
	}
	return "n" + string(b[:i]), b[i:]
}

// Close leaves the output open: it is the process's.
func (w *stdioWriter) Close() error { return nil }
