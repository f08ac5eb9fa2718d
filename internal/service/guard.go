package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
)

// The hooks a guard check runs for.
const (
	PreCommit      = guard.PreCommit
	PreMergeCommit = guard.PreMergeCommit
	PrePush        = guard.PrePush
)

// ErrBlocked: in block mode, the commit or push touches paths another
// agent holds.
var ErrBlocked = guard.ErrBlocked

// HookChange is what install or uninstall did to one hook.
type HookChange struct {
	Hook   string `json:"hook"`
	Path   string `json:"path"`
	Action string `json:"action"` // installed, chained, updated, unchanged; removed, restored, foreign, missing
	Kept   string `json:"kept"`   // the original hook kept beside ours, or put back
}

func hookChangeDocs(chs []guard.HookChange) []HookChange {
	return mapSlice(chs, func(ch guard.HookChange) HookChange { return HookChange{ch.Hook, ch.Path, ch.Action, ch.Kept} })
}

// GuardInstallRequest says what hooks to install where. The scope's
// project is the repository's, which the store is told of.
type GuardInstallRequest struct {
	Repo        string // a directory in the repository; "" for the scope's
	Mode        string // block ("") or warn, when the committer's environment does not say
	NoPrePush   bool   // leave pre-push out (it checks what no commit hook sees: rebases, cherry-picks, amends, fast-forwards)
	AllowGlobal bool   // install even into a core.hooksPath from global or system configuration
}

// GuardInstallResponse is the document of guard install.
type GuardInstallResponse struct {
	Agentmail string       `json:"agentmail"` // the binary the hooks run
	Dir       string       `json:"dir"`       // the hooks directory
	Hooks     []HookChange `json:"hooks"`
	Mode      string       `json:"mode"`
	Project   string       `json:"project"` // the project key the hooks always check
	Store     string       `json:"store"`   // the store the hooks always check
}

// GuardInstall writes the guard's hooks into the repository, recording
// this service's store in them, and records the repository's project in
// the store (pinning its key), so that a hook that finds no store or no
// project there knows something is wrong.
func (s *Service) GuardInstall(ctx context.Context, sc Scope, req GuardInstallRequest) (GuardInstallResponse, error) {
	mode := guard.Block
	if req.Mode != "" {
		var err error
		if mode, err = guard.ParseMode(req.Mode); err != nil {
			return GuardInstallResponse{}, err
		}
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return GuardInstallResponse{}, err
	}
	if err := x.mb.EnsureProject(ctx); err != nil {
		return GuardInstallResponse{}, err
	}
	res, err := guard.Install(ctx, guard.InstallOptions{
		Repo: cmp.Or(req.Repo, sc.Project.Dir), Mode: mode, PrePush: !req.NoPrePush, AllowGlobal: req.AllowGlobal, Store: s.Dir(),
		Project: x.project().Key,
	})
	if err != nil {
		return GuardInstallResponse{}, err
	}
	// Record where the hooks went, so that every reserve, check and agents
	// can tell when git stops running them (core.hooksPath set later).
	if repo, rerr := project.FindRepository(cmp.Or(req.Repo, sc.Project.Dir)); rerr == nil {
		if err := repo.SetGuardHooks(ctx, res.Dir); err != nil {
			s.note(fmt.Sprintf("cannot record where the guard's hooks are, so a core.hooksPath set later will not be warned about: %v", err))
		}
	}
	return GuardInstallResponse{Agentmail: res.Binary, Dir: res.Dir, Hooks: hookChangeDocs(res.Hooks), Mode: string(res.Mode), Store: res.Store, Project: res.Project}, nil
}

// GuardUninstallResponse is the document of guard uninstall.
type GuardUninstallResponse struct {
	Dir   string       `json:"dir"`
	Hooks []HookChange `json:"hooks"`
}

