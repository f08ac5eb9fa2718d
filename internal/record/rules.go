package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// RulesDir is the directory of a project's rules for its agents.
const RulesDir = "rules"

// isRole reports whether role is one: a free lowercase word
// (^[a-z0-9][a-z0-9_-]{0,31}$).
func isRole(role string) bool {
	return asciiWord(role, 32, lowerDigit, func(c byte) bool { return lowerDigit(c) || c == '_' || c == '-' })
}

// NormalRole returns role lowercased and trimmed, and whether it is one:
// 1 to 32 letters, digits, '_' and '-', not starting with '_' or '-'.
func NormalRole(role string) (string, bool) {
	role = strings.ToLower(strings.TrimSpace(role))
	return role, isRole(role)
}

// Rules are a project's rules for its agents: the invariants every agent
// keeps (Role ""), or the playbook of one role. Markdown, one file each:
// rules/invariants.md, rules/roles/<role>.md, rewritten whole by each
// change (the archive's history keeps every version); merged, the latest
// change stands.
type Rules struct {
	Project string // slug
	Role    string // "" for the invariants of every agent
	Body    string // markdown, exactly as set
	By      string // who set it
	Updated time.Time
}

// Path returns the file of the rules of role in the project slug.
func RulesPath(slug, role string) string {
	if role == "" {
		return ProjectDir(slug) + "/" + RulesDir + "/invariants.md"
	}
	return ProjectDir(slug) + "/" + RulesDir + "/roles/" + role + ".md"
}

// Files implements Record: front matter (role, by, updated) between
// "---" lines, a blank line, then the body.
func (r *Rules) Files() []File {
	var b bytes.Buffer
	role, _ := json.Marshal(r.Role)
	by, _ := json.Marshal(r.By)
	fmt.Fprintf(&b, "---\nrole: %s\nby: %s\nupdated: %s\n---\n\n%s", role, by, FormatTime(r.Updated), r.Body)
	return []File{{RulesPath(r.Project, r.Role), b.Bytes()}}
}

func decodeRules(slug, role string, data []byte) (*Rules, error) {
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, fmt.Errorf("rules: no front matter")
	}
	head, body, ok := bytes.Cut(rest, []byte("\n---\n\n"))
	if !ok {
		return nil, fmt.Errorf("rules: front matter not closed")
	}
	r := &Rules{Project: slug, Body: string(body)}
	var fileRole string
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, ": ")
		var err error
		switch key {
		case "role":
			err = json.Unmarshal([]byte(val), &fileRole)
		case "by":
			err = json.Unmarshal([]byte(val), &r.By)
		case "updated":
			r.Updated, err = ParseTime(val)
		}
		if err != nil {
			return nil, fmt.Errorf("rules: %s: %w", key, err)
		}
	}
	if fileRole != role {
		return nil, fmt.Errorf("rules of role %q live under %q", fileRole, role)
	}
	r.Role = role
	return r, nil
}
