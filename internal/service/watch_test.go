package service

import (
	"testing"
	"time"
)

func TestNextWait(t *testing.T) {
	const iv = 5 * time.Second
	tests := []struct {
		name   string
		wait   time.Duration
		failed bool
		want   time.Duration
	}{
		{"success keeps the interval", iv, false, iv},
		{"first failure doubles", iv, true, 2 * iv},
		{"failures in a row double again", 4 * iv, true, 8 * iv},
		{"capped at maxBackoff intervals", 16 * iv, true, 16 * iv},
		{"a success after failures is back to the interval", 16 * iv, false, iv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextWait(tt.wait, iv, tt.failed); got != tt.want {
				t.Errorf("nextWait(%s, %s, %v) = %s, want %s", tt.wait, iv, tt.failed, got, tt.want)
			}
		})
	}
}
