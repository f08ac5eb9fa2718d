package crash

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestPoint runs this test binary as a helper that passes two crash
// points, with AGENTMAIL_CRASH_AT naming one of them, none, or an unknown
// step: only a named step kills it, and with SIGKILL.
func TestPoint(t *testing.T) {
	if os.Getenv("CRASH_TEST_HELPER") != "" {
		Point(AfterObjects)
		os.Stdout.WriteString("passed after-objects\n")
		Point(AfterRef)
		os.Stdout.WriteString("passed after-ref\n")
		Point(AfterRef)
		os.Stdout.WriteString("passed after-ref again\n")
		os.Exit(0)
	}
	for _, tc := range []struct {
		at     string
		killed bool
		out    string
	}{
		{"", false, "passed after-objects\npassed after-ref\npassed after-ref again\n"},
		{"after-ref", true, "passed after-objects\n"},
		{"after-objects", true, ""},
		{"after-ref@1", true, "passed after-objects\n"},
		{"after-ref@2", true, "passed after-objects\npassed after-ref\n"},
		{"after-ref@3", false, "passed after-objects\npassed after-ref\npassed after-ref again\n"},
		{"after-ref@0", false, "passed after-objects\npassed after-ref\npassed after-ref again\n"},
		{"after-ref@x", false, "passed after-objects\npassed after-ref\npassed after-ref again\n"},
		{"no-such-step", false, "passed after-objects\npassed after-ref\npassed after-ref again\n"},
	} {
		t.Run(tc.at, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPoint$")
			cmd.Env = append(os.Environ(), "CRASH_TEST_HELPER=1", Env+"="+tc.at)
			out, err := cmd.Output()
			var ee *exec.ExitError
			killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
			if killed != tc.killed || (!tc.killed && err != nil) {
				t.Errorf("%s=%q: %v, killed by SIGKILL: %v; want killed: %v", Env, tc.at, err, killed, tc.killed)
			}
			if string(out) != tc.out {
				t.Errorf("%s=%q: output %q, want %q", Env, tc.at, out, tc.out)
			}
		})
	}
}

func TestStepsAreDistinct(t *testing.T) {
	seen := map[Step]bool{}
	for _, s := range Steps {
		if s == "" || seen[s] {
			t.Errorf("step %q is empty or listed twice", s)
		}
		seen[s] = true
	}
}
