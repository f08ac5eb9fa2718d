package procstat

import (
	"os"
	"testing"
)

// The test process's own memory: a peak at least what it holds now, and
// more than nothing; a process that does not exist is an error.
func TestRSS(t *testing.T) {
	peak, now, err := RSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if now <= 0 || peak < now {
		t.Errorf("peak %d, now %d", peak, now)
	}
	if _, _, err := RSS(-1); err == nil {
		t.Error("no error for process -1")
	}
}
