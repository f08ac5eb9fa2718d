package archive

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Config and SetConfig read and write the config file themselves: git
// must read what SetConfig wrote, Config what git config wrote, and
// git's own settings must survive.
func TestConfig(t *testing.T) {
	a := newArchive(t)
	tests := []struct{ key, value string }{
		{"agentmail.backend-3fa1c2d9.remote", "git://127.0.0.1:9418/mail.git"},
		{"agentmail.backend-3fa1c2d9.lastsync", "2026-11-22T10:00:00Z"},
		{"agentmail.my-app-00000000.remote", "/home/me/my repo/origin.git"},
		{"agentmail.x-1.remote", `ssh://git@host/a;b#c "quoted"`},
		{"agentmail.plain", "value"},
	}
	for _, tt := range tests {
		if err := a.SetConfig(tt.key, tt.value); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		if got := a.Config(tt.key); got != tt.value {
			t.Errorf("Config(%q) = %q, want %q", tt.key, got, tt.value)
		}
		if got := runGit(t, a.Dir(), "config", "--get", tt.key); got != tt.value {
			t.Errorf("git config --get %s = %q, want %q", tt.key, got, tt.value)
		}
	}
	runGit(t, a.Dir(), "config", "agentmail.by-git.remote", "file:///tmp/x y.git")
	if got := a.Config("agentmail.by-git.remote"); got != "file:///tmp/x y.git" {
		t.Errorf("Config of what git wrote = %q", got)
	}
	if got := runGit(t, a.Dir(), "config", "--get", "core.bare"); got != "true" {
		t.Errorf("core.bare = %q after SetConfig, want true", got)
	}
	if got := a.Config("agentmail.unknown-00000000.remote"); got != "" {
		t.Errorf("an unset key reads %q, want \"\"", got)
	}
}

