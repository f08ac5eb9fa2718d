package setup

import (
	"slices"
	"testing"
)

// The hook's command is one shell command line: what shellQuote writes,
// shellWords (and sh) read back, and isCheckCommand knows it for ours.
func TestCheckCommand(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Command: "/usr/local/bin/agentmail"}, "/usr/local/bin/agentmail check --hook"},
		{Options{Command: "/opt/agent mail/it's/agentmail", Env: map[string]string{"AGENTMAIL_AGENT": "BlueLake", "AGENTMAIL_HOME": "/srv/mail store"}},
			`AGENTMAIL_AGENT=BlueLake AGENTMAIL_HOME='/srv/mail store' '/opt/agent mail/it'\''s/agentmail' check --hook`},
	} {
		got := checkCommand(tt.o)
		if got != tt.want {
			t.Errorf("checkCommand = %s\nwant          %s", got, tt.want)
		}
		words := shellWords(got)
		if words[len(words)-3] != tt.o.Command || !isCheckCommand(got, tt.o.Command) {
			t.Errorf("%s: words %q, isCheckCommand %v", got, words, isCheckCommand(got, tt.o.Command))
		}
	}
}

func TestIsCheckCommand(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"agentmail check", true},
		{`"/home/me/go/bin/agentmail" check --json`, true},
		{`A=1 B='x y' /bin/agentmail check`, true},
		{`AGENTMAIL_HOME=/srv/store agentmail check`, true},
		{"agentmail inbox", false},
		{"/bin/agentmail-dev check", false},
		{"echo agentmail check", false},
		{"", false},
		{"/tmp/am check", true}, // the binary setup runs, whatever its name
		{"/tmp/am inbox", false},
	} {
		if got := isCheckCommand(tt.cmd, "/tmp/am"); got != tt.want {
			t.Errorf("isCheckCommand(%q) = %v", tt.cmd, got)
		}
	}
}

func TestShellWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`a  b`, []string{"a", "b"}},
		{`'a b'c "d \" e" f\ g ''`, []string{"a bc", `d " e`, "f g", ""}},
	} {
		if got := shellWords(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("shellWords(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
