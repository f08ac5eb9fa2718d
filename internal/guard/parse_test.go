package guard

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseNameStatus(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Change
		paths   []string
		wantErr string
	}{
		{name: "empty", in: "", want: nil},
		{name: "add modify delete typechange", in: "A\x00new.go\x00M\x00mod.go\x00D\x00gone.go\x00T\x00link\x00",
			want:  []Change{{'A', "", []string{"new.go"}}, {'M', "", []string{"mod.go"}}, {'D', "", []string{"gone.go"}}, {'T', "", []string{"link"}}},
			paths: []string{"new.go", "mod.go", "gone.go", "link"}},
		{name: "rename", in: "R100\x00src/api/a.go\x00free/a.go\x00",
			want:  []Change{{'R', "100", []string{"src/api/a.go", "free/a.go"}}},
			paths: []string{"src/api/a.go", "free/a.go"}},
		{name: "copy then modify", in: "C075\x00a.go\x00b.go\x00M\x00a.go\x00",
			want:  []Change{{'C', "075", []string{"a.go", "b.go"}}, {'M', "", []string{"a.go"}}},
			paths: []string{"a.go", "b.go"}},
		{name: "spaces tabs newlines unicode", in: "A\x00my docs/read me.md\x00M\x00odd/tab\tname\x00A\x00line\nbreak\x00R090\x00données/é.txt\x00日本/語.txt\x00",
			paths: []string{"my docs/read me.md", "odd/tab\tname", "line\nbreak", "données/é.txt", "日本/語.txt"}},
		{name: "unmerged", in: "U\x00conflict.go\x00", paths: []string{"conflict.go"}},
		{name: "no trailing NUL", in: "M\x00a.go", paths: []string{"a.go"}},
		{name: "leading dash and quotes kept", in: "A\x00-rf\x00A\x00\"quoted\"\x00", paths: []string{"-rf", "\"quoted\""}},
		{name: "missing path", in: "M\x00", wantErr: "without its 1 path"},
		{name: "rename missing destination", in: "R100\x00a\x00", wantErr: "without its 2 path"},
		{name: "unknown status", in: "Z\x00a\x00", wantErr: "unknown status"},
		{name: "empty status", in: "\x00a\x00", wantErr: "empty status"},
		{name: "empty path", in: "M\x00\x00M\x00b\x00", wantErr: "empty path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNameStatus([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes = %q, want %q", got, tt.want)
			}
			if tt.paths != nil {
				if p := Paths(got); !reflect.DeepEqual(p, tt.paths) {
					t.Errorf("paths = %q, want %q", p, tt.paths)
				}
			}
		})
	}
}

