package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
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
// and returns its commit, "" when the remote has none yet.
func (a *Archive) Fetch(url, slug string) (string, error) {
	// A glob refspec matches nothing, without an error, on a remote that
	// has no branch of the project yet.
	spec := "+refs/agentmail/projects/" + slug + "/*:refs/agentmail/remotes/" + slug + "/*"
	_, stderr, err := a.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", url, spec)
	for try := 0; err != nil && strings.Contains(stderr, "cannot lock ref") && try < 20; try++ {
		// Another process of this store moved the tracking ref meanwhile
		// (its own fetch or push): what it wrote is as good; fetch again.
		time.Sleep(time.Duration(5+try*5) * time.Millisecond)
		_, stderr, err = a.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", url, spec)
	}
	if err != nil {
		return "", fault.WithHint(fmt.Errorf("%w: git fetch %s: %s", ErrUnreachable, url, lastLine(stderr)),
			"check the remote with git ls-remote "+url+", or sync with another: agentmail sync --remote URL")
	}
	h, err := a.readRef(trackingRef(slug))
	if errors.Is(err, ErrNoHead) && !a.refFileExists(trackingRef(slug)) {
		return "", nil
	}
	return h, err
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
	return fault.WithHint(fmt.Errorf("%w: git push %s: %s", ErrUnreachable, url, lastLine(stderr)),
		"check that you may push to "+url+" (git push works there?), or sync with another: agentmail sync --remote URL")
}

// setTracking records h as the remote's value after a push.
func (a *Archive) setTracking(slug, h string) error {
	_, stderr, err := a.run("update-ref", trackingRef(slug), h)
	if err != nil {
		return fmt.Errorf("update %s: %s", trackingRef(slug), lastLine(stderr))
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

// Config returns the archive's git config value of key, "" when unset.
func (a *Archive) Config(key string) string {
	out, _, _ := a.run("config", "--get", key)
	return strings.TrimSpace(out)
}

// SetConfig sets the archive's git config key to value.
func (a *Archive) SetConfig(key, value string) error {
	if _, stderr, err := a.run("config", key, value); err != nil {
		return fmt.Errorf("git config %s: %s", key, lastLine(stderr))
	}
	return nil
}

// run runs the system git on the archive, in the user's environment.
func (a *Archive) run(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("git", append([]string{"--git-dir", a.dir}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String() + out.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
