package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

// editor adds agentmail's entry to the text of a configuration file, or
// takes it out. Neither touches anything else in the text.
type editor interface {
	// add returns src with the entry; src is nil when there is no file.
	// An entry that is there and differs is ErrEntryDiffers, unless force.
	add(src []byte, force bool) ([]byte, error)
	// remove returns src without the entry, src itself when there is none.
	remove(src []byte) ([]byte, error)
	// what names the entry in messages.
	what() string
}

// blank reports whether a file holds nothing but whitespace: such a
// file, or none, gets a document of the entry alone.
func blank(src []byte) bool {
	return len(bytes.TrimSpace(src)) == 0
}

// differs is the error for an entry that is there and is not ours.
func differs(what string, old any) error {
	b, err := json.Marshal(old)
	if err != nil {
		b = []byte(fmt.Sprint(old))
	}
	return fmt.Errorf("%w %s %s", ErrEntryDiffers, what, b)
}

// jsonServer is the entry at path (the servers object, then our name) of
// a JSON configuration.
type jsonServer struct {
	dialect dialect
	path    []string
	entry   any
}

func (s jsonServer) what() string { return "an agentmail MCP server" }

func (s jsonServer) add(src []byte, force bool) ([]byte, error) {
	if blank(src) {
		f := &jsonFile{unit: "  "}
		return []byte(f.render(nest(s.entry, s.path...), "") + "\n"), nil
	}
	f, err := parseJSON(src, s.dialect)
	if err != nil {
		return nil, err
	}
	old, err := f.lookup(s.path)
	switch {
	case errors.Is(err, errNotFound):
	case err != nil:
		return nil, err
	case sameJSON(old, s.entry):
		return src, nil
	case !force:
		return nil, differs(s.what(), decode(old))
	}
	out, err := f.setMember(s.path, s.entry)
	if err != nil {
		return nil, err
	}
	return out, s.verify(out, true)
}

func (s jsonServer) remove(src []byte) ([]byte, error) {
	if blank(src) {
		return src, nil
	}
	f, err := parseJSON(src, s.dialect)
	if err != nil {
		return nil, err
	}
	out, found, err := f.removeMember(s.path)
	if err != nil || !found {
		return src, err
	}
	if out, err = pruneEmpty(out, s.dialect, s.path[:len(s.path)-1]); err != nil {
		return nil, fmt.Errorf("%w: the edit would leave the file unreadable: %v", ErrCannotEdit, err)
	}
	return out, s.verify(out, false)
}

// verify parses what an edit made and checks that the entry is there as
// we want it (or gone): an edit never writes a file the client cannot read.
func (s jsonServer) verify(out []byte, present bool) error {
	f, err := parseJSON(out, s.dialect)
	if err != nil {
		return fmt.Errorf("%w: the edit would leave the file unreadable: %v", ErrCannotEdit, err)
	}
	v, err := f.lookup(s.path)
	switch {
	case present && (err != nil || !sameJSON(v, s.entry)):
		return fmt.Errorf("%w: after the edit, %s does not hold the entry", ErrCannotEdit, strings.Join(s.path, "."))
	case !present && !errors.Is(err, errNotFound):
		return fmt.Errorf("%w: after the edit, %s is still there", ErrCannotEdit, strings.Join(s.path, "."))
	}
	return nil
}

// tomlServer is the [path] table of a TOML configuration (Codex).
type tomlServer struct {
	path  []string
	entry codexServer
}

func (s tomlServer) what() string { return "an agentmail MCP server" }

// block is the table as setup writes it.
func (s tomlServer) block() string {
	body, err := toml.Marshal(s.entry)
	if err != nil {
		panic(fmt.Sprintf("setup: marshal %T: %v", s.entry, err)) // our own values always marshal
	}
	return "[" + strings.Join(s.path, ".") + "]\n" + string(body)
}

// want is the table as a decoded document holds it.
func (s tomlServer) want() any {
	f, err := parseTOML([]byte(s.block()))
	if err != nil {
		panic(fmt.Sprintf("setup: our own table does not parse: %v", err))
	}
	return f.value(s.path)
}

