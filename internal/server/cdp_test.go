package server

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// cdp drives headless Chromium through the DevTools protocol over a pipe
// (--remote-debugging-pipe: commands in on fd 3, answers out on fd 4,
// each a JSON object ended by a NUL byte). Unlike --dump-dom, which runs
// a page in virtual time until it is idle, it keeps a page open in real
// time while the test writes to the store: what a live page needs, and
// what its latency is measured in.
type cdp struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   *os.File // Chromium reads commands from it
	mu   sync.Mutex
	next int
	wait map[int]chan cdpAnswer
	dead chan struct{} // closed once Chromium's output ends
}

// cdpAnswer is the answer to a command.
type cdpAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startCDP starts headless Chromium at path, ended with the test.
func startCDP(t *testing.T, path string) *cdp {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	c := &cdp{t: t, cmd: cmd, in: inW, wait: map[int]chan cdpAnswer{}, dead: make(chan struct{})}
	go func() {
		defer close(c.dead)
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var a cdpAnswer
			if json.Unmarshal(msg[:len(msg)-1], &a) != nil || a.ID == 0 {
				continue // an event
			}
			c.mu.Lock()
			ch := c.wait[a.ID]
			delete(c.wait, a.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- a
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
	})
	return c
}

// call sends a command (to a page's session, or the browser's with
// session "") and returns its result.
func (c *cdp) call(session, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan cdpAnswer, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	_, err = c.in.Write(append(b, 0))
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, a.Error.Message)
		}
		return a.Result, nil
	case <-c.dead:
		return nil, fmt.Errorf("%s: chromium went away", method)
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 30 s", method)
	}
}

// cdpPage is a tab of the browser.
type cdpPage struct {
	c       *cdp
	session string
	width   int
}

// page opens a tab width pixels wide in the light or dark scheme.
func (c *cdp) page(width int, dark bool) *cdpPage {
	c.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	c.must(&target, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	var att struct {
		SessionID string `json:"sessionId"`
	}
	c.must(&att, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})
	p := &cdpPage{c: c, session: att.SessionID, width: width}
	p.size(1000)
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	c.must(nil, p.session, "Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}})
	return p
}

// must is call, failing the test on an error, with the result decoded
// into out (unless nil).
func (c *cdp) must(out any, session, method string, params any) {
	c.t.Helper()
	res, err := c.call(session, method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
	}
}

func (p *cdpPage) size(height int) {
	p.c.must(nil, p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": p.width, "height": height, "deviceScaleFactor": 1, "mobile": p.width < 600})
}

// open loads url and waits until it has loaded.
func (p *cdpPage) open(url string) {
	p.c.t.Helper()
	p.c.must(nil, p.session, "Page.navigate", map[string]any{"url": url})
	deadline := time.Now().Add(20 * time.Second)
	for p.eval(`document.readyState === "complete" && location.href !== "about:blank"`) != true {
		if time.Now().After(deadline) {
			p.c.t.Fatalf("%s did not load", url)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eval runs a JavaScript expression in the page (awaiting a promise) and
// returns its value.
func (p *cdpPage) eval(expr string) any {
	p.c.t.Helper()
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	p.c.must(&r, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if r.Exception != nil {
		p.c.t.Fatalf("%s: %s", expr, r.Exception.Text)
	}
	return r.Result.Value
}

// html is the page's DOM as it is now.
func (p *cdpPage) html() string {
	s, _ := p.eval("document.documentElement.outerHTML").(string)
	return s
}

// shot writes a screenshot of the whole page (at most 4000 px tall) to
// file.
func (p *cdpPage) shot(file string) {
	p.c.t.Helper()
	h, _ := p.eval("document.documentElement.scrollHeight").(float64)
	p.size(min(max(int(h), 600), 4000))
	defer p.size(1000)
	var r struct {
		Data string `json:"data"`
	}
	p.c.must(&r, p.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		p.c.t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		p.c.t.Fatal(err)
	}
}

// watch starts noting, in the page, the time (Date.now(), ms since the
// epoch) at which the JavaScript condition cond first holds, tested at
// each change of the DOM (a later watch replaces it); seen waits for it.
func (p *cdpPage) watch(cond string) {
	p.eval(`(() => { window.__seen = 0; const gen = window.__gen = (window.__gen || 0) + 1;
  const look = () => { if (gen === window.__gen && !window.__seen && (` + cond + `)) { window.__seen = Date.now(); } };
  new MutationObserver(look).observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); look(); })()`)
}

// seen waits up to timeout for the element watch names, and returns the
// time it came (zero if it did not).
func (p *cdpPage) seen(ctx context.Context, timeout time.Duration) time.Time {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if ms, _ := p.eval("window.__seen").(float64); ms > 0 {
			return time.UnixMilli(int64(ms))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Time{}
}
