package main

import (
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		d    time.Duration // how long before now
		want string
	}{
		{0, "just now"},
		{4 * time.Second, "just now"},
		{42 * time.Second, "42s ago"},
		{5 * time.Minute, "5m ago"},
		{3 * time.Hour, "3h ago"},
		{72 * time.Hour, "3d ago"},
		{40 * 24 * time.Hour, "2026-10-13"},
		// Times to come, such as expiries, are never "just now".
		{-time.Second, "in 1s"},
		{-3 * time.Second, "in 3s"},
		{-59 * time.Second, "in 59s"},
		{-90 * time.Second, "in 1m"},
		{-time.Hour, "in 1h"},
	}
	for _, tt := range tests {
		if got := ago(now.Add(-tt.d), now); got != tt.want {
			t.Errorf("ago(now - %s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 messages"}, {1, "1 message"}, {2, "2 messages"}}
	for _, tt := range tests {
		if got := count(tt.n, "message", "messages"); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
