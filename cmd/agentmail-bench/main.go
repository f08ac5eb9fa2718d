// Command agentmail-bench measures agentmail as users run it: whole
// processes of the real binary against a store seeded with many messages.
// It is what `make bench` runs; the figures go into issue notes.
//
//	go run -tags sqlite_fts5 ./cmd/agentmail-bench -bin bin/agentmail -messages 100000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
)

func main() {
	bin := flag.String("bin", "bin/agentmail", "agentmail binary to measure")
	messages := flag.Int("messages", 100000, "messages to seed the project with")
	runs := flag.Int("runs", 40, "runs per whole-process measurement")
	dir := flag.String("dir", "", "store directory to use (default: a temporary one, removed afterwards); a directory seeded\nby an earlier run with the same -messages is used again as it is, with what that run added")
	only := flag.String("only", "", "measure only the command line (cli), the command line in turns with the floor and -base (cli-turns), the MCP server (mcp), agentmail serve (serve),\nsync (sync), import agent-mail of an mcp_agent_mail archive of -messages messages (import) or work items at -tasks tasks (tasks)")
	nTasks := flag.Int("tasks", 10000, "tasks to seed the project with (-only tasks)")
	syncSizes := flag.String("sync-messages", "10000,100000", "archive sizes to measure sync at (-only sync)")
	base := flag.String("base", "", "another agentmail binary (the one before a change) to measure alongside -bin, in turns (-only sync, cli-turns, import)")
	peerBin := flag.String("peer", "", "an amail binary (github.com/thirteen37/amail, built from its repository) to measure alongside, in turns, on a project\nit seeds with its own command line (-only cli-turns)")
	importRuns := flag.Int("import-runs", 3, "imports of the corpus per binary (-only import)")
	baseRev := flag.String("base-rev", "", "a git revision of this repository (the last commit landed, say) to build and measure as -base")
	cpuProfile := flag.String("cpuprofile", "", "have the agentmail mcp measured write a CPU profile of its run to this file (make pgo)")
	flag.Parse()
	os.Exit(measure(*bin, *base, *baseRev, *peerBin, *messages, *runs, *importRuns, *nTasks, *dir, *only, *syncSizes, *cpuProfile))
}

