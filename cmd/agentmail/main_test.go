package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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

	"github.com/rogpeppe/go-internal/testscript"
	"gopkg.in/yaml.v3"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentmail": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end journeys in testdata/script: the real
// agentmail (this test binary under that name) against real git and SQLite.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("AGENTMAIL_HOME", filepath.Join(work, ".store"))
			env.Setenv("HOME", filepath.Join(work, ".home"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			fsckAfterScript(env)
			return os.MkdirAll(filepath.Join(work, ".home"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: withArchiveCmds(map[string]func(*testscript.TestScript, bool, []string){
			"jsonget":     cmdJSONGet,
			"jsonsave":    cmdJSONSave,
			"frontmatter": cmdFrontMatter,
			"sendstorm":   cmdSendStorm,
			"killsends":   cmdKillSends,
			"countids":    cmdCountIDs,
			"race":        cmdRace,
		}),
	})
}

// jsonget VAR FILE PATH sets $VAR to the value at PATH (dot-separated keys
// and list indexes, e.g. message.id or messages.0.subject) of the JSON
// document in FILE. Strings are set as they are, anything else as JSON.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonget VAR FILE PATH")
	}
	ts.Setenv(args[0], jsonValue(ts, args[1], args[2]))
}

// jsonsave OUT FILE PATH writes the value at PATH of the JSON document in
// FILE to the file OUT, byte for byte.
func cmdJSONSave(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonsave OUT FILE PATH")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(jsonValue(ts, args[1], args[2])), 0o644))
}

func jsonValue(ts *testscript.TestScript, file, path string) string {
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(file)), &v))
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				ts.Fatalf("json: no key %q in %s", k, file)
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("json: bad index %q (len %d)", k, len(x))
			}
			v = x[i]
		default:
			ts.Fatalf("json: %q: not an object or list", k)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// frontmatter FILE checks that FILE is a message file: YAML front matter
// (parsed by a real YAML parser) with the keys of design §2 in order, then a
// blank line.
func cmdFrontMatter(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: frontmatter FILE")
	}
	data := ts.ReadFile(args[0])
	rest, ok := strings.CutPrefix(data, "---\n")
	if !ok {
		ts.Fatalf("%s: no opening ---", args[0])
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok || !strings.HasPrefix(body, "\n") {
		ts.Fatalf("%s: front matter not closed by --- and a blank line", args[0])
	}
	var doc yaml.Node
	ts.Check(yaml.Unmarshal([]byte(head), &doc))
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		ts.Fatalf("%s: front matter is not a YAML mapping", args[0])
	}
	order := []string{"id", "thread", "from", "to", "cc", "bcc", "subject", "importance", "ack_required", "category", "reply_to", "created", "hold"}
	last := -1
	for i := 0; i < len(doc.Content[0].Content); i += 2 {
		k := doc.Content[0].Content[i].Value
		pos := slices.Index(order, k)
		if pos <= last {
			ts.Fatalf("%s: key %q unknown or out of order", args[0], k)
		}
		last = pos
	}
	var m map[string]any
	ts.Check(yaml.Unmarshal([]byte(head), &m))
	ts.Logf("front matter: %v", m)
}

// agentmailPath finds the agentmail command the script runs.
func agentmailPath(ts *testscript.TestScript) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, "agentmail")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	ts.Fatalf("agentmail not on PATH")
	return ""
}

func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "AGENTMAIL_HOME", "GIT_CONFIG_NOSYSTEM", "TMPDIR", "WORK"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// sendstorm PROCS N FROM TO: PROCS concurrent workers each run N
// `agentmail send` processes one after another, in the script's directory.
// Any failure fails the script.
func cmdSendStorm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: sendstorm PROCS N FROM TO")
	}
	procs, _ := strconv.Atoi(args[0])
	n, _ := strconv.Atoi(args[1])
	bin, env, dir := agentmailPath(ts), scriptEnv(ts), ts.Getenv("WORK")
	var wg sync.WaitGroup
	errs := make(chan error, procs*n)
	start := time.Now()
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				cmd := exec.Command(bin, "send", "--agent", args[2], "--to", args[3],
					"--subject", fmt.Sprintf("storm %d/%d", p, i), "--body", fmt.Sprintf("worker %d message %d", p, i))
				cmd.Env, cmd.Dir = env, filepath.Join(dir, "repo")
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("worker %d message %d: %v: %s", p, i, err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		ts.Fatalf("%v", err)
	}
	ts.Logf("%d messages from %d concurrent senders in %s (%.0f/s)", procs*n, procs,
		time.Since(start).Round(time.Millisecond), float64(procs*n)/time.Since(start).Seconds())
}

