package mailbox

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
)

// How a project's key was chosen (Project.Source).
const (
	SourcePinned = "pinned" // agentmail.project in the repository's git configuration
	SourceOrigin = "origin" // the origin remote's URL, at the repository's first use
	SourcePath   = "path"   // the main worktree's path, at the repository's first use
	SourceFlag   = "flag"   // --project
	SourceEnv    = "env"    // AGENTMAIL_PROJECT
)

// Project identifies the codebase a command works on.
type Project struct {
	Key    string      // normalized origin URL, the main worktree's canonical path, or a key given or pinned
	Slug   string      // readable base name plus 8 hex digits of the key's SHA-1
	Root   string      // the working tree around Dir; "" outside any repository
	Dir    string      // the canonical directory the command runs in: command-line paths are relative to it; "" outside any repository
	Source string      // how Key was chosen: SourcePinned, SourceOrigin, SourcePath, SourceFlag, SourceEnv
	Repo   *Repository // the repository around Dir; nil outside one
}

// ProjectFromKey returns the project with the given key, as given by
// --project or AGENTMAIL_PROJECT. URLs are normalized like origin URLs.
// The project has no working tree: see Project.In.
func ProjectFromKey(key string) (Project, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return Project{}, fault.WithHint(fmt.Errorf("%w: empty project key", ErrInvalidArgument),
			"pass --project with a remote URL or an absolute path, or unset AGENTMAIL_PROJECT")
	}
	if err := CheckKey(key); err != nil {
		return Project{}, fault.WithHint(err, "pass --project with a remote URL or an absolute path, or fix AGENTMAIL_PROJECT")
	}
	key = normalizeKey(key)
	return Project{Key: key, Slug: slugFor(key)}, nil
}

// normalizeKey normalizes a key given by hand: URLs like origin URLs,
// absolute paths cleaned, host/path keys folded where the host ignores
// case. A normalized key is returned unchanged.
func normalizeKey(key string) string {
	switch {
	case looksLikeURL(key):
		return NormalizeURL(key)
	case filepath.IsAbs(key):
		return filepath.Clean(key)
	}
	return foldHostPath(key)
}

// CheckKey refuses a project key that holds a control character or is
// not valid UTF-8: a key is printed, written to git configuration and
// hashed into the slug, and such a key would be one nobody can type.
func CheckKey(key string) error {
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: project key %q is not valid UTF-8", ErrInvalidArgument, key)
	}
	if i := strings.IndexFunc(key, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(key[i:])
		return fmt.Errorf("%w: project key %q holds the control character %U", ErrInvalidArgument, key, r)
	}
	return nil
}

// In returns p with the working tree around dir, if any: the project's
// paths on the command line are then relative to dir, as git's are.
func (p Project) In(dir string) Project {
	abs, err := canonical(dir)
	if err != nil {
		return p
	}
	if root, gitDir, ok := findWorkTree(abs); ok {
		p.Root, p.Dir = root, abs
		if repo, err := readRepository(gitDir); err == nil {
			p.Repo = repo
		}
	}
	return p
}

// ResolveProject finds the project of the git repository containing dir:
// all worktrees of one repository are one project. Its key is the one
// pinned in the repository's git configuration (agentmail.project); a
// repository not pinned yet is keyed by the normalized URL of its origin
// remote, else by the canonical path of its main worktree (Pin then keeps
// that key for good).
func ResolveProject(dir string) (Project, error) {
	abs, err := canonical(dir)
	if err != nil {
		return Project{}, err
	}
	root, gitDir, ok := findWorkTree(abs)
	if !ok {
		return Project{}, fault.WithHint(fmt.Errorf("%w: %s is not inside a git repository", ErrNoProject, abs),
			"run agentmail inside your project's git checkout, or pass --project KEY (or set AGENTMAIL_PROJECT)")
	}
	repo, err := readRepository(gitDir)
	if err != nil {
		return Project{}, err
	}
	key, source := repo.key()
	if err := CheckKey(key); err != nil {
		hint := "pass --project KEY, or pin a usable key: agentmail project set KEY"
		if source == SourceOrigin {
			hint = "fix the URL (git remote set-url origin URL), pass --project KEY, or pin a key: agentmail project set KEY"
		}
		return Project{}, fault.WithHint(fmt.Errorf("project of %s (%s): %w", root, source, err), hint)
	}
	return Project{Key: key, Slug: slugFor(key), Root: root, Dir: abs, Source: source, Repo: repo}, nil
}