// GuardUninstall removes the guard's hooks from the repository around
// repo (a directory, absolute), putting back exactly what was there before.
// It needs no store.
func GuardUninstall(ctx context.Context, repo string) (GuardUninstallResponse, error) {
	res, err := guard.Uninstall(ctx, repo)
	if err != nil {
		return GuardUninstallResponse{}, err
	}
	if r, rerr := project.FindRepository(repo); rerr == nil && r.GuardHooks != "" {
		if err := r.SetGuardHooks(ctx, ""); err != nil {
			return GuardUninstallResponse{}, err
		}
	}
	return GuardUninstallResponse{Dir: res.Dir, Hooks: hookChangeDocs(res.Hooks)}, nil
}

// HookStatus describes one hook.
type HookStatus struct {
	Hook      string  `json:"hook"`
	Path      string  `json:"path"`
	State     string  `json:"state"`           // ours, chained, foreign, missing
	Mode      *string `json:"mode"`            // recorded in our hook
	Agentmail *string `json:"agentmail"`       // the binary our hook runs
	Found     bool    `json:"agentmail_found"` // whether that binary exists
	Store     *string `json:"store"`           // the store our hook records
	Project   *string `json:"project"`         // the project key our hook records
}

// GuardStatusResponse is the document of guard status.
type GuardStatusResponse struct {
	Dir     string       `json:"dir"`
	Global  bool         `json:"global"` // core.hooksPath comes from outside the repository
	Hooks   []HookStatus `json:"hooks"`
	Mode    *string      `json:"mode"`    // the mode our pre-commit hook records
	Project *string      `json:"project"` // the project key our pre-commit hook records
	Store   *string      `json:"store"`   // the store our pre-commit hook records
	Warning *string      `json:"warning"` // git does not run the guard's hooks, though they were installed: HooksWarning.Problem

	HooksWarning *HooksWarning `json:"-"`
}

// GuardStatus says, for each hook the guard knows in the repository
// around repo (a directory, absolute), whether it is ours, chained to a kept original, someone
// else's, or missing. It needs no store.
func GuardStatus(ctx context.Context, repo string) (GuardStatusResponse, error) {
	res, err := guard.Status(ctx, repo)
	if err != nil {
		return GuardStatusResponse{}, err
	}
	hooks := mapSlice(res.Hooks, func(h guard.HookStatus) HookStatus {
		return HookStatus{h.Hook, h.Path, h.State, optString(string(h.Mode)), optString(h.Agentmail), h.Found, optString(h.Store), optString(h.Project)}
	})
	resp := GuardStatusResponse{Dir: res.Dir, Global: res.GlobalPath, Hooks: hooks, Mode: optString(string(res.Mode)), Store: optString(res.Store), Project: optString(res.Project)}
	if p, err := project.ResolveProject(repo); err == nil {
		if w := GuardHooksWarning(p); w != nil {
			resp.HooksWarning, resp.Warning = w, optString(w.Problem())
			return resp, w.notRun()
		}
	}
	return resp, nil
}

// GuardCheckRequest is what the hooks ask: whether the paths a commit (or
// a push) touches are held by other agents. The scope names the project
// (its Dir is where git runs, and where relative paths start) and the
// committer.
type GuardCheckRequest struct {
	Hook   string    // guard.PreCommit (""), guard.PreMergeCommit or guard.PrePush
	Paths  []string  // check these paths (relative to the scope's directory) instead of asking git
	Stdin  io.Reader // pre-push's standard input: the refs being pushed
	Remote string    // pre-push: the remote pushed to; only its refs count as published ("" counts every remote's)
	Mode   string    // block or warn; "" for the environment's, else block
	// Store is the store to consult, when given (--store); else the
	// environment's AGENTMAIL_HOME, else Recorded, else the default.
	Store string
	// StoreFrom says what named Store, in the face's terms, for errors
	// ("the store --store names"); "" for "the store the request names".
	StoreFrom string
	// Recorded is the store guard install recorded in the hooks, and
	// RecordedProject the project key: a hook always checks that project
	// in that store, whatever the committer's environment says (the
	// project of the scope, in the store Store or AGENTMAIL_HOME names,
	// is checked as well when it is another).
	Recorded        string
	RecordedProject string
	// Env is the committer's environment: AGENTMAIL_GUARD_MODE,
	// AGENTMAIL_BYPASS and the store's location are read from it.
	Env func(string) string `json:"-"`
	// Now is the clock leases expire by; nil means time.Now.
	Now func() time.Time `json:"-"`
	// EnvErr is what is wrong with the committer's environment (a bad
	// AGENTMAIL_NOW): the check cannot be made, which fails the commit in
	// block mode and is warned about in warn mode.
	EnvErr error `json:"-"`
	// Located is project.Project{}.In(the scope's directory), when the
	// caller has it already (guard edit): the repository is not read
	// again.
	Located *project.Project `json:"-"`
}