// killsends N FROM TO OUT: starts N `agentmail send` processes one after
// another and kills each with SIGKILL after a random delay (0-40 ms). The
// ids of the sends that reported success before they were killed are
// written to OUT, one per line.
func cmdKillSends(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: killsends N FROM TO OUT")
	}
	n, _ := strconv.Atoi(args[0])
	bin, env, dir := agentmailPath(ts), scriptEnv(ts), ts.Getenv("WORK")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var ok []string
	killed := 0
	for i := 0; i < n; i++ {
		var out bytes.Buffer
		cmd := exec.Command(bin, "send", "--json", "--agent", args[1], "--to", args[2],
			"--subject", fmt.Sprintf("crash %d", i), "--body", strings.Repeat("payload ", 100))
		cmd.Env, cmd.Dir, cmd.Stdout = env, filepath.Join(dir, "repo"), &out
		ts.Check(cmd.Start())
		time.Sleep(time.Duration(rng.IntN(40000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if err == nil {
			var doc struct{ Message struct{ ID string } }
			ts.Check(json.Unmarshal(out.Bytes(), &doc))
			ok = append(ok, doc.Message.ID)
		} else {
			killed++
		}
	}
	ts.Logf("%d sends: %d completed, %d killed", n, len(ok), killed)
	if killed == 0 || len(ok) == 0 {
		ts.Logf("warning: the kill timing hit only one side (%d completed, %d killed)", len(ok), killed)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(strings.Join(ok, "\n")+"\n"), 0o644))
}

// countids FILE N: the JSON document in FILE has a "messages" list of N
// messages with N distinct ids. With IDS, every id listed in the file IDS
// (one per line) must be among them.
func cmdCountIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: countids FILE N [IDS]")
	}
	var doc struct{ Messages []struct{ ID string } }
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc))
	seen := map[string]bool{}
	for _, m := range doc.Messages {
		seen[m.ID] = true
	}
	if args[1] != "-" {
		want, _ := strconv.Atoi(args[1])
		if len(doc.Messages) != want || len(seen) != want {
			ts.Fatalf("%s: %d messages, %d distinct ids; want %d", args[0], len(doc.Messages), len(seen), want)
		}
	}
	if len(args) == 3 {
		for _, id := range strings.Fields(ts.ReadFile(args[2])) {
			if !seen[id] {
				ts.Fatalf("message %s reported as sent is missing", id)
			}
		}
	}
}

// race N ARGS...: runs N (at most 10) `agentmail ARGS...` processes at
// once, each with "%d" in its arguments replaced by its number and "%n" by
// an agent name of its own, and prints how many exited 0, 3 (conflict) and
// otherwise, as "ok=A conflict=B other=C".
var raceNames = []string{"AmberFox", "BlueRiver", "GreenHarbor", "RedRiver", "SilverLake",
	"AmberCastle", "BlueFalcon", "GreenOtter", "RedHarbor", "SilverFox"}

func cmdRace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: race N ARGS...")
	}
	n, _ := strconv.Atoi(args[0])
	if n > len(raceNames) {
		ts.Fatalf("race: at most %d processes", len(raceNames))
	}
	bin, env, dir := agentmailPath(ts), scriptEnv(ts), ts.Getenv("WORK")
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := make([]string, len(args)-1)
			for j, s := range args[1:] {
				a[j] = strings.NewReplacer("%d", strconv.Itoa(i), "%n", raceNames[i]).Replace(s)
			}
			cmd := exec.Command(bin, a...)
			cmd.Env, cmd.Dir = env, filepath.Join(dir, "repo")
			out, err := cmd.CombinedOutput()
			key := "ok"
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee) && ee.ExitCode() == 3:
				key = "conflict"
			default:
				key = "other"
				ts.Logf("process %d: %v: %s", i, err, out)
			}
			mu.Lock()
			counts[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Fprintf(ts.Stdout(), "ok=%d conflict=%d other=%d\n", counts["ok"], counts["conflict"], counts["other"])
}
