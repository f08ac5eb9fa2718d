package guard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/hooks"
)

// HooksDir returns the absolute directory git runs the hooks of the
// repository around dir from: what `git rev-parse --git-path hooks` names,
// which honours core.hooksPath (relative to the working tree) and leads
// linked worktrees to the hooks they share. global is true when
// core.hooksPath comes from outside the repository's own configuration
// (global, system or command-line).
func HooksDir(ctx context.Context, dir string) (hooksDir string, global bool, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("find the hooks directory: %w", err)
	}
	out, err := git(ctx, abs, nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", false, fault.WithHint(fault.WithField(fmt.Errorf("%w: %s: %w", ErrNotRepository, abs, err), "repo"), "run it inside the repository")
	}
	hooksDir = strings.TrimRight(string(out), "\n")
	if hooksDir == "" {
		return "", false, fmt.Errorf("find the hooks directory of %s: git rev-parse --git-path hooks printed nothing", abs)
	}
	if !filepath.IsAbs(hooksDir) {
		hooksDir = filepath.Join(abs, hooksDir)
	}
	out, err = git(ctx, abs, nil, "config", "--show-scope", "--get", "core.hooksPath")
	switch {
	case err == nil:
		scope, _, _ := strings.Cut(string(out), "\t")
		global = scope != "local" && scope != "worktree"
	case exitCode(err) != 1: // 1: unset
		return "", false, fmt.Errorf("read core.hooksPath: %w", err)
	}
	return filepath.Clean(hooksDir), global, nil
}