// GuardConflict is a path the commit touches that another agent holds.
type GuardConflict struct {
	Path    string `json:"path"`
	Holder  string `json:"holder"`
	Pattern string `json:"pattern"` // the holder's reservation pattern
	Expires Time   `json:"expires"`
}

// GuardCheckResponse is the document of guard check.
type GuardCheckResponse struct {
	Also      *string         `json:"also"`    // what the environment named that was checked besides what guard install recorded
	Blocked   bool            `json:"blocked"` // conflicts in block mode: the commit is stopped
	Bypassed  bool            `json:"bypassed"`
	Conflicts []GuardConflict `json:"conflicts"`
	Hook      string          `json:"hook"`
	Mode      string          `json:"mode"`      // block or warn
	Note      *string         `json:"note"`      // why nothing was checked though nothing failed: the repository never used agentmail
	Paths     int             `json:"paths"`     // how many paths were checked
	Unchecked *string         `json:"unchecked"` // why the check could not be made

	// UncheckedErr is why the check could not be made, as data (its
	// code, field and values) for a face to word what to do about it.
	UncheckedErr error     `json:"-"`
	Now          time.Time `json:"-"` // the time the leases were judged at
}

// Holders returns the distinct holders of the conflicts, in order.
func (r GuardCheckResponse) Holders() []string {
	cs := mapSlice(r.Conflicts, func(k GuardConflict) guard.Conflict { return guard.Conflict{Holder: k.Holder} })
	return guard.Holders(cs)
}

// Opener opens the service of the store in an absolute directory, for
// operations that choose their store themselves.
type Opener func(dir string) (*Service, error)

