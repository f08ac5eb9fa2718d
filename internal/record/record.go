// Package record defines the durable records of the archive and their file
// formats: where each lives, how it is written, and how it is read back.
//
// Every record type round-trips exactly: Decode(r.Files()) gives back r. The
// index is built only from decoded records, whether they were just written or
// read back from the archive, which is what makes a rebuilt index answer like
// the live one.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// TimeFormat is the layout of every timestamp in records and JSON output:
// RFC 3339, UTC, whole seconds.
const TimeFormat = "2006-01-02T15:04:05Z"

// ErrMalformed marks a file in the archive that cannot be decoded.
var ErrMalformed = errors.New("malformed record")

// File is one file of a record in the archive.
type File struct {
	Path string
	Data []byte
}

// Record is anything stored in the archive.
type Record interface {
	// Files returns the files that hold the record, canonical one first.
	Files() []File
}

// Project is a codebase with its own mailbox.
type Project struct {
	Key     string    `json:"key"`
	Slug    string    `json:"slug"`
	Created time.Time `json:"created"`
	// Archived is when the project was archived (it then takes no writes
	// and is left out of project lists); zero while it is active.
	Archived time.Time `json:"archived"`
}

// ProjectDir returns the directory of the project with slug in the archive.
func ProjectDir(slug string) string { return "projects/" + slug }

// Files implements Record.
func (p *Project) Files() []File {
	return []File{{ProjectDir(p.Slug) + "/project.json", marshal(struct {
		Key      string `json:"key"`
		Slug     string `json:"slug"`
		Created  string `json:"created"`
		Archived string `json:"archived,omitempty"`
	}{p.Key, p.Slug, FormatTime(p.Created), FormatTime(p.Archived)})}}
}

// Agent is a registered identity within a project.
type Agent struct {
	Project    string // slug
	Name       string
	Program    string
	Model      string
	Task       string
	Registered time.Time
	Updated    time.Time
	Retired    bool   // receives no mail and is left out of broadcasts
	Policy     string // contact policy: open, auto (""), contacts_only, block_all
	Role       string // a free word such as reviewer; "" for none
}

type agentJSON struct {
	Name       string `json:"name"`
	Program    string `json:"program"`
	Model      string `json:"model"`
	Task       string `json:"task"`
	Registered string `json:"registered"`
	Updated    string `json:"updated"`
	Retired    bool   `json:"retired,omitempty"`
	Policy     string `json:"policy,omitempty"`
	Role       string `json:"role,omitempty"`
}

// Files implements Record.
func (a *Agent) Files() []File {
	return []File{{ProjectDir(a.Project) + "/agents/" + a.Name + "/profile.json", marshal(agentJSON{
		a.Name, a.Program, a.Model, a.Task, FormatTime(a.Registered), FormatTime(a.Updated), a.Retired, a.Policy, a.Role,
	})}}
}

// Receipt is one recipient's state for one message.
type Receipt struct {
	Project string // slug
	Message string // message id
	Agent   string
	ReadAt  time.Time // zero when unread
	AckedAt time.Time // zero when not acknowledged
}

type receiptJSON struct {
	Message string  `json:"message"`
	Agent   string  `json:"agent"`
	ReadAt  *string `json:"read_at"`
	AckedAt *string `json:"acked_at"`
}

// Files implements Record. Receipts fan out by the day of the message's
// id (a ULID); message ids are validated before any receipt is made, and
// an unreadable one files under 0000/00/00 rather than failing a write.
func (r *Receipt) Files() []File {
	day, err := idDay(r.Message)
	if err != nil {
		day = "0000/00/00"
	}
	return []File{{fmt.Sprintf("%s/receipts/%s/%s/%s.json", ProjectDir(r.Project), day, r.Message, r.Agent),
		marshal(receiptJSON{r.Message, r.Agent, optTime(r.ReadAt), optTime(r.AckedAt)})}}
}

// FormatTime formats t in TimeFormat, or "" for the zero time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeFormat)
}

// ParseTime parses a TimeFormat (or any RFC 3339) timestamp; "" is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := FormatTime(t)
	return &s
}

func marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // only plain structs of strings are marshalled
	}
	return append(b, '\n')
}

