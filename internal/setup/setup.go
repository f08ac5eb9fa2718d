package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
)

// Errors callers branch on.
var (
	// ErrMalformed: a configuration file does not parse, or holds
	// something where setup's entry goes that is of the wrong kind.
	ErrMalformed = errors.New("is malformed")
	// ErrEntryDiffers: an agentmail entry is there and is not the one
	// setup would write.
	ErrEntryDiffers = errors.New("already has")
	// ErrCannotEdit: the file is valid, but setup cannot add or remove its
	// entry without touching something else.
	ErrCannotEdit = errors.New("cannot be edited safely")
)

// Options say which client to configure, where, and with what.
type Options struct {
	Client  string            // one of Clients()
	User    bool              // the user's configuration; else the project's
	Hooks   bool              // Claude Code: also the hook that runs agentmail check
	Force   bool              // replace an agentmail entry that differs from ours
	Command string            // the agentmail binary the client runs, as an absolute path or a name on PATH
	Env     map[string]string // environment the client gives it (AGENTMAIL_AGENT, ...)
	Tools   string            // the MCP tool profile (agentmail mcp --tools); "" or "full" for all

	Project    string // the project's directory (its repository's working tree)
	Home       string // the user's home directory
	ConfigHome string // $XDG_CONFIG_HOME, else ~/.config (opencode)
	CodexHome  string // $CODEX_HOME, else ~/.codex
	StateDir   string // where setup keeps what it needs to undo its changes exactly

	// AutoReserve (with Hooks): the pre-tool hook runs guard edit
	// --auto-reserve, and a SessionEnd hook guard session-end.
	AutoReserve bool
}

// args are the arguments of the server's command: mcp, and --tools
// unless all of them are served.
func (o Options) args() []string {
	if o.Tools == "" || o.Tools == "full" {
		return []string{"mcp"}
	}
	return []string{"mcp", "--tools", o.Tools}
}

// Scope returns "user" or "project".
func (o Options) Scope() string {
	if o.User {
		return "user"
	}
	return "project"
}

// Change is what setup does, or would do, to one file.
type Change struct {
	Path   string
	What   string // "server", "hook", or "server and hook" (one file holds both)
	Action string // created, updated, unchanged, removed
	Before []byte // nil when the file did not exist
	After  []byte // nil when the file is removed

	record    *record  // to keep (Install) for an exact Uninstall
	dropped   bool     // the record is spent (Uninstall)
	dirs      []string // directories to create (created) or to remove when empty (removed), deepest last
	writePath string   // where the bytes go: Path with symbolic links resolved
}

// Plan is the set of changes of one setup or uninstall, not yet made.
type Plan struct {
	Client  string // the client's name
	Title   string // its display name
	Scope   string
	Changes []Change
	Notes   []string // things the user should know, said once a change is made

	stateDir string
}

// Install plans adding agentmail's entry (and, with Hooks, the hook) to
// the client's configuration of the scope. Nothing is written until Apply.
func Install(o Options) (*Plan, error) {
	return plan(o, false)
}

// Uninstall plans taking out what Install added: a file it left as it
// found it since gets its original bytes back exactly (a file it created
// goes, with the directories it created when they are empty); a file
// changed since loses only agentmail's entries. The hook goes too, with
// or without Hooks.
func Uninstall(o Options) (*Plan, error) {
	return plan(o, true)
}

func plan(o Options, uninstall bool) (*Plan, error) {
	c, ok := clients[o.Client]
	if !ok {
		return nil, fault.WithHint(fmt.Errorf("unknown client %q", o.Client), "name one of "+strings.Join(Clients(), ", "))
	}
	if o.Hooks && c.hooksFile == nil {
		return nil, fault.WithField(fmt.Errorf("%w: %s has no hook that setup adds", fault.ErrInvalidArgument, c.title), "hooks", "problem", "unsupported")
	}
	if o.AutoReserve && !o.Hooks && !uninstall {
		return nil, fault.WithField(fmt.Errorf("%w: reserving on edit is done by the hooks, which are not asked for", fault.ErrInvalidArgument), "hooks")
	}
	p := &Plan{Client: o.Client, Title: c.title, Scope: o.Scope(), stateDir: o.StateDir}
	type target struct {
		path, what string
		ed         editor
	}
	targets := []target{{c.file(o), "server", c.server(o)}}
	switch {
	case c.hooksFile == nil || !o.Hooks && !uninstall:
	case c.hooksFile(o) == targets[0].path: // one file holds both (Gemini CLI)
		what := "server"
		if o.Hooks {
			what = "server and hook"
		}
		targets[0] = target{targets[0].path, what, chained{targets[0].ed, c.hooks(o)}}
	default:
		targets = append(targets, target{c.hooksFile(o), "hook", c.hooks(o)})
	}
	for _, t := range targets {
		ch, err := planFile(t.path, t.what, t.ed, o, uninstall)
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, ch)
	}
	if c.notes != nil && !uninstall {
		p.Notes = c.notes(o)
	}
	if !uninstall {
		p.Notes = append(p.Notes, oldServers(p.Changes[0].Path, p.Changes[0].Before)...)
	}
	if o.AutoReserve && !uninstall && o.Env["AGENTMAIL_AGENT"] == "" {
		p.Notes = append(p.Notes, "the hooks take leases for the agent AGENTMAIL_AGENT names in "+c.title+"'s environment (setup was given none): "+
			"without one, every edit of a file in the project is denied in block mode")
	}
	return p, nil
}

