package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/hooks"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
)

// ToolCall is what a coding agent's pre-tool hook receives on standard
// input (Claude Code's PreToolUse payload): the tool about to run and its
// arguments. Fields it does not need are ignored.
type ToolCall struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

// editTools maps the file-writing tools the edit guard knows to the
// fields of their input that name the file written. Claude Code's Edit,
// Write and MultiEdit take file_path, NotebookEdit notebook_path; Gemini
// CLI's write_file and replace take file_path.
var editTools = map[string][]string{
	"Edit":         {"file_path"},
	"Write":        {"file_path"},
	"MultiEdit":    {"file_path"},
	"NotebookEdit": {"notebook_path"},
	"write_file":   {"file_path"},
	"replace":      {"file_path"},
}

// The pre-tool hook events guard edit answers: Claude Code's and Gemini
// CLI's (the payload's hook_event_name says which decision document the
// client reads).
const (
	EventPreToolUse = "PreToolUse"
	EventBeforeTool = "BeforeTool"
)

// ParseToolCall reads a pre-tool hook's payload.
func ParseToolCall(data []byte) (ToolCall, error) {
	var c ToolCall
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fault.WithHint(fmt.Errorf("%w: the hook's input is not a tool call: %v", ErrInvalidArgument, err),
			"guard edit reads the JSON a PreToolUse hook receives on standard input")
	}
	return c, nil
}

