package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/oklog/ulid/v2"
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

// FuzzParseNow: no value of AGENTMAIL_NOW panics, and every clock it
// accepts reads a time that records and ids can hold (between 1970 and
// 9999): a ULID can be made of it, and its record form reads back.
func FuzzParseNow(f *testing.F) {
	for _, s := range []string{"", "2027-01-02T03:04:05Z", "+2h", "-90s", "1960-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
		"1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-01:00", "0000-01-01T00:00:00Z", "-500000h", "+2562047h"} {
		f.Add(s)
	}
	real := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	f.Fuzz(func(t *testing.T, s string) {
		clock, err := parseNow(s, real)
		if err != nil {
			return
		}
		now := clock()
		if !record.InRange(now) {
			t.Fatalf("AGENTMAIL_NOW=%q gives %s, outside the range", s, now)
		}
		if _, err := ulid.New(ulid.Timestamp(now), nil); err != nil {
			t.Fatalf("AGENTMAIL_NOW=%q: no id at %s: %v", s, now, err)
		}
		back, err := record.ParseTime(record.FormatTime(now.Truncate(time.Second)))
		if err != nil || !back.Equal(now.Truncate(time.Second)) {
			t.Fatalf("AGENTMAIL_NOW=%q: %s does not read back (%s, %v)", s, now, back, err)
		}
	})
}

func TestParseNowBounds(t *testing.T) {
	real := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	for _, s := range []string{"1969-12-31T23:59:59Z", "1960-01-01T00:00:00Z", "9999-12-31T23:59:59-01:00", "-500000h"} {
		if _, err := parseNow(s, real); err == nil || !strings.Contains(err.Error(), "outside the times agentmail keeps") {
			t.Errorf("parseNow(%q) = %v, want it refused as out of range", s, err)
		}
	}
	for _, s := range []string{"1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"} {
		if _, err := parseNow(s, real); err != nil {
			t.Errorf("parseNow(%q): %v", s, err)
		}
	}
}
