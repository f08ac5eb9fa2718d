package archive

import (
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitInfo is where a commit stands in history: its parents (none for
// a root commit, two for a merge) and when it was made.
type CommitInfo struct {
	Hash    string
	Parents []string
	Time    time.Time // the committer's time, UTC
}

// ReadCommit returns the commit rev's parents and time, read in-process.
func (a *Archive) ReadCommit(rev string) (CommitInfo, error) {
	var c object.Commit
	if err := a.decode(plumbing.CommitObject, plumbing.NewHash(rev), &c); err != nil {
		return CommitInfo{}, fmt.Errorf("read commit %s: %w", rev, err)
	}
	info := CommitInfo{Hash: rev, Time: c.Committer.When.UTC()}
	for _, p := range c.ParentHashes {
		info.Parents = append(info.Parents, p.String())
	}
	return info, nil
}

// Since returns the commits reachable from head and not from base
// (base "" for none), parents before children, as git rev-list
// --topo-order --reverse lists them: what a merge brought in appears as
// the commits it joined, then the merge.
func (a *Archive) Since(base, head string) ([]string, error) {
	args := []string{"--git-dir", a.dir, "rev-list", "--topo-order", "--reverse", head}
	if base != "" {
		args = append(args, "^"+base)
	}
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("git rev-list %s..%s: %v: %s", base, head, err, strings.TrimSpace(string(stderr)))
	}
	return strings.Fields(string(out)), nil
}

// LogEntry is a commit as a branch's history lists it: who made it, when,
// the first line of its message (what the change means, as the store
// words it) and the files it changed (none listed for a merge).
type LogEntry struct {
	Hash    string
	Author  string
	Time    time.Time // the committer's time, UTC
	Subject string
	Files   []string
}

// Log returns up to limit commits of rev's history after the first skip,
// newest first, with the files each changed, as git log --name-only lists
// them.
func (a *Archive) Log(rev string, skip, limit int) ([]LogEntry, error) {
	out, err := exec.Command("git", "--git-dir", a.dir, "log", "--no-color", "--no-renames", fmt.Sprintf("--skip=%d", skip), fmt.Sprintf("--max-count=%d", limit),
		"--format=%x1e%H%x00%an%x00%cI%x00%s", "--name-only", rev, "--").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("git log %s: %v: %s", rev, err, strings.TrimSpace(string(stderr)))
	}
	var log []LogEntry
	for _, rec := range strings.Split(string(out), "\x1e")[1:] {
		head, files, _ := strings.Cut(rec, "\n")
		f := strings.SplitN(head, "\x00", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("git log %s: unexpected line %q", rev, head)
		}
		when, err := time.Parse(time.RFC3339, f[2])
		if err != nil {
			return nil, fmt.Errorf("git log %s: %w", rev, err)
		}
		e := LogEntry{Hash: f[0], Author: f[1], Time: when.UTC(), Subject: f[3]}
		for _, name := range strings.Split(files, "\n") {
			if name = strings.TrimSpace(name); name != "" {
				e.Files = append(e.Files, name)
			}
		}
		log = append(log, e)
	}
	return log, nil
}
