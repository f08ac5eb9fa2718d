package reservations

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rewrittenTrees returns the bytes of the trees the last commit of the
// project's branch wrote (those its parent does not have), as git counts
// them.
func rewrittenTrees(t *testing.T, w *world) int {
	t.Helper()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", w.st.ArchiveDir()}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	head, err := w.st.ProjectHead("shop-00000000")
	if err != nil {
		t.Fatal(err)
	}
	trees := func(rev string) map[string]bool {
		out := map[string]bool{git("rev-parse", rev+"^{tree}")[:40]: true}
		for _, line := range strings.Split(git("ls-tree", "-r", "-t", rev), "\n") {
			if f := strings.Fields(line); len(f) == 4 && f[1] == "tree" {
				out[f[2]] = true
			}
		}
		return out
	}
	old := trees(head + "^")
	var fresh []string
	for h := range trees(head) {
		if !old[h] {
			fresh = append(fresh, h)
		}
	}
	cmd := exec.Command("git", "--git-dir", w.st.ArchiveDir(), "cat-file", "--batch-check=%(objectsize)")
	cmd.Stdin = strings.NewReader(strings.Join(fresh, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range strings.Fields(string(out)) {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("cat-file: %q", out)
		}
		total += n
	}
	return total
}

// The trees a reservation's write rewrites do not grow with the
// reservations the project ever had: after 2,000 released ones, taking
// and releasing 20 rewrites about as many tree bytes as after 100 (the
// flat layout of earlier versions rewrote a directory of every one of
// them: 59 bytes each, 118 KB at 2,000).
func TestWriteCostIgnoresEndedReservations(t *testing.T) {
	w := newWorld(t)
	svc := w.as("GreenCastle")
	ctx := context.Background()
	cycle := func(i int) (reserved, released int) {
		pats := make([]string, 20)
		for j := range pats {
			pats[j] = fmt.Sprintf("run-%d/part-%d/*.go", i, j)
		}
		if _, err := svc.Reserve(ctx, pats, Options{TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
		reserved = rewrittenTrees(t, w)
		w.advance(1500 * time.Millisecond)
		if _, err := svc.Release(ctx, Selector{All: true}); err != nil {
			t.Fatal(err)
		}
		released = rewrittenTrees(t, w)
		w.advance(1500 * time.Millisecond)
		return reserved, released
	}
	for i := 0; i < 5; i++ {
		cycle(i)
	}
	reserveFew, releaseFew := cycle(5) // 100 ended before it
	for i := 6; i < 100; i++ {
		cycle(i)
	}
	reserveMany, releaseMany := cycle(100) // 2,000 ended before it
	t.Logf("tree bytes rewritten: reserve %d after 100 ended, %d after 2,000; release %d, %d", reserveFew, reserveMany, releaseFew, releaseMany)
	const slack = 2048 // a minute's directory gains seconds as the clock goes on
	if reserveMany > reserveFew+slack || releaseMany > releaseFew+slack {
		t.Errorf("tree bytes rewritten grew with ended reservations: reserve %d -> %d, release %d -> %d", reserveFew, reserveMany, releaseFew, releaseMany)
	}
}
