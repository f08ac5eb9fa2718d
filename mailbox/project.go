package mailbox

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
)

// Project identifies the codebase a command works on.
type Project struct {
	Key  string // normalized origin URL, or the main worktree's canonical path
	Slug string // readable base name plus 8 hex digits of the key's SHA-1
	Root string // the working tree the command ran in; "" when given by key
}

// ProjectFromKey returns the project with the given key, as given by
// --project or AGENTMAIL_PROJECT. URLs are normalized like origin URLs.
func ProjectFromKey(key string) (Project, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return Project{}, fault.WithHint(fmt.Errorf("%w: empty project key", ErrInvalidArgument),
			"pass --project with a remote URL or an absolute path, or unset AGENTMAIL_PROJECT")
	}
	if looksLikeURL(key) {
		key = NormalizeURL(key)
	} else if filepath.IsAbs(key) {
		key = filepath.Clean(key)
	}
	return Project{Key: key, Slug: slugFor(key)}, nil
}

// ResolveProject finds the project of the git repository containing dir:
// all worktrees of one repository are one project, keyed by the normalized
// URL of its origin remote, else by the canonical path of its main worktree.
func ResolveProject(dir string) (Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Project{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; d = filepath.Dir(d) {
		gitDir, ok := findGitDir(d)
		if ok {
			common := commonDir(gitDir)
			key := ""
			if url := originURL(filepath.Join(common, "config")); url != "" {
				key = NormalizeURL(url)
			} else {
				main := common
				if filepath.Base(common) == ".git" {
					main = filepath.Dir(common)
				}
				if real, err := filepath.EvalSymlinks(main); err == nil {
					main = real
				}
				key = main
			}
			return Project{Key: key, Slug: slugFor(key), Root: d}, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return Project{}, fault.WithHint(fmt.Errorf("%w: %s is not inside a git repository", ErrNoProject, abs),
		"run agentmail inside your project's git checkout, or pass --project KEY (or set AGENTMAIL_PROJECT)")
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

// originURL reads remote.origin.url from a git config file.
func originURL(configPath string) string {
	f, err := os.Open(configPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	inOrigin := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = sectionIsOrigin(line)
			continue
		}
		if !inOrigin {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

var (
	originSection = regexp.MustCompile(`^\[\s*remote\s+"origin"\s*\]$`)
	scpLikeURL    = regexp.MustCompile(`^[\w.-]+@[\w.-]+:`)
)

func sectionIsOrigin(line string) bool { return originSection.MatchString(line) }

func looksLikeURL(s string) bool { return strings.Contains(s, "://") || scpLikeURL.MatchString(s) }

// NormalizeURL reduces a remote URL to host/path so that every way of
// spelling one repository (https, ssh, scp-like, with or without user,
// port or .git) gives one key: git@github.com:Org/Repo.git and
// https://github.com/Org/Repo both become github.com/Org/Repo.
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	scheme, rest, hasScheme := strings.Cut(u, "://")
	switch {
	case hasScheme && scheme == "file":
		return strings.TrimSuffix(path.Clean(rest), ".git")
	case hasScheme:
		u = rest
	case strings.HasPrefix(u, "/") || strings.HasPrefix(u, "."):
		return strings.TrimSuffix(path.Clean(u), ".git") // a local path
	default:
		// scp-like [user@]host:path
		if host, p, ok := strings.Cut(u, ":"); ok && !strings.Contains(host, "/") {
			u = host + "/" + p
		}
	}
	host, p, _ := strings.Cut(u, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	return strings.ToLower(host) + "/" + p
}

func slugFor(key string) string {
	sum := sha1.Sum([]byte(key))
	base := record.Slugify(path.Base(filepath.ToSlash(key)), 24)
	if base == "" {
		base = "project"
	}
	return base + "-" + hex.EncodeToString(sum[:4])
}
