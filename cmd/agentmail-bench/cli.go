package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// cliOp is one command line operation measured by measureCLI.
type cliOp struct {
	name   string
	target time.Duration // over the floor; 0: none
	dir    string        // the directory it runs in, "" for any
	args   func(i int) []string
	stdin  string // its standard input
	// payload, when set, is the standard input of run i instead.
	payload func(i int) string
	// over names another operation, run in the same turns by the binary
	// measured, that this one is compared with: the median of the
	// differences within the turns (target is then its goal).
	over string
	// added: the base binary has no such command, and is not asked.
	added bool
	// peer, when set, is the same operation asked of another mail program
	// for agents (-peer): as which identity, with which arguments.
	peer func(i int) (identity string, args []string)
}

// peerProgram is amail (github.com/thirteen37/amail), a mail command line
// for agents, measured alongside agentmail in the same turns: its project
// directory, seeded with its own command line, holds 20 messages waiting
// for dev (its inbox has no limit; agentmail's is asked for 20).
type peerProgram struct {
	bin, dir string
}

// newPeer makes a project for the amail at bin in a new directory under
// dir: roles pm, dev and qa, and 20 messages from pm to dev.
func newPeer(bin, dir string) (*peerProgram, error) {
	p := &peerProgram{bin: bin, dir: filepath.Join(dir, "amail-project")}
	if err := os.RemoveAll(p.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, err
	}
	if _, _, err := timeProcess(p.bin, []string{"init", "--agents", "pm,dev,qa"}, p.dir, p.env("pm"), ""); err != nil {
		return nil, err
	}
	for i := range 20 {
		if _, _, err := timeProcess(p.bin, []string{"send", "dev", fmt.Sprintf("waiting %d", i), "A message waiting to be read."}, p.dir, p.env("pm"), ""); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// env is the environment amail runs in as identity.
func (p *peerProgram) env(identity string) []string {
	return append(os.Environ(), "AMAIL_IDENTITY="+identity)
}

// measureCLI times whole agentmail processes, as agents and hooks run them,
// against the seeded store: each operation with bin, with base when given
// (the binary before a change) and with a cgo program that does nothing
// (the floor no agentmail process can go below), in turns, run after run,
// so that the machine's load weighs on all alike. It reports each one's
// median, bin's median over the floor (the median of the differences
// within each turn) against the goal, and the median of bin/base
// within each turn; and the median cpu time (user and system) of bin and
// base, which the machine's load sways less than the wall-clock time.
// With peer, amail's take on the operations it has runs in the same turns,
// and each is reported with the median of bin/amail.
func measureCLI(b *bench, base string, peer *peerProgram, seed seeded, dir string, runs int) error {
	floorBin, err := buildProgram("package main\n\n// #include <stdlib.h>\nimport \"C\"\n\nvar _ = C.free\n\nfunc main() {}\n", "1")
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(floorBin))
	repo, err := guardRepo(dir)
	if err != nil {
		return err
	}
	runID := time.Now().UnixNano() // new files for this run's leases taken on edit
	ops := []cliOp{
		{name: "--version", target: 1500 * time.Microsecond, args: func(int) []string { return []string{"--version"} },
			peer: func(int) (string, []string) { return "dev", []string{"version"} }},
		{name: "check", target: 2500 * time.Microsecond, args: func(int) []string { return []string{"check", "--agent", agentName(1)} },
			peer: func(int) (string, []string) { return "dev", []string{"check"} }},
		{name: "inbox --limit 20", target: 2500 * time.Microsecond, args: func(int) []string {
			return []string{"inbox", "--agent", agentName(1), "--limit", "20"}
		}, peer: func(int) (string, []string) { return "dev", []string{"inbox"} }},
		{name: "show", target: 2500 * time.Microsecond, args: func(i int) []string {
			return []string{"show", "--agent", "", seed.IDs[(i*7919)%len(seed.IDs)]}
		}},
		{name: "search rare word", target: 5 * time.Millisecond, args: func(int) []string { return []string{"search", "--agent", agentName(1), "argon"} }},
		{name: "search common word", target: 5 * time.Millisecond, args: func(int) []string {
			return []string{"search", "--agent", agentName(1), vocabulary[10]}
		}},
		{name: "guard check", target: 3 * time.Millisecond, dir: repo, args: func(int) []string { return []string{"guard", "check"} }},
		// Claude Code's PreToolUse hook: an edit of a file the acting agent
		// holds itself (allowed, after matching it against the 1,000 active
		// leases), and one another agent holds (denied), against --version.
		{name: "guard edit (allow)", target: 3 * time.Millisecond, over: "--version", dir: repo, args: func(int) []string { return []string{"guard", "edit"} },
			stdin: editPayload(repo, "area-0/pkg-0/x.go"), added: true},
		{name: "guard edit (deny)", target: 3 * time.Millisecond, over: "--version", dir: repo, args: func(int) []string { return []string{"guard", "edit"} },
			stdin: editPayload(repo, "area-1/pkg-1/x.go"), added: true},
		// --auto-reserve: an edit of a file the agent holds by an automatic
		// lease taken a moment ago (the first, untimed run takes it: the
		// rest read and write nothing), and edits of files nobody holds,
		// each taking a lease: a write.
		{name: "guard edit auto (held)", over: "--version", dir: repo, args: func(int) []string { return []string{"guard", "edit", "--auto-reserve"} },
			stdin: editPayload(repo, fmt.Sprintf("area-0/auto/held-%d.go", runID)), added: true},
		{name: "guard edit auto (take)", over: "--version", dir: repo, args: func(int) []string { return []string{"guard", "edit", "--auto-reserve"} },
			payload: func(i int) string { return editPayload(repo, fmt.Sprintf("area-0/auto/take-%d-%d.go", runID, i)) }, added: true},
		// check of an agent subscribed to 20 channels, each with a post it
		// has not read (issue 28: within 3 ms of --version).
		{name: "check (20 channels)", target: 3 * time.Millisecond, over: "--version", args: func(int) []string {
			return []string{"check", "--agent", agentName(2)}
		}, added: true},
		{name: "send", target: 6 * time.Millisecond, args: func(i int) []string {
			return []string{"send", "--agent", agentName(0), "--to", agentName(1), "--subject", fmt.Sprintf("bench cli %d", i), "--body", "Benchmark body with a little **markdown**."}
		}, peer: func(i int) (string, []string) {
			return "pm", []string{"send", "qa", fmt.Sprintf("bench cli %d", i), "Benchmark body with a little **markdown**."}
		}},
	}
	bins, envs := []string{b.bin}, [][]string{b.env}
	if base != "" {
		// The base runs on a copy of the store: two versions whose index
		// differs would each rebuild it for the other on every run.
		baseEnv, cleanup, err := storeCopy(b.env, dir)
		if err != nil {
			return err
		}
		defer cleanup()
		bins, envs = append(bins, base), append(envs, baseEnv)
	}
	programs := append([]string{floorBin}, bins...)
	if peer != nil {
		programs = append(programs, peer.bin)
	}
	staged, err := stageBinaries(programs)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(staged[0]))
	floorBin, bins = staged[0], staged[1:1+len(bins)]
	if peer != nil {
		peer = &peerProgram{bin: staged[len(staged)-1], dir: peer.dir}
	}
	// A first run of each brings its index up to date, untimed; and one
	// of each operation with a fixed input (the held file's lease).
	for j, bin := range bins {
		if _, _, err := timeProcess(bin, []string{"check", "--agent", agentName(1)}, "", envs[j], ""); err != nil {
			return err
		}
	}
	if err := subscribeChannels(b.bin, envs[0], agentName(2), agentName(3), 20); err != nil {
		return err
	}
	for _, op := range ops {
		if op.payload == nil && op.stdin != "" {
			if _, _, err := timeProcess(b.bin, op.args(0), op.dir, envs[0], op.stdin); err != nil {
				return fmt.Errorf("%s: %w", op.name, err)
			}
		}
	}
	fmt.Printf("%d turns each of: %s", runs, filepath.Base(b.bin))
	if base != "" {
		fmt.Printf(", base %s", base)
	}
	if peer != nil {
		fmt.Printf(", amail")
	}
	fmt.Printf(", a cgo program doing nothing (the floor); medians\n")
	header := fmt.Sprintf("%-20s %9s %9s %9s %9s %9s %9s %9s", "operation", "floor", "agentmail", "−floor", "base", "÷base", "cpu", "base cpu")
	if peer != nil {
		header += fmt.Sprintf(" %9s %9s", "amail", "÷amail")
	}
	fmt.Println(header)
	var after []string // the lines comparing one operation with another
	byName := map[string]cliOp{}
	for _, op := range ops {
		byName[op.name] = op
	}
	for _, op := range ops {
		// A turn runs bins..., the floor, then when they apply the peer
		// and the operation this one is compared with (bin's, so that
		// the difference is taken within each turn, as the floor's is).
		turn, floorAt, peerAt, overAt := len(bins)+1, len(bins), -1, -1
		if peer != nil && op.peer != nil {
			peerAt, turn = turn, turn+1
		}
		if op.over != "" {
			overAt, turn = turn, turn+1
		}
		times := make([][]time.Duration, turn)
		cpus := make([][]time.Duration, len(bins))
		for i := 0; i < runs; i++ {
			// Each turn runs the programs in another order.
			for k := range turn {
				j := (i + k) % turn
				var d, cpu time.Duration
				switch {
				case j == floorAt:
					d, _, err = timeProcess(floorBin, nil, "", nil, "")
				case j == peerAt:
					identity, args := op.peer(i)
					d, _, err = timeProcess(peer.bin, args, peer.dir, peer.env(identity), "")
				case j == overAt:
					o := byName[op.over]
					d, _, err = timeProcess(bins[0], o.args(i), o.dir, envs[0], o.stdin)
				case j > 0 && op.added:
					continue
				default:
					stdin := op.stdin
					if op.payload != nil {
						stdin = op.payload(i)
					}
					d, cpu, err = timeProcess(bins[j], op.args(i), op.dir, envs[j], stdin)
					cpus[j] = append(cpus[j], cpu)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", op.name, err)
				}
				times[j] = append(times[j], d)
			}
		}
		line := fmt.Sprintf("%-20s %9s %9s %9s", op.name, ms(median(times[floorAt])), ms(median(times[0])), ms(medianDiff(times[0], times[floorAt])))
		if base != "" && !op.added {
			line += fmt.Sprintf(" %9s %9.2f %9s %9s", ms(median(times[1])), medianRatio(times[0], times[1]), ms(median(cpus[0])), ms(median(cpus[1])))
		} else {
			line += fmt.Sprintf(" %9s %9s %9s %9s", "-", "-", ms(median(cpus[0])), "-")
		}
		if peerAt >= 0 {
			line += fmt.Sprintf(" %9s %9.2f", ms(median(times[peerAt])), medianRatio(times[0], times[peerAt]))
		} else if peer != nil {
			line += fmt.Sprintf(" %9s %9s", "-", "-")
		}
		switch {
		case op.over != "" && op.target == 0:
			after = append(after, fmt.Sprintf("%s − %s: %s", op.name, op.over, ms(medianDiff(times[0], times[overAt]))))
		case op.over != "":
			d := medianDiff(times[0], times[overAt])
			after = append(after, fmt.Sprintf("%s − %s: %s   goal <= %s %s", op.name, op.over, ms(d), ms(op.target), verdict(d <= op.target)))
		case op.target != 0:
			over := medianDiff(times[0], times[floorAt])
			line += fmt.Sprintf("   goal −floor <= %s %s", ms(op.target), verdict(over <= op.target))
		}
		fmt.Println(line)
	}
	for _, l := range after {
		fmt.Println(l)
	}
	return nil
}

