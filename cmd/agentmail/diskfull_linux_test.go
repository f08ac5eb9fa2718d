package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentmail/agentmail/internal/testbin"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it. Where it cannot (not root, no mount namespace), the test is skipped
// loudly, or fails under CI=true, where it must run.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		msg := fmt.Sprintf("cannot mount a tmpfs for the full-disk test (%v): it needs root (CI runs it as root)", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		fmt.Fprintln(os.Stderr, "SKIP "+t.Name()+": "+msg)
		t.Skip(msg)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fillTo writes a file in dir that leaves free bytes free on its
// filesystem (or none, if less are), and returns a function removing it.
func fillTo(t *testing.T, dir string, free int64) func() {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(st.Bavail)*int64(st.Bsize) - free; n > 0 {
		f.Write(make([]byte, n)) // short of n on a full disk: as full as it gets
	}
	f.Close()
	return func() { os.Remove(path) }
}

// TestDiskFull sends on a disk that is full to a varying degree: every
// send reported as done is in the store, none reported as failed is (a
// failure is STORE_FULL, exit 1), reads answer meanwhile, and a retry of
// every send with its idempotency key, once there is space, leaves each
// message exactly once.
func TestDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, 4<<20)
	bin := testbin.Agentmail(t)
	repo := t.TempDir()
	home := t.TempDir()
	env := append(os.Environ(), "AGENTMAIL_HOME="+filepath.Join(mnt, "store"), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"AGENTMAIL_AGENT=GreenCastle", "AGENTMAIL_NOW=2026-11-20T10:00:00Z")
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = repo, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(args...)
		if code != 0 {
			t.Fatalf("agentmail %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	must("register", "--name", "GreenCastle")
	must("register", "--name", "BlueLake")
	for i := range 3 {
		must("send", "--to", "BlueLake", "--subject", fmt.Sprintf("before %d", i), "--body", "hello")
	}

	type attempt struct {
		subject, key, body string
		ok                 bool
		id                 string
	}
	var attempts []*attempt
	var failed, done, indexBehind int
	for i, free := range []int64{0, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768} {
		raw := make([]byte, 6000)
		rand.Read(raw)
		a := &attempt{subject: fmt.Sprintf("probe %d", i), key: fmt.Sprintf("key-%d", i), body: base64.StdEncoding.EncodeToString(raw)}
		attempts = append(attempts, a)
		unfill := fillTo(t, mnt, free<<10)
		code, out, errOut := run("send", "--to", "BlueLake", "--subject", a.subject, "--body", a.body, "--idempotency-key", a.key, "--json")
		switch {
		case code == 0:
			a.ok, a.id = true, messageID(t, out)
			done++
			if strings.Contains(errOut, "written to the archive") {
				indexBehind++
			}
		case code == 1 && strings.Contains(errOut, `"code":"STORE_FULL"`):
			failed++
		default:
			t.Errorf("send with %d KiB free: exit %d, want 0 or 1 with STORE_FULL\n%s%s", free, code, out, errOut)
		}
		// Reads answer while the disk is full, whatever the index lags.
		if code, out, errOut := run("inbox", "--agent", "BlueLake", "--json"); code != 0 {
			t.Errorf("inbox with %d KiB free: exit %d\n%s%s", free, code, out, errOut)
		}
		// doctor fails for lack of space (STORE_FULL, naming the
		// projects the index lags in when it does), never calling the
		// archive damaged; or it catches the index up and passes.
		if code, out, errOut := run("doctor", "--check", "--json"); code != 0 &&
			(code != 1 || !strings.Contains(errOut, `"code":"STORE_FULL"`) || strings.Contains(out+errOut, "damaged")) {
			t.Errorf("doctor --check with %d KiB free: exit %d\n%s%s", free, code, out, errOut)
		}
		unfill()
	}
	t.Logf("%d sends done (%d of them before the index took them), %d failed for lack of space", done, indexBehind, failed)
	defer func() {
		if failed == 0 || done == 0 || indexBehind == 0 {
			t.Errorf("the disk was not full at the right moments: %d done (%d with the index behind), %d failed; want some of each", done, indexBehind, failed)
		}
	}()

	// Every send reported done is there, none reported failed is.
	count := func() map[string][]string {
		ids := map[string][]string{}
		var doc struct {
			Messages []struct{ ID, Subject string }
		}
		if err := json.Unmarshal([]byte(must("outbox", "--json")), &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc.Messages {
			ids[m.Subject] = append(ids[m.Subject], m.ID)
		}
		return ids
	}
	sent := count()
	for _, a := range attempts {
		switch got := sent[a.subject]; {
		case a.ok && (len(got) != 1 || got[0] != a.id):
			t.Errorf("%s was reported sent as %s; the store has %q", a.subject, a.id, got)
		case !a.ok && len(got) != 0:
			t.Errorf("%s was reported failed; the store has it: %q", a.subject, got)
		}
	}

	// A retry of every send with its key: each message once, the ones
	// done keep their ids.
	for _, a := range attempts {
		id := messageID(t, must("send", "--to", "BlueLake", "--subject", a.subject, "--body", a.body, "--idempotency-key", a.key, "--json"))
		if a.ok && id != a.id {
			t.Errorf("retry of %s sent %s, want the first send's %s", a.subject, id, a.id)
		}
	}
	sent = count()
	for _, a := range attempts {
		if got := sent[a.subject]; len(got) != 1 {
			t.Errorf("after the retries %s is there %d times: %q", a.subject, len(got), got)
		}
	}
	must("doctor", "--check")
}

func messageID(t *testing.T, doc string) string {
	t.Helper()
	var v struct{ Message struct{ ID string } }
	if err := json.Unmarshal([]byte(doc), &v); err != nil || v.Message.ID == "" {
		t.Fatalf("not a send document: %v\n%s", err, doc)
	}
	return v.Message.ID
}
