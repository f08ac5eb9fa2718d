package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
)

// newPerSide is how many messages each of two machines writes before the
// sync that brings them together.
const newPerSide = 1000

// measureSync times sync against a bare remote on this machine, for a
// project seeded with each of sizes messages in 1,000 commits (so that
// only the tree grows from one size to the next): sync with nothing new against a
// bare git fetch, reserve on a synced project against a bare git push of
// one commit, and the sync of a machine that wrote 1,000 messages (a
// commit each) with a remote that got 1,000 others meanwhile. base, when
// not "", is another binary (the one before a change) measured alongside
// bin, in turns, on the same stores.
func measureSync(ctx context.Context, bin, base string, sizes []int, runs int) error {
	for _, n := range sizes {
		if err := measureSyncAt(ctx, bin, base, n, runs); err != nil {
			return fmt.Errorf("sync at %d messages: %w", n, err)
		}
	}
	return nil
}

// bigSyncRuns is how many times the sync of 1,000 new messages on each
// side is measured, each on fresh copies of the stores.
const bigSyncRuns = 3

func measureSyncAt(ctx context.Context, bin, base string, n, runs int) error {
	dir, err := os.MkdirTemp("", "agentmail-bench-sync-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	storeA, storeB, remote := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "remote.git")
	fmt.Printf("sync: seeding %d messages ...\n", n)
	if _, err := seedStore(ctx, storeA, n, max(n/1000, 1)); err != nil {
		return err
	}
	if err := git("", "init", "--quiet", "--bare", remote); err != nil {
		return err
	}
	a := &bench{bin: bin, env: append(os.Environ(), "AGENTMAIL_HOME="+storeA, "AGENTMAIL_PROJECT="+projectKey)}
	b := &bench{bin: bin, env: append(os.Environ(), "AGENTMAIL_HOME="+storeB, "AGENTMAIL_PROJECT="+projectKey)}
	for _, m := range []*bench{a, b} {
		if _, err := m.run("sync", "--remote", remote); err != nil {
			return err
		}
		if _, err := m.run("doctor", "--gc"); err != nil { // as the other benchmarks measure a packed store
			return err
		}
	}
	// Each agentmail row is measured with bin, then with base when given.
	binaries := []*bench{a}
	if base != "" {
		binaries = append(binaries, &bench{bin: base, env: a.env, label: "before: "})
	}

	fmt.Printf("sync, %d messages in the archive (the rows of each group measured in turns, so that load falls on all alike; cpu: user+system time of the process and its children):\n", n)
	archiveDir := filepath.Join(storeA, "archive.git")
	idle := measureTurns(runs, append([]timed{
		gitRun("  git fetch, nothing new", nil, func(int) []string {
			return []string{"--git-dir", archiveDir, "fetch", "--quiet", "--no-tags", remote, "+refs/agentmail/*:refs/bench/fetched/*"}
		})}, eachBinary(binaries, "sync, nothing new", func(int) []string { return []string{"sync"} })...)...)
	fmt.Println(idle[0])
	for _, r := range idle[1:] {
		r.target = idle[0].median + 20*time.Millisecond
		fmt.Println(r, "(target: a fetch + 20 ms)")
	}

	pusher, err := newPusher(dir)
	if err != nil {
		return err
	}
	tiny := gitRun("  git push, one commit", pusher.commit, func(int) []string {
		return []string{"-C", pusher.repo, "push", "--quiet", remote, "HEAD:refs/bench/pushed"}
	})
	oneFile := gitPushOneFile("  git push, one file changed", archiveDir, remote, dir)
	grants := measureTurns(runs, append([]timed{tiny, oneFile}, eachBinary(binaries, "reserve, synced", func(i int) []string {
		return []string{"reserve", "--agent", agentName(5), "--ttl", "1h", fmt.Sprintf("bench-%d-%d/**", i, rand.IntN(1<<30))}
	})...)...)
	push, bigPush := grants[0], grants[1]
	fmt.Println(push, "(a tiny repository's)")
	fmt.Println(bigPush, "(a commit of this archive changing one file, as a grant's does: the remote checks its new trees)")
	for _, r := range grants[2:] {
		r.target = 2 * push.median
		fmt.Printf("%s (target: 2 × a push; %.1f × this archive's)\n", r, float64(r.median)/float64(bigPush.median))
	}
	offline := measureTurns(runs, append(eachBinary(binaries, "agentmail --version", func(int) []string { return []string{"--version"} }),
		eachBinary(binaries, "reserve --offline", func(i int) []string {
			return []string{"reserve", "--offline", "--agent", agentName(6), "--ttl", "1h", fmt.Sprintf("offline-%d-%d/**", i, rand.IntN(1<<30))}
		})...)...)
	for _, r := range offline {
		fmt.Println(r)
	}
	walk, err := connectivityWalk(filepath.Join(storeA, "archive.git"), runs)
	if err != nil {
		return err
	}
	fmt.Printf("  %-26s %8s median (git rev-list --objects --not --all of a commit that adds nothing: the walk of every tree\n"+
		"%38s of the commit it builds on, that git's connectivity check pays here for each fetch, the remote for each push)\n",
		"connectivity check", walk.Round(10*time.Microsecond), "")
	today, err := todaysMessages(filepath.Join(storeA, "archive.git"))
	if err != nil {
		return err
	}
	fmt.Printf("  today's day directory holds %d messages already: each side's %d sends land there, so the trees each\n"+
		"  of their commits rewrites, and the figures below, grow with it (the seeded history ends late today)\n", today, newPerSide)

	for _, side := range []struct {
		dir   string
		agent int
	}{{storeA, 6}, {storeB, 7}} {
		if err := sendCommits(ctx, side.dir, side.agent, newPerSide); err != nil {
			return err
		}
	}
	start := time.Now()
	if _, err := b.run("sync"); err != nil {
		return err
	}
	fmt.Printf("  %-26s %8s (1 run: fetch, push %d commits)\n", "sync, B's new out", time.Since(start).Round(time.Millisecond), newPerSide)
	return measureBigSync(dir, storeA, remote, binaries)
}

// eachBinary is the agentmail process args makes, named name, for each of
// binaries.
func eachBinary(binaries []*bench, name string, args func(int) []string) []timed {
	ts := make([]timed, len(binaries))
	for i, b := range binaries {
		ts[i] = b.run1("  "+b.label+name, args)
	}
	return ts
}

// measureBigSync times, bigSyncRuns times in turns, each on fresh copies
// of store A (in dir storeA) and the remote: git alone exchanging the
// commits that A and the remote lack (see bareExchange), and the sync of
// A by each of binaries, split into the time of its git processes and its
// own.
func measureBigSync(dir, storeA, remote string, binaries []*bench) error {
	alone := make([]time.Duration, 0, bigSyncRuns)
	syncs := make([][]syncRun, len(binaries))
	for i := 0; i < bigSyncRuns; i++ {
		took, err := bareExchange(dir, storeA, remote)
		if err != nil {
			return err
		}
		alone = append(alone, took)
		for j, b := range binaries {
			r, err := b.syncCopy(dir, storeA, remote)
			if err != nil {
				return err
			}
			syncs[j] = append(syncs[j], r)
		}
	}
	slices.Sort(alone)
	fmt.Printf("  %-26s %8s median of %d (on copies: git fetch of B's commits, git push of A's)\n", "git alone, the same", alone[len(alone)/2].Round(time.Millisecond), bigSyncRuns)
	for j, b := range binaries {
		rs := syncs[j]
		slices.SortFunc(rs, func(x, y syncRun) int { return cmp.Compare(x.took, y.took) })
		r := rs[len(rs)/2]
		fmt.Printf("  %-26s %8s median of %d, cpu %s (%d in, %d out; git: fetch %s, push %s, other %s; agentmail's own %s; target <= 2s) %s\n",
			b.label+"sync, 1000 new each side", r.took.Round(time.Millisecond), bigSyncRuns, r.cpu.Round(time.Millisecond), r.in, r.out,
			r.git["fetch"].Round(time.Millisecond), r.git["push"].Round(time.Millisecond), r.otherGit().Round(time.Millisecond),
			(r.took - r.gitTotal()).Round(time.Millisecond), verdict(r.took <= 2*time.Second))
		fmt.Printf("%38s git's steps: fetch: the remote's pack-objects %s, index-pack %s, connectivity check %s;\n"+
			"%38s push: pack-objects %s, the remote's index-pack %s, its connectivity check %s\n",
			"", r.phase("fetch", "pack-objects"), r.phase("fetch", "index-pack"), r.phase("fetch", "rev-list"),
			"", r.phase("push", "pack-objects"), r.phase("push", "index-pack"), r.phase("push", "rev-list"))
	}
	return nil
}

// syncRun is one sync measured: its wall-clock and cpu time, what it
// brought in and sent out, and how long its git processes took, by git
// command, and those they started, by phase (see gitTimes).
type syncRun struct {
	took, cpu  time.Duration
	in, out    int
	git, steps map[string]time.Duration
}

// phase returns how long the git processes named verb that the sync's git
// command cmd started, at any depth, took in all.
func (r syncRun) phase(cmd, verb string) time.Duration {
	return r.steps[cmd+" "+verb].Round(time.Millisecond)
}

func (r syncRun) gitTotal() time.Duration {
	var sum time.Duration
	for _, d := range r.git {
		sum += d
	}
	return sum
}

func (r syncRun) otherGit() time.Duration { return r.gitTotal() - r.git["fetch"] - r.git["push"] }

// syncCopy syncs copies of store A (in dir storeA) and of the remote,
// timing it, with git's trace2 event log telling how long each git
// process it ran took.
func (b *bench) syncCopy(dir, storeA, remote string) (syncRun, error) {
	copyA, copyRemote := filepath.Join(dir, "sync-a"), filepath.Join(dir, "sync-remote.git")
	for _, c := range [][2]string{{storeA, copyA}, {remote, copyRemote}} {
		if out, err := exec.Command("cp", "-a", c[0], c[1]).CombinedOutput(); err != nil {
			return syncRun{}, fmt.Errorf("copy %s: %v: %s", c[0], err, out)
		}
	}
	defer os.RemoveAll(copyA)
	defer os.RemoveAll(copyRemote)
	if err := rememberRemote(filepath.Join(copyA, "archive.git"), copyRemote); err != nil {
		return syncRun{}, err
	}
	trace := filepath.Join(dir, "trace2.json")
	defer os.Remove(trace)
	cmd := exec.Command(b.bin, "sync", "--json")
	cmd.Env = append(slices.Clone(b.env), "AGENTMAIL_HOME="+copyA, "GIT_TRACE2_EVENT="+trace)
	start := time.Now()
	out, err := cmd.Output()
	r := syncRun{took: time.Since(start)}
	if err != nil {
		return r, fmt.Errorf("sync: %v", err)
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.in, r.out = jsonInt(out, "in"), jsonInt(out, "out")
	r.git, r.steps, err = gitTimes(trace)
	return r, err
}

// rememberRemote makes the archive at dir, a copy, sync with remote, a
// copy of the remote its original synced with: as far as it can tell, the
// same remote (sync --remote would make it another).
func rememberRemote(dir, remote string) error {
	out, err := exec.Command("git", "--git-dir", dir, "config", "--name-only", "--get-regexp", `^agentmail\..*\.remote$`).Output()
	if err != nil {
		return fmt.Errorf("read the remotes of %s: %v", dir, err)
	}
	for _, key := range strings.Fields(string(out)) {
		if err := git("", "--git-dir", dir, "config", key, remote); err != nil {
			return err
		}
	}
	return nil
}

// gitTimes reads git's trace2 event log at path and returns how long the
// git processes started by others than git took, by git command, and how
// long those they started took, at any depth, by the first one's command
// and theirs ("fetch index-pack": the fetches' index-pack processes; "push
// rev-list": the connectivity checks of the remote's receive-pack).
func gitTimes(path string) (top, steps map[string]time.Duration, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	verbs := map[string]string{} // by session id
	top, steps = map[string]time.Duration{}, map[string]time.Duration{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev struct {
			Event string   `json:"event"`
			SID   string   `json:"sid"`
			Argv  []string `json:"argv"`
			TAbs  float64  `json:"t_abs"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch ev.Event {
		case "start":
			verbs[ev.SID] = gitVerb(ev.Argv)
		case "exit":
			took := time.Duration(ev.TAbs * float64(time.Second))
			first, _, started := strings.Cut(ev.SID, "/") // a process git started
			if !started {
				top[verbs[ev.SID]] += took
			} else {
				steps[verbs[first]+" "+verbs[ev.SID]] += took
			}
		}
	}
	return top, steps, nil
}

// gitVerb returns the command of a git command line: its first argument
// that is not an option, or what follows git- in the program's name
// (git-upload-pack).
func gitVerb(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if verb, ok := strings.CutPrefix(filepath.Base(argv[0]), "git-"); ok {
		return verb
	}
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "--git-dir" || a == "-c" || a == "-C":
			i++
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}

// connectivityWalk times, runs times, git's connectivity check (the
// rev-list git fetch and receive-pack run) of a commit on the project's
// branch in archive that adds nothing: the walk of every tree of the
// commit the new ones build on (rev-list marks the whole tree of each
// parent it will not list as uninteresting, recursively), which each
// check pays however little it brought. It returns the median.
func connectivityWalk(archive string, runs int) (time.Duration, error) {
	branch, err := gitOut(archive, "", "for-each-ref", "--format=%(refname)", "refs/heads/projects/")
	if err != nil {
		return 0, err
	}
	c, err := gitOut(archive, "", "-c", "user.name=bench", "-c", "user.email=bench@example.com",
		"commit-tree", "-p", branch, "-m", "bench: adds nothing", branch+"^{tree}")
	if err != nil {
		return 0, err
	}
	times := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := gitOut(archive, c+"\n", "rev-list", "--objects", "--stdin", "--not", "--all", "--quiet", "--alternate-refs"); err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
	}
	return summarize("", times).median, nil
}

// todaysMessages returns how many messages today's day directory holds
// on the project's branch in archive.
func todaysMessages(archive string) (int, error) {
	branch, err := gitOut(archive, "", "for-each-ref", "--format=%(refname)", "refs/heads/projects/")
	if err != nil {
		return 0, err
	}
	out, err := gitOut(archive, "", "ls-tree", "--name-only", branch+":messages/"+time.Now().UTC().Format("2006/01/02"))
	if err != nil || out == "" {
		return 0, nil // no directory for today yet
	}
	return len(strings.Split(out, "\n")), nil
}

// gitOut runs git on archive with stdin and returns its output, trimmed.
func gitOut(archive, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", archive}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// bareExchange times what git alone does to bring A (the store in dir
// storeA) and the remote together, on copies of both: fetch the remote's
// new commits, push A's.
func bareExchange(dir, storeA, remote string) (time.Duration, error) {
	archiveCopy, remoteCopy := filepath.Join(dir, "floor-a.git"), filepath.Join(dir, "floor-remote.git")
	for _, c := range [][2]string{{filepath.Join(storeA, "archive.git"), archiveCopy}, {remote, remoteCopy}} {
		if out, err := exec.Command("cp", "-a", c[0], c[1]).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("copy %s: %v: %s", c[0], err, out)
		}
	}
	defer os.RemoveAll(archiveCopy)
	defer os.RemoveAll(remoteCopy)
	start := time.Now()
	if err := git("", "--git-dir", archiveCopy, "fetch", "--quiet", "--no-tags", remoteCopy, "+refs/agentmail/*:refs/bench/fetched/*"); err != nil {
		return 0, err
	}
	if err := git("", "--git-dir", archiveCopy, "push", "--quiet", remoteCopy, "refs/heads/*:refs/bench/floor/*"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// gitPushOneFile is a bare git push of a commit that changes one file of
// the project's branch in archive, made outside the clock with git's
// plumbing and a scratch index file under dir.
func gitPushOneFile(name, archive, remote, dir string) timed {
	index := filepath.Join(dir, "scratch-index")
	var commit string
	return timed{name: name, before: func(i int) error {
		var err error
		commit, err = oneFileCommit(archive, index, i)
		return err
	}, run: func(int) (time.Duration, error) {
		return gitCPU("", "--git-dir", archive, "push", "--quiet", "--force", remote, commit+":refs/bench/one-file")
	}}
}

// oneFileCommit writes, in archive, a commit on the project's branch that
// adds one small file, and returns it.
func oneFileCommit(archive, index string, i int) (string, error) {
	out := func(env []string, stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"--git-dir", archive}, args...)...)
		cmd.Env, cmd.Stdin = append(os.Environ(), env...), strings.NewReader(stdin)
		b, err := cmd.Output()
		return strings.TrimSpace(string(b)), err
	}
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=b@x", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=b@x"}
	branch, err := out(nil, "", "for-each-ref", "--format=%(refname)", "refs/heads/projects/")
	if err != nil {
		return "", err
	}
	blob, err := out(nil, fmt.Sprintf("bench %d\n", i), "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	if _, err := out(env, "", "read-tree", branch); err != nil {
		return "", err
	}
	if _, err := out(env, "", "update-index", "--add", "--cacheinfo", fmt.Sprintf("100644,%s,reservations/bench-%d.json", blob, i)); err != nil {
		return "", err
	}
	tree, err := out(env, "", "write-tree")
	if err != nil {
		return "", err
	}
	return out(env, "", "commit-tree", tree, "-p", branch, "-m", "bench")
}

// sendCommits sends n messages as agent i of the bench project in the
// store in dir, one commit each, as n send commands would.
func sendCommits(ctx context.Context, dir string, i, n int) error {
	st, err := store.Open(dir, store.Options{Projections: service.Projections()})
	if err != nil {
		return err
	}
	defer st.Close()
	proj, err := project.ProjectFromKey(projectKey)
	if err != nil {
		return err
	}
	mb, err := mailbox.Open(ctx, st, proj, agentName(i))
	if err != nil {
		return err
	}
	for j := 0; j < n; j++ {
		if _, err := mb.Send(ctx, mailbox.Draft{To: []string{agentName(1)}, Subject: fmt.Sprintf("from %s %d", agentName(i), j), Body: "new on this machine"}); err != nil {
			return err
		}
	}
	return nil
}

// timed is one process to time: run does it (the i-th time) and returns
// its cpu time, before, when set, prepares it outside the clock.
type timed struct {
	name   string
	before func(i int) error
	run    func(i int) (time.Duration, error)
}

// gitRun is a git process to time.
func gitRun(name string, before func(int) error, args func(int) []string) timed {
	return timed{name, before, func(i int) (time.Duration, error) { return gitCPU("", args(i)...) }}
}

// run1 is an agentmail process to time.
func (b *bench) run1(name string, args func(int) []string) timed {
	return timed{name: name, run: func(i int) (time.Duration, error) {
		cmd := exec.Command(b.bin, args(i)...)
		cmd.Env = b.env
		return runCPU(cmd)
	}}
}

// measureTurns times each of ts runs times, in turns.
func measureTurns(runs int, ts ...timed) []result {
	times := make([][]time.Duration, len(ts))
	cpus := make([][]time.Duration, len(ts))
	out := make([]result, len(ts))
	for i := 0; i < runs; i++ {
		for j, t := range ts {
			if t.before != nil {
				if err := t.before(i); err != nil {
					out[j] = result{name: t.name, err: err}
					return out
				}
			}
			start := time.Now()
			cpu, err := t.run(i)
			if err != nil {
				out[j] = result{name: t.name, err: err}
				return out
			}
			times[j] = append(times[j], time.Since(start))
			cpus[j] = append(cpus[j], cpu)
		}
	}
	for j, t := range ts {
		out[j] = summarize(t.name, times[j])
		slices.Sort(cpus[j])
		out[j].cpu = cpus[j][len(cpus[j])/2]
	}
	return out
}

func summarize(name string, times []time.Duration) result {
	slices.Sort(times)
	return result{name: name, median: times[len(times)/2], p90: times[len(times)*9/10]}
}

// pusher is a repository of its own that makes a new commit to push each
// time.
type pusher struct{ repo string }

func newPusher(dir string) (pusher, error) {
	p := pusher{filepath.Join(dir, "pusher")}
	return p, git("", "init", "--quiet", p.repo)
}

func (p pusher) commit(i int) error {
	return git(p.repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "--allow-empty", "-m", strconv.Itoa(i))
}

func git(dir string, args ...string) error {
	_, err := gitCPU(dir, args...)
	return err
}

// gitCPU runs git in dir and returns its cpu time.
func gitCPU(dir string, args ...string) (time.Duration, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return runCPU(cmd)
}

// runCPU runs cmd and returns its cpu time, user and system, its
// children's included (those it waited for, as the kernel counts them).
func runCPU(cmd *exec.Cmd) (time.Duration, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, out.Bytes())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// jsonInt returns the number after "key": in the JSON document doc.
func jsonInt(doc []byte, key string) int {
	_, rest, _ := strings.Cut(string(doc), `"`+key+`":`)
	n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, ",", 2)[0]))
	return n
}
