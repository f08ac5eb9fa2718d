package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs scripts/demo.sh, what `make demo` runs after the build, end
// to end with this test binary as agentmail (testscript.Main put it on
// PATH), so that the README's first command cannot rot unnoticed: every
// step must succeed, and the tour must end with the project's branch of
// the archive cloned and its mail read as files.
func TestDemo(t *testing.T) {
	bin, err := exec.LookPath("agentmail")
	if err != nil {
		t.Fatalf("agentmail is not on PATH (testscript.Main puts this test binary there): %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command("bash", script, bin)
	cmd.Dir = home
	// A fresh environment: nothing of the caller's agentmail or git setup.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/demo.sh: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		`(?m)^registered GreenCastle in project shop-[0-9a-f]{8}$`,
		`(?m)^registered BlueLake in project shop-[0-9a-f]{8}$`,
		`(?m)^\S*\$ git clone -b projects/shop-[0-9a-f]{8} "\$\(agentmail archive path\)" mailbox`,
		`(?m)^[0-9a-f]{7,} mail: BlueLake -> GreenCastle \| Re: Checkout API is ready$`,
		`(?m)^[0-9a-f]{7,} ack: BlueLake [0-9A-Z]{26}$`,
		`(?m)^[0-9a-f]{7,} mail: GreenCastle -> BlueLake \| Checkout API is ready$`,
		`(?m)^messages/\d{4}/\d\d/\d\d/[0-9A-Z]{26}-checkout-api-is-ready\.md$`,
		`(?m)^agents/BlueLake/inbox/\d{4}/\d\d/\d\d/[0-9A-Z]{26}-checkout-api-is-ready\.md$`,
		`(?m)^from: GreenCastle$`,
		`(?m)^Please confirm the UI can use them\.$`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the demo's output has no match for %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "No such file") {
		t.Errorf("the demo ran into a missing file:\n%s", text)
	}
}
