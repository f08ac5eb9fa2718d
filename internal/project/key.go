package project

import (
	"crypto/sha1"
	"encoding/hex"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentmail/agentmail/internal/record"
)

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

// FoldsCase reports whether key names a repository on a host that ignores
// case in paths: another spelling of it names the same repository.
func FoldsCase(key string) bool {
	host, _, ok := strings.Cut(key, "/")
	return ok && caseInsensitiveHosts[host]
}

// Slug returns the slug of the project with key: a readable base name
// and 8 hex digits of the key's SHA-1 (backend-3fa1c2d9). It names the
// project's directory in the archive.
func Slug(key string) string {
	sum := sha1.Sum([]byte(key))
	base := record.Slugify(path.Base(filepath.ToSlash(key)), 24)
	if base == "" {
		base = "project"
	}
	return base + "-" + hex.EncodeToString(sum[:4])
}