// subscribeChannels subscribes agent to n channels of the seeded store,
// and has poster publish one post to each the first time.
func subscribeChannels(bin string, env []string, agent, poster string, n int) error {
	for i := range n {
		ch := fmt.Sprintf("bench-%02d", i)
		cmd := exec.Command(bin, "subscribe", ch, "--agent", agent, "--json")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("subscribe %s: %v: %s", ch, err, out)
		}
		if !strings.Contains(string(out), `"changed": true`) {
			continue
		}
		if _, _, err := timeProcess(bin, []string{"publish", ch, "--agent", poster, "--body", "bench post"}, "", env, ""); err != nil {
			return err
		}
	}
	return nil
}

// stageBinaries copies each of the programs at paths into one new
// temporary directory, each in a single write, and returns the copies'
// paths. How a program's file came to be in the page cache sways its
// start-up by half a millisecond (the linker's output and a cp of it:
// 657 and 865 page faults, 4.6 and 5.0 ms for --version), which told a
// base copied with cp from the binary measured though they were the same
// (÷base 0.89-0.98); copied alike, the programs compare as programs.
func stageBinaries(paths []string) ([]string, error) {
	dir, err := os.MkdirTemp("", "agentmail-bench-bin-")
	if err != nil {
		return nil, err
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		out[i] = filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if err := os.WriteFile(out[i], data, 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return out, nil
}

// storeCopy copies the store dir that env names (AGENTMAIL_HOME) to a
// temporary directory and returns env naming the copy instead, and the
// function that removes it.
func storeCopy(env []string, dir string) ([]string, func(), error) {
	tmp, err := os.MkdirTemp("", "agentmail-bench-base-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	copied := filepath.Join(tmp, "store")
	if out, err := exec.Command("cp", "-a", dir, copied).CombinedOutput(); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("copy the store for the base: %v: %s", err, out)
	}
	out := slices.Clone(env)
	for i, kv := range out {
		if strings.HasPrefix(kv, "AGENTMAIL_HOME=") {
			out[i] = "AGENTMAIL_HOME=" + copied
		}
	}
	return out, cleanup, nil
}

// editPayload is Claude Code's PreToolUse input for an Edit of path (in
// the repository repo).
func editPayload(repo, path string) string {
	return fmt.Sprintf(`{"session_id":"bench","transcript_path":"/tmp/bench.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse",`+
		`"tool_name":"Edit","tool_input":{"file_path":%q,"old_string":"a","new_string":"b"},"tool_use_id":"toolu_bench"}`, repo, filepath.Join(repo, path))
}

// guardRepo makes a git repository of the benchmark's project, in dir,
// with a commit and a change staged under a directory the seeded
// reservations hold (the holder's own: the check passes after matching
// it), for guard check.
func guardRepo(dir string) (string, error) {
	repo := filepath.Join(dir, "guard-repo")
	if err := os.RemoveAll(repo); err != nil {
		return "", err
	}
	file := filepath.Join(repo, "area-0", "pkg-0", "x.go")
	if err := git("", "init", "--quiet", repo); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte("package pkg\n"), 0o644); err != nil {
		return "", err
	}
	// A commit to diff with, as in any repository past its first commit.
	if err := git(repo, "add", "-A"); err != nil {
		return "", err
	}
	if err := git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "--no-verify", "-m", "first"); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte("package pkg\n\nvar x = 1\n"), 0o644); err != nil {
		return "", err
	}
	return repo, git(repo, "add", "-A")
}

