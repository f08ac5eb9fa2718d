package service

import (
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/record"
)

// maxMeanings bounds what a commit's changes are read for: a broadcast to
// a hundred agents changes hundreds of files, and its meaning is the first
// few.
const maxMeanings = 12

// meanings says what a commit of the archive changed, in words, read from
// its changed files (paths under projects/SLUG/) as the commit left them:
// "message “hi” sent by GreenCastle to BlueLake", "lease on src/** released
// by GreenCastle". The mailboxes' copies of a message say nothing its
// canonical file does not, and are left out; a file that is not a record
// (or is gone at the commit) says nothing.
func meanings(read func(path string) ([]byte, error), files []string) []string {
	var out []string
	for _, f := range files {
		if len(out) == maxMeanings {
			out = append(out, fmt.Sprintf("… and more (%d files)", len(files)))
			break
		}
		if strings.Contains(f, "/inbox/") || strings.Contains(f, "/outbox/") {
			continue
		}
		data, err := read(f)
		if err != nil {
			continue
		}
		rec, err := record.Decode(f, data)
		if err != nil || rec == nil {
			continue
		}
		if m := meaning(rec); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// meaning says what one record, as a commit left it, means.
func meaning(rec record.Record) string {
	short := func(id string) string { return id[:min(len(id), 10)] }
	switch r := rec.(type) {
	case *record.Message:
		to := strings.Join(r.To, ", ")
		if r.Topic != "" {
			return fmt.Sprintf("post “%s” to #%s by %s", r.Subject, r.Topic, r.From)
		}
		return fmt.Sprintf("message “%s” sent by %s to %s", r.Subject, r.From, to)
	case *record.Receipt:
		switch {
		case !r.AckedAt.IsZero():
			return fmt.Sprintf("message %s acknowledged by %s", short(r.Message), r.Agent)
		case !r.ReadAt.IsZero():
			return fmt.Sprintf("message %s read by %s", short(r.Message), r.Agent)
		}
	case *record.Reservation:
		kind := "shared"
		if r.Exclusive {
			kind = "exclusive"
		}
		if !r.Released.IsZero() {
			if r.ReleasedBy != "" && r.ReleasedBy != r.Agent {
				return fmt.Sprintf("lease on %s of %s released by %s: %s", r.Pattern, r.Agent, r.ReleasedBy, r.ReleaseReason)
			}
			return fmt.Sprintf("lease on %s released by %s", r.Pattern, r.Agent)
		}
		return fmt.Sprintf("lease on %s held by %s (%s, until %s)", r.Pattern, r.Agent, kind, r.Expires.UTC().Format("15:04 UTC"))
	case *record.Lock:
		return fmt.Sprintf("lock %s held by %s (until %s)", r.Key, r.Holder, r.Expires.UTC().Format("15:04 UTC"))
	case *record.TaskOp:
		t := "task " + short(r.Task)
		switch r.Op {
		case record.TaskCreate:
			title := ""
			if r.Title != nil {
				title = " “" + *r.Title + "”"
			}
			return fmt.Sprintf("%s%s created by %s", t, title, byWhom(r.By))
		case record.TaskClaim:
			return fmt.Sprintf("%s claimed by %s", t, r.Agent)
		case record.TaskUnclaim:
			return fmt.Sprintf("%s unclaimed from %s", t, r.Agent)
		case record.TaskStatus:
			if r.Reason != "" {
				return fmt.Sprintf("%s %s by %s: %s", t, strings.ReplaceAll(r.Status, "_", " "), byWhom(r.By), r.Reason)
			}
			return fmt.Sprintf("%s %s by %s", t, strings.ReplaceAll(r.Status, "_", " "), byWhom(r.By))
		default:
			return fmt.Sprintf("%s changed by %s (%s)", t, byWhom(r.By), r.Op)
		}
	case *record.Agent:
		return fmt.Sprintf("agent %s registered or updated", r.Name)
	case *record.AgentState:
		return fmt.Sprintf("%s says it is %s", r.Agent, r.State)
	case *record.Control:
		if r.Paused {
			return fmt.Sprintf("%s paused by %s", r.Agent, r.PauseBy)
		}
		return fmt.Sprintf("%s steered (resumed or interrupted)", r.Agent)
	}
	return ""
}

// byWhom names the author of a change: "" is the human overseer.
func byWhom(by string) string {
	if by == "" {
		return HumanSender
	}
	return by
}