// GuardCheck lists the paths the commit (or push) touches and matches them
// against other agents' active exclusive reservations, in the store the
// request's rules choose (opened with open, and never created). In block
// mode the error wraps guard.ErrBlocked when a path is held, and
// guard.ErrUnchecked when the check cannot be made: the commit fails
// closed. In warn mode neither is an error. The response says what was
// found either way; its Hook is "" when no check could be made at all (a
// bad mode, a path outside the repository).
//
// A hook records the store and project guard install was run for: those
// are always checked. A store (AGENTMAIL_HOME) or project
// (AGENTMAIL_PROJECT, the repository's pin) the committer's environment
// names besides them is checked as well, and the response's Also says so.
func GuardCheck(ctx context.Context, sc Scope, req GuardCheckRequest, open Opener) (GuardCheckResponse, error) {
	env := req.Env
	if env == nil {
		env = func(string) string { return "" }
	}
	mode, err := guard.ModeIn(env, req.Mode)
	if err != nil {
		return GuardCheckResponse{}, err
	}
	bypass := guard.BypassedIn(env)
	var targets []guardTarget
	if !bypass { // a bypassed check looks at nothing
		if targets, err = guardTargets(sc, req, env); err != nil {
			return GuardCheckResponse{}, err
		}
	}
	paths := req.Paths
	for _, t := range targets { // paths are relative to the first usable project's working tree
		if t.projErr == nil {
			if paths, err = t.proj.RepoPaths(paths); err != nil {
				return GuardCheckResponse{}, err
			}
			break
		}
	}
	unused := 0 // targets in a repository never used with agentmail
	source := func(ctx context.Context, touched func() ([]string, error)) ([]reservations.Reservation, error) {
		if req.EnvErr != nil {
			return nil, PlainUsage(req.EnvErr)
		}
		var gitErr error // what the paths could not be known for fails the check, whatever the target
		paths := func() ([]string, error) {
			ps, err := touched()
			gitErr = err
			return ps, err
		}
		var all []reservations.Reservation
		for i, t := range targets {
			rs, err := guardReservations(ctx, sc, t, open, paths)
			if gitErr != nil {
				return nil, gitErr
			}
			if neverUsed(t.proj, t.projErr, err) {
				unused++ // nothing can be reserved there
				continue
			}
			if i > 0 && t.optional && err != nil {
				continue
			}
			if err != nil {
				return nil, PlainUsage(err)
			}
			all = append(all, rs...)
		}
		return all, nil
	}
	rep, err := guard.Check(ctx, guard.CheckOptions{
		Dir: sc.Project.Dir, Hook: req.Hook, Paths: paths, Stdin: req.Stdin, Remote: req.Remote, Mode: mode, Bypass: bypass, Agent: sc.Agent,
		Reservations: source, Now: req.Now,
	})
	resp := GuardCheckResponse{Blocked: rep.Blocked, Bypassed: rep.Bypassed, Hook: rep.Hook, Mode: string(rep.Mode), Paths: rep.Paths, Now: rep.Now,
		Conflicts: mapSlice(rep.Conflicts, func(k guard.Conflict) GuardConflict {
			return GuardConflict{k.Path, k.Holder, k.Pattern, Time{k.Expires}}
		})}
	if rep.Unchecked != nil {
		resp.Unchecked = optString(rep.Unchecked.Error())
		resp.UncheckedErr = rep.Unchecked
	}
	if unused > 0 && unused == len(targets) {
		resp.Note = optString(NoteNoProject)
	}
	if len(targets) > 1 {
		resp.Also = optString(targets[1].also(targets[0]))
	}
	return resp, err
}

// guardTarget is a project in a store that a guard check consults.
type guardTarget struct {
	dir, from string // the store, as named, and what named it
	abs       string // the store, absolute
	proj      project.Project
	projErr   error
	projFrom  string // what named the project
	// projRecorded: the project is the one the hook recorded
	projRecorded bool
	// optional: a project the environment derives from the repository
	// (not named by AGENTMAIL_PROJECT or --project) beside a recorded
	// one; a store that does not know it adds nothing.
	optional bool
}

// also says, in one line, that t was checked besides the recorded one.
func (t guardTarget) also(recorded guardTarget) string {
	var what []string
	if t.proj.Key != recorded.proj.Key {
		what = append(what, fmt.Sprintf("project %s (%s)", t.proj.Key, t.projFrom))
	}
	if t.abs != recorded.abs {
		what = append(what, fmt.Sprintf("store %s (%s)", t.dir, strings.TrimPrefix(t.from, "the store ")))
	}
	if !recorded.projRecorded {
		return fmt.Sprintf("also checked %s, besides store %s that guard install recorded", strings.Join(what, " in "), recorded.dir)
	}
	return fmt.Sprintf("also checked %s, besides project %s in store %s that guard install recorded",
		strings.Join(what, " in "), recorded.proj.Key, recorded.dir)
}

