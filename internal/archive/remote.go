package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ErrUnreachable reports a remote that git could not fetch from or push to.
var ErrUnreachable = errors.New("remote unreachable")

// ErrPushRejected reports a push whose compare-and-swap failed: the
// remote's branch moved since it was fetched.
var ErrPushRejected = errors.New("push rejected: the remote moved")

// RemoteRef is where a project's branch lives on a remote: a namespace
// that no branch list, pull request or CI shows.
func RemoteRef(slug string) string { return "refs/agentmail/projects/" + slug + "/main" }

// trackingRef is the local copy of what was last fetched of RemoteRef.
func trackingRef(slug string) string { return "refs/agentmail/remotes/" + slug + "/main" }

// Fetch fetches the project slug's branch from url with the system git
// (so that the user's ssh keys, credential helpers and insteadOf apply)
// and returns its commit, "" when the remote has none. The tracking ref
// is what the remote holds afterwards, absent when it holds nothing: a
// remote whose branch went away since it was last seen (a git push
// --mirror from a plain clone deletes it, as does update-ref -d) is seen
// as one that has none, and lost is the commit last seen there ("" when
// nothing went away), for the caller to push what it has again.
func (a *Archive) Fetch(url, slug string) (theirs, lost string, err error) {
	seen := a.Tracking(slug)
	args := fetchArgs(url, slug, seen)
	_, stderr, err := a.run(args...)
	for try := 0; err != nil && retryFetch(stderr, seen) && try < 20; try++ {
		time.Sleep(time.Duration(5+try*5) * time.Millisecond)
		_, stderr, err = a.run(args...)
	}
	if err != nil {
		return "", "", fault.WithValues(fmt.Errorf("%w: git fetch %s: %s", ErrUnreachable, url, gitError(stderr)), "remote", url, "operation", "fetch")
	}
	h, err := a.readRef(trackingRef(slug))
	if errors.Is(err, ErrNoHead) && !a.refFileExists(trackingRef(slug)) {
		return "", seen, nil
	}
	return h, "", err
}

// retryFetch reports whether a fetch from the commit last seen (seen)
// that failed with stderr may succeed if run again at once:
//   - "cannot lock ref": another process of this store moved the tracking
//     ref meanwhile (its own fetch or push); what it wrote is as good.
//   - "the object <seen> does not exist": git checks a negotiation tip
//     once, in the packs it listed as it started (has_object without a
//     recheck of the pack directory), and a roll-up by another process of
//     this store may have moved it into a new pack since.
func retryFetch(stderr, seen string) bool {
	return strings.Contains(stderr, "cannot lock ref") ||
		seen != "" && strings.Contains(stderr, "the object "+seen+" does not exist")
}

// fetchArgs is the git command line that fetches the project slug's
// branch from url into its tracking ref, seen being what the tracking ref
// holds ("" for nothing yet).
//
// No git maintenance run --auto after the fetch: the archive's gc.auto=0
// makes it do nothing (the store packs the archive itself), so it would
// only cost a process each fetch.
//
// The commit last seen on the remote is where negotiation starts
// (--negotiation-tip): the remote's branch only grows, so it is the best
// common commit there is, and it is offered in the first round however
// many commits were written here since; git alone offers those first, by
// date, in rounds of 16, 32, 64 ..., each a round trip to the remote.
// Without one (a first fetch, or one from another remote: see
// ForgetTracking), git negotiates from every ref as it does alone.
func fetchArgs(url, slug, seen string) []string {
	// A glob refspec matches nothing, without an error, on a remote that
	// has no branch of the project yet.
	//
	// --prune deletes the tracking ref when the remote no longer has the
	// branch: the next push then expects it absent, as it is, instead of
	// expecting what was last seen, which no push could ever match.
	spec := "+refs/agentmail/projects/" + slug + "/*:refs/agentmail/remotes/" + slug + "/*"
	args := []string{"-c", "maintenance.auto=false", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune"}
	if seen != "" {
		args = append(args, "--negotiation-tip="+seen)
	}
	return append(args, url, spec)
}

// Push sets the project slug's branch on url to commit h if, and only if,
// it is still at expected ("": absent), the remote's compare-and-swap:
// ErrPushRejected otherwise.
func (a *Archive) Push(url, slug, h, expected string) error {
	ref := RemoteRef(slug)
	_, stderr, err := a.run("push", "--quiet", "--porcelain", "--force-with-lease="+ref+":"+expected, url, h+":"+ref)
	if err == nil {
		// The remote has h: that is what counts. The tracking ref is what
		// the next push expects; should another process of this store hold
		// it right now, that push is rejected and fetches: no harm.
		_ = a.setTracking(slug, h)
		return nil
	}
	if strings.Contains(stderr, "rejected") || strings.Contains(stderr, "stale info") || strings.Contains(stderr, "fetch first") {
		return ErrPushRejected
	}
	return fault.WithValues(fmt.Errorf("%w: git push %s: %s", ErrUnreachable, url, gitError(stderr)), "remote", url, "operation", "push")
}

// setTracking records h as the remote's value after a push, in-process
// with git's lock-file protocol (a git process would cost a fifth of a
// grant): it writes the ref's .lock file, created exclusively, and renames
// it over the ref. A lock held by another process (a fetch) is left to it.
// The ref is a cache of what the remote holds, not worth an fsync.
func (a *Archive) setTracking(slug, h string) error {
	ref := a.refPath(trackingRef(slug))
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return fmt.Errorf("update %s: %w", trackingRef(slug), err)
	}
	lock := ref + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("update %s: %w", trackingRef(slug), err)
	}
	_, err = f.WriteString(h + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, ref)
	}
	if err != nil {
		os.Remove(lock)
		return fmt.Errorf("update %s: %w", trackingRef(slug), err)
	}
	return nil
}

