package main

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// nowVar names the environment variable that sets the clock every command
// reads, for tests and demos: a lease can be seen expired without waiting
// for it, and a fixed time makes the output reproducible.
const nowVar = "AGENTMAIL_NOW"

// errNotAClock says what AGENTMAIL_NOW takes.
var errNotAClock = errors.New("neither an RFC 3339 time nor a duration with a sign")

// clock returns the time source of the commands: the real clock, or the
// one AGENTMAIL_NOW sets. Everything a command dates or compares with the
// present (records, leases, presence, --since) reads it, through the store
// or directly where there is no store yet. Waiting (wait, lock --wait)
// runs on the real clock: a stopped clock would never let it end.
func clock() (func() time.Time, error) {
	s := os.Getenv(nowVar)
	now, err := parseNow(s, time.Now)
	if err != nil {
		return nil, usagef("unset it, or set it to an RFC 3339 time (2026-11-22T10:00:00Z) or a shift of the real clock (+2h, -30m)",
			"%s=%q is %v", nowVar, s, err)
	}
	return now, nil
}

// parseNow reads a value of AGENTMAIL_NOW: "" is the real clock, an RFC
// 3339 time a clock stopped at that time, and +DURATION or -DURATION the
// real clock shifted by the duration.
func parseNow(s string, real func() time.Time) (func() time.Time, error) {
	if s == "" {
		return real, nil
	}
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, errNotAClock
		}
		if err := inRange(real().Add(d)); err != nil {
			return nil, err
		}
		return func() time.Time { return real().Add(d) }, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil, errNotAClock
	}
	if err := inRange(t); err != nil {
		return nil, err
	}
	return func() time.Time { return t }, nil
}

// inRange refuses a clock outside the times agentmail keeps.
func inRange(t time.Time) error {
	return service.CheckTime(t)
}