// guardTargets returns what a guard check consults: the project and store
// the hook recorded (when it recorded them), then the ones the
// environment names, when they are others.
func guardTargets(sc Scope, req GuardCheckRequest, env func(string) string) ([]guardTarget, error) {
	envT := guardTarget{projFrom: "the repository's"}
	var err error
	if envT.dir, envT.from, err = guardStoreDir(req, env); err != nil {
		return nil, err
	}
	envT.abs = absIn(sc.Project.Dir, envT.dir)
	envT.proj, envT.projErr = resolveProjectAt(sc.Project, req.Located)
	switch {
	case sc.Project.Key != "" && sc.Project.KeySource == SourceEnv:
		envT.projFrom = "AGENTMAIL_PROJECT"
	case sc.Project.Key != "":
		envT.projFrom = "--project"
	}
	if req.Recorded == "" && req.RecordedProject == "" {
		return []guardTarget{envT}, nil // guard check by hand, or a hook from before
	}
	rec := guardTarget{dir: req.Recorded, from: "the store guard install recorded", projFrom: "recorded"}
	if rec.dir == "" {
		rec.dir, rec.from = envT.dir, envT.from
	}
	rec.abs = absIn(sc.Project.Dir, rec.dir)
	rec.proj, rec.projErr = envT.proj, envT.projErr
	if req.RecordedProject != "" {
		rec.projRecorded = true
		if rec.proj, rec.projErr = resolveProjectAt(ProjectRef{Key: req.RecordedProject, Dir: sc.Project.Dir}, req.Located); rec.projErr == nil {
			rec.proj.Source = project.SourcePinned // recorded: never pinned again, never "unused"
		}
	}
	if envT.abs == rec.abs && (envT.projErr != nil || envT.proj.Key == rec.proj.Key) {
		return []guardTarget{rec}, nil
	}
	if envT.projErr != nil {
		envT.proj, envT.projErr = rec.proj, nil // another store, the recorded project
	}
	envT.optional = envT.projFrom == "the repository's" && envT.abs == rec.abs
	return []guardTarget{rec, envT}, nil
}

// ProjectFromKeyIn is the project with key, with the working tree around
// dir (when dir is not "").
func ProjectFromKeyIn(key, dir string) (project.Project, error) {
	return ResolveProject(ProjectRef{Key: key, Dir: dir})
}

// absIn returns dir made absolute against base.
func absIn(base, dir string) string {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	return filepath.Clean(dir)
}

// NoteNoProject is what a guard check says in a repository that has never
// been used with agentmail.
const NoteNoProject = "this repository has no agentmail project; nothing is reserved here"

// neverUsed reports whether a guard check found neither a store nor the
// project in it (err) for a repository that has never been used with
// agentmail: its key is not pinned (every use pins it), so nothing can be
// reserved there. Hooks installed in a global core.hooksPath run in such
// repositories, and must not stop their commits. A pinned repository, or a
// project named by key, whose store is missing or does not know it is a
// wrong store, and the check fails closed.
func neverUsed(proj project.Project, projErr, err error) bool {
	if projErr != nil || (proj.Source != project.SourceOrigin && proj.Source != project.SourcePath) {
		return false
	}
	return errors.Is(err, guard.ErrNoStore) || errors.Is(err, guard.ErrUnknownProject)
}

// guardReservations loads the project's active exclusive reservations
// that may cover the paths the commit touches (asked of paths only when
// there are any), without creating a store or a project: a commit must
// not have that side effect. A check that cannot know what is reserved (no store,
// no project, a store that holds nothing of the project) is an error,
// which fails the commit in block mode and is warned about in warn mode:
// the guard never lets a held path through for want of looking in the
// right place.
func guardReservations(ctx context.Context, sc Scope, t guardTarget, open Opener, paths func() ([]string, error)) ([]reservations.Reservation, error) {
	svc, x, err := guardSession(ctx, sc, t, open)
	if err != nil {
		return nil, err
	}
	x.pin(ctx, svc) // a repository the store knows, used before keys were pinned
	return x.overview().Covering(ctx, sc.Agent, paths)
}

