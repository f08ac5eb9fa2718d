package archive

import "testing"

// Config and SetConfig read and write the config file themselves: git
// must read what SetConfig wrote, Config what git config wrote, and
// git's own settings must survive.
func TestConfig(t *testing.T) {
	a := newArchive(t)
	tests := []struct{ key, value string }{
		{"agentmail.backend-3fa1c2d9.remote", "git://127.0.0.1:9418/mail.git"},
		{"agentmail.backend-3fa1c2d9.lastsync", "2026-11-22T10:00:00Z"},
		{"agentmail.my-app-00000000.remote", "/home/me/my repo/origin.git"},
		{"agentmail.x-1.remote", `ssh://git@host/a;b#c "quoted"`},
		{"agentmail.plain", "value"},
	}
	for _, tt := range tests {
		if err := a.SetConfig(tt.key, tt.value); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		if got := a.Config(tt.key); got != tt.value {
			t.Errorf("Config(%q) = %q, want %q", tt.key, got, tt.value)
		}
		if got := runGit(t, a.Dir(), "config", "--get", tt.key); got != tt.value {
			t.Errorf("git config --get %s = %q, want %q", tt.key, got, tt.value)
		}
	}
	runGit(t, a.Dir(), "config", "agentmail.by-git.remote", "file:///tmp/x y.git")
	if got := a.Config("agentmail.by-git.remote"); got != "file:///tmp/x y.git" {
		t.Errorf("Config of what git wrote = %q", got)
	}
	if got := runGit(t, a.Dir(), "config", "--get", "core.bare"); got != "true" {
		t.Errorf("core.bare = %q after SetConfig, want true", got)
	}
	if got := a.Config("agentmail.unknown-00000000.remote"); got != "" {
		t.Errorf("an unset key reads %q, want \"\"", got)
	}
}
