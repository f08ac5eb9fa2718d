package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/crash"
	"github.com/rogpeppe/go-internal/testscript"
)

// withArchiveCmds adds to cmds the custom commands of the archive's
// journeys: crash points, and the system git at work on the archive while
// agentmail writes.
func withArchiveCmds(cmds map[string]func(*testscript.TestScript, bool, []string)) map[string]func(*testscript.TestScript, bool, []string) {
	cmds["crashat"] = cmdCrashAt
	cmds["healed"] = cmdHealed
	cmds["crashcovered"] = cmdCrashCovered
	cmds["killatpacks"] = cmdKillAtPacks
	cmds["sendwithgit"] = cmdSendWithGit
	cmds["sendtopacks"] = cmdSendToPacks
	return cmds
}

// fsckAfterScript arranges for every archive a script leaves under its
// work directory to pass git fsck --strict when the script ends, whatever
// the script checked itself. An archive is a directory named archive.git
// holding objects/ (a script may fake a damaged store without one).
func fsckAfterScript(env *testscript.Env) {
	work := env.WorkDir
	vars := slices.Clone(env.Vars)
	t := env.T()
	env.Defer(func() {
		filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != "archive.git" {
				return nil
			}
			if _, err := os.Stat(filepath.Join(path, "objects")); err != nil {
				return filepath.SkipDir
			}
			cmd := exec.Command("git", "--git-dir", path, "fsck", "--strict", "--no-progress")
			cmd.Env = vars
			if out, err := cmd.CombinedOutput(); err != nil {
				if tb, ok := t.(testing.TB); ok {
					tb.Errorf("git fsck --strict %s after the script: %v\n%s", path, err, out)
				} else {
					t.Fatal(fmt.Sprintf("git fsck --strict %s after the script: %v\n%s", path, err, out))
				}
			}
			return filepath.SkipDir
		})
	})
}

// crashat STEP ARGS...: runs agentmail ARGS with AGENTMAIL_CRASH_AT=STEP,
// which must kill it with SIGKILL at that step (so the step was reached),
// and notes the step in $WORK/.crash-steps for crashcovered.
func cmdCrashAt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: crashat STEP ARGS...")
	}
	cmd := exec.Command(agentmailPath(ts), args[1:]...)
	cmd.Env = append(scriptEnv(ts), crash.Env+"="+args[0])
	cmd.Dir = ts.MkAbs(".")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		ts.Fatalf("agentmail %s with %s=%s: %v (want killed at the step): %s", strings.Join(args[1:], " "), crash.Env, args[0], err, out)
	}
	f, err := os.OpenFile(workFile(ts, ".crash-steps"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	step, _, _ := strings.Cut(args[0], "@") // STEP@N: the Nth time
	fmt.Fprintln(f, step)
	ts.Check(f.Close())
}

// killatpacks ARCHIVE N ARGS...: runs agentmail ARGS and kills it with
// SIGKILL as soon as the archive ARCHIVE holds N packs or more (an import
// has committed that many batches and is somewhere in the next: reading,
// writing its pack, its index transaction), unless it ended before; it
// fails if the command failed otherwise. Whether it was killed is logged.
func cmdKillAtPacks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: killatpacks ARCHIVE N ARGS...")
	}
	packs := filepath.Join(ts.MkAbs(args[0]), "objects", "pack", "*.pack")
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	cmd := exec.Command(agentmailPath(ts), args[2:]...)
	cmd.Env, cmd.Dir = scriptEnv(ts), ts.MkAbs(".")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-time.After(time.Millisecond):
			if have, _ := filepath.Glob(packs); len(have) >= n {
				cmd.Process.Kill()
				werr = <-done
				break wait
			}
		}
	}
	line := "agentmail " + strings.Join(args[2:], " ")
	var ee *exec.ExitError
	switch {
	case werr == nil:
		ts.Logf("%s ended before the archive held %d packs", line, n)
	case errors.As(werr, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
		ts.Logf("%s killed once the archive held %d packs", line, n)
	default:
		ts.Fatalf("%s: %v: %s", line, werr, out.Bytes())
	}
}

// crashcovered: every step of crash.Steps was exercised by crashat.
func cmdCrashCovered(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: crashcovered")
	}
	hit := strings.Fields(ts.ReadFile(workFile(ts, ".crash-steps")))
	for _, s := range crash.Steps {
		if !slices.Contains(hit, string(s)) {
			ts.Fatalf("crash step %s was never exercised", s)
		}
	}
}

