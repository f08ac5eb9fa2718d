package fault

import (
	"errors"
	"fmt"
	"testing"
)

type conflict struct{ holder string }

func (c *conflict) Error() string { return "held by " + c.holder }
func (c *conflict) Hint() string  { return "ask " + c.holder }

func TestHint(t *testing.T) {
	plain := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"no hint", plain, ""},
		{"attached", WithHint(plain, "do this"), "do this"},
		{"wrapped", fmt.Errorf("ctx: %w", WithHint(plain, "do this")), "do this"},
		{"outermost wins", WithHint(WithHint(plain, "inner"), "outer"), "outer"},
		{"hinter", fmt.Errorf("ctx: %w", &conflict{"GreenCastle"}), "ask GreenCastle"},
		{"attached beats hinter", WithHint(&conflict{"GreenCastle"}, "wait"), "wait"},
	}
	for _, tt := range tests {
		if got := Hint(tt.err); got != tt.want {
			t.Errorf("%s: Hint = %q, want %q", tt.name, got, tt.want)
		}
	}
	if WithHint(nil, "x") != nil {
		t.Error("WithHint(nil) is not nil")
	}
}

func TestDetail(t *testing.T) {
	plain := errors.New("boom")
	if d := DetailOf(plain); d.Field != "" || d.Values != nil {
		t.Errorf("DetailOf(plain) = %+v, want zero", d)
	}
	err := fmt.Errorf("ctx: %w", WithHint(WithField(plain, "ttl", "limit", "10y", "yours", true), "neutral"))
	d := DetailOf(err)
	if d.Field != "ttl" || d.String("limit") != "10y" || !d.Bool("yours") || d.String("yours") != "" {
		t.Errorf("DetailOf = %+v", d)
	}
	if !errors.Is(err, plain) || Hint(err) != "neutral" || err.Error() != "ctx: boom" {
		t.Errorf("the detail changed the error: %v, hint %q", err, Hint(err))
	}
	if WithField(nil, "x") != nil {
		t.Error("WithField(nil) is not nil")
	}
}