// canonical returns dir absolute, with symbolic links resolved when it
// exists.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// findWorkTree returns the working tree containing dir and its git
// directory.
func findWorkTree(dir string) (root, gitDir string, ok bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if gitDir, ok := findGitDir(d); ok {
			return d, gitDir, true
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

// findGitDir returns the git directory of a working tree rooted at d: the
// .git directory, or the directory a .git file points to (linked worktrees,
// submodules).
func findGitDir(d string) (string, bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return p, true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	return filepath.Clean(target), true
}

// commonDir follows a linked worktree's commondir file to the main
// repository's git directory.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

var scpLikeURL = regexp.MustCompile(`^[\w.-]+@[\w.-]+:`)

func looksLikeURL(s string) bool { return strings.Contains(s, "://") || scpLikeURL.MatchString(s) }

// caseInsensitiveHosts are the hosts known to ignore case in repository
// paths, so that github.com/Acme/Shop and github.com/acme/shop are one
// repository: GitHub, and GitLab (whose group and project paths are
// unique ignoring case, and redirect). Other hosts keep the path's case.
var caseInsensitiveHosts = map[string]bool{"github.com": true, "gitlab.com": true}

// hostAliases are other names of those hosts: their SSH over HTTPS ports.
var hostAliases = map[string]string{"ssh.github.com": "github.com", "altssh.gitlab.com": "gitlab.com"}

// NormalizeURL reduces a remote URL to host/path so that every way of
// spelling one repository (https, ssh, scp-like, with or without user,
// port or .git) gives one key: git@github.com:Org/Repo.git and
// https://github.com/Org/Repo both become github.com/org/repo. Host names
// ignore case, and so do the paths of the hosts that ignore it (GitHub,
// GitLab). A local path (or file:// URL) is cleaned, and kept relative
// when it is: NormalizeRemote resolves it against a repository.
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if p, ok := localPath(u); ok {
		return trimGitSuffix(path.Clean(p))
	}
	_, rest, hasScheme := strings.Cut(u, "://")
	if hasScheme {
		u = rest
	} else if host, p, ok := strings.Cut(u, ":"); ok {
		u = host + "/" + p // scp-like [user@]host:path
	}
	host, p, _ := strings.Cut(u, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	return foldHostPath(strings.ToLower(host) + "/" + trimGitSuffix(strings.Trim(p, "/")))
}

// NormalizeRemote is NormalizeURL for a remote of the repository whose main
// worktree is base: a relative path is taken from base, and a local path
// resolved to its canonical form.
func NormalizeRemote(u, base string) string {
	p, ok := localPath(strings.TrimSpace(u))
	if !ok {
		return NormalizeURL(u)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return trimGitSuffix(p)
}

// localPath returns the path a remote URL names on this machine: a
// file:// URL, or what git takes for a path (no scheme, and no colon
// before the first slash, which would make it scp-like host:path).
func localPath(u string) (string, bool) {
	scheme, rest, hasScheme := strings.Cut(u, "://")
	if hasScheme {
		return rest, strings.EqualFold(scheme, "file")
	}
	colon := strings.IndexByte(u, ':')
	if colon < 0 {
		return u, true
	}
	slash := strings.IndexByte(u, '/')
	return u, slash >= 0 && slash < colon
}

// trimGitSuffix drops a trailing .git (repo.git) or /.git (a working
// tree's git directory).
func trimGitSuffix(p string) string {
	if q, ok := strings.CutSuffix(p, "/.git"); ok && q != "" {
		return q
	}
	return strings.TrimSuffix(p, ".git")
}

// foldHostPath lowers the whole of a host/path key whose host ignores
// case in paths; any other key is returned as it is.
func foldHostPath(key string) string {
	host, p, ok := strings.Cut(key, "/")
	if !ok {
		return key
	}
	host = strings.ToLower(host)
	if alias, ok := hostAliases[host]; ok {
		return alias + "/" + strings.ToLower(p)
	}
	if caseInsensitiveHosts[host] {
		return host + "/" + strings.ToLower(p)
	}
	return key
}

// foldsCase reports whether key names a repository on a host that ignores
// case in paths.
func foldsCase(key string) bool {
	host, _, ok := strings.Cut(key, "/")
	return ok && caseInsensitiveHosts[host]
}

func slugFor(key string) string {
	sum := sha1.Sum([]byte(key))
	base := record.Slugify(path.Base(filepath.ToSlash(key)), 24)
	if base == "" {
		base = "project"
	}
	return base + "-" + hex.EncodeToString(sum[:4])
}
