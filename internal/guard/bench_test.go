package guard

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// benchReservations returns n exclusive reservations held by other agents,
// of the shapes agents use: directories, globs in a directory, single
// files, and a few patterns with no literal directory.
func benchReservations(n int) []reservations.Reservation {
	rs := make([]reservations.Reservation, 0, n)
	for i := 0; len(rs) < n; i++ {
		var p string
		switch i % 4 {
		case 0:
			p = fmt.Sprintf("pkg%d/sub%d/**", i%97, i)
		case 1:
			p = fmt.Sprintf("pkg%d/sub%d/*.go", i%97, i)
		case 2:
			p = fmt.Sprintf("pkg%d/file%d.go", i%97, i)
		case 3:
			if i%40 == 3 {
				p = fmt.Sprintf("**/gen%d_*.pb.go", i)
			} else {
				p = fmt.Sprintf("docs/{guide,ref}%d/*.md", i)
			}
		}
		rs = append(rs, res(fmt.Sprintf("Agent%d", i%10), p))
	}
	return rs
}

// benchPaths returns n paths spread over the same tree, a few of them held.
func benchPaths(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("pkg%d/sub%d/f%d.go", i%97, (i*7)%2000, i)
	}
	return out
}

// BenchmarkMatch matches 5,000 paths against 1,000 active reservations
// (index building included).
func BenchmarkMatch(b *testing.B) {
	rs, paths := benchReservations(1000), benchPaths(5000)
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		n = len(Conflicts(rs, paths, false))
	}
	b.ReportMetric(float64(n), "conflicts")
}

// BenchmarkMatchFold is BenchmarkMatch ignoring case.
func BenchmarkMatchFold(b *testing.B) {
	rs, paths := benchReservations(1000), benchPaths(5000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Conflicts(rs, paths, true)
	}
}

