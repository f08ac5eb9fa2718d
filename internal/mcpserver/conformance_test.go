package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// rawSession is agentmail mcp run as a process of its own, spoken to line
// by line as a client would write them, right or wrong.
type rawSession struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err strings.Builder
}

func (h *harness) raw(env []string) *rawSession {
	h.t.Helper()
	s := &rawSession{t: h.t}
	s.cmd = exec.Command(testbin.Agentmail(h.t), "mcp")
	s.cmd.Dir, s.cmd.Env, s.cmd.Stderr = h.repo, env, &s.err
	in, err := s.cmd.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	s.in, s.out = in, bufio.NewReaderSize(out, 1<<20)
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { s.in.Close(); s.cmd.Process.Kill(); s.cmd.Wait() })
	return s
}

// send writes lines as they are, each ended by a newline.
func (s *rawSession) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatalf("writing to agentmail mcp: %v (stderr: %s)", err, s.err.String())
		}
	}
}

// wireMessage is one message the server wrote.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next reads the server's next message; it fails the test at the end of
// the output or after a while.
func (s *rawSession) next() wireMessage {
	s.t.Helper()
	type read struct {
		line string
		err  error
	}
	c := make(chan read, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		c <- read{l, err}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			s.t.Fatalf("agentmail mcp's output ended: %v (stderr: %s)", r.err, s.err.String())
		}
		var m wireMessage
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			s.t.Fatalf("agentmail mcp wrote a line that is not JSON: %v: %.200s", err, r.line)
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatalf("agentmail mcp wrote nothing for 30s (stderr: %s)", s.err.String())
	}
	return wireMessage{}
}

// initialize opens the session.
func (s *rawSession) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := s.next(); string(m.ID) != `"init"` || m.Error != nil {
		s.t.Fatalf("initialize: %s %+v", m.ID, m.Error)
	}
}

// Every malformed line a client may send is answered with the JSON-RPC
// error the specification names, under the id it can be answered under,
// and the session goes on: a ping after it is answered.
func TestStdioMalformedInput(t *testing.T) {
	h := newHarness(t)
	s := h.raw(h.env())
	s.initialize()
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepInArgs := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"health_check","arguments":{"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}}`
	huge := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"health_check","arguments":{"x":"` + strings.Repeat("a", 17<<20) + `"}}}`
	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"not JSON", `hello`, -32700, "null"},
		{"null", `null`, -32600, "null"},
		{"a number", `5`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, "null"},
		{"version 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
		{"no version", `{"id":5,"method":"ping"}`, -32600, "5"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "1.5"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600, "1e3"},
		{"minus zero id", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, -32600, "-0"},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "9007199254740993"},
		{"trailing bytes", `{"jsonrpc":"2.0","id":5,"method":"ping"} x`, -32700, "null"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, -32700, "null"},
		{"no method", `{"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5"},
		{"params not an object", `{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, -32600, "5"},
		{"deep nesting", deep, -32700, "null"},
		{"deep nesting in arguments", deepInArgs, -32600, "null"},
		{"17 MiB line", huge, -32600, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, -32601, "5"},
	}
	for i, c := range cases {
		ping := fmt.Sprintf(`"ping-%d"`, i)
		s.send(c.line, `{"jsonrpc":"2.0","id":`+ping+`,"method":"ping"}`)
		m := s.next()
		if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id {
			t.Errorf("%s: answered id %s %+v, want id %s code %d", c.name, m.ID, m.Error, c.id, c.code)
		} else {
			t.Logf("%s: %d %s", c.name, m.Error.Code, m.Error.Message)
		}
		if m := s.next(); string(m.ID) != ping || m.Error != nil {
			t.Fatalf("%s: the ping after it was answered %s %+v: the session did not go on", c.name, m.ID, m.Error)
		}
	}
	// Good ids come back as they were sent, whatever their spelling.
	s.send(`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`, `{"jsonrpc":"2.0","id":-3,"method":"ping"}`)
	if m := s.next(); string(m.ID) != `"ab"` {
		t.Errorf("string id answered as %s", m.ID)
	}
	if m := s.next(); string(m.ID) != `-3` {
		t.Errorf("negative id answered as %s", m.ID)
	}
	// Blank lines are no messages.
	s.send("", "  \r", `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	if m := s.next(); string(m.ID) != `"last"` {
		t.Errorf("after blank lines: %s", m.ID)
	}
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("agentmail mcp at the end of its input: %v (stderr: %s)", err, s.err.String())
	}
	if strings.Contains(s.err.String(), "doctor") {
		t.Errorf("stderr suggests damage: %s", s.err.String())
	}
}

// A call before initialize is refused with a JSON-RPC code, not 0.
func TestStdioCallBeforeInitialize(t *testing.T) {
	h := newHarness(t)
	s := h.raw(h.env())
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m := s.next()
	if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "3" {
		t.Fatalf("tools/list before initialize: %s %+v", m.ID, m.Error)
	}
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if m := s.next(); m.Error != nil {
		t.Fatalf("tools/list after initialize: %+v", m.Error)
	}
}

// A client that writes its whole session and closes its input, as
// `printf ... | agentmail mcp` does, has every call answered and done
// before the server exits; a wait pipelined with them ends at the end of
// the input, answered.
func TestStdioPipelinedThenEOF(t *testing.T) {
	h := newHarness(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"0"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"register_agent","arguments":{"name":"GreenCastle"}}}` + "\n")
	const sends = 50
	for i := 1; i <= sends; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"send_message","arguments":{"to":["GreenCastle"],"subject":"s%d","body_md":"b"}}}`+"\n", i, i)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"wait","method":"tools/call","params":{"name":"wait_for_mail","arguments":{"timeout_seconds":600,"from":"Nobody"}}}` + "\n")
	cmd := exec.Command(testbin.Agentmail(t), "mcp")
	cmd.Dir, cmd.Env, cmd.Stdin = h.repo, h.env(), strings.NewReader(in.String())
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agentmail mcp: %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %v: the wait did not end with the input", d)
	}
	answered := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		answered[string(m.ID)] = true
		if m.Result.IsError && string(m.ID) != `"wait"` {
			t.Errorf("call %s failed: %.300s", m.ID, line)
		}
	}
	for i := 0; i <= sends; i++ {
		if !answered[fmt.Sprint(i)] {
			t.Errorf("call %d not answered", i)
		}
	}
	if !answered[`"wait"`] {
		t.Error("the pipelined wait_for_mail was not answered")
	}
	inbox := exec.Command(testbin.Agentmail(t), "inbox", "--agent", "GreenCastle", "--json", "--limit", "0")
	inbox.Dir, inbox.Env = h.repo, h.env()
	got, err := inbox.Output()
	if err != nil {
		t.Fatalf("agentmail inbox: %v", err)
	}
	if n := strings.Count(string(got), `"subject"`); n != sends {
		t.Errorf("%d messages in the inbox, want %d", n, sends)
	}
}
