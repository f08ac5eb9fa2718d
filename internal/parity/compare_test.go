package parity

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// differences lists where got differs from want, the reference (the
// command line's document). With superset, got may hold keys want has
// not (an MCP result: mcp_agent_mail's fields beside ours); without, the
// keys must be the same.
func differences(want, got any, superset bool) []string {
	var out []string
	var walk func(path string, want, got any)
	walk = func(path string, want, got any) {
		switch w := want.(type) {
		case map[string]any:
			g, ok := got.(map[string]any)
			if !ok {
				out = append(out, fmt.Sprintf("%s: %s, want an object %s", orRoot(path), short(got), short(want)))
				return
			}
			for _, k := range sortedKeys(w) {
				if _, ok := g[k]; !ok {
					out = append(out, fmt.Sprintf("%s: missing (want %s)", path+"."+k, short(w[k])))
					continue
				}
				walk(path+"."+k, w[k], g[k])
			}
			if !superset {
				for _, k := range sortedKeys(g) {
					if _, ok := w[k]; !ok {
						out = append(out, fmt.Sprintf("%s: not in the reference (%s)", path+"."+k, short(g[k])))
					}
				}
			}
		case []any:
			g, ok := got.([]any)
			if !ok || len(g) != len(w) {
				out = append(out, fmt.Sprintf("%s: %s, want %s", orRoot(path), short(got), short(want)))
				return
			}
			for i := range w {
				walk(fmt.Sprintf("%s.%d", path, i), w[i], g[i])
			}
		default:
			if !equalJSON(want, got) {
				out = append(out, fmt.Sprintf("%s: %s, want %s", orRoot(path), short(got), short(want)))
			}
		}
	}
	walk("", want, got)
	return out
}

func orRoot(path string) string {
	if path == "" {
		return "(document)"
	}
	return path
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}

// project keeps of got only what want has (recursively): the part of an
// MCP result that is agentmail's own document, ready to be normalized as
// the reference is.
func project(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := map[string]any{}
		for k, v := range g {
			if wv, ok := w[k]; ok {
				out[k] = project(wv, v)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = project(w[i], g[i])
		}
		return out
	}
	return got
}

// ulid is an id agentmail makes: a message's, a thread's, a lease's, a
// task's.
var ulid = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

// normalize renames the ids of doc that are not in keep (those the
// faces share: made before the operation) ID1, ID2, ... in the order of
// a walk of doc by sorted keys: a write through each face makes its own.
func normalize(doc any, keep []string) any {
	names := map[string]string{}
	rename := func(s string) string {
		return ulid.ReplaceAllStringFunc(s, func(id string) string {
			if slices.Contains(keep, id) {
				return id
			}
			if names[id] == "" {
				names[id] = fmt.Sprintf("ID%d", len(names)+1)
			}
			return names[id]
		})
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for _, k := range sortedKeys(x) {
				out[k] = walk(x[k])
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i := range x {
				out[i] = walk(x[i])
			}
			return out
		case string:
			return rename(x)
		}
		return v
	}
	return walk(doc)
}

// expand replaces {NAME} by vars[NAME] in s.
func expand(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// expandArgs expands the strings of an MCP call's arguments.
func expandArgs(args map[string]any, vars map[string]string) map[string]any {
	b, _ := json.Marshal(args)
	var out map[string]any
	_ = json.Unmarshal([]byte(expand(string(b), vars)), &out)
	return out
}

// unexpand writes value {NAME} wherever it appears in doc's strings.
func unexpand(doc any, name, value string) any {
	if doc == nil || value == "" {
		return doc
	}
	b, _ := json.Marshal(doc)
	var out any
	_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), value, "{"+name+"}")), &out)
	return out
}