func TestParsePushLines(t *testing.T) {
	const (
		a    = "1111111111111111111111111111111111111111"
		b    = "2222222222222222222222222222222222222222"
		zero = "0000000000000000000000000000000000000000"
		s256 = "abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdef0123"
	)
	tests := []struct {
		name             string
		in               string
		want             []PushRef
		deletes, creates []bool
		wantErr          string
	}{
		{name: "nothing", in: ""},
		{name: "update", in: "refs/heads/main " + a + " refs/heads/main " + b + "\n",
			want: []PushRef{{"refs/heads/main", a, "refs/heads/main", b}}, deletes: []bool{false}, creates: []bool{false}},
		{name: "new branch", in: "refs/heads/topic " + a + " refs/heads/topic " + zero + "\n",
			want: []PushRef{{"refs/heads/topic", a, "refs/heads/topic", zero}}, deletes: []bool{false}, creates: []bool{true}},
		{name: "deletion", in: "(delete) " + zero + " refs/heads/old " + b + "\n",
			want: []PushRef{{"(delete)", zero, "refs/heads/old", b}}, deletes: []bool{true}, creates: []bool{false}},
		{name: "several, blank lines, CRLF, no final newline",
			in:      "\nrefs/heads/a " + a + " refs/heads/a " + b + "\r\n\nrefs/tags/v1 " + b + " refs/tags/v1 " + zero,
			want:    []PushRef{{"refs/heads/a", a, "refs/heads/a", b}, {"refs/tags/v1", b, "refs/tags/v1", zero}},
			deletes: []bool{false, false}, creates: []bool{false, true}},
		{name: "sha256", in: "HEAD " + s256 + " refs/heads/main " + strings.Repeat("0", 64) + "\n",
			want: []PushRef{{"HEAD", s256, "refs/heads/main", strings.Repeat("0", 64)}}, deletes: []bool{false}, creates: []bool{true}},
		{name: "three fields", in: "refs/heads/main " + a + " refs/heads/main\n", wantErr: "line 1"},
		{name: "five fields", in: "refs/heads/main " + a + " refs/heads/main " + b + " extra\n", wantErr: "line 1"},
		{name: "not hex", in: "refs/heads/main not-a-sha refs/heads/main " + b + "\n", wantErr: "want \"<local ref>"},
		{name: "short sha", in: "refs/heads/main 1234 refs/heads/main " + b + "\n", wantErr: "line 1"},
		{name: "bad second line", in: "refs/heads/main " + a + " refs/heads/main " + b + "\ngarbage\n", wantErr: "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePushLines(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("refs = %+v, want %+v", got, tt.want)
			}
			for i, r := range got {
				if r.Deletes() != tt.deletes[i] || r.Creates() != tt.creates[i] {
					t.Errorf("ref %d: Deletes %v Creates %v, want %v %v", i, r.Deletes(), r.Creates(), tt.deletes[i], tt.creates[i])
				}
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"block": Block, "warn": Warn, " WARN ": Warn, "Block": Block} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "off", "blocking"} {
		if _, err := ParseMode(in); err == nil {
			t.Errorf("ParseMode(%q) accepted", in)
		}
	}
}

func TestResolveModeAndBypass(t *testing.T) {
	t.Setenv(EnvMode, "")
	t.Setenv(EnvModeAlt, "")
	t.Setenv(EnvBypass, "")
	if m, _ := ResolveMode(""); m != Block {
		t.Errorf("default mode %q", m)
	}
	t.Setenv(EnvModeAlt, "warn")
	if m, _ := ResolveMode(""); m != Warn {
		t.Errorf("alt env: %q", m)
	}
	t.Setenv(EnvMode, "block")
	if m, _ := ResolveMode(""); m != Block {
		t.Errorf("AGENTMAIL_GUARD_MODE should win over AGENT_MAIL_GUARD_MODE: %q", m)
	}
	if m, _ := ResolveMode("warn"); m != Warn {
		t.Errorf("explicit should win: %q", m)
	}
	t.Setenv(EnvMode, "nope")
	if _, err := ResolveMode(""); err == nil {
		t.Error("bad mode in the environment accepted")
	}
	for v, want := range map[string]bool{"1": true, "true": true, "YES": true, "": false, "0": false, "no": false} {
		t.Setenv(EnvBypass, v)
		if Bypassed() != want {
			t.Errorf("AGENTMAIL_BYPASS=%q: Bypassed() = %v", v, !want)
		}
	}
}

// ModeIn and BypassedIn read the environment they are given, not the
// process's: a server checks for many committers.
func TestModeInBypassedIn(t *testing.T) {
	t.Setenv(EnvMode, "warn")
	t.Setenv(EnvBypass, "1")
	tests := []struct {
		env      map[string]string
		explicit string
		mode     Mode
		bypass   bool
	}{
		{env: nil, mode: Block},
		{env: map[string]string{EnvModeAlt: "warn"}, mode: Warn},
		{env: map[string]string{EnvMode: "block", EnvModeAlt: "warn"}, mode: Block},
		{env: map[string]string{EnvMode: "block"}, explicit: "warn", mode: Warn},
		{env: map[string]string{EnvBypass: "yes"}, mode: Block, bypass: true},
	}
	for _, tt := range tests {
		getenv := func(k string) string { return tt.env[k] }
		if m, err := ModeIn(getenv, tt.explicit); err != nil || m != tt.mode {
			t.Errorf("%v, %q: mode %q, %v; want %q", tt.env, tt.explicit, m, err, tt.mode)
		}
		if got := BypassedIn(getenv); got != tt.bypass {
			t.Errorf("%v: bypassed %v", tt.env, got)
		}
	}
}
