package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Purged is a message taken out of the index and out of the mailbox
// folders (purge_old_messages, a hard-deleted agent's mail): its
// canonical file and its inbox and outbox copies hold this tombstone in
// its place, so that every index, live or rebuilt, leaves it out. The
// message itself stays in the archive's history (git log -p on its path
// shows it); only rewriting that history removes it for good.
type Purged struct {
	Project string // slug
	ID      string // the message's id
	Path    string // the message's canonical file
	Copies  []string
	Purged  time.Time
	By      string // who purged it: an agent name, or agentmail
	Reason  string // why: older than N days, an agent hard-deleted
}

type purgedJSON struct {
	PurgedMessage string   `json:"purged_message"`
	Purged        string   `json:"purged"`
	By            string   `json:"by"`
	Reason        string   `json:"reason"`
	Copies        []string `json:"copies"`
}

// Files implements Record: the tombstone at the message's file and at
// each of its copies.
func (p *Purged) Files() []File {
	data := marshal(purgedJSON{p.ID, FormatTime(p.Purged), p.By, p.Reason, p.Copies})
	files := []File{{p.Path, data}}
	for _, c := range p.Copies {
		files = append(files, File{c, data})
	}
	return files
}

// IsPurged reports whether a message file holds a tombstone (Purged)
// rather than a message.
func IsPurged(data []byte) bool { return bytes.HasPrefix(data, []byte("{")) }

func decodePurged(slug, path string, data []byte) (*Purged, error) {
	var v purgedJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.PurgedMessage == "" {
		return nil, fmt.Errorf("a tombstone that names no message")
	}
	t, err := ParseTime(v.Purged)
	if err != nil {
		return nil, err
	}
	return &Purged{Project: slug, ID: v.PurgedMessage, Path: path, Copies: v.Copies, Purged: t, By: v.By, Reason: v.Reason}, nil
}

// PurgedFor returns the tombstone of message m, purged at when by by.
func PurgedFor(m *Message, when time.Time, by, reason string) *Purged {
	files := m.Files()
	p := &Purged{Project: m.Project, ID: m.ID, Path: files[0].Path, Purged: when, By: by, Reason: reason}
	for _, f := range files[1:] {
		p.Copies = append(p.Copies, f.Path)
	}
	return p
}

// DeletedAgent is an agent taken out of the index (hard_delete_agent):
// its profile file holds this tombstone in its place, so that every
// index, live or rebuilt, leaves it out; registering the name again
// writes a profile over it. The profile stays in the archive's history.
type DeletedAgent struct {
	Project string // slug
	Name    string
	Deleted time.Time
	By      string
}

type deletedAgentJSON struct {
	DeletedAgent string `json:"deleted_agent"`
	Deleted      string `json:"deleted"`
	By           string `json:"by"`
}

// Files implements Record: the tombstone at the agent's profile.
func (d *DeletedAgent) Files() []File {
	return []File{{ProjectDir(d.Project) + "/agents/" + d.Name + "/profile.json", marshal(deletedAgentJSON{d.Name, FormatTime(d.Deleted), d.By})}}
}

// isDeletedAgent reports whether a profile file holds a tombstone.
func isDeletedAgent(data []byte) bool { return bytes.Contains(data, []byte(`"deleted_agent"`)) }

func decodeDeletedAgent(slug, dirName string, data []byte) (*DeletedAgent, error) {
	var v deletedAgentJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.DeletedAgent != dirName {
		return nil, fmt.Errorf("tombstone names %q but lives under %q", v.DeletedAgent, dirName)
	}
	t, err := ParseTime(v.Deleted)
	if err != nil {
		return nil, err
	}
	return &DeletedAgent{Project: slug, Name: v.DeletedAgent, Deleted: t, By: v.By}, nil
}
