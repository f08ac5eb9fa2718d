package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/service/errorcases"
	"github.com/urfave/cli/v2"
)

// The command line words each failure's advice from its detail, in its
// flags and commands.
func TestCLIHints(t *testing.T) {
	for _, c := range errorcases.Cases() {
		f := service.Describe(c.Err)
		if got := cliHint(f); !strings.Contains(got, c.Want["cli"]) {
			t.Errorf("%s: hint %q, want it to name %q", c.Name, got, c.Want["cli"])
		}
	}
}

// The flags' defaults are the service's requests' (service.DefaultReserveTTL,
// ...), the one definition MCP and the HTTP API read too.
func TestFlagDefaults(t *testing.T) {
	e := newEnv(nil, nil, nil)
	lock, port := newLockCommand(e), newPortCommand(e)
	tests := []struct {
		cmd  *cli.Command
		flag string
		want time.Duration
	}{
		{newReserveCommand(e), "ttl", service.DefaultReserveTTL},
		{newRenewCommand(e), "extend", service.DefaultRenewExtend},
		{subcommand(lock, "acquire"), "ttl", service.DefaultLockTTL},
		{subcommand(port, "claim"), "ttl", service.DefaultPortTTL},
	}
	for _, tt := range tests {
		var got time.Duration = -1
		for _, f := range tt.cmd.Flags {
			if d, ok := f.(*cli.DurationFlag); ok && d.Name == tt.flag {
				got = d.Value
			}
		}
		if got != tt.want {
			t.Errorf("%s --%s defaults to %v, want %v", tt.cmd.Name, tt.flag, got, tt.want)
		}
	}
}

func subcommand(cmd *cli.Command, name string) *cli.Command {
	for _, sub := range cmd.Subcommands {
		if sub.Name == name {
			return sub
		}
	}
	return &cli.Command{Name: cmd.Name + " " + name}
}
