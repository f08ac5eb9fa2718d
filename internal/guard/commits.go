package guard

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// Commit is a commit of the code repository, as a task shows it.
type Commit struct {
	Hash    string
	Author  string
	Time    time.Time // the author's
	Subject string
}

// CommitsNaming returns the commits, newest first, among the newest scan
// commits of every branch of the repository at dir, whose message holds a
// word (a run of letters and digits) that names tells is a name of what
// is looked for. Reading is bounded by scan so that it stays fast however
// long the history is: one git log.
func CommitsNaming(ctx context.Context, dir string, scan int, names func(word string) bool) ([]Commit, error) {
	out, err := git(ctx, dir, nil, "log", "--all", "--no-color", fmt.Sprintf("--max-count=%d", scan),
		"--format=%H%x1f%an%x1f%aI%x1f%s%x1f%B%x1e")
	if err != nil {
		return nil, err
	}
	var found []Commit
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		f := strings.SplitN(strings.TrimLeft(string(rec), "\n"), "\x1f", 5)
		if len(f) < 5 || !anyWord(f[4], names) {
			continue
		}
		at, _ := time.Parse(time.RFC3339, f[2])
		found = append(found, Commit{Hash: f[0], Author: f[1], Time: at, Subject: f[3]})
	}
	return found, nil
}

// anyWord tells whether a word of msg is one that names tells.
func anyWord(msg string, names func(string) bool) bool {
	for _, w := range strings.FieldsFunc(msg, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if names(w) {
			return true
		}
	}
	return false
}