// planFile works out the change to one file.
func planFile(path, what string, ed editor, o Options, uninstall bool) (Change, error) {
	ch := Change{Path: path, What: what, Action: "unchanged"}
	real, src, err := readConfig(path)
	if err != nil {
		return ch, err
	}
	ch.writePath, ch.Before, ch.After = real, src, src
	rec := loadRecord(o.StateDir, path)
	orig, origExisted, valid := rec.original(src)
	if uninstall {
		ch, err := planRemove(ch, ed, rec, valid, orig, origExisted)
		if err != nil {
			return ch, explain(err, path, o.Client)
		}
		return ch, nil
	}
	out, err := ed.add(src, o.Force)
	if err != nil {
		return ch, explain(err, path, o.Client)
	}
	if src != nil && bytes.Equal(out, src) {
		return ch, nil
	}
	ch.After = out
	ch.Action = "updated"
	if src == nil {
		ch.Action = "created"
		if ch.dirs, err = missingDirs(filepath.Dir(path)); err != nil {
			return ch, err
		}
	}
	if !valid {
		// What was there before is what is there now; but for the entries
		// of an earlier setup whose record went stale when the file changed:
		// those were never the user's to get back.
		orig, origExisted = src, src != nil
		if rec != nil && src != nil {
			if stripped, err := ed.remove(src); err == nil {
				orig = stripped
			}
		}
	}
	ch.record = newRecord(path, orig, origExisted, out, append(recordDirs(rec, valid), ch.dirs...))
	return ch, nil
}

// planRemove works out an uninstall: back to the original bytes when the
// file is as setup left it, else the entry alone taken out.
func planRemove(ch Change, ed editor, rec *record, valid bool, orig []byte, origExisted bool) (Change, error) {
	ch.dropped = rec != nil
	switch {
	case ch.Before == nil:
		return ch, nil
	case valid && !origExisted:
		ch.Action, ch.After, ch.dirs = "removed", nil, rec.Dirs
		return ch, nil
	case valid:
		ch.After = orig
	default:
		out, err := ed.remove(ch.Before)
		if err != nil {
			return ch, err
		}
		ch.After = out
	}
	if !bytes.Equal(ch.After, ch.Before) {
		ch.Action = "updated"
	}
	return ch, nil
}

// explain names the file in an editor's error and says what to do.
func explain(err error, path, client string) error {
	err = fmt.Errorf("%s %w", path, err)
	switch {
	case errors.Is(err, ErrMalformed):
		return fault.WithValues(err, "client", client)
	case errors.Is(err, ErrEntryDiffers):
		return err
	case errors.Is(err, ErrCannotEdit):
		return fault.WithHint(err, "setup left the file as it was: make the change by hand (the README's setup section shows the entry)")
	}
	return err
}

func recordDirs(rec *record, valid bool) []string {
	if rec == nil || !valid {
		return nil
	}
	return rec.Dirs
}

// readConfig reads a configuration file through any symbolic links: it
// returns the path the file's bytes are at (where they are written back)
// and its bytes, nil when there is no file.
func readConfig(path string) (string, []byte, error) {
	real, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return "", nil, fault.WithHint(fmt.Errorf("%s is a symbolic link to nothing", path), "point the link at a file, or remove it")
		}
		return path, nil, nil
	case err != nil:
		return "", nil, fault.WithHint(fmt.Errorf("read %s: %w", path, err), "make the file and its directory readable")
	}
	src, err := os.ReadFile(real)
	if err != nil {
		return "", nil, fault.WithHint(fmt.Errorf("read %s: %w", path, err), "make the file readable")
	}
	if src == nil {
		src = []byte{} // an empty file is there
	}
	return real, src, nil
}

// missingDirs returns dir and those of its parents that do not exist,
// outermost first.
func missingDirs(dir string) ([]string, error) {
	var out []string
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return nil, fault.WithHint(fmt.Errorf("%s is not a directory", dir), "move that file out of the way")
			}
			return out, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append([]string{dir}, out...)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out, nil
		}
		dir = parent
	}
}

// Apply makes the planned changes, file by file.
func (p *Plan) Apply() error {
	for _, ch := range p.Changes {
		if err := ch.apply(p.stateDir); err != nil {
			return fault.WithHint(err, "make it writable, then run the same command again: what is done stays done")
		}
	}
	return nil
}

func (ch Change) apply(stateDir string) error {
	switch ch.Action {
	case "created", "updated":
		for _, d := range ch.dirs {
			if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", d, err)
			}
		}
		if err := writeFile(ch.writePath, ch.After); err != nil {
			return err
		}
	case "removed":
		if err := os.Remove(ch.writePath); err != nil {
			return fmt.Errorf("remove %s: %w", ch.Path, err)
		}
		for i := len(ch.dirs) - 1; i >= 0; i-- {
			os.Remove(ch.dirs[i]) // only when empty: what else is there stays
		}
	}
	switch {
	case ch.record != nil:
		return ch.record.save(stateDir)
	case ch.dropped:
		return dropRecord(stateDir, ch.Path)
	}
	return nil
}

// writeFile replaces path's contents atomically, keeping its mode (0644
// for a new file).
func writeFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentmail-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing left to remove
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