func (s tomlServer) add(src []byte, force bool) ([]byte, error) {
	f, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	old := f.value(s.path)
	var out []byte
	switch spans := f.spans(s.path); {
	case old == nil:
		out = appendTable(src, s.block())
	case reflect.DeepEqual(old, s.want()):
		return src, nil
	case !force:
		return nil, differs(s.what(), old)
	case len(spans) == 1 && spans[0].table:
		out = splice{spans[0].start, spans[0].end, s.block()}.apply(src)
	default:
		out = appendTable(removeSpans(src, spans), s.block())
	}
	return out, s.verify(out, true)
}

func (s tomlServer) remove(src []byte) ([]byte, error) {
	f, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	if f.value(s.path) == nil {
		return src, nil
	}
	out := removeSpans(src, f.spans(s.path))
	return out, s.verify(out, false)
}

func (s tomlServer) verify(out []byte, present bool) error {
	f, err := parseTOML(out)
	if err != nil {
		return fmt.Errorf("%w: [%s] cannot be added here: %v", ErrCannotEdit, strings.Join(s.path, "."), err)
	}
	switch v := f.value(s.path); {
	case present && !reflect.DeepEqual(v, s.want()):
		return fmt.Errorf("%w: after the edit, [%s] does not hold the entry", ErrCannotEdit, strings.Join(s.path, "."))
	case !present && v != nil:
		return fmt.Errorf("%w: [%s] is defined in a way setup cannot take out (an inline table?)", ErrCannotEdit, strings.Join(s.path, "."))
	}
	return nil
}

