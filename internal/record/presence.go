package record

import (
	"encoding/json"
	"fmt"
	"time"
)

// Presence is when an agent was last seen on some machine: the heartbeat
// every command keeps in the index, carried into the archive by sync (at
// most once per agent every so often, never a commit per command), so
// that machines learn of each other's agents' activity. Merged, it keeps
// the latest time.
type Presence struct {
	Project  string // slug
	Agent    string
	LastSeen time.Time
}

type presenceJSON struct {
	Agent    string `json:"agent"`
	LastSeen string `json:"last_seen"`
}

// Files implements Record.
func (p *Presence) Files() []File {
	return []File{{ProjectDir(p.Project) + "/agents/" + p.Agent + "/presence.json",
		marshal(presenceJSON{p.Agent, FormatTime(p.LastSeen)})}}
}

func decodePresence(slug, dirName string, data []byte) (*Presence, error) {
	var v presenceJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Agent != dirName {
		return nil, fmt.Errorf("presence names %q but lives under %q", v.Agent, dirName)
	}
	seen, err := ParseTime(v.LastSeen)
	if err != nil {
		return nil, err
	}
	return &Presence{Project: slug, Agent: v.Agent, LastSeen: seen}, nil
}
