package guard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// EmptyTree is the object name of git's empty tree: what the first commit
// of a branch is compared with.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// git runs git in dir ("" for the current directory) with the inherited
// environment (GIT_DIR, GIT_INDEX_FILE and the rest, as a hook receives
// them) and returns its standard output. A failure carries git's standard
// error.
func git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return stdout.Bytes(), fmt.Errorf("git %s: %w: %s", args[0], err, msg)
		}
		return stdout.Bytes(), fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
}

// exitCode returns the exit status of a failed git run, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Change is one record of `git diff --name-status -z`: a status letter
// (A, C, D, M, R, T, U, X), the similarity score of a rename or copy, and
// its paths (source then destination for renames and copies).
type Change struct {
	Status byte
	Score  string
	Paths  []string
}

// ParseNameStatus parses the output of `git diff --name-status -z` (and of
// diff-index, diff-tree and diff-files with those options): records of a
// status field, then one path, or two for renames (R) and copies (C), each
// field ended by a NUL. Paths are taken byte for byte: with -z git neither
// quotes nor escapes them.
func ParseNameStatus(out []byte) ([]Change, error) {
	fields := bytes.Split(out, []byte{0})
	if n := len(fields); n > 0 && len(fields[n-1]) == 0 {
		fields = fields[:n-1]
	}
	var changes []Change
	for i := 0; i < len(fields); {
		st := string(fields[i])
		if st == "" {
			return nil, fmt.Errorf("parse name-status: empty status field at field %d", i)
		}
		c := Change{Status: st[0], Score: st[1:]}
		npaths := 1
		switch c.Status {
		case 'R', 'C':
			npaths = 2
		case 'A', 'D', 'M', 'T', 'U', 'X':
		default:
			return nil, fmt.Errorf("parse name-status: unknown status %q at field %d", st, i)
		}
		if i+npaths >= len(fields) {
			return nil, fmt.Errorf("parse name-status: status %q without its %d path(s)", st, npaths)
		}
		for _, p := range fields[i+1 : i+1+npaths] {
			if len(p) == 0 {
				return nil, fmt.Errorf("parse name-status: empty path after status %q", st)
			}
			c.Paths = append(c.Paths, string(p))
		}
		changes = append(changes, c)
		i += 1 + npaths
	}
	return changes, nil
}

// Paths returns every path the changes touch, each once, in order.
func Paths(changes []Change) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range changes {
		for _, p := range c.Paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// StagedPaths returns the paths the commit being made touches: what the
// index (as git sees it, honouring GIT_INDEX_FILE) changes against HEAD,
// or against the empty tree on an unborn branch. Added, modified, deleted
// and type-changed paths, and both sides of renames and copies. During a
// merge the index holds the merge's result, so these are the paths the
// merge brings in.
func StagedPaths(ctx context.Context, dir string) ([]string, error) {
	// Plumbing, not `git diff`: no user configuration (colour, external
	// diff drivers) reaches the output. No rename or copy detection (-M,
	// -C): a rename is then a deletion and an addition, the same two
	// paths, and -C only finds copies of files the same commit modifies,
	// which are listed anyway; finding them cost git 1.5 ms of the 3.
	args := []string{"diff-index", "--cached", "-z", "--name-status", "--no-renames", "--ignore-submodules=none"}
	out, err := git(ctx, dir, nil, append(args, "HEAD", "--")...)
	if err != nil {
		if _, herr := git(ctx, dir, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); herr == nil || exitCode(herr) != 1 {
			return nil, fmt.Errorf("list staged paths: %w", err)
		}
		// An unborn branch: everything in the index is new.
		if out, err = git(ctx, dir, nil, append(args, EmptyTree, "--")...); err != nil {
			return nil, fmt.Errorf("list staged paths of the first commit: %w", err)
		}
	}
	changes, err := ParseNameStatus(out)
	if err != nil {
		return nil, fmt.Errorf("list staged paths: %w", err)
	}
	return Paths(changes), nil
}

// PushRef is one line pre-push reads on standard input: the local ref and
// object being pushed, and the remote ref and the object it has now.
type PushRef struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// Deletes reports whether the push deletes the remote ref (nothing is sent).
func (p PushRef) Deletes() bool { return isZero(p.LocalSHA) }

// Creates reports whether the push creates the remote ref.
func (p PushRef) Creates() bool { return isZero(p.RemoteSHA) }

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ParsePushLines parses pre-push's standard input: one line per ref,
// `<local ref> <local sha> <remote ref> <remote sha>`, separated by
// single spaces (refs cannot contain white space). Blank lines are
// skipped; anything else malformed is an error.
func ParsePushLines(r io.Reader) ([]PushRef, error) {
	var refs []PushRef
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 || !isHex(f[1]) || !isHex(f[3]) {
			return nil, fmt.Errorf("parse pre-push input line %d: want \"<local ref> <local sha> <remote ref> <remote sha>\", got %q", n, line)
		}
		refs = append(refs, PushRef{f[0], f[1], f[2], f[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read pre-push input: %w", err)
	}
	return refs, nil
}

// PushedPaths returns every path changed by the commits a push to remote
// sends, for the refs pre-push read on standard input: for an update, the
// commits reachable from the local object and not from the remote one; for
// a new remote ref (or a remote object this repository lacks), those on no
// remote-tracking ref of remote (another remote's refs say nothing of what
// this one has; a remote given as a URL has none, so every commit counts;
// an empty remote counts every remote's refs); a deletion sends nothing. Both sides of renames are
// included (rename detection is off, so a rename is a deletion and an
// addition), and a merge contributes what it changes against every parent
// (its conflict resolutions); what it brings in comes with the merged
// commits.
func PushedPaths(ctx context.Context, dir, remote string, refs []PushRef) ([]string, error) {
	published := "--remotes"
	if remote != "" {
		// git passes the URL as the remote when the push names no remote:
		// no tracking ref matches it, and every commit is checked.
		published = "--remotes=" + remote
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		if r.Deletes() {
			continue
		}
		// The object names were checked to be hexadecimal: no option
		// can hide in them.
		log := []string{"log", "-z", "--name-only", "--format=", "--no-renames", "-c", r.LocalSHA}
		var b []byte
		var err error
		if !r.Creates() {
			b, err = git(ctx, dir, nil, append(slices.Clone(log), "^"+r.RemoteSHA, "--")...)
		}
		if r.Creates() || err != nil {
			b, err = git(ctx, dir, nil, append(slices.Clone(log), "--not", published, "--")...)
		}
		if err != nil {
			return nil, fmt.Errorf("list the paths pushed to %s: %w", r.RemoteRef, err)
		}
		for _, p := range bytes.Split(b, []byte{0}) {
			if len(p) > 0 && !seen[string(p)] {
				seen[string(p)] = true
				out = append(out, string(p))
			}
		}
	}
	return out, nil
}

// IgnoreCase reports whether core.ignorecase is true in the repository
// around dir (false when unset or outside a repository).
func IgnoreCase(ctx context.Context, dir string) (bool, error) {
	out, err := git(ctx, dir, nil, "config", "--type=bool", "--get", "core.ignorecase")
	if err != nil {
		if code := exitCode(err); code == 1 || code == 128 {
			return false, nil // unset, or not a repository
		}
		return false, fmt.Errorf("read core.ignorecase: %w", err)
	}
	return strings.TrimSpace(string(out)) == "true", nil
}
