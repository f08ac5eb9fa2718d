package mcpserver

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// usage is what a server has been asked: per tool, its calls and
// failures, and its latest calls, for the tooling resources. It lives as
// long as the server (one stdio process, or one HTTP session) and is not
// stored.
type usage struct {
	mu     sync.Mutex
	counts map[string]*toolCounts
	recent []toolCall // the latest maxRecentCalls, oldest first
}

// toolCounts are one tool's calls and failures.
type toolCounts struct {
	Name   string `json:"name"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"`
}

// toolCall is one call, as resource://tooling/recent lists it.
type toolCall struct {
	Timestamp time.Time `json:"-"`
	Time      string    `json:"timestamp"`
	Tool      string    `json:"tool"`
	Agent     string    `json:"agent"`
	Failed    bool      `json:"failed"`
}

// maxRecentCalls is how many calls usage remembers.
const maxRecentCalls = 1000

// note counts a call of tool by agent ("" before the session has one).
func (u *usage) note(tool, agent string, failed bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.counts == nil {
		u.counts = map[string]*toolCounts{}
	}
	c := u.counts[tool]
	if c == nil {
		c = &toolCounts{Name: tool}
		u.counts[tool] = c
	}
	c.Calls++
	if failed {
		c.Errors++
	}
	now := time.Now().UTC()
	u.recent = append(u.recent, toolCall{now, now.Format(time.RFC3339), tool, agent, failed})
	if len(u.recent) > maxRecentCalls {
		u.recent = slices.Delete(u.recent, 0, len(u.recent)-maxRecentCalls)
	}
}

// snapshot returns the counts by tool name, and the calls since cutoff
// (oldest first).
func (u *usage) snapshot(cutoff time.Time) ([]toolCounts, []toolCall) {
	u.mu.Lock()
	defer u.mu.Unlock()
	counts := []toolCounts{}
	for _, c := range u.counts {
		counts = append(counts, *c)
	}
	slices.SortFunc(counts, func(a, b toolCounts) int { return strings.Compare(a.Name, b.Name) })
	calls := []toolCall{}
	for _, c := range u.recent {
		if !c.Timestamp.Before(cutoff) {
			calls = append(calls, c)
		}
	}
	return counts, calls
}
