package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/google/jsonschema-go/jsonschema"
)

// otherSpellings are the argument names that widely copied examples and
// tutorials use for ours, by the name they mean: a call that uses one
// where the tool does not take it hears which name to use instead, in its
// first error.
var otherSpellings = map[string]string{
	"from_agent": "sender_name",
	"sender":     "sender_name",
	"to_agents":  "to",
	"recipients": "to",
	"body":       "body_md",
	"message":    "body_md",
	"project":    "project_key",
	// mcp_agent_mail's SKILL.md lists its tools with short names:
	// fetch_inbox(project_key, agent, ...), file_reservation_paths(...,
	// ttl?), force_release_file_reservation(..., reservation_id).
	"agent":           "agent_name",
	"from":            "sender_name",
	"ttl":             "ttl_seconds",
	"extend":          "extend_seconds",
	"reservation_id":  "file_reservation_id",
	"reservation_ids": "file_reservation_ids",
}

// toolSpellings are other spellings of one tool's arguments.
var toolSpellings = map[string]map[string]string{
	"register_agent": {"agent_name": "name", "agent": "name"},
	"ensure_project": {"project_key": "human_key", "project": "human_key"},
}

// argsShape is what decodeArgs needs to know of a tool's arguments
// beyond its schema: the type of each, and the other spellings it hears.
type argsShape struct {
	tool      string
	types     map[string][]string // by argument: its JSON types
	spellings map[string]string   // another spelling -> the argument meant
}

// argShape describes the arguments of tool, whose input schema is in.
func argShape(tool string, in *jsonschema.Schema) *argsShape {
	sh := &argsShape{tool: tool, types: map[string][]string{}, spellings: map[string]string{}}
	for name, p := range in.Properties {
		sh.types[name] = typesOf(p)
	}
	for _, m := range []map[string]string{otherSpellings, toolSpellings[tool]} {
		for wrong, right := range m {
			if _, takes := in.Properties[wrong]; takes {
				continue
			}
			if _, ok := in.Properties[right]; ok {
				sh.spellings[wrong] = right
			}
		}
	}
	return sh
}

// typesOf returns the JSON types a schema allows (of its anyOf branches too).
func typesOf(s *jsonschema.Schema) []string {
	types := slices.Clone(s.Types)
	if s.Type != "" {
		types = append(types, s.Type)
	}
	for _, b := range s.AnyOf {
		types = append(types, typesOf(b)...)
	}
	return types
}

// loosen takes the arguments as models send them, in place: a null is an
// argument left out; a string holding an integer, a number or a boolean,
// where the argument is one (and not a string); a string holding a JSON
// list, where the argument is a list. changed reports whether any was.
// An argument the tool does not take fails, naming the argument meant
// where a known other spelling was used, else listing the tool's.
func (sh *argsShape) loosen(fields map[string]any) (changed bool, err error) {
	var wrong, unknown []string
	for name, v := range fields {
		if v == nil {
			delete(fields, name)
			changed = true
			continue
		}
		types, ok := sh.types[name]
		if !ok {
			if right, ok := sh.spellings[name]; ok {
				wrong = append(wrong, fmt.Sprintf("%s: did you mean %s?", name, right))
			} else {
				unknown = append(unknown, name)
			}
			continue
		}
		s, ok := v.(string)
		if !ok || slices.Contains(types, "string") {
			continue
		}
		s = strings.TrimSpace(s)
		switch {
		case slices.Contains(types, "integer") || slices.Contains(types, "number"):
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				fields[name], changed = n, true
			} else if f, err := strconv.ParseFloat(s, 64); err == nil && slices.Contains(types, "number") {
				fields[name], changed = f, true
			}
		case slices.Contains(types, "boolean"):
			if b, err := strconv.ParseBool(s); err == nil {
				fields[name], changed = b, true
			}
		case slices.Contains(types, "array"):
			var list []any
			if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &list) == nil {
				fields[name], changed = list, true
			}
		}
	}
	// A list that may also be one string (to, cc, bcc) takes a string of a
	// JSON list as the list it holds, not as a name.
	for name, v := range fields {
		types := sh.types[name]
		if s, ok := v.(string); ok && slices.Contains(types, "array") && slices.Contains(types, "string") && strings.HasPrefix(strings.TrimSpace(s), "[") {
			var list []any
			if json.Unmarshal([]byte(s), &list) == nil {
				fields[name], changed = list, true
			}
		}
	}
	if len(wrong)+len(unknown) == 0 {
		return changed, nil
	}
	slices.Sort(wrong)
	slices.Sort(unknown)
	msg := strings.Join(wrong, "; ")
	if len(unknown) > 0 {
		if msg != "" {
			msg += "; "
		}
		msg += fmt.Sprintf("%s does not take %s", sh.tool, strings.Join(unknown, ", "))
	}
	takes := slices.Sorted(maps.Keys(sh.types))
	return changed, &toolError{doc: ErrorDoc{Type: "INVALID_ARGUMENT", ErrorDoc: service.ErrorDoc{Code: "INVALID_ARGUMENT", Message: "arguments: " + msg,
		Hint: sh.tool + " takes: " + strings.Join(takes, ", ")}},
		err: fmt.Errorf("%w: arguments: %s", service.ErrInvalidArgument, msg)}
}
