package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/mailbox"
)

// newPerSide is how many messages each of two machines writes before the
// sync that brings them together.
const newPerSide = 1000

// measureSync times sync against a bare remote on this machine, for a
// project seeded with each of sizes messages in 1,000 commits (so that
// only the tree grows from one size to the next): sync with nothing new against a
// bare git fetch, reserve on a synced project against a bare git push of
// one commit, and the sync of a machine that wrote 1,000 messages (a
// commit each) with a remote that got 1,000 others meanwhile.
func measureSync(ctx context.Context, bin string, sizes []int, runs int) error {
	for _, n := range sizes {
		if err := measureSyncAt(ctx, bin, n, runs); err != nil {
			return fmt.Errorf("sync at %d messages: %w", n, err)
		}
	}
	return nil
}

func measureSyncAt(ctx context.Context, bin string, n, runs int) error {
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

	fmt.Printf("sync, %d messages in the archive (each pair of rows measured in turns, so that load falls on both alike):\n", n)
	archiveDir := filepath.Join(storeA, "archive.git")
	pair := measureTurns(runs,
		gitRun("  git fetch, nothing new", nil, func(int) []string {
			return []string{"--git-dir", archiveDir, "fetch", "--quiet", "--no-tags", remote, "+refs/agentmail/*:refs/bench/fetched/*"}
		}),
		a.run1("  sync, nothing new", func(int) []string { return []string{"sync"} }))
	fetch, idle := pair[0], pair[1]
	idle.target = fetch.median + 20*time.Millisecond
	fmt.Println(fetch)
	fmt.Println(idle, "(target: a fetch + 20 ms)")

	pusher, err := newPusher(dir)
	if err != nil {
		return err
	}
	pair = measureTurns(runs,
		gitRun("  git push, one commit", pusher.commit, func(int) []string {
			return []string{"-C", pusher.repo, "push", "--quiet", remote, "HEAD:refs/bench/pushed"}
		}),
		a.run1("  reserve, synced", func(i int) []string {
			return []string{"reserve", "--agent", agentName(5), "--ttl", "1h", fmt.Sprintf("bench-%d/**", i)}
		}))
	push, reserve := pair[0], pair[1]
	reserve.target = 2 * push.median
	fmt.Println(push)
	fmt.Println(reserve, "(target: 2 × a push)")
	bigPush := measureGitPush(runs, "  git push, one file changed", filepath.Join(storeA, "archive.git"), remote, dir)
	fmt.Println(bigPush, "(a commit of this archive changing one file, as a grant's does: the remote checks its new trees)")
	fmt.Println(a.measure("  reserve --offline", 0, runs, func(i int) []string {
		return []string{"reserve", "--offline", "--agent", agentName(6), "--ttl", "1h", fmt.Sprintf("offline-%d/**", i)}
	}), "(the same grant without the remote)")

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
	floor, err := bareExchange(dir, storeA, remote)
	if err != nil {
		return err
	}
	fmt.Printf("  %-26s %8s (1 run, on copies: git fetch of B's commits, git push of A's)\n", "git alone, the same", floor.Round(time.Millisecond))
	start = time.Now()
	out, err := a.run("sync", "--json")
	if err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Printf("  %-26s %8s (1 run: %d in, %d out; target <= 2s) %s\n", "sync, 1000 new each side", took.Round(time.Millisecond),
		jsonInt(out, "in"), jsonInt(out, "out"), verdict(took <= 2*time.Second))
	return nil
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

// measureGitPush times a bare git push of a commit that changes one file
// of the project's branch in archive, made outside the clock with git's
// plumbing and a scratch index file under dir.
func measureGitPush(runs int, name, archive, remote, dir string) result {
	index := filepath.Join(dir, "scratch-index")
	var commit string
	return measureTurns(runs, timed{name: name, before: func(i int) error {
		var err error
		commit, err = oneFileCommit(archive, index, i)
		return err
	}, run: func(int) error {
		return git("", "--git-dir", archive, "push", "--quiet", "--force", remote, commit+":refs/bench/one-file")
	}})[0]
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

// timed is one process to time: run does it (the i-th time), before,
// when set, prepares it outside the clock.
type timed struct {
	name   string
	before func(i int) error
	run    func(i int) error
}

// gitRun is a git process to time.
func gitRun(name string, before func(int) error, args func(int) []string) timed {
	return timed{name, before, func(i int) error { return git("", args(i)...) }}
}

// run1 is an agentmail process to time.
func (b *bench) run1(name string, args func(int) []string) timed {
	return timed{name: name, run: func(i int) error {
		_, err := b.run(args(i)...)
		return err
	}}
}

// measureTurns times each of ts runs times, in turns.
func measureTurns(runs int, ts ...timed) []result {
	times := make([][]time.Duration, len(ts))
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
			if err := t.run(i); err != nil {
				out[j] = result{name: t.name, err: err}
				return out
			}
			times[j] = append(times[j], time.Since(start))
		}
	}
	for j, t := range ts {
		out[j] = summarize(t.name, times[j])
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
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// jsonInt returns the number after "key": in the JSON document doc.
func jsonInt(doc []byte, key string) int {
	_, rest, _ := strings.Cut(string(doc), `"`+key+`":`)
	n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, ",", 2)[0]))
	return n
}
