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
