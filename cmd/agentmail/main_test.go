package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
			"jsonget":      cmdJSONGet,
			"jsonsave":     cmdJSONSave,
			"frontmatter":  cmdFrontMatter,
			"sendstorm":    cmdSendStorm,
			"killsends":    cmdKillSends,
			"countids":     cmdCountIDs,
			"race":         cmdRace,
			"racestores":   cmdRaceStores,
			"status":       cmdStatus,
			"damagepages":  cmdDamagePages,
			"sqlexec":      cmdSQLExec,
			"nobody":       cmdNobody,
			"hinted":       cmdHinted,
			"prefix":       cmdPrefix,
			"golden":       cmdGolden,
			"jsonextends":  cmdJSONExtends,
			"tick":         cmdTick,
			"legacystore":  cmdLegacyStore,
			"gitdaemon":    cmdGitDaemon,
			"retry":        cmdRetry,
			"mcpcall":      cmdMCPCall,
			"waitserve":    cmdWaitServe,
			"http":         cmdHTTP,
			"holdindex":    cmdHoldIndex,
			"releaseindex": cmdReleaseIndex,
			"within":       cmdWithin,
			"legacykey":    cmdLegacyKey,
			"hookreceiver": cmdHookReceiver,
			"hookanswers":  cmdHookAnswers,
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

// prefix VAR N STRING sets $VAR to the first N characters of STRING (an id
// prefix to type back).
func cmdPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: prefix VAR N STRING")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > len(args[2]) {
		ts.Fatalf("prefix: %q is not a length of %q", args[1], args[2])
	}
	ts.Setenv(args[0], args[2][:n])
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
	for _, k := range []string{"PATH", "HOME", "AGENTMAIL_HOME", "GIT_CONFIG_NOSYSTEM", "TMPDIR", "WORK", "AGENTMAIL_MAX_BODY"} {
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
			key := runRacer(ts, bin, env, filepath.Join(dir, "repo"), args[1:],
				strings.NewReplacer("%d", strconv.Itoa(i), "%n", raceNames[i]))
			mu.Lock()
			counts[key]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Fprintf(ts.Stdout(), "ok=%d conflict=%d other=%d\n", counts["ok"], counts["conflict"], counts["other"])
}

// runRacer runs `agentmail ARGS...` in dir, with r's replacements made in
// its arguments, and says how it ended: "ok", "conflict" (exit 3) or
// "other" (logged).
func runRacer(ts *testscript.TestScript, bin string, env []string, dir string, args []string, r *strings.Replacer) string {
	a := make([]string, len(args))
	for j, s := range args {
		a[j] = r.Replace(s)
	}
	cmd := exec.Command(bin, a...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ee) && ee.ExitCode() == 3:
		return "conflict"
	}
	ts.Logf("%v: %v: %s", a, err, out)
	return "other"
}

// status N CMD [ARGS...] runs CMD as exec does and fails unless it exits
// with status N; its stdout and stderr are kept for the assertions after.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N CMD [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case err == nil:
	case errors.As(err, &ee):
		got = ee.ExitCode()
	default:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// sqlexec FILE SQL runs one SQL statement on the SQLite database FILE
// (an index, to take rows out of it behind agentmail's back).
func cmdSQLExec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlexec FILE SQL")
	}
	db, err := sql.Open("sqlite3", "file:"+ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(args[1])
	ts.Check(err)
}