// guardStoreDir returns the store a guard check consults, and what named
// it: the request's Store, else AGENTMAIL_HOME, else the store guard
// install recorded in the hooks, else the default one.
func guardStoreDir(req GuardCheckRequest, env func(string) string) (dir, from string, err error) {
	switch {
	case req.Store != "":
		return req.Store, cmp.Or(req.StoreFrom, "the store the request names"), nil
	case env("AGENTMAIL_HOME") != "":
		return env("AGENTMAIL_HOME"), "the store AGENTMAIL_HOME names", nil
	case req.Recorded != "":
		return req.Recorded, "the store guard install recorded", nil
	}
	dir, err = store.DefaultDirIn(env)
	return dir, "the default store", err
}

// HooksWarning says that git no longer runs the guard's hooks in a
// repository where guard install put them (core.hooksPath set or changed
// since, as husky's prepare script does, or the guard's pre-commit
// replaced): its commits are not checked against reservations. Faces add
// the way to fix it in their own terms.
type HooksWarning struct {
	Repo      string // the repository's working tree
	Runs      string // the directory git runs hooks from
	Source    string // the configuration file core.hooksPath comes from; "" for git's default directory
	Global    bool   // core.hooksPath is set outside the repository
	Installed string // where guard install put the guard's hooks
}

// Problem says what is wrong, in one line.
func (w HooksWarning) Problem() string {
	if w.Runs == w.Installed {
		return fmt.Sprintf("the pre-commit hook in %s is no longer agentmail's guard: commits are not checked against reservations", w.Runs)
	}
	from := "git's default hooks directory"
	if w.Source != "" {
		from = "core.hooksPath in " + w.Source
	}
	return fmt.Sprintf("git runs the hooks in %s (%s), not the guard's in %s: commits are not checked against reservations", w.Runs, from, w.Installed)
}

// notRun is the error of w: GUARD_NOT_RUN, with whether core.hooksPath is
// global as data, from which each face words how to make git run the
// guard's hooks again.
func (w HooksWarning) notRun() error {
	return fault.WithValues(fmt.Errorf("%w: %s", guard.ErrNotRun, w.Problem()), "global", w.Global)
}

// GuardHooksWarning returns the warning for the repository of p, or nil
// when git runs the guard's hooks there, the guard was never installed, or
// p has no repository. It reads files only (no git process): it runs on
// every reserve, check and agents.
func GuardHooksWarning(p project.Project) *HooksWarning {
	if p.Repo == nil || p.Root == "" {
		return nil
	}
	common := filepath.Dir(p.Repo.Config)
	d := guard.Diagnose(common, p.Root, p.Repo.HooksPath, p.Repo.GuardHooks, os.Getenv)
	if d == nil {
		return nil
	}
	return &HooksWarning{Repo: p.Root, Runs: d.Runs.Dir, Source: d.Runs.Source, Global: d.Runs.Global, Installed: d.Installed}
}

// guardSession opens the store of a guard hook's target and a session of
// its project there, never creating either: no store, no project, or a
// store that holds nothing of the project is an error, so that a hook
// never takes "nothing found" for "nothing held".
func guardSession(ctx context.Context, sc Scope, t guardTarget, open Opener) (*Service, *session, error) {
	if guard.StoreAbsent(t.abs) {
		return nil, nil, fault.WithField(fmt.Errorf("%w at %s, %s", guard.ErrNoStore, t.dir, t.from), "store", "problem", "absent")
	}
	if t.projErr != nil {
		return nil, nil, t.projErr
	}
	svc, err := open(t.abs)
	if err != nil {
		return nil, nil, err
	}
	x, err := svc.unpinnedSession(ctx, t.proj, sc.Agent)
	if err != nil {
		return nil, nil, err
	}
	if !x.mb.Known() {
		return nil, nil, fault.WithField(fmt.Errorf("%w: project %s (%s) has nothing in %s, %s", guard.ErrUnknownProject, t.proj.Slug, t.proj.Key, t.dir, t.from), "store", "problem", "unknown_project")
	}
	return svc, x, nil
}
