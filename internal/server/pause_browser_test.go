package server

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/testbin"
)

// The overseer pauses an agent from its inbox page in a real browser (the
// form filled and its Pause button pressed), and the agent's own check,
// the real command line, says it is paused, by whom and why; Resume from
// the page lifts it.
func TestBrowserPause(t *testing.T) {
	path := chromiumPath(t)
	bin := testbin.Agentmail(t)
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	c := startCDP(t, path)
	dir := os.Getenv("AGENTMAIL_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	check := func() map[string]any {
		t.Helper()
		cmd := exec.Command(bin, "check", "--json", "--agent", "BlueLake")
		cmd.Env = append(os.Environ(), "AGENTMAIL_HOME="+h.store, "AGENTMAIL_PROJECT="+projectKey)
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("agentmail check: %v\n%s", err, out)
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("check's document: %v\n%s", err, out)
		}
		return doc
	}
	if doc := check(); doc["paused"] != nil {
		t.Fatalf("BlueLake is paused before anyone paused it: %v", doc)
	}
	p := c.page(1400, false)
	p.open(h.base + "/mail/" + h.slug + "/inbox/BlueLake")
	p.eval(`document.querySelector('.steer-form input[name=reason]').value = 'hold until the schema lands';
		document.querySelector('.steer-form button[value=pause]').click(); true`)
	if !until(p, `!!document.querySelector('.steer .flash.ok') && !!document.querySelector('.steer-form button[value=resume]')`) {
		t.Fatalf("the inbox page after Pause: %.3000s", p.html())
	}
	p.shot(filepath.Join(dir, "paused-1400.png"))
	doc := check()
	paused, _ := doc["paused"].(map[string]any)
	if paused == nil || paused["pause_by"] != "Human" || paused["pause_reason"] != "hold until the schema lands" {
		t.Fatalf("BlueLake's check after the overseer paused it: %v", doc)
	}
	p.eval(`document.querySelector('.steer-form button[value=resume]').click(); true`)
	if !until(p, `!!document.querySelector('.steer-form button[value=pause]')`) {
		t.Fatalf("the inbox page after Resume: %.3000s", p.html())
	}
	if doc := check(); doc["paused"] != nil {
		t.Errorf("BlueLake is still paused after Resume: %v", doc)
	}
	if dom := p.html(); !strings.Contains(dom, "BlueLake") {
		t.Errorf("the inbox page lost its agent: %.2000s", dom)
	}
}

// until waits up to 20 s for the JavaScript condition cond to hold in the
// page, across the navigation a form's submission makes.
func until(p *cdpPage, cond string) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if p.eval(`(() => { try { return document.readyState === "complete" && (`+cond+`); } catch (e) { return false; } })()`) == true {
			return true
		}
	}
	return false
}
