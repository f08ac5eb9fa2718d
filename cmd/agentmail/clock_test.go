package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

func TestParseNow(t *testing.T) {
	real := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	realClock := func() time.Time { return real }
	for _, c := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{in: "", want: real},
		{in: "2027-01-02T03:04:05Z", want: time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)},
		{in: "2027-01-02T04:04:05+01:00", want: time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)},
		{in: "+2h", want: real.Add(2 * time.Hour)},
		{in: "-90s", want: real.Add(-90 * time.Second)},
		{in: "+1h30m", want: real.Add(90 * time.Minute)},
		{in: "2h", err: true}, // a shift needs its sign: 2h alone reads as a mistake
		{in: "+soon", err: true},
		{in: "2027-01-02", err: true},
		{in: "yesterday", err: true},
	} {
		now, err := parseNow(c.in, realClock)
		if c.err {
			if !errors.Is(err, errNotAClock) {
				t.Errorf("parseNow(%q): error %v, want errNotAClock", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseNow(%q): %v", c.in, err)
			continue
		}
		if got := now(); !got.Equal(c.want) {
			t.Errorf("parseNow(%q)() = %v, want %v", c.in, got, c.want)
		}
	}
}

// A shifted clock moves with the real one; a fixed one stays put.
func TestParseNowFollowsTheRealClock(t *testing.T) {
	real := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	realClock := func() time.Time { return real }
	shifted, _ := parseNow("+1h", realClock)
	fixed, _ := parseNow("2027-01-02T03:04:05Z", realClock)
	before, stopped := shifted(), fixed()
	real = real.Add(time.Minute)
	if got := shifted().Sub(before); got != time.Minute {
		t.Errorf("shifted clock moved %v, want 1m", got)
	}
	if !fixed().Equal(stopped) {
		t.Errorf("fixed clock moved from %v to %v", stopped, fixed())
	}
}

func TestClockRefusesABadValue(t *testing.T) {
	t.Setenv(nowVar, "tomorrow")
	_, err := clock()
	var u *service.UsageError
	if !errors.As(err, &u) || !strings.Contains(u.Msg, `AGENTMAIL_NOW="tomorrow"`) || u.Hint == "" {
		t.Fatalf("clock() with AGENTMAIL_NOW=tomorrow: %v, want a usage error naming the value, with a hint", err)
	}
}
