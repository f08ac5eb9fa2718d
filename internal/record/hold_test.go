package record

import (
	"strings"
	"testing"
	"time"
)

func TestHoldRoundTrip(t *testing.T) {
	m := &Message{Project: "p-00000000", ID: "01JD3Y4Q8ZP6TWS0W8V6EXAMPE", From: "BlueLake", To: []string{"GreenCastle"},
		Subject: "Re: x", Importance: "normal", Created: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Hold: 10 * time.Minute, Body: "checking logs"}
	data := m.Encode()
	if !strings.Contains(string(data), "\ncreated: 2026-11-22T10:00:00Z\nhold: 10m0s\n---\n") {
		t.Fatalf("hold not written last in the front matter:\n%s", data)
	}
	got, err := DecodeMessage("p-00000000", data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hold != m.Hold {
		t.Fatalf("decoded hold %v, %v", got.Hold, err)
	}
}
