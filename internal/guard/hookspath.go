package guard

import (
	"bytes"
	"cmp"
	"io"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/agentmail/agentmail/internal/hooks"
)

// Finding the hooks git runs is done here by reading git's configuration
// files rather than by asking git (HooksDir): it runs on every reserve,
// check and agents, where a git process would cost more than the rest.
// It reads what decides core.hooksPath in practice: the repository's own
// configuration (given), the global files ($GIT_CONFIG_GLOBAL, else
// $XDG_CONFIG_HOME/git/config and ~/.gitconfig) and the system one
// ($GIT_CONFIG_SYSTEM, else /etc/gitconfig, unless $GIT_CONFIG_NOSYSTEM);
// include directives are not followed.

// HooksInUse is the directory git runs a repository's hooks from.
type HooksInUse struct {
	Dir    string // absolute
	Source string // the configuration file core.hooksPath comes from; "" for git's default directory
	Global bool   // core.hooksPath comes from outside the repository's configuration
}

// Drift says that git no longer runs the guard's hooks in a repository
// where guard install put them: core.hooksPath was set (husky's prepare
// script does it; so does a global core.hooksPath) or changed, or the
// guard's pre-commit was replaced.
type Drift struct {
	Installed string     // where guard install wrote the hooks
	Runs      HooksInUse // where git runs hooks from
}

// Diagnose reports whether git runs the guard's hooks in the repository
// whose common git directory is commonDir and whose working tree is root
// ("" for a bare repository), given its own configuration's
// core.hooksPath (local) and the hooks directory guard install recorded
// there (recorded). It returns nil when the guard's pre-commit is the one
// git runs, and when the guard was never installed (nothing recorded, and
// none of its hooks in git's default directory). getenv reads the
// environment (HOME, XDG_CONFIG_HOME, GIT_CONFIG_*).
func Diagnose(commonDir, root, local, recorded string, getenv func(string) string) *Drift {
	runs := HooksIn(commonDir, root, local, getenv)
	if isOurs(filepath.Join(runs.Dir, hooks.Names[0])) {
		return nil
	}
	installed := recorded
	if installed == "" {
		def := filepath.Join(commonDir, "hooks")
		if !isOurs(filepath.Join(def, hooks.Names[0])) {
			return nil // never installed (or installed before installs were recorded, elsewhere)
		}
		installed = def
	}
	return &Drift{Installed: installed, Runs: runs}
}

// HooksIn returns the directory git runs the hooks of a repository from;
// the arguments are Diagnose's.
func HooksIn(commonDir, root, local string, getenv func(string) string) HooksInUse {
	in := HooksInUse{Dir: filepath.Join(commonDir, "hooks")}
	value, source := local, "the repository's configuration"
	if value == "" {
		value, source = globalHooksPath(getenv)
		in.Global = value != ""
	}
	if value == "" {
		return in
	}
	in.Source = source
	switch {
	case value == "~" || strings.HasPrefix(value, "~/"):
		value = filepath.Join(getenv("HOME"), value[1:])
	case !filepath.IsAbs(value):
		// git runs hooks from the top of the working tree (the git
		// directory in a bare repository), and a relative
		// core.hooksPath is taken from there.
		base := root
		if base == "" {
			base = commonDir
		}
		value = filepath.Join(base, value)
	}
	in.Dir = filepath.Clean(value)
	return in
}

// globalHooksPath returns core.hooksPath as the configuration files
// outside the repository set it, and the file that sets it.
func globalHooksPath(getenv func(string) string) (value, file string) {
	var files []string
	if !truthy(getenv("GIT_CONFIG_NOSYSTEM")) {
		files = append(files, cmp.Or(getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		home := getenv("HOME")
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	for _, f := range files { // later files win
		if v, ok := configValue(f, "core", "hooksPath"); ok {
			value, file = v, f
		}
	}
	return value, file
}

// configValue returns the last value of section.key in a git
// configuration file, and whether the file sets it.
func configValue(file, section, key string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(bytes.ToLower(b), []byte(strings.ToLower(key))) {
		return "", false // most files say nothing of it: no parse
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return "", false
	}
	v, ok := "", false
	for _, o := range cfg.Section(section).Options {
		if o.IsKey(key) {
			v, ok = o.Value, true
		}
	}
	return v, ok
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// isOurs reports whether the file at path is a hook guard install wrote,
// executable (git skips a hook that is not).
func isOurs(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return false
	}
	// The marker is the hook's second line.
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(hooks.Marker))
}