// healed FROM TO: the store works and is whole after a crash: a send from
// FROM to TO succeeds (its id is added to $WORK/acked, the sends reported
// as done), TO's inbox holds every id of $WORK/acked once, doctor --check
// finds the index equal to the archive and git fsck --strict nothing.
func cmdHealed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: healed FROM TO")
	}
	run := func(args ...string) []byte {
		cmd := exec.Command(agentmailPath(ts), args...)
		cmd.Env, cmd.Dir = scriptEnv(ts), ts.MkAbs(".")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			ts.Fatalf("agentmail %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
		}
		return out
	}
	var sent struct{ Message struct{ ID string } }
	ts.Check(json.Unmarshal(run("send", "--json", "--agent", args[0], "--to", args[1], "--subject", "after a crash", "--body", "healed"), &sent))
	appendAcked(ts, sent.Message.ID)
	var inbox struct{ Messages []struct{ ID string } }
	ts.Check(json.Unmarshal(run("inbox", "--json", "--agent", args[1], "--limit", "0"), &inbox))
	seen := map[string]int{}
	for _, m := range inbox.Messages {
		seen[m.ID]++
	}
	for _, id := range strings.Fields(ts.ReadFile(workFile(ts, "acked"))) {
		if seen[id] != 1 {
			ts.Fatalf("message %s, reported as sent, is in the inbox %d times", id, seen[id])
		}
	}
	if out := run("doctor", "--check"); !bytes.Contains(out, []byte("ok: index matches archive")) {
		ts.Fatalf("doctor --check: %s", out)
	}
	git := exec.Command("git", "--git-dir", filepath.Join(ts.Getenv("AGENTMAIL_HOME"), "archive.git"), "fsck", "--strict", "--no-progress")
	git.Env = scriptEnv(ts)
	if out, err := git.CombinedOutput(); err != nil {
		ts.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

// sendtopacks N FROM TO: sends from FROM to TO, each reported send noted
// in $WORK/acked, until the archive holds N packs (each write adds one).
func cmdSendToPacks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sendtopacks N FROM TO")
	}
	var n int
	fmt.Sscan(args[0], &n)
	packs := filepath.Join(ts.Getenv("AGENTMAIL_HOME"), "archive.git", "objects", "pack", "*.pack")
	for i := 0; ; i++ {
		if m, _ := filepath.Glob(packs); len(m) >= n {
			return
		}
		if i > n {
			ts.Fatalf("%d sends and still fewer than %d packs", i, n)
		}
		cmd := exec.Command(agentmailPath(ts), "send", "--json", "--agent", args[1], "--to", args[2], "--subject", fmt.Sprint("filler ", i), "--body", "x")
		cmd.Env, cmd.Dir = scriptEnv(ts), ts.MkAbs(".")
		out, err := cmd.Output()
		if err != nil {
			ts.Fatalf("send: %v", err)
		}
		var doc struct{ Message struct{ ID string } }
		ts.Check(json.Unmarshal(out, &doc))
		appendAcked(ts, doc.Message.ID)
	}
}

// workFile returns the path of name in the script's work directory.
func workFile(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("WORK"), name)
}