// damagepages FILE TABLE... overwrites the root pages of the named tables
// of the SQLite database FILE with garbage. The file still opens (its
// header and schema are intact); SQLite says "database disk image is
// malformed" only when a query reaches those tables.
func cmdDamagePages(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: damagepages FILE TABLE...")
	}
	path := ts.MkAbs(args[0])
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	ts.Check(err)
	var pageSize int64
	ts.Check(db.QueryRow(`PRAGMA page_size`).Scan(&pageSize))
	var roots []int64
	for _, table := range args[1:] {
		var root int64
		ts.Check(db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = ?`, table).Scan(&root))
		roots = append(roots, root)
	}
	ts.Check(db.Close())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	ts.Check(err)
	defer f.Close()
	garbage := bytes.Repeat([]byte("\xde\xad\xbe\xef"), int(pageSize)/4)
	for _, root := range roots {
		_, err := f.WriteAt(garbage, (root-1)*pageSize)
		ts.Check(err)
	}
}

// nobody agentmail ARGS... runs agentmail as a user who may not write what
// the script made read-only: as nobody (uid and gid 65534) when the tests
// run as root, who may write anything (as CI does), else as the current
// user. Its stdout and stderr are the command's, as with exec.
func cmdNobody(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || args[0] != "agentmail" {
		ts.Fatalf("usage: nobody agentmail ARGS...")
	}
	bin := agentmailPath(ts)
	env := scriptEnv(ts)
	for _, k := range []string{"AGENTMAIL_AGENT", "AGENTMAIL_PROJECT", "AGENTMAIL_IDLE_AFTER", "AGENTMAIL_NOW", "NO_COLOR"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	run := func() error {
		cmd := exec.Command(bin, args[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ts.MkAbs("."), env, &stdout, &stderr
		if os.Geteuid() == 0 {
			cmd.Path = nobodyBinary(ts, bin)
			cmd.Env = append(cmd.Env, "TMPDIR="+os.TempDir()) // the script's own is root's
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		return cmd.Run()
	}
	err := run()
	// The copy nobody runs was just written: a process another script
	// forked meanwhile may hold it open for writing until it execs ("text
	// file busy").
	for try := 0; errors.Is(err, syscall.ETXTBSY) && try < 20; try++ {
		time.Sleep(50 * time.Millisecond)
		err = run()
	}
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	var ee *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &ee):
		ts.Fatalf("nobody: %v", err)
	case err != nil && !neg:
		ts.Fatalf("nobody agentmail: %v", err)
	case err == nil && neg:
		ts.Fatalf("nobody agentmail: unexpected success")
	}
}

// nobodyBinary returns a copy of bin that nobody may run, in $WORK, and
// opens the way to $WORK for nobody: the test's temporary directories are
// private to root.
func nobodyBinary(ts *testscript.TestScript, bin string) string {
	work := ts.Getenv("WORK")
	for d := work; d != filepath.Dir(d) && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		ts.Check(err)
		ts.Check(os.Chmod(d, fi.Mode().Perm()|0o011))
	}
	copied := filepath.Join(work, ".nobody", "agentmail")
	if _, err := os.Stat(copied); err == nil {
		return copied
	}
	ts.Check(os.MkdirAll(filepath.Dir(copied), 0o755))
	data, err := os.ReadFile(bin)
	ts.Check(err)
	ts.Check(os.WriteFile(copied, data, 0o755))
	return copied
}

// hinted CASES runs the failing invocations listed in the file CASES, one
// JSON object a line ({"dir": "repo", "args": [...], "exit": 1, "code":
// "NOT_FOUND"}; $VARS in args are the script's), and checks that each exits
// as listed with one error line saying what was wrong and, in parentheses,
// what to do (unless "report": true, for a command that explains itself at
// length), and with --json one error document with that code, a message
// and a hint. Blank lines and lines starting with # are skipped.
func cmdHinted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hinted CASES")
	}
	bin := agentmailPath(ts)
	env := append(scriptEnv(ts), "AGENTMAIL_PROJECT="+ts.Getenv("AGENTMAIL_PROJECT"))
	human := regexp.MustCompile(`^agentmail: .+ \(.+\)\n$`)
	var failed []string
	for i, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c struct {
			Dir    string
			Args   []string
			Exit   int
			Code   string
			Report bool
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			ts.Fatalf("%s:%d: %v", args[0], i+1, err)
		}
		for j := range c.Args {
			c.Args[j] = os.Expand(c.Args[j], ts.Getenv)
		}
		run := func(extra ...string) (string, int) {
			cmd := exec.Command(bin, append(c.Args, extra...)...)
			cmd.Env, cmd.Dir = env, filepath.Join(ts.Getenv("WORK"), c.Dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				ts.Fatalf("%q: %v", c.Args, err)
			}
			return stderr.String(), cmd.ProcessState.ExitCode()
		}
		out, code := run()
		if code != c.Exit || !c.Report && !human.MatchString(out) {
			failed = append(failed, fmt.Sprintf("%q: exit %d (want %d), stderr %q: want one line with a hint in parentheses", c.Args, code, c.Exit, out))
		}
		if i := slices.Index(c.Args, "--"); i >= 0 { // --json is agentmail's, not the command's
			c.Args = slices.Insert(c.Args, i, "--json")
		} else {
			c.Args = append(c.Args, "--json")
		}
		out, code = run()
		var doc struct {
			Error struct{ Code, Message, Hint string }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != c.Exit || doc.Error.Code != c.Code || doc.Error.Message == "" || doc.Error.Hint == "" {
			failed = append(failed, fmt.Sprintf("%q --json: exit %d (want %d), stderr %q: want code %s, a message and a hint", c.Args, code, c.Exit, out, c.Code))
		}
		ts.Logf("%q: %s: %s (%s)", c.Args, doc.Error.Code, doc.Error.Message, doc.Error.Hint)
	}
	if len(failed) > 0 {
		ts.Fatalf("%d cases without the right error:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}

// jsonextends NEW OLD checks that the JSON document in NEW says everything
// the one in OLD says: the same values, and in objects perhaps more keys
// (the --json schema grows by adding fields, never by changing them).
func cmdJSONExtends(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonextends NEW OLD")
	}
	var newDoc, oldDoc any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &newDoc))
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &oldDoc))
	if where := jsonExtends(newDoc, oldDoc, "$"); where != "" {
		ts.Fatalf("%s does not extend %s at %s", args[0], args[1], where)
	}
}

// jsonExtends returns where n fails to say what o says, or "".
func jsonExtends(n, o any, at string) string {
	switch ov := o.(type) {
	case map[string]any:
		nv, ok := n.(map[string]any)
		if !ok {
			return at
		}
		for k, v := range ov {
			if _, ok := nv[k]; !ok {
				return at + "." + k + " (missing)"
			}
			if w := jsonExtends(nv[k], v, at+"."+k); w != "" {
				return w
			}
		}
		return ""
	case []any:
		nv, ok := n.([]any)
		if !ok || len(nv) != len(ov) {
			return at + " (length)"
		}
		for i := range ov {
			if w := jsonExtends(nv[i], ov[i], fmt.Sprintf("%s[%d]", at, i)); w != "" {
				return w
			}
		}
		return ""
	}
	if fmt.Sprint(n) != fmt.Sprint(o) {
		return fmt.Sprintf("%s (%v, was %v)", at, n, o)
	}
	return ""
}