// EditPaths returns the files the call writes (as given, absolute or
// relative to its cwd), and whether the tool is one the edit guard checks.
func (c ToolCall) EditPaths() ([]string, bool, error) {
	fields, ok := editTools[c.ToolName]
	if !ok {
		return nil, false, nil
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(c.ToolInput, &in); err != nil {
		return nil, true, fmt.Errorf("%w: %s's tool_input is not an object: %v", ErrInvalidArgument, c.ToolName, err)
	}
	var paths []string
	for _, f := range fields {
		var p string
		if raw, ok := in[f]; ok && json.Unmarshal(raw, &p) == nil && p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, true, fmt.Errorf("%w: %s's tool_input has no %s", ErrInvalidArgument, c.ToolName, fields[0])
	}
	return paths, true, nil
}

// GuardEditRequest is a pre-tool hook asking whether the agent of the
// scope may run a tool call. The scope's project directory is ignored:
// the call's cwd is where the agent works.
type GuardEditRequest struct {
	Payload []byte // the hook's standard input: a ToolCall
	Store   string // --store, when given
	// Env is the agent's environment: AGENTMAIL_GUARD_MODE,
	// AGENTMAIL_BYPASS and the store's location are read from it.
	Env    func(string) string `json:"-"`
	Now    func() time.Time    `json:"-"`
	EnvErr error               `json:"-"` // a bad AGENTMAIL_NOW: the check cannot be made
	// AutoReserve: an allowed edit makes the agent the holder of the
	// files (reservations.AutoReserve): a path nobody holds gets an
	// exclusive lease of reservations.AutoTTL, marked auto and tagged
	// with the call's session; the agent's automatic lease of a path
	// edited again is renewed. A lease that cannot be taken is a check
	// that cannot be made.
	AutoReserve bool
}

// GuardEditResponse is the document of guard edit.
type GuardEditResponse struct {
	Decision  string          `json:"decision"` // allow or deny
	Event     string          `json:"event"`    // the payload's hook_event_name: PreToolUse (Claude Code), BeforeTool (Gemini CLI)
	Tool      string          `json:"tool"`
	Paths     []string        `json:"paths"` // the repository paths checked
	Mode      string          `json:"mode"`
	Bypassed  bool            `json:"bypassed"`
	Conflicts []GuardConflict `json:"conflicts"`
	Unchecked *string         `json:"unchecked"` // why the check could not be made
	// Reserved and Renewed are the leases an allowed edit took and
	// renewed with AutoReserve (empty without).
	Reserved []Reservation `json:"reserved"`
	Renewed  []Reservation `json:"renewed"`
	// Paused is set when the call was denied because the agent is paused.
	Paused *Control `json:"paused,omitempty"`

	UncheckedErr error     `json:"-"` // why the check could not be made, as data
	Now          time.Time `json:"-"`
}

// Denied reports whether the call is stopped.
func (r GuardEditResponse) Denied() bool { return r.Decision == "deny" }

// GuardEdit decides a file-writing tool call the way the commit guard
// decides a commit, before the file is written: its paths inside the
// repository around the file (else the call's cwd) are checked by GuardCheck against other
// agents' active exclusive reservations, in the store and project guard
// install recorded in the repository's hooks (and those the environment
// names), in the mode recorded there unless AGENTMAIL_GUARD_MODE says
// otherwise. Tools that write no file, and paths outside the repository,
// are allowed. A check that cannot be made denies in block mode (the
// response's Unchecked says why) and allows in warn mode. The error is
// for requests that are not tool calls at all.
func GuardEdit(ctx context.Context, sc Scope, req GuardEditRequest, open Opener) (GuardEditResponse, error) {
	env := req.Env
	if env == nil {
		env = func(string) string { return "" }
	}
	resp := GuardEditResponse{Decision: "allow", Paths: []string{}, Conflicts: []GuardConflict{}, Reserved: []Reservation{}, Renewed: []Reservation{}}
	call, perr := ParseToolCall(req.Payload)
	var paths []string
	if perr == nil {
		var ok bool
		if paths, ok, perr = call.EditPaths(); !ok {
			paths = nil // not a tool that writes files: only a pause stops it
		}
	}
	resp.Tool, resp.Event = call.ToolName, call.HookEventName
	cwd := call.Cwd
	if cwd == "" || !filepath.IsAbs(cwd) {
		cwd = sc.Project.Dir
	}
	if perr == nil && !guard.BypassedIn(env) {
		// A paused agent's tool calls stop here, whatever the tool.
		pp := project.Project{}.In(cwd)
		if pp.Root != "" {
			if c := guardPaused(ctx, sc, req.Store, pp, recordedGuard(pp, env), env, open); c != nil {
				doc := controlDoc(*c)
				resp.Decision, resp.Paused = "deny", &doc
				return resp, nil
			}
		}
	}
	if len(paths) == 0 && perr == nil {
		return resp, nil // not a tool that writes files
	}
	for i, path := range paths {
		if !filepath.IsAbs(path) {
			paths[i] = filepath.Join(cwd, path)
		}
	}
	// The repository is the file's (the agent may work in a directory
	// above it); cwd's when the file's is unknown. Found once: the check
	// is given it (Located).
	var p project.Project
	if len(paths) > 0 {
		p = project.Project{}.In(existingDir(filepath.Dir(paths[0])))
	}
	if p.Root == "" {
		p = project.Project{}.In(cwd)
	}
	rec := recordedGuard(p, env)
	mode, merr := guard.ModeIn(env, "")
	if env(guard.EnvMode) == "" && env(guard.EnvModeAlt) == "" && rec.Mode != "" {
		mode, merr = guard.ParseMode(rec.Mode)
	}
	if merr != nil {
		mode = guard.Block // a mode the guard cannot read fails closed
	}
	resp.Mode = string(mode)
	unchecked := func(err error) (GuardEditResponse, error) {
		resp.Unchecked, resp.UncheckedErr = optString(err.Error()), err
		if mode == guard.Block {
			resp.Decision = "deny"
		}
		return resp, nil
	}
	if guard.BypassedIn(env) {
		resp.Bypassed = true
		return resp, nil
	}
	switch {
	case merr != nil:
		return unchecked(merr)
	case perr != nil:
		return unchecked(perr)
	case p.Root == "":
		return resp, nil // no repository: nothing there can be reserved
	}
	var inside []string
	for _, path := range paths {
		rel, err := project.RepoPath(p.Root, p.Dir, path, false)
		if err != nil {
			continue // outside the repository: nothing there can be reserved
		}
		inside = append(inside, path)
		resp.Paths = append(resp.Paths, rel)
	}
	if len(inside) == 0 {
		return resp, nil
	}
	sc.Project.Dir = p.Dir
	rep, err := GuardCheck(ctx, sc, GuardCheckRequest{
		Hook: PreCommit, Paths: inside, Mode: string(mode), Store: req.Store, Recorded: rec.Store, RecordedProject: rec.Project,
		Env: env, Now: req.Now, EnvErr: req.EnvErr, Located: &p,
	}, open)
	resp.Now, resp.Conflicts = rep.Now, rep.Conflicts
	if resp.Conflicts == nil {
		resp.Conflicts = []GuardConflict{}
	}
	switch {
	case rep.Hook == "":
		return unchecked(err)
	case rep.Unchecked != nil:
		resp.Unchecked, resp.UncheckedErr = rep.Unchecked, rep.UncheckedErr
		if rep.Mode == string(guard.Block) {
			resp.Decision = "deny"
		}
	case rep.Blocked:
		resp.Decision = "deny"
	case req.AutoReserve && len(resp.Conflicts) == 0 && rep.Note == nil:
		return autoReserveEdit(ctx, sc, req, call.SessionID, p, rec, env, open, resp, unchecked)
	}
	return resp, nil
}

// autoReserveEdit takes or renews the agent's leases of the paths of an
// edit the check allowed (GuardEditRequest.AutoReserve), in the project
// and store the check consulted first (those guard install recorded). A
// holder that came between the check and the lease denies the edit; a
// lease that cannot be taken (no agent, an unregistered one, a store that
// cannot be written) is a check that cannot be made.
func autoReserveEdit(ctx context.Context, sc Scope, req GuardEditRequest, session string, p project.Project, rec hooks.Settings, env func(string) string,
	open Opener, resp GuardEditResponse, unchecked func(error) (GuardEditResponse, error)) (GuardEditResponse, error) {
	rs, err := guardLeases(ctx, sc, req.Store, p, rec, env, open)
	if err != nil {
		return unchecked(fmt.Errorf("cannot reserve the file on edit: %w", err))
	}
	res, err := rs.AutoReserve(ctx, resp.Paths, reservations.AutoTTL, session)
	var held *reservations.ConflictError
	switch {
	case errors.As(err, &held):
		resp.Decision = "deny"
		resp.Conflicts = mapSlice(held.Conflicts, func(c reservations.Conflict) GuardConflict {
			return GuardConflict{c.Pattern, c.Holder, c.HolderPattern, Time{c.Expires}}
		})
		return resp, nil
	case err != nil:
		return unchecked(fmt.Errorf("cannot reserve the file on edit: %w", err))
	}
	resp.Reserved, resp.Renewed = reservationDocs(res.Taken), reservationDocs(res.Renewed)
	return resp, nil
}

// guardLeases returns the reservations of the project a guard hook
// consults first (the one guard install recorded in rec, else the scope's)
// in its store, as the scope's agent sees them, for a hook that writes
// leases: the store is never created, and must know the project. p is
// project.Project{}.In(the scope's directory). A synced project's leases
// are granted here, unconfirmed until its next sync decides them: a hook
// does not wait for a remote.
func guardLeases(ctx context.Context, sc Scope, store string, p project.Project, rec hooks.Settings, env func(string) string, open Opener) (*reservations.Service, error) {
	targets, err := guardTargets(sc, GuardCheckRequest{Store: store, Recorded: rec.Store, RecordedProject: rec.Project, Located: &p}, env)
	if err != nil {
		return nil, err
	}
	_, x, err := guardSession(ctx, sc, targets[0], open)
	if err != nil {
		return nil, err
	}
	rs, err := x.leases(ctx)
	if err != nil {
		return nil, err
	}
	if _, synced, _ := x.synced(); synced {
		rs.Offline()
	}
	return rs, nil
}

// guardPaused returns the control of the scope's agent when it is paused,
// in the store and project the guard consults first (those guard install
// recorded in the repository p); nil when it is not, or when that cannot
// be told (no agent, no store, an unknown project: the guard's check says
// what is wrong with those).
func guardPaused(ctx context.Context, sc Scope, store string, p project.Project, rec hooks.Settings, env func(string) string, open Opener) *record.Control {
	if sc.Agent == "" {
		return nil
	}
	targets, err := guardTargets(sc, GuardCheckRequest{Store: store, Recorded: rec.Store, RecordedProject: rec.Project, Located: &p}, env)
	if err != nil || len(targets) == 0 || guard.StoreAbsent(targets[0].abs) || targets[0].projErr != nil {
		return nil
	}
	svc, err := open(targets[0].abs)
	if err != nil {
		return nil
	}
	x, err := svc.unpinnedSession(ctx, targets[0].proj, sc.Agent)
	if err != nil {
		return nil
	}
	var pe *mailbox.PausedError
	if errors.As(x.mb.Writable(ctx), &pe) {
		return &pe.Control
	}
	return nil
}

// GuardSessionEndRequest is a coding agent's session-end hook (Claude
// Code's SessionEnd): the agent's automatic leases of that session are
// released.
type GuardSessionEndRequest struct {
	Payload []byte // the hook's standard input: session_id, cwd
	Store   string // --store, when given
	// Env is the agent's environment: the store's location is read from
	// it.
	Env func(string) string `json:"-"`
}

// GuardSessionEndResponse is the document of guard session-end.
type GuardSessionEndResponse struct {
	Session  string        `json:"session"` // "" when the hook did not say: every session's
	Released []Reservation `json:"released"`
}

// GuardSessionEnd releases the automatic leases (those guard edit
// --auto-reserve took) of the scope's agent and of the payload's session,
// in the project of the repository around the payload's cwd, in the store
// and project guard install recorded there (as guard edit finds them).
// Its other leases stay. Outside a repository there is nothing to release.
func GuardSessionEnd(ctx context.Context, sc Scope, req GuardSessionEndRequest, open Opener) (GuardSessionEndResponse, error) {
	env := req.Env
	if env == nil {
		env = func(string) string { return "" }
	}
	resp := GuardSessionEndResponse{Released: []Reservation{}}
	var call ToolCall
	if err := json.Unmarshal(req.Payload, &call); err != nil {
		return resp, fault.WithHint(fmt.Errorf("%w: the hook's input is not a session's: %v", ErrInvalidArgument, err),
			"guard session-end reads the JSON a SessionEnd hook receives on standard input")
	}
	resp.Session = call.SessionID
	cwd := call.Cwd
	if cwd == "" || !filepath.IsAbs(cwd) {
		cwd = sc.Project.Dir
	}
	p := project.Project{}.In(cwd)
	if p.Root == "" {
		return resp, nil // no repository: nothing there was reserved
	}
	sc.Project.Dir = p.Dir
	rs, err := guardLeases(ctx, sc, req.Store, p, recordedGuard(p, env), env, open)
	if err != nil {
		return resp, err
	}
	released, err := rs.ReleaseAuto(ctx, call.SessionID)
	resp.Released = reservationDocs(released)
	return resp, err
}

// existingDir returns dir, or its nearest ancestor that exists: a file a
// Write creates may be in directories it creates too.
func existingDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// recordedGuard returns what guard install recorded in the pre-commit
// hook git runs in p's repository (store, project, mode), the zero value
// when the guard is not installed there. It reads files only.
func recordedGuard(p project.Project, env func(string) string) hooks.Settings {
	if p.Repo == nil || p.Root == "" {
		return hooks.Settings{}
	}
	dir := guard.HooksIn(filepath.Dir(p.Repo.Config), p.Root, p.Repo.HooksPath, env).Dir
	b, err := os.ReadFile(filepath.Join(dir, hooks.Names[0]))
	if err != nil {
		return hooks.Settings{}
	}
	s, _ := hooks.Parse(b)
	return s
}