// appendAcked adds ids to $WORK/acked, the sends reported as done.
func appendAcked(ts *testscript.TestScript, ids ...string) {
	f, err := os.OpenFile(workFile(ts, "acked"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	for _, id := range ids {
		fmt.Fprintln(f, id)
	}
	ts.Check(f.Close())
}

// sendwithgit SENDERS SECONDS FROM TO: for SECONDS, SENDERS processes send
// mail from FROM to TO one after another while the system git works on the
// archive: git gc, a no-op git update-ref of the branch, a commit made by
// git on the branch (commit-tree + update-ref with the old value), fetches
// between the archive and a clone of it, git pack-refs. A send that fails
// must fail cleanly (STORE_BUSY, exit 1) and is sent again; so may a git
// command (it could not lock the branch, or the branch moved under it).
// Every commit git put on the branch stays in its history; the ids of the
// sends reported as done go to $WORK/acked.
func cmdSendWithGit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: sendwithgit SENDERS SECONDS FROM TO")
	}
	var senders int
	var seconds float64
	fmt.Sscan(args[0], &senders)
	fmt.Sscan(args[1], &seconds)
	archive := filepath.Join(ts.Getenv("AGENTMAIL_HOME"), "archive.git")
	clone := workFile(ts, "clone.git")
	env := append(scriptEnv(ts), "GIT_AUTHOR_NAME=Human", "GIT_AUTHOR_EMAIL=human@example.com",
		"GIT_COMMITTER_NAME=Human", "GIT_COMMITTER_EMAIL=human@example.com")
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return strings.TrimSpace(string(out)), nil
	}
	if _, err := git("clone", "-q", "--bare", archive, clone); err != nil {
		ts.Fatalf("%v", err)
	}
	// The project's branch, which HEAD names once the project has one.
	branch, err := git("--git-dir", archive, "symbolic-ref", "HEAD")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	var (
		mu                 sync.Mutex
		acked              []string
		retried, gitFailed int
		gitRan             = map[string]int{}
		gitCommits         []string // made by git and accepted by update-ref
		failures           []string
	)
	fail := func(format string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for p := 0; p < senders; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				cmd := exec.Command(agentmailPath(ts), "send", "--json", "--agent", args[2], "--to", args[3],
					"--subject", fmt.Sprintf("with git %d/%d", p, i), "--body", "sent while git works on the archive")
				cmd.Env, cmd.Dir = scriptEnv(ts), ts.MkAbs(".")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				var ee *exec.ExitError
				switch {
				case err == nil:
					var doc struct{ Message struct{ ID string } }
					if err := json.Unmarshal(out, &doc); err != nil || doc.Message.ID == "" {
						fail("send %d/%d: no id in %s", p, i, out)
						return
					}
					mu.Lock()
					acked = append(acked, doc.Message.ID)
					mu.Unlock()
				case errors.As(err, &ee) && ee.ExitCode() == 1 && bytes.Contains(stderr.Bytes(), []byte(`"code":"STORE_BUSY"`)):
					mu.Lock()
					retried++
					mu.Unlock()
				default:
					fail("send %d/%d: %v: %s", p, i, err, stderr.Bytes())
					return
				}
			}
		}()
	}
	ops := []struct {
		name string
		run  func() error
	}{
		{"gc", func() error { _, err := git("--git-dir", archive, "gc", "-q"); return err }},
		{"update-ref (no-op)", func() error {
			h, err := git("--git-dir", archive, "rev-parse", branch)
			if err == nil {
				_, err = git("--git-dir", archive, "update-ref", branch, h, h)
			}
			return err
		}},
		{"commit by git", func() error {
			h, err := git("--git-dir", archive, "rev-parse", branch)
			if err != nil {
				return err
			}
			c, err := git("--git-dir", archive, "commit-tree", h+"^{tree}", "-p", h, "-m", "note: a human was here")
			if err == nil {
				err = updateRefHolding(env, archive, branch, c, h, 30*time.Millisecond)
			}
			if err == nil {
				mu.Lock()
				gitCommits = append(gitCommits, c)
				mu.Unlock()
			}
			return err
		}},
		{"fetch", func() error {
			_, err := git("--git-dir", clone, "fetch", "-q", archive, "+"+branch+":"+branch)
			if err == nil {
				_, err = git("--git-dir", archive, "fetch", "-q", clone, "+"+branch+":refs/remotes/clone/main")
			}
			return err
		}},
		{"pack-refs", func() error { _, err := git("--git-dir", archive, "pack-refs", "--all", "--prune"); return err }},
	}
	// git goes on past the deadline until one of its commits has landed: on
	// a loaded machine the senders may have held the branch every time.
	gitDone := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return !time.Now().Before(deadline) && (len(gitCommits) > 0 || time.Now().After(deadline.Add(time.Minute)))
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !gitDone(); i++ {
			op := ops[i%len(ops)]
			err := op.run()
			mu.Lock()
			gitRan[op.name]++
			mu.Unlock()
			if err == nil {
				continue
			}
			if !cleanGitFailure(err) {
				fail("%s: %v", op.name, err)
				return
			}
			mu.Lock()
			gitFailed++
			mu.Unlock()
		}
	}()
	wg.Wait()
	if len(failures) > 0 {
		ts.Fatalf("%d failures:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	ts.Logf("%d sends reported done, %d failed cleanly and were sent again; git ran %v, %d failed cleanly", len(acked), retried, gitRan, gitFailed)
	if len(acked) == 0 || len(gitCommits) == 0 {
		ts.Fatalf("nothing ran: %d sends, %d commits by git", len(acked), len(gitCommits))
	}
	for _, c := range gitCommits {
		if _, err := git("--git-dir", archive, "merge-base", "--is-ancestor", c, branch); err != nil {
			ts.Fatalf("git's commit %s, accepted by update-ref, is not in the branch's history", c)
		}
	}
	appendAcked(ts, acked...)
}

// updateRefHolding moves branch from old to c with git
// update-ref --stdin, holding the branch's lock for hold between taking it
// (prepare) and committing, as a git transaction of many refs or a slow
// reference-transaction hook does.
func updateRefHolding(env []string, archive, branch, c, old string, hold time.Duration) error {
	cmd := exec.Command("git", "--git-dir", archive, "update-ref", "--stdin")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Fprintf(in, "start\nupdate %s %s %s\nprepare\n", branch, c, old)
	time.Sleep(hold)
	fmt.Fprintf(in, "commit\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git update-ref --stdin: %v: %s", err, stderr.Bytes())
	}
	return nil
}

// cleanGitFailure reports whether git failed the way it fails when another
// process holds or moves the branch: it changed nothing.
func cleanGitFailure(err error) bool {
	msg := err.Error()
	for _, s := range []string{"cannot lock ref", ".lock': File exists", "but expected"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