// syncedProject returns an archive whose project p has n commits, and a
// bare remote that has p's branch as of the first of them, as last
// fetched (the tracking ref).
func syncedProject(t *testing.T, n int) (a *Archive, remote string) {
	t.Helper()
	a = newArchive(t)
	if _, err := a.Migrate(); err != nil {
		t.Fatal(err)
	}
	remote = filepath.Join(t.TempDir(), "remote.git")
	runGit(t, remote, "init", "--quiet", "--bare")
	commitProjects(t, a, "p0", "projects/p/project.json", "P")
	first := runGit(t, a.Dir(), "rev-parse", ProjectRef("p"))
	if err := a.Push(remote, "p", first, ""); err != nil {
		t.Fatalf("Push: %v", err)
	}
	for i := 1; i < n; i++ {
		st, err := a.State()
		if err != nil {
			t.Fatal(err)
		}
		// Each later than the last, as writes are: git offers the newest first.
		by := Author{Name: "GreenCastle", Email: "greencastle@agentmail", When: t0.Add(time.Duration(i) * time.Minute)}
		change := Change{Path: fmt.Sprintf("projects/p/messages/m%d.md", i), Data: []byte(strconv.Itoa(i))}
		if _, err := a.CommitProjects(st.String(), []Change{change}, by, fmt.Sprintf("p%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	return a, remote
}

// A fetch starts no git maintenance run --auto: the archive's gc.auto=0
// makes it do nothing (the store packs the archive itself), so it would be
// a process spent on each fetch.
func TestFetchRunsNoMaintenance(t *testing.T) {
	a, remote := syncedProject(t, 2)
	trace := filepath.Join(t.TempDir(), "trace2.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	if _, _, err := a.Fetch(remote, "p"); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	started := trace2Events(t, trace, "child_start")
	if len(started) == 0 {
		t.Fatal("no child process in the trace: is it git's trace2?")
	}
	for _, ev := range started {
		if slices.Contains(ev.Argv, "maintenance") || slices.Contains(ev.Argv, "gc") {
			t.Errorf("fetch started %v", ev.Argv)
		}
	}
}

// A fetch tells the remote the commit last seen there, which it has: one
// round of negotiation however many commits were written here since (git
// alone offers those first, in rounds of 16, 32, 64 ...: a round trip
// each to a remote over the network).
func TestFetchNegotiatesInOneRound(t *testing.T) {
	a, remote := syncedProject(t, 300)
	// Another machine pushed a commit on top of what this one last saw.
	seen := a.Tracking("p")
	theirs := runGit(t, remote, "commit-tree", "-p", seen, "-m", "theirs", seen+"^{tree}")
	runGit(t, remote, "update-ref", RemoteRef("p"), theirs)

	trace := filepath.Join(t.TempDir(), "trace2.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	got, _, err := a.Fetch(remote, "p")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got != theirs {
		t.Fatalf("Fetch = %s, want the remote's %s", got, theirs)
	}
	rounds := trace2Data(t, trace, "negotiation_v2", "total_rounds")
	if len(rounds) != 1 || rounds[0] != "1" {
		t.Errorf("negotiation rounds %v, want [1]", rounds)
	}
}

func TestRetryFetch(t *testing.T) {
	seen := strings.Repeat("b5", 20)
	tests := []struct {
		stderr string
		retry  bool
	}{
		{"error: cannot lock ref 'refs/agentmail/remotes/p/main': is at 1234 but expected 5678", true},
		{"fatal: the object " + seen + " does not exist", true}, // moved by a roll-up as git looked
		{"fatal: the object " + strings.Repeat("c6", 20) + " does not exist", false},
		{"fatal: '/tmp/origin.git' does not appear to be a git repository", false},
		{"fatal: Could not read from remote repository.", false},
	}
	for _, tt := range tests {
		if got := retryFetch(tt.stderr, seen); got != tt.retry {
			t.Errorf("retryFetch(%q) = %v, want %v", tt.stderr, got, tt.retry)
		}
	}
}

// trace2Event is an event of git's trace2 event log.
type trace2Event struct {
	Event, Category, Key string
	Value                any
	Argv                 []string
}

// trace2Events returns the events named event of the trace2 event log at
// path, in order.
func trace2Events(t *testing.T, path, event string) []trace2Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []trace2Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev trace2Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("trace2 line %q: %v", line, err)
		}
		if ev.Event == event {
			events = append(events, ev)
		}
	}
	return events
}

// trace2Data returns the values the trace2 event log at path recorded
// under category and key, in order.
func trace2Data(t *testing.T, path, category, key string) []string {
	t.Helper()
	var values []string
	for _, ev := range trace2Events(t, path, "data") {
		if ev.Category == category && ev.Key == key {
			values = append(values, fmt.Sprint(ev.Value))
		}
	}
	return values
}

// Once what was last seen is forgotten, a fetch from a remote other than
// the one last seen (sync --remote another), which has the project's
// history up to an older commit only, finds that commit and receives only
// what came after it; from the commit last seen on the first remote, which
// the other lacks, it would receive the whole history since.
func TestFetchFromAnotherRemote(t *testing.T) {
	a, _ := syncedProject(t, 100)
	older := runGit(t, a.Dir(), "rev-parse", ProjectRef("p")+"~50")
	other := filepath.Join(t.TempDir(), "other.git")
	runGit(t, other, "init", "--quiet", "--bare")
	runGit(t, a.Dir(), "push", "--quiet", other, older+":"+RemoteRef("p"))
	theirs := runGit(t, other, "commit-tree", "-p", older, "-m", "theirs", older+"^{tree}")
	runGit(t, other, "update-ref", RemoteRef("p"), theirs)

	if err := a.ForgetTracking("p"); err != nil {
		t.Fatal(err)
	}
	if seen := a.Tracking("p"); seen != "" {
		t.Fatalf("Tracking = %s after ForgetTracking", seen)
	}
	before := objectCount(t, a)
	got, _, err := a.Fetch(other, "p")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got != theirs {
		t.Fatalf("Fetch = %s, want the remote's %s", got, theirs)
	}
	if n := objectCount(t, a) - before; n != 1 {
		t.Errorf("the fetch brought %d objects, want 1: the new commit, whose tree this archive has", n)
	}
}

// objectCount returns the number of objects in the archive, loose and
// packed (a fetch of fewer than 100 unpacks them).
func objectCount(t *testing.T, a *Archive) int {
	t.Helper()
	sum := 0
	for _, line := range strings.Split(runGit(t, a.Dir(), "count-objects", "-v"), "\n") {
		name, value, _ := strings.Cut(line, ": ")
		if name == "count" || name == "in-pack" {
			n, err := strconv.Atoi(value)
			if err != nil {
				t.Fatal(err)
			}
			sum += n
		}
	}
	return sum
}

// A remote that lost the branch since it was last seen (a git push
// --mirror from a plain clone, an update-ref -d) is one that has none:
// Fetch says what was lost and forgets it, so that the next push expects
// the ref absent, as it is, and seeds it again; with what was last seen
// as its lease, no push could ever land.
func TestFetchFromARemoteThatLostTheBranch(t *testing.T) {
	a, remote := syncedProject(t, 3)
	seen := a.Tracking("p")
	if seen == "" {
		t.Fatal("nothing seen after a push")
	}
	runGit(t, remote, "update-ref", "-d", RemoteRef("p"))
	theirs, lost, err := a.Fetch(remote, "p")
	if err != nil || theirs != "" || lost != seen {
		t.Fatalf("Fetch = %q, lost %q, %v; want none, lost %s", theirs, lost, err, seen)
	}
	if got := a.Tracking("p"); got != "" {
		t.Fatalf("Tracking = %s after the remote lost the branch", got)
	}
	head := runGit(t, a.Dir(), "rev-parse", ProjectRef("p"))
	if err := a.Push(remote, "p", head, ""); err != nil {
		t.Fatalf("Push expecting none: %v", err)
	}
	if got := runGit(t, remote, "rev-parse", RemoteRef("p")); got != head {
		t.Fatalf("remote at %s, want %s", got, head)
	}
	if _, lost, err := a.Fetch(remote, "p"); err != nil || lost != "" {
		t.Fatalf("Fetch after the seed: lost %q, %v", lost, err)
	}
}

// An unreachable remote's error is git's own fatal line, not the advice
// git prints after it.
func TestUnreachableSaysGitsReason(t *testing.T) {
	a, _ := syncedProject(t, 1)
	missing := filepath.Join(t.TempDir(), "typo.git")
	_, _, err := a.Fetch(missing, "p")
	if err == nil || !strings.Contains(err.Error(), "fatal: '"+missing+"' does not appear to be a git repository") ||
		strings.Contains(err.Error(), "repository exists") {
		t.Fatalf("Fetch from a missing remote: %v", err)
	}
	err = a.Push(missing, "p", a.Tracking("p"), "")
	if err == nil || !strings.Contains(err.Error(), "fatal: '"+missing+"' does not appear to be a git repository") {
		t.Fatalf("Push to a missing remote: %v", err)
	}
}