// timeProcess runs bin with args in dir (nil env: the bench's own), stdin
// on its standard input, and returns its wall-clock time and its cpu
// time, user and system.
func timeProcess(bin string, args []string, dir string, env []string, stdin string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	if env != nil {
		cmd.Env = append(slices.Clip(env), "AGENTMAIL_AGENT="+agentName(0))
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, out)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// medianDiff is the median, over the turns, of a's time less b's.
func medianDiff(a, b []time.Duration) time.Duration {
	diffs := make([]time.Duration, len(a))
	for i := range diffs {
		diffs[i] = a[i] - b[i]
	}
	return median(diffs)
}

// medianRatio is the median, over the turns, of a's time over b's.
func medianRatio(a, b []time.Duration) float64 {
	ratios := make([]float64, len(a))
	for i := range ratios {
		ratios[i] = float64(a[i]) / float64(b[i])
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// buildTags are the build tags make build gives agentmail.
const buildTags = "sqlite_fts5,sqlite_omit_load_extension,urfave_cli_no_docs"

// buildRevision builds agentmail as it is at rev of the git repository
// around dir, in a temporary worktree, with make build's tags, so that
// the commit before a change (the last one landed, say) is measured side
// by side with it (-base-rev). It returns the binary and the function
// that removes it and the worktree.
func buildRevision(dir, rev string) (string, func(), error) {
	tmp, err := os.MkdirTemp("", "agentmail-bench-rev-")
	if err != nil {
		return "", nil, err
	}
	src := filepath.Join(tmp, "src")
	if out, err := exec.Command("git", "-C", dir, "worktree", "add", "--detach", "--quiet", src, rev).CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("check out %s: %v: %s", rev, err, strings.TrimSpace(string(out)))
	}
	cleanup := func() {
		exec.Command("git", "-C", dir, "worktree", "remove", "--force", src).Run()
		os.RemoveAll(tmp)
	}
	bin := filepath.Join(tmp, "agentmail")
	cmd := exec.Command("go", "build", "-tags", buildTags, "-ldflags", "-X main.version="+rev, "-o", bin, "./cmd/agentmail")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("build %s: %v: %s", rev, err, strings.TrimSpace(string(out)))
	}
	return bin, cleanup, nil
}