// ForgetTracking forgets what was last fetched from or pushed to the
// remote of the project slug: for a project that syncs with another
// remote now, where that commit may not be.
func (a *Archive) ForgetTracking(slug string) error {
	if _, stderr, err := a.run("update-ref", "-d", trackingRef(slug)); err != nil {
		return fmt.Errorf("forget %s: %s", trackingRef(slug), lastLine(stderr))
	}
	return nil
}

// Tracking returns what was last fetched from or pushed to the remote of
// the project slug, "" for nothing.
func (a *Archive) Tracking(slug string) string {
	h, _ := a.readRef(trackingRef(slug))
	return h
}

// Count returns the number of commits reachable from to and not from from
// ("" for none; to "" counts nothing).
func (a *Archive) Count(from, to string) (int, error) {
	if to == "" || from == to {
		return 0, nil
	}
	rng := to
	if from != "" {
		rng = from + ".." + to
	}
	out, stderr, err := a.run("rev-list", "--count", rng)
	if err != nil {
		return 0, fmt.Errorf("count %s: %s", rng, lastLine(stderr))
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// Config returns the archive's git config value of key
// (section[.subsection].name), "" when unset. It reads the config file
// itself: a git process per read would cost more than the commands that
// read it (every grant of a synced project does).
func (a *Archive) Config(key string) string {
	cfg, err := a.readConfig()
	if err != nil {
		return ""
	}
	return configOption(cfg, key)
}

// SetConfig sets the archive's git config key to value, in-process with
// git's protocol: under config.lock, created exclusively (git config and
// agentmail exclude each other), the new file is written and renamed over
// the old one. Like git config, it does not fsync: the settings (the
// remote, the time of the last sync) are not worth a disk flush each sync.
func (a *Archive) SetConfig(key, value string) error {
	path := filepath.Join(a.dir, "config")
	lock, err := createLock(path + ".lock")
	if err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			lock.Close()
			os.Remove(lock.Name())
		}
	}()
	cfg, err := a.readConfig()
	if err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if err := setConfigOption(cfg, key, value); err != nil {
		return err
	}
	if err := gitconfig.NewEncoder(lock).Encode(cfg); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if err := os.Rename(lock.Name(), path); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	done = true
	return nil
}

// readConfig decodes the archive's config file.
func (a *Archive) readConfig() (*gitconfig.Config, error) {
	f, err := os.Open(filepath.Join(a.dir, "config"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(f).Decode(cfg); err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return cfg, nil
}

// configKey splits key into its section, subsection ("" for none) and
// name.
func configKey(key string) (section, sub, name string, ok bool) {
	parts := strings.Split(key, ".")
	if len(parts) < 2 {
		return "", "", "", false
	}
	return parts[0], strings.Join(parts[1:len(parts)-1], "."), parts[len(parts)-1], true
}

func configOption(cfg *gitconfig.Config, key string) string {
	section, sub, name, ok := configKey(key)
	switch {
	case !ok || !cfg.HasSection(section):
		return ""
	case sub == "":
		return cfg.Section(section).Option(name)
	}
	return cfg.Section(section).Subsection(sub).Option(name)
}

func setConfigOption(cfg *gitconfig.Config, key, value string) error {
	section, sub, name, ok := configKey(key)
	switch {
	case !ok:
		return fmt.Errorf("set %s: a config key is section.name or section.subsection.name", key)
	case sub == "":
		cfg.Section(section).SetOption(name, value)
	default:
		cfg.Section(section).Subsection(sub).SetOption(name, value)
	}
	return nil
}

// createLock creates the lock file path exclusively, waiting up to a
// second while another process (git config) holds it.
func createLock(path string) (*os.File, error) {
	deadline := time.Now().Add(time.Second)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, os.ErrExist) || time.Now().After(deadline) {
			return f, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// run runs the system git on the archive, in the user's environment.
func (a *Archive) run(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("git", append([]string{"--git-dir", a.dir}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String() + out.String(), err
}

// gitError returns the line of git's stderr that says what went wrong: its
// first "fatal:" line (git follows it with advice such as "Please make sure
// you have the correct access rights\nand the repository exists."), else
// its first "error:" line, else its last line.
func gitError(stderr string) string {
	for _, prefix := range []string{"fatal:", "error:"} {
		for _, line := range strings.Split(stderr, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, prefix) {
				return line
			}
		}
	}
	return lastLine(stderr)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