// Decode reads the record stored at path. It returns nil and no error for
// files that are not records of their own, such as the inbox and outbox
// copies of a message, and for paths it does not know (written by a newer
// agentmail).
func Decode(path string, data []byte) (Record, error) {
	parts := strings.Split(path, "/")
	if len(parts) < 3 || parts[0] != "projects" {
		return nil, nil
	}
	slug := parts[1]
	rest := parts[2:]
	var (
		rec Record
		err error
	)
	switch {
	case len(rest) == 1 && rest[0] == "project.json":
		rec, err = decodeProject(data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "profile.json" && isDeletedAgent(data):
		rec, err = decodeDeletedAgent(slug, rest[1], data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "profile.json":
		rec, err = decodeAgent(slug, rest[1], data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "presence.json":
		rec, err = decodePresence(slug, rest[1], data)
	case len(rest) == 5 && rest[0] == "messages" && IsPurged(data):
		rec, err = decodePurged(slug, path, data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "subscriptions.json":
		rec, err = decodeSubscriptions(slug, rest[1], data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "state.json":
		rec, err = decodeAgentState(slug, rest[1], data)
	case len(rest) == 3 && rest[0] == "agents" && rest[2] == "control.json":
		rec, err = decodeControl(slug, rest[1], data)
	case len(rest) == 2 && rest[0] == RulesDir && rest[1] == "invariants.md":
		rec, err = decodeRules(slug, "", data)
	case len(rest) == 3 && rest[0] == RulesDir && rest[1] == "roles" && strings.HasSuffix(rest[2], ".md"):
		role, ok := NormalRole(strings.TrimSuffix(rest[2], ".md"))
		if !ok || role+".md" != rest[2] {
			return nil, nil
		}
		rec, err = decodeRules(slug, role, data)
	case len(rest) == 5 && rest[0] == "messages":
		var m *Message
		if m, err = DecodeMessage(slug, data); err == nil {
			m.SetPath(path)
			rec = m
		}
	case len(rest) == 6 && rest[0] == "receipts":
		rec, err = decodeReceipt(slug, data)
	case rest[0] == ReservationsDir && (len(rest) == 2 || len(rest) == 9):
		rec, err = decodeReservation(slug, data) // the flat layout of earlier versions, or ReservationFile's
	case len(rest) == 2 && rest[0] == "locks":
		rec, err = decodeLock(slug, data)
	case len(rest) == 3 && rest[0] == PortsDir:
		rec, err = decodePort(slug, data)
	case len(rest) == 2 && rest[0] == ProductsDir:
		rec, err = decodeProduct(slug, rest[1], data)
	case len(rest) == 2 && rest[0] == "contacts":
		rec, err = decodeContact(slug, data)
	case len(rest) == 6 && rest[0] == TasksDir:
		rec, err = decodeTaskOp(slug, rest[4], rest[5], data)
	case len(rest) == 3 && rest[0] == IdempotencyDir:
		rec, err = decodeIdempotency(slug, rest[1], rest[2], data)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrMalformed, err)
	}
	return rec, nil
}

func decodeProject(data []byte) (*Project, error) {
	var v struct{ Key, Slug, Created, Archived string }
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	created, err := ParseTime(v.Created)
	if err != nil {
		return nil, err
	}
	archived, err := ParseTime(v.Archived)
	if err != nil {
		return nil, err
	}
	return &Project{Key: v.Key, Slug: v.Slug, Created: created, Archived: archived}, nil
}

func decodeAgent(slug, dirName string, data []byte) (*Agent, error) {
	var v agentJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v.Name != dirName {
		return nil, fmt.Errorf("profile names %q but lives under %q", v.Name, dirName)
	}
	reg, err := ParseTime(v.Registered)
	if err != nil {
		return nil, err
	}
	upd, err := ParseTime(v.Updated)
	if err != nil {
		return nil, err
	}
	return &Agent{Project: slug, Name: v.Name, Program: v.Program, Model: v.Model, Task: v.Task, Registered: reg, Updated: upd, Retired: v.Retired, Policy: v.Policy, Role: v.Role}, nil
}

func decodeReceipt(slug string, data []byte) (*Receipt, error) {
	var v receiptJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	r := &Receipt{Project: slug, Message: v.Message, Agent: v.Agent}
	var err error
	if v.ReadAt != nil {
		if r.ReadAt, err = ParseTime(*v.ReadAt); err != nil {
			return nil, err
		}
	}
	if v.AckedAt != nil {
		if r.AckedAt, err = ParseTime(*v.AckedAt); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// SkipCopies reports whether an archive directory holds only copies of
// records stored elsewhere (the per-agent inbox and outbox folders), or
// the content of attachments (AttachmentsDir), which the index never needs
// to read.
func SkipCopies(dir string) bool {
	parts := strings.Split(dir, "/")
	if len(parts) == 3 && parts[0] == "projects" && parts[2] == AttachmentsDir {
		return true
	}
	return len(parts) == 5 && parts[0] == "projects" && parts[2] == "agents" && (parts[4] == "inbox" || parts[4] == "outbox")
}