// seedStore creates a store with n active reservations of ten agents in
// the project of repo, and returns its directory.
func seedStore(b *testing.B, repo string, n int) string {
	b.Helper()
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "store")
	st, err := store.Open(dir, store.Options{Projections: []store.Projection{mailbox.Projection(), reservations.Projection(), fts.Projection()}})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	proj, err := project.ResolveProject(repo)
	if err != nil {
		b.Fatal(err)
	}
	byAgent := map[string][]string{}
	for _, r := range benchReservations(n) {
		byAgent[r.Agent] = append(byAgent[r.Agent], r.Pattern)
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	names := []string{"AmberFox", "BlueRiver", "GreenHarbor", "RedRiver", "SilverLake", "AmberCastle", "BlueFalcon", "GreenOtter", "RedHarbor", "SilverFox"}
	for i := range names {
		mb, err := mailbox.Open(ctx, st, proj, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mb.Register(ctx, mailbox.RegisterInput{Name: names[i]}); err != nil {
			b.Fatal(err)
		}
	}
	for i, a := range agents {
		if _, err := reservations.New(st, proj.Slug, names[i], nil).Reserve(ctx, byAgent[a], reservations.Options{TTL: time.Hour, AllowConflicts: true}); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// stageBenchRepo makes a repository with a first commit and 5,000 staged
// new files.
func stageBenchRepo(b *testing.B) string {
	b.Helper()
	repo := newRepo(b)
	write(b, repo, "README", "x\n")
	run(b, repo, "add", "-A")
	run(b, repo, "commit", "-q", "-m", "first")
	for _, p := range benchPaths(5000) {
		write(b, repo, p, "x\n")
	}
	run(b, repo, "add", "-A")
	return repo
}

// BenchmarkCheck is the whole `guard check` in process, as a hook runs it:
// open the store while git is asked for 5,000 staged paths, load those of
// 1,000 active reservations that may cover them, match. Only process start-up is missing (see
// BenchmarkCheckProcess).
func BenchmarkCheck(b *testing.B) {
	gitEnv(b)
	ctx := context.Background()
	repo := stageBenchRepo(b)
	dir := seedStore(b, repo, 1000)
	proj, err := project.ResolveProject(repo)
	if err != nil {
		b.Fatal(err)
	}
	src := func(ctx context.Context, paths func() ([]string, error)) ([]reservations.Reservation, error) {
		st, err := store.Open(dir, store.Options{Projections: []store.Projection{mailbox.Projection(), reservations.Projection(), fts.Projection()}})
		if err != nil {
			return nil, err
		}
		defer st.Close()
		if err := st.Fresh(ctx); err != nil {
			return nil, err
		}
		return reservations.New(st, proj.Slug, "", nil).Covering(ctx, "Nobody", paths)
	}
	b.ResetTimer()
	var rep Report
	for i := 0; i < b.N; i++ {
		rep, err = Check(ctx, CheckOptions{Dir: repo, Agent: "Nobody", Mode: Warn, Reservations: src})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if rep.Paths != 5000 || len(rep.Conflicts) == 0 {
		b.Fatalf("checked %d paths, %d conflicts", rep.Paths, len(rep.Conflicts))
	}
	b.ReportMetric(float64(len(rep.Conflicts)), "conflicts")
}

// agentmailBinary returns the binary `make build` leaves in bin/, or skips.
func agentmailBinary(b *testing.B) string {
	if p := os.Getenv("AGENTMAIL_BIN"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "bin", "agentmail"))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no agentmail binary: run make build first, or set AGENTMAIL_BIN")
	return ""
}

// BenchmarkCheckProcess runs the real binary's `guard check` (5,000 staged
// paths, 1,000 reservations) as the hook does.
func BenchmarkCheckProcess(b *testing.B) {
	bin := agentmailBinary(b)
	gitEnv(b)
	repo := stageBenchRepo(b)
	dir := seedStore(b, repo, 1000)
	cmd := func() *exec.Cmd {
		c := exec.Command(bin, "guard", "check", "--mode", "warn")
		c.Dir = repo
		c.Env = append(os.Environ(), "AGENTMAIL_HOME="+dir, "AGENTMAIL_AGENT=")
		return c
	}
	// The first run rebuilds the index with the binary's extensions.
	if out, err := cmd().CombinedOutput(); err != nil || !strings.Contains(string(out), "warning: this commit touches") {
		b.Fatalf("%v: %s", err, out)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := cmd().Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommit measures `git commit` of one file with the guard's hooks
// installed and without them (--no-verify), alternating, and reports the
// medians and their difference. Other agents hold 0, 20 or 1,000
// reservations, none of them covering the file.
func BenchmarkCommit(b *testing.B) {
	bin := agentmailBinary(b)
	for _, n := range []int{0, 20, 1000} {
		b.Run(fmt.Sprintf("reservations=%d", n), func(b *testing.B) { benchCommit(b, bin, n) })
	}
}

func benchCommit(b *testing.B, bin string, n int) {
	gitEnv(b)
	repo := newRepo(b)
	write(b, repo, "seed.txt", "x")
	run(b, repo, "add", "-A")
	run(b, repo, "commit", "-q", "-m", "seed")
	dir := seedStore(b, repo, n)
	env := append(os.Environ(), "AGENTMAIL_HOME="+dir, "AGENTMAIL_AGENT=GreenCastle")
	install := exec.Command(bin, "guard", "install")
	install.Dir, install.Env = repo, env
	if out, err := install.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	commit := func(i int, verify bool) time.Duration {
		write(b, repo, "f.txt", fmt.Sprint(i))
		run(b, repo, "add", "f.txt")
		args := []string{"commit", "-q", "-m", fmt.Sprint(i)}
		if !verify {
			args = append(args, "--no-verify")
		}
		c := exec.Command("git", args...)
		c.Dir, c.Env = repo, env
		start := time.Now()
		if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("commit: %v: %s", err, out)
		}
		return time.Since(start)
	}
	// Warm up, rebuilding the index with the binary's extensions.
	warm := exec.Command(bin, "guard", "check")
	warm.Dir, warm.Env = repo, env
	if out, err := warm.CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	commit(-1, true)
	var with, without []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		with = append(with, commit(2*i, true))
		without = append(without, commit(2*i+1, false))
	}
	b.StopTimer()
	mw, mo := median(with), median(without)
	b.ReportMetric(float64(mw.Microseconds())/1000, "ms-median-guarded")
	b.ReportMetric(float64(mo.Microseconds())/1000, "ms-median-unguarded")
	b.ReportMetric(float64((mw-mo).Microseconds())/1000, "ms-added")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
