package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/agentmail/agentmail/internal/fault"
)

// PinKey is the git configuration key that pins a repository to its
// project, in the repository's own configuration file (the one its
// worktrees share).
const PinKey = "agentmail.project"

// Repository is what a git repository says about its project.
type Repository struct {
	GitDir    string // the git directory of the working tree (a worktree's own, or the main one)
	Config    string // the repository's configuration file, shared by its worktrees: where the pin lives
	Pinned    string // the key pinned there; "" when none is
	OriginURL string // remote.origin.url as configured; "" without origin
	OriginKey string // the key the origin URL normalizes to; "" without origin
	LegacyKey string // the key agentmail gave the origin URL before local paths were resolved, when it differs
	PathKey   string // the main worktree's canonical path, the key without origin
	HooksPath string // core.hooksPath as the repository's own configuration sets it; "" when it does not
	// GuardHooks is the hooks directory `agentmail guard install` last
	// wrote into (GuardHooksKey); "" when none is recorded.
	GuardHooks string
}

// GuardHooksKey is the git configuration key where guard install records
// the hooks directory it wrote into, in the repository's own
// configuration file.
const GuardHooksKey = "agentmail.hooks"

// FindRepository returns the git repository containing dir.
func FindRepository(dir string) (*Repository, error) {
	abs, err := canonical(dir)
	if err != nil {
		return nil, err
	}
	_, gitDir, ok := findWorkTree(abs)
	if !ok {
		return nil, fault.WithHint(fmt.Errorf("%w: %s is not inside a git repository", ErrNoProject, abs),
			"run it inside the repository")
	}
	return readRepository(gitDir)
}

// readRepository reads the configuration of the repository whose git
// directory (a worktree's, or the main one) is gitDir. It reads the file
// itself rather than asking git: this runs on every command and in every
// commit hook, where a process costs more than the rest of the lookup.
func readRepository(gitDir string) (*Repository, error) {
	common := commonDir(gitDir)
	main := common
	if filepath.Base(common) == ".git" {
		main = filepath.Dir(common)
	}
	if real, err := filepath.EvalSymlinks(main); err == nil {
		main = real
	}
	repo := &Repository{GitDir: gitDir, Config: filepath.Join(common, "config"), PathKey: main}
	b, err := os.ReadFile(repo.Config)
	if errors.Is(err, os.ErrNotExist) {
		return repo, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the repository's configuration: %w", err)
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return nil, fault.WithHint(fmt.Errorf("%w: cannot parse %s: %v", ErrInvalidArgument, repo.Config, err),
			"git config --list --local shows where it is broken")
	}
	repo.Pinned = strings.TrimSpace(cfg.Section("agentmail").Option("project"))
	repo.GuardHooks = lastOption(cfg.Section("agentmail").Options, "hooks")
	repo.HooksPath = lastOption(cfg.Section("core").Options, "hooksPath")
	// git fetches from the first of several URLs.
	if urls := cfg.Section("remote").Subsection("origin").OptionAll("url"); len(urls) > 0 && strings.TrimSpace(urls[0]) != "" {
		repo.OriginURL = urls[0]
		repo.OriginKey = NormalizeRemote(urls[0], main)
		if legacy := legacyRemoteKey(urls[0]); legacy != repo.OriginKey {
			repo.LegacyKey = legacy
		}
	}
	return repo, nil
}

// Branch returns the branch checked out in the working tree, read from its
// HEAD file (one small read, no git process): "" when HEAD is detached or
// cannot be read.
func (r *Repository) Branch() string {
	if r == nil || r.GitDir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}

// lastOption returns the last value of a key among opts, as git reads a
// key set more than once; keys compare ignoring case.
func lastOption(opts gitconfig.Options, key string) string {
	v := ""
	for _, o := range opts {
		if o.IsKey(key) {
			v = o.Value
		}
	}
	return v
}

// legacyRemoteKey is the key agentmail gave a local origin URL before it
// resolved them against the repository: a relative path stayed relative
// (../remote), links and a trailing /.git stayed. "" for other URLs, whose
// keys differ from today's at most in case (see Mailbox.adopt).
func legacyRemoteKey(u string) string {
	u = strings.TrimSpace(u)
	scheme, rest, hasScheme := strings.Cut(u, "://")
	switch {
	case hasScheme && scheme == "file":
		return strings.TrimSuffix(path.Clean(rest), ".git")
	case !hasScheme && (strings.HasPrefix(u, "/") || strings.HasPrefix(u, ".")):
		return strings.TrimSuffix(path.Clean(u), ".git")
	}
	return ""
}

// key returns the repository's key and how it is chosen: the pinned one,
// else the origin's, else the main worktree's path.
func (r *Repository) key() (string, string) {
	switch {
	case r.Pinned != "":
		return normalizeKey(r.Pinned), SourcePinned
	case r.OriginKey != "":
		return r.OriginKey, SourceOrigin
	}
	return r.PathKey, SourcePath
}

// Pin records p's key in its repository's configuration when the key was
// derived (from origin or the path) rather than pinned: from then on the
// repository keeps that key, whatever happens to its remotes. It reports
// whether it wrote the pin. A project given by key (--project,
// AGENTMAIL_PROJECT) pins nothing.
func (p *Project) Pin(ctx context.Context) (bool, error) {
	if p.Repo == nil || p.Repo.Pinned != "" || p.Source != SourceOrigin && p.Source != SourcePath {
		return false, nil
	}
	if err := p.Repo.SetPin(ctx, p.Key); err != nil {
		return false, err
	}
	return true, nil
}

// SetGuardHooks records dir as the hooks directory guard install wrote
// into (GuardHooksKey); an empty dir removes the record.
func (r *Repository) SetGuardHooks(ctx context.Context, dir string) error {
	if strings.ContainsAny(dir, "\x00\n") {
		return fmt.Errorf("%w: unusable hooks directory %q", ErrInvalidArgument, dir)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := []string{"config", "--file", r.Config, "--replace-all", "--", GuardHooksKey, dir}
	if dir == "" {
		args = []string{"config", "--file", r.Config, "--unset-all", "--", GuardHooksKey}
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if dir == "" && errors.As(err, &ee) && ee.ExitCode() == 5 {
			return nil // nothing was recorded
		}
		return fmt.Errorf("record the guard's hooks in %s: %w: %s", r.Config, err, strings.TrimSpace(string(out)))
	}
	r.GuardHooks = dir
	return nil
}

// SetPin pins the repository to key, replacing any pin it had.
func (r *Repository) SetPin(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// git writes the file under its own lock, quoting the value as git
	// configuration needs.
	cmd := exec.CommandContext(ctx, "git", "config", "--file", r.Config, "--replace-all", "--", PinKey, key)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		// Another process may have pinned the same key at the same time.
		if again, rerr := readRepository(filepath.Dir(r.Config)); rerr == nil && again.Pinned == key {
			r.Pinned = key
			return nil
		}
		return fmt.Errorf("pin the project in %s: %w: %s", r.Config, err, strings.TrimSpace(string(out)))
	}
	r.Pinned = key
	return nil
}