// claudeHook is one of Claude Code's command hooks running agentmail: a
// group of one command hook in hooks.EVENT of a settings.json. The
// UserPromptSubmit hook runs agentmail check (what it prints on exit 0 is
// added to the agent's context, so new mail reaches the agent at its next
// prompt); the PreToolUse hook, matched to the file-writing tools, runs
// agentmail guard edit, which denies an edit of a path another agent
// holds; with --auto-reserve, the SessionEnd hook runs agentmail guard
// session-end, which releases the leases guard edit took on edit.
type claudeHook struct {
	dialect dialect  // the settings file's
	event   string   // UserPromptSubmit, PreToolUse or SessionEnd (Gemini CLI: BeforeTool, SessionEnd)
	matcher string   // the tools it runs for ("" for every prompt)
	sub     []string // the agentmail subcommand it runs: check, or guard edit
	command string   // the hook's command line
	bin     string   // the agentmail in it
	absent  bool     // not wanted: adding it takes out one that is there
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

func (h claudeHook) path() []string { return []string{"hooks", h.event} }

func (h claudeHook) what() string { return "an agentmail " + strings.Join(h.sub, " ") + " hook" }

func (h claudeHook) group() hookGroup {
	return hookGroup{Matcher: h.matcher, Hooks: []hookCommand{{Type: "command", Command: h.command}}}
}

// hookRef is one of our hooks: element hook of the hooks of the
// group-th element of the event's list.
type hookRef struct{ group, hook int }

// find returns the event's list (nil when there is none) and our hooks in
// it.
func (h claudeHook) find(f *jsonFile) (*container, []hookRef, error) {
	hookPath := h.path()
	v, err := f.lookup(hookPath)
	if errors.Is(err, errNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	list := compositeOf(v)
	if list == nil || v.Value.Kind() != '[' {
		line, col := lineCol(f.src, v.StartOffset)
		return nil, nil, fmt.Errorf("%w: line %d, column %d: %q is not a list", ErrMalformed, line, col, strings.Join(hookPath, "."))
	}
	var refs []hookRef
	for g, group := range list.items {
		hooks := memberValue(f, group.value, "hooks")
		if hooks == nil || hooks.Value.Kind() != '[' {
			continue
		}
		for i, hk := range compositeOf(hooks).items {
			var cmd hookCommand
			if json.Unmarshal(mustJSON(decode(hk.value)), &cmd) == nil && cmd.Type == "command" && isAgentmailCommand(cmd.Command, h.bin, h.sub...) {
				refs = append(refs, hookRef{g, i})
			}
		}
	}
	return list, refs, nil
}

// memberValue returns the member name of the object v, nil when v is not
// an object or has no such member.
func memberValue(f *jsonFile, v *hujson.Value, name string) *hujson.Value {
	c := compositeOf(v)
	if c == nil || v.Value.Kind() != '{' {
		return nil
	}
	if i, err := c.member(f.src, name); err == nil && i >= 0 {
		return c.items[i].value
	}
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// parse parses a settings file and finds our hooks in it.
func (h claudeHook) parse(src []byte) (*jsonFile, *container, []hookRef, error) {
	f, err := parseJSON(src, h.dialect)
	if err != nil {
		return nil, nil, nil, err
	}
	list, refs, err := h.find(f)
	return f, list, refs, err
}

func (h claudeHook) add(src []byte, force bool) ([]byte, error) {
	if blank(src) {
		f := &jsonFile{unit: "  "}
		return []byte(f.render(nest([]hookGroup{h.group()}, h.path()...), "") + "\n"), nil
	}
	f, list, refs, err := h.parse(src)
	switch {
	case err != nil:
		return nil, err
	case list == nil:
		out, err := f.setMember(h.path(), []hookGroup{h.group()})
		if err != nil {
			return nil, err
		}
		return out, h.verify(out)
	case len(refs) == 0:
		out := f.insert(list, func(prefix string) string { return f.render(h.group(), prefix) }).apply(src)
		return out, h.verify(out)
	case len(refs) == 1 && sameJSON(list.items[refs[0].group].value, h.group()):
		return src, nil
	case !force:
		return nil, differs(h.what(), decode(list.items[refs[0].group].value))
	}
	out, err := h.remove(src)
	if err != nil {
		return nil, err
	}
	return h.add(out, false)
}

func (h claudeHook) remove(src []byte) ([]byte, error) {
	if blank(src) {
		return src, nil
	}
	for before := -1; ; {
		f, list, refs, err := h.parse(src)
		switch {
		case err != nil && before >= 0:
			return nil, fmt.Errorf("%w: the edit would leave the file unreadable: %v", ErrCannotEdit, err)
		case err != nil:
			return nil, err
		case len(refs) == 0 && before < 0:
			return src, nil
		case len(refs) == 0:
			return pruneEmpty(src, h.dialect, h.path())
		case before >= 0 && len(refs) >= before:
			return nil, fmt.Errorf("%w: %s could not be taken out", ErrCannotEdit, h.what())
		}
		before = len(refs)
		src = h.removeOne(f, list, refs[0]).apply(src)
	}
}

// removeOne takes out one hook: its whole group when it is the group's
// only hook.
func (h claudeHook) removeOne(f *jsonFile, list *container, r hookRef) splice {
	hooks := compositeOf(memberValue(f, list.items[r.group].value, "hooks"))
	if len(hooks.items) == 1 {
		return f.remove(list, r.group)
	}
	return f.remove(hooks, r.hook)
}

func (h claudeHook) verify(out []byte) error {
	_, list, refs, err := h.parse(out)
	if err != nil || len(refs) != 1 || !sameJSON(list.items[refs[0].group].value, h.group()) {
		return fmt.Errorf("%w: after the edit, %s does not hold the hook", ErrCannotEdit, strings.Join(h.path(), "."))
	}
	return nil
}

// claudeHooks are the hooks setup adds to one settings file, edited in
// turn: what one adds, the next finds there.
type claudeHooks []claudeHook

func (hs claudeHooks) add(src []byte, force bool) ([]byte, error) {
	for _, h := range hs {
		var err error
		if h.absent {
			src, err = h.remove(src)
		} else {
			src, err = h.add(src, force)
		}
		if err != nil {
			return nil, err
		}
	}
	return src, nil
}

func (hs claudeHooks) remove(src []byte) ([]byte, error) {
	for i := len(hs) - 1; i >= 0; i-- {
		var err error
		if src, err = hs[i].remove(src); err != nil {
			return nil, err
		}
	}
	return src, nil
}

func (hs claudeHooks) what() string { return "agentmail hooks" }

// chained edits one file with several editors in turn (Gemini CLI's
// settings.json holds both its MCP servers and its hooks): what one adds,
// the next finds there; they take out in the reverse order.
type chained []editor

func (es chained) add(src []byte, force bool) ([]byte, error) {
	for _, e := range es {
		var err error
		if src, err = e.add(src, force); err != nil {
			return nil, err
		}
	}
	return src, nil
}

func (es chained) remove(src []byte) ([]byte, error) {
	for i := len(es) - 1; i >= 0; i-- {
		var err error
		if src, err = es[i].remove(src); err != nil {
			return nil, err
		}
	}
	return src, nil
}

func (es chained) what() string {
	whats := make([]string, len(es))
	for i, e := range es {
		whats[i] = e.what()
	}
	return strings.Join(whats, " and ")
}