// FindBinary returns the agentmail binary the hooks should run: this
// program, when it is a file that will stay (not a `go run` build), else
// agentmail on PATH, else this program if it exists at all.
func FindBinary() (string, error) {
	exe, err := os.Executable()
	exeOK := err == nil && isExecutable(exe)
	transient := exeOK && strings.Contains(filepath.ToSlash(exe), "/go-build") && strings.Contains(filepath.ToSlash(exe), "/exe/")
	if exeOK && !transient {
		return exe, nil
	}
	if p, err := exec.LookPath("agentmail"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
		return p, nil
	}
	if exeOK {
		return exe, nil
	}
	return "", ErrNoBinary
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// InstallOptions say what to install where.
type InstallOptions struct {
	Repo        string // a directory in the repository; "" for the current one
	Mode        Mode   // recorded in the hooks; "" is Block
	PrePush     bool   // also install pre-push
	AllowGlobal bool   // accept a core.hooksPath from global or system configuration
	Binary      string // the agentmail the hooks run; "" finds it (FindBinary)
	Store       string // the store the hooks always check
	Project     string // the project key the hooks always check; not recorded in a global core.hooksPath
}

// HookChange is what Install or Uninstall did to one hook.
type HookChange struct {
	Hook   string
	Path   string
	Action string // installed, chained, updated, unchanged; removed, restored, foreign, missing
	Kept   string // the original hook kept beside ours (chained), or put back (restored)
}

// InstallResult is what Install did.
type InstallResult struct {
	Dir    string // the hooks directory
	Binary string
	Mode   Mode
	Store  string
	// Project is the project key recorded in the hooks.
	Project string
	Hooks   []HookChange
}

// Install writes the guard's hooks (pre-commit, pre-merge-commit, and
// pre-push when asked) into the repository's hooks directory. A hook
// already there that is not ours is renamed to NAME.agentmail-orig (keeping
// its mode) and runs first from ours, its failure still stopping the
// commit. Installing again changes nothing, unless the mode, the binary or
// the store differ, in which case only our hooks are rewritten.
func Install(ctx context.Context, o InstallOptions) (InstallResult, error) {
	mode := o.Mode
	if mode == "" {
		mode = Block
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return InstallResult{}, err
	}
	dir, global, err := HooksDir(ctx, o.Repo)
	if err != nil {
		return InstallResult{}, err
	}
	if global && !o.AllowGlobal {
		return InstallResult{}, fault.WithHint(fault.WithField(fmt.Errorf("%w: hooks in %s would guard every repository that uses it", ErrGlobalHooksPath, dir), "allow_global"),
			"unset core.hooksPath in the global git configuration, or set a repository-local one")
	}
	bin := o.Binary
	if bin == "" {
		if bin, err = FindBinary(); err != nil {
			return InstallResult{}, err
		}
	}
	if global {
		// Hooks there run in every repository: each is checked as its
		// own project.
		o.Project = ""
	}
	res := InstallResult{Dir: dir, Binary: bin, Mode: mode, Store: o.Store, Project: o.Project}
	names := hooks.Names[:2]
	if o.PrePush {
		names = hooks.Names
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("create the hooks directory: %w", err)
	}
	for _, name := range names {
		script, err := hooks.Render(hooks.Params{Hook: name, Agentmail: bin, Mode: string(mode), Store: o.Store, Project: o.Project})
		if err != nil {
			return res, err
		}
		ch, err := installHook(dir, name, script)
		if err != nil {
			return res, err
		}
		res.Hooks = append(res.Hooks, ch)
	}
	return res, nil
}

func installHook(dir, name string, script []byte) (HookChange, error) {
	path := filepath.Join(dir, name)
	orig := path + hooks.OrigSuffix
	ch := HookChange{Hook: name, Path: path}
	state, err := hookState(path)
	if err != nil {
		return ch, err
	}
	if _, err := os.Lstat(orig); err == nil && state != stateForeign {
		ch.Kept = orig
	}
	switch state {
	case stateOurs:
		cur, err := os.ReadFile(path)
		if err != nil {
			return ch, fmt.Errorf("read %s: %w", path, err)
		}
		if fi, err := os.Stat(path); err == nil && bytes.Equal(cur, script) && fi.Mode().Perm()&0o111 != 0 {
			ch.Action = "unchanged"
			return ch, nil
		}
		ch.Action = "updated"
	case stateForeign:
		if _, err := os.Lstat(orig); err == nil && !sameFile(path, orig) {
			return ch, fault.WithHint(fmt.Errorf("%w: %s is not agentmail's and %s already exists", ErrHookInTheWay, path, orig),
				"merge them into one hook, or move one away, then install again")
		}
		if err := os.Rename(path, orig); err != nil {
			return ch, fmt.Errorf("keep the existing %s hook: %w", name, err)
		}
		ch.Action, ch.Kept = "chained", orig
	default:
		ch.Action = "installed"
		if ch.Kept != "" {
			ch.Action = "chained" // ours was removed by hand, the original kept
		}
	}
	if err := writeExecutable(path, script); err != nil {
		return ch, fmt.Errorf("write the %s hook: %w", name, err)
	}
	return ch, nil
}

// sameFile reports whether the regular files at a and b hold the same
// bytes with the same mode: a hook written again over ours by the tool that
// wrote the kept original (husky rewrites its hooks on every npm install).
func sameFile(a, b string) bool {
	fa, errA := os.Lstat(a)
	fb, errB := os.Lstat(b)
	if errA != nil || errB != nil || !fa.Mode().IsRegular() || !fb.Mode().IsRegular() || fa.Mode() != fb.Mode() {
		return false
	}
	ba, errA := os.ReadFile(a)
	bb, errB := os.ReadFile(b)
	return errA == nil && errB == nil && bytes.Equal(ba, bb)
}

// writeExecutable replaces path with data, mode 0755, atomically.
func writeExecutable(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentmail-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

type state int

const (
	stateMissing state = iota
	stateOurs
	stateForeign
)

// hookState says whose hook is at path. A symbolic link, a directory or
// anything unreadable is foreign: never ours to touch.
func hookState(path string) (state, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return stateMissing, nil
	}
	if err != nil {
		return 0, fmt.Errorf("inspect %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return stateForeign, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	if _, ok := hooks.Parse(b); ok {
		return stateOurs, nil
	}
	return stateForeign, nil
}

// UninstallResult is what Uninstall did.
type UninstallResult struct {
	Dir   string
	Hooks []HookChange
}

// Uninstall removes the guard's hooks from the repository around repo and
// puts back, byte for byte and with its mode, any hook they had replaced.
// Hooks that are not ours are left alone.
func Uninstall(ctx context.Context, repo string) (UninstallResult, error) {
	dir, _, err := HooksDir(ctx, repo)
	if err != nil {
		return UninstallResult{}, err
	}
	res := UninstallResult{Dir: dir}
	for _, name := range hooks.Names {
		path := filepath.Join(dir, name)
		orig := path + hooks.OrigSuffix
		ch := HookChange{Hook: name, Path: path}
		st, err := hookState(path)
		if err != nil {
			return res, err
		}
		_, origErr := os.Lstat(orig)
		hasOrig := origErr == nil
		switch {
		case st == stateForeign:
			ch.Action = "foreign"
		case hasOrig:
			// Rename keeps the original's bytes and mode, and replaces
			// ours in one step.
			if err := os.Rename(orig, path); err != nil {
				return res, fmt.Errorf("restore the original %s hook: %w", name, err)
			}
			ch.Action, ch.Kept = "restored", path
		case st == stateOurs:
			if err := os.Remove(path); err != nil {
				return res, fmt.Errorf("remove the %s hook: %w", name, err)
			}
			ch.Action = "removed"
		default:
			ch.Action = "missing"
		}
		res.Hooks = append(res.Hooks, ch)
	}
	return res, nil
}

// HookStatus describes one hook.
type HookStatus struct {
	Hook      string
	Path      string
	State     string // ours, chained (ours, running a kept original first), foreign, missing
	Mode      Mode   // recorded in our hook
	Agentmail string // the binary our hook runs
	Found     bool   // whether that binary exists
	Store     string // the store our hook always checks; "" if not recorded
	Project   string // the project our hook always checks; "" if not recorded
}

// StatusResult is the guard's installation in one repository.
type StatusResult struct {
	Dir        string
	GlobalPath bool   // core.hooksPath comes from outside the repository
	Mode       Mode   // the mode our pre-commit hook records, "" if not installed
	Store      string // the store our pre-commit hook records, "" if none
	Project    string // the project our pre-commit hook records, "" if none
	Hooks      []HookStatus
}

// Status reports, for each hook the guard knows, whether it is ours,
// chained to a kept original, someone else's, or missing.
func Status(ctx context.Context, repo string) (StatusResult, error) {
	dir, global, err := HooksDir(ctx, repo)
	if err != nil {
		return StatusResult{}, err
	}
	res := StatusResult{Dir: dir, GlobalPath: global}
	for _, name := range hooks.Names {
		path := filepath.Join(dir, name)
		hs := HookStatus{Hook: name, Path: path, State: "missing"}
		st, err := hookState(path)
		if err != nil {
			return res, err
		}
		switch st {
		case stateForeign:
			hs.State = "foreign"
		case stateOurs:
			hs.State = "ours"
			if _, err := os.Lstat(path + hooks.OrigSuffix); err == nil {
				hs.State = "chained"
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return res, fmt.Errorf("read %s: %w", path, err)
			}
			set, _ := hooks.Parse(b)
			hs.Mode, hs.Agentmail, hs.Store, hs.Project = Mode(set.Mode), set.Agentmail, set.Store, set.Project
			hs.Found = isExecutable(set.Agentmail)
			if !filepath.IsAbs(set.Agentmail) {
				_, lerr := exec.LookPath(set.Agentmail)
				hs.Found = lerr == nil
			}
			if res.Mode == "" {
				res.Mode, res.Store, res.Project = hs.Mode, hs.Store, hs.Project
			}
		}
		res.Hooks = append(res.Hooks, hs)
	}
	return res, nil
}