// measure runs the measurements the flags ask for and returns the exit code.
func measure(bin, base, baseRev, peerBin string, messages, runs, importRuns, nTasks int, dir, only, syncSizes, cpuProfile string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "agentmail-bench:", err)
		return 1
	}
	if baseRev != "" {
		if base != "" {
			return fail(fmt.Errorf("give -base or -base-rev, not both"))
		}
		built, cleanup, err := buildRevision(".", baseRev)
		if err != nil {
			return fail(fmt.Errorf("-base-rev: %w", err))
		}
		defer cleanup()
		base = built
	}
	var err error
	switch only {
	case "sync":
		err = measureSync(context.Background(), bin, base, sizes(syncSizes), runs)
	case "tasks":
		err = measureTasks(bin, dir, nTasks, runs)
	case "import":
		err = measureImport(bin, base, dir, messages, importRuns)
	default:
		err = run(bin, base, peerBin, messages, runs, dir, only, cpuProfile)
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

const projectKey = "bench.example/agentmail/bench"

// sizes parses a comma-separated list of numbers, skipping what is not one.
func sizes(list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func run(bin, base, peerBin string, messages, runs int, dir, only, cpuProfile string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if cpuProfile != "" {
		if cpuProfile, err = filepath.Abs(cpuProfile); err != nil {
			return err
		}
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "agentmail-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	ctx := context.Background()
	seed, err := loadOrSeed(ctx, dir, messages)
	if err != nil {
		return err
	}

	b := &bench{bin: bin, env: append(os.Environ(), "AGENTMAIL_HOME="+dir, "AGENTMAIL_PROJECT="+projectKey), cpuProfile: cpuProfile}
	if _, err := b.run("doctor", "--gc"); err != nil {
		return err
	}
	switch only {
	case "cli-turns":
		var peer *peerProgram
		if peerBin != "" {
			if peer, err = newPeer(peerBin, dir); err != nil {
				return fmt.Errorf("amail (-peer): %w", err)
			}
		}
		return measureCLI(b, base, peer, seed, dir, runs)
	case "mcp":
		return measureMCP(ctx, b, dir, runs*5)
	case "serve":
		return measureServe(ctx, b, seed, runs*5)
	}
	size := dirSize(filepath.Join(dir, "archive.git", "objects"))

	// The floors: programs that do nothing, and agentmail opening nothing.
	results := referenceFloors(runs)
	results = append(results, b.measure("agentmail --help (floor)", 0, runs, func(int) []string { return []string{"--help"} }))
	results = append(results, b.measure("send", 8*time.Millisecond, runs, func(i int) []string {
		return []string{"send", "--agent", agentName(0), "--to", agentName(1), "--subject", fmt.Sprintf("bench %d", i), "--body", "Benchmark body with a little **markdown**."}
	}))
	results = append(results, b.measure("check", 3*time.Millisecond, runs, func(int) []string {
		return []string{"check", "--agent", agentName(1)}
	}))
	results = append(results, b.measure("inbox --limit 20", 5*time.Millisecond, runs, func(int) []string {
		return []string{"inbox", "--agent", agentName(1), "--limit", "20"}
	}))
	results = append(results, b.measure("show", 5*time.Millisecond, runs, func(i int) []string {
		return []string{"show", "--agent", "", seed.IDs[(i*7919)%len(seed.IDs)]}
	}))
	for _, q := range []struct{ name, query string }{
		{"search common word", vocabulary[10]},
		{"search rare word", "argon"},
		{"search phrase", `"retry lock"`},
		{"search field filter", "subject:" + vocabulary[20] + " from:" + strings.ToLower(agentName(2))},
	} {
		results = append(results, b.measure(q.name, 10*time.Millisecond, runs, func(int) []string {
			return []string{"search", "--agent", agentName(1), q.query}
		}))
	}
	results = append(results, b.measure("reserve 50 patterns", 10*time.Millisecond, runs, func(i int) []string {
		args := []string{"reserve", "--agent", agentName(3), "--ttl", "1h"}
		for j := 0; j < 50; j++ {
			args = append(args, fmt.Sprintf("run-%d/part-%d/*.go", i, j))
		}
		return args
	}))
	checkArgs := []string{"reservations", "check", "--agent", agentName(4)}
	for j := 0; j < 1000; j++ {
		checkArgs = append(checkArgs, fmt.Sprintf("area-%d/pkg-%d/file.go", j%len(benchAgents), j))
	}
	results = append(results, b.measure("reservations check 1000", 10*time.Millisecond, runs, func(int) []string { return checkArgs }))
	for _, r := range results {
		fmt.Println(r)
	}

	rate, err := b.concurrent(8, 50)
	if err != nil {
		return err
	}
	fmt.Printf("%-28s %8.0f msg/s   target >= 300 msg/s   %s\n", "8 concurrent senders", rate, verdict(rate >= 300))

	out, err := b.run("doctor", "--reindex", "--json")
	if err != nil {
		return err
	}
	var doc struct {
		Reindex struct {
			Messages int     `json:"messages"`
			Rate     float64 `json:"messages_per_second"`
		} `json:"reindex"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return err
	}
	fmt.Printf("%-28s %8.0f msg/s   target >= 20000 msg/s %s (%d messages)\n", "doctor --reindex", doc.Reindex.Rate, verdict(doc.Reindex.Rate >= 20000), doc.Reindex.Messages)

	ratio := float64(size) / float64(seed.RawBytes)
	fmt.Printf("%-28s %8.2fx      target <= 2x          %s (%d MB archive objects for %d MB of messages)\n",
		"archive size after packing", ratio, verdict(ratio <= 2), size>>20, seed.RawBytes>>20)
	if only == "cli" {
		return nil
	}
	if err := measureMCP(ctx, b, dir, runs*5); err != nil {
		return err
	}
	return measureServe(ctx, b, seed, runs*5)
}

// seeded is what seedStore put in the store.
type seeded struct {
	Messages int      `json:"messages"`
	IDs      []string `json:"ids"`
	RawBytes int64    `json:"raw_bytes"`
	Common   int      `json:"common"` // messages whose body has the common search word
}

// seedFile, in a store's directory, records what seedStore put there, so
// that a later run asking for as many messages uses the store again
// rather than seeding another (at 100,000 messages, minutes).
const seedFile = "agentmail-bench-seed.json"

// loadOrSeed returns what an earlier run seeded in dir when it seeded n
// messages, else seeds dir with n messages and records it.
func loadOrSeed(ctx context.Context, dir string, n int) (seeded, error) {
	file := filepath.Join(dir, seedFile)
	var s seeded
	if b, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(b, &s); err != nil {
			return s, fmt.Errorf("%s: %w (remove it to seed again)", file, err)
		}
		if s.Messages != n {
			return s, fmt.Errorf("%s was seeded with %d messages, not %d: pass another -dir", dir, s.Messages, n)
		}
		fmt.Printf("using the %d messages seeded in %s before\n", n, dir)
		return s, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "archive.git")); err == nil {
		return s, fmt.Errorf("%s holds a store that agentmail-bench did not finish seeding: pass an empty -dir", dir)
	}
	fmt.Printf("seeding %d messages into %s ...\n", n, dir)
	start := time.Now()
	s, err := seedStore(ctx, dir, n, 1000)
	if err != nil {
		return s, fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("seeded in %s; the common search word %q is in %.1f%% of the bodies\n",
		time.Since(start).Round(time.Millisecond), vocabulary[10], 100*float64(s.Common)/float64(n))
	b, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	return s, os.WriteFile(file, b, 0o644)
}

// seedStore fills a store through the library, in batches of one commit
// each, with messages spread over the past days so that day directories
// hold about a thousand messages each, like a busy project; the last are
// dated late today (UTC), so that today's directories are as full as the
// others, the worst case for the benchmarks' own writes. Its clock
// moves by a message's share of the day per message sent, however often
// the store reads it, so that the history ends there, and the seeded
// reservations, made last, are active when the benchmarks run.
func seedStore(ctx context.Context, dir string, n, batch int) (seeded, error) {
	s := seeded{Messages: n}
	step := 86 * time.Second
	end := time.Now().UTC().Truncate(24 * time.Hour).Add(24*time.Hour - time.Minute)
	start := end.Add(-time.Duration(n) * step)
	var (
		mu    sync.Mutex
		at    = start
		reads time.Duration
	)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return at.Add(reads * time.Microsecond)
	}
	moveTo := func(sent int) {
		mu.Lock()
		defer mu.Unlock()
		at, reads = start.Add(time.Duration(sent)*step), 0
	}
	st, err := store.Open(dir, store.Options{Now: now, Projections: service.Projections()})
	if err != nil {
		return s, err
	}
	defer st.Close()
	proj, err := project.ProjectFromKey(projectKey)
	if err != nil {
		return s, err
	}
	const agents = 20
	for i := 0; i < agents; i++ {
		mb, err := mailbox.Open(ctx, st, proj, "")
		if err != nil {
			return s, err
		}
		if _, err := mb.Register(ctx, mailbox.RegisterInput{Name: agentName(i), Program: "bench", Policy: "open"}); err != nil {
			return s, err
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	gen := newTextGen(rng)
	for sent := 0; sent < n; {
		from := sent / 1000 % agents
		mb, err := mailbox.Open(ctx, st, proj, agentName(from))
		if err != nil {
			return s, err
		}
		drafts := make([]mailbox.Draft, 0, batch)
		for j := 0; j < batch && sent+j < n; j++ {
			to := []string{agentName((from + 1 + rng.IntN(agents-1)) % agents)}
			var cc []string
			if rng.IntN(4) == 0 {
				cc = []string{agentName((from + 1 + rng.IntN(agents-1)) % agents)}
			}
			drafts = append(drafts, mailbox.Draft{To: to, Cc: cc, Subject: gen.sentence(3 + rng.IntN(6)),
				Body: gen.paragraph(), Importance: mailbox.Importances[rng.IntN(len(mailbox.Importances))], Thread: fmt.Sprintf("topic-%d", rng.IntN(500))})
		}
		msgs, err := mb.SendBatch(ctx, drafts)
		if err != nil {
			return s, err
		}
		for _, m := range msgs {
			if slices.Contains(strings.Fields(m.Body), vocabulary[10]) {
				s.Common++
			}
			s.IDs = append(s.IDs, m.ID)
			s.RawBytes += int64(len(m.Body) + len(m.Subject) + 200) // body, subject and a typical header
		}
		sent += len(msgs)
		moveTo(sent)
		if sent%1000 == 0 || sent == n {
			fmt.Printf("\r  %d/%d", sent, n)
		}
	}
	fmt.Println()
	return s, seedReservations(ctx, st, proj.Slug)
}

// seedReservations gives the project 1,000 active reservations, 50 for
// each of the 20 agents, on disjoint directories.
func seedReservations(ctx context.Context, st *store.Store, slug string) error {
	for a := range benchAgents {
		pats := make([]string, 50)
		for j := range pats {
			pats[j] = fmt.Sprintf("area-%d/pkg-%d/**", a, j*len(benchAgents)+a)
		}
		if _, err := reservations.New(st, slug, agentName(a), nil).Reserve(ctx, pats, reservations.Options{TTL: 1000 * time.Hour}); err != nil {
			return fmt.Errorf("reserve: %w", err)
		}
	}
	return nil
}

// agentName names the i-th benchmark agent: the seeded names are registered
// through the library, which accepts only adjective+noun names, so map i
// onto a fixed list.
func agentName(i int) string { return benchAgents[i] }

var benchAgents = []string{
	"AmberFox", "BlueLake", "GreenCastle", "RedFox", "SilverFalcon", "AmberOtter", "BlueRiver", "GreenHarbor",
	"RedRiver", "SilverLake", "AmberCastle", "BlueFalcon", "GreenOtter", "RedHarbor", "SilverFox",
	"AmberLake", "BlueOtter", "GreenFalcon", "RedCastle", "SilverHarbor",
}

// The seeded text follows Zipf's law over a vocabulary of technical words
// and made-up ones, like real prose: a few words are in many messages, most
// in few. The searches below use words at known ranks.
var vocabulary = func() []string {
	words := strings.Fields(`the api auth schema migration test build deploy review merge branch fix bug
	route handler config cache index query latency timeout retry lock reserve release thread reply
	frontend backend database worker queue event stream token session user admin metric alert log`)
	syllables := strings.Fields("ka lo mi nu pe ra si to vu ze ba do fe gi ho ju")
	for i := 0; len(words) < 5000; i++ {
		w := ""
		for n := i; ; n /= len(syllables) {
			w += syllables[n%len(syllables)]
			if n < len(syllables) {
				break
			}
		}
		words = append(words, w+"x")
	}
	return words
}()

// rareWords appear in about one message in a thousand.
var rareWords = []string{"argon", "basalt", "cobalt", "dolomite", "erbium"}

type textGen struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

func newTextGen(rng *rand.Rand) *textGen {
	return &textGen{rng: rng, zipf: rand.NewZipf(rng, 1.2, 2, uint64(len(vocabulary)-1))}
}

func (g *textGen) sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[g.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

func (g *textGen) paragraph() string {
	var b strings.Builder
	if g.rng.IntN(1000) == 0 {
		b.WriteString(rareWords[g.rng.IntN(len(rareWords))] + " ")
	}
	if g.rng.IntN(50) == 0 {
		b.WriteString("retry lock ")
	}
	for i := 0; i < 2+g.rng.IntN(6); i++ {
		b.WriteString(g.sentence(8 + g.rng.IntN(12)))
		b.WriteString(". ")
		if g.rng.IntN(3) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// referenceFloors measures the start-up of two programs that do nothing,
// one pure Go and one linked with cgo as agentmail must be (go-sqlite3):
// what no agentmail command can go below on this machine.
func referenceFloors(runs int) []result {
	progs := []struct{ name, cgo, src string }{
		{"go program doing nothing", "0", "package main\n\nfunc main() {}\n"},
		{"cgo program doing nothing", "1", "package main\n\n// #include <stdlib.h>\nimport \"C\"\n\nvar _ = C.free\n\nfunc main() {}\n"},
	}
	var out []result
	for _, p := range progs {
		bin, err := buildProgram(p.src, p.cgo)
		if err != nil {
			out = append(out, result{name: p.name, err: err})
			continue
		}
		defer os.RemoveAll(filepath.Dir(bin))
		out = append(out, (&bench{bin: bin}).measure(p.name, 0, runs, func(int) []string { return nil }))
	}
	return out
}

// buildProgram builds the Go program src with CGO_ENABLED=cgo and returns
// the binary, in a temporary directory of its own.
func buildProgram(src, cgo string) (string, error) {
	dir, err := os.MkdirTemp("", "agentmail-bench-floor-")
	if err != nil {
		return "", err
	}
	files := map[string]string{"main.go": src, "go.mod": "module floor\n\ngo 1.22\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("go", "build", "-o", "prog", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED="+cgo, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build a reference program: %v: %s", err, out)
	}
	return filepath.Join(dir, "prog"), nil
}

type bench struct {
	bin   string
	env   []string
	label string // what its rows are named with, when it is not the binary measured
	// cpuProfile, when set, is where the agentmail mcp measured writes a
	// CPU profile (AGENTMAIL_CPUPROFILE), made absolute.
	cpuProfile string
}

func (b *bench) run(args ...string) ([]byte, error) {
	cmd := exec.Command(b.bin, args...)
	cmd.Env = b.env
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return nil, err
	}
	return out, nil
}

type result struct {
	name        string
	target      time.Duration
	median, p90 time.Duration
	cpu         time.Duration // the median cpu time, when measured
	err         error
}

func (r result) String() string {
	if r.err != nil {
		return fmt.Sprintf("%-28s error: %v", r.name, r.err)
	}
	s := fmt.Sprintf("%-28s %8s median %8s p90", r.name, r.median.Round(10*time.Microsecond), r.p90.Round(10*time.Microsecond))
	if r.cpu != 0 {
		s += fmt.Sprintf(" %8s cpu", r.cpu.Round(10*time.Microsecond))
	}
	if r.target != 0 {
		s += fmt.Sprintf("   target <= %-8s %s", r.target.Round(10*time.Microsecond), verdict(r.median <= r.target))
	}
	return s
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// measure runs a command runs times, one process after another, and takes
// the median and 90th percentile of the wall-clock time of each process.
func (b *bench) measure(name string, target time.Duration, runs int, args func(int) []string) result {
	times := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := b.run(args(i)...); err != nil {
			return result{name: name, err: err}
		}
		times = append(times, time.Since(start))
	}
	r := summarize(name, times)
	r.target = target
	return r
}

// concurrent runs procs senders at once, each sending n messages one
// process after another, and returns the total rate.
func (b *bench) concurrent(procs, n int) (float64, error) {
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	start := time.Now()
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				if _, err := b.run("send", "--agent", agentName(p%len(benchAgents)), "--to", agentName(1), "--subject", "concurrent", "--body", "x"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(procs*n) / time.Since(start).Seconds(), nil
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
