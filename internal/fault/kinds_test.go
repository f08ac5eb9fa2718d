package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/guard"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/reservations"
)

// TestKindsAreShared checks that the packages report each kind of failure
// with the one sentinel, so that a caller branching on any package's name
// for it catches every package's, and that the kinds stay apart.
func TestKindsAreShared(t *testing.T) {
	kinds := []struct {
		kind error
		as   []error // the packages' names for it
	}{
		{fault.ErrInvalidArgument, []error{mailbox.ErrInvalidArgument, reservations.ErrInvalidArgument, guard.ErrInvalidArgument}},
		{fault.ErrNotFound, []error{mailbox.ErrNotFound, reservations.ErrNotFound}},
		{fault.ErrAmbiguousID, []error{mailbox.ErrAmbiguousID, reservations.ErrAmbiguousID}},
	}
	for i, k := range kinds {
		for _, name := range k.as {
			wrapped := fault.WithHint(fmt.Errorf("ctx: %w: detail", name), "hint")
			for j, other := range kinds {
				if got := errors.Is(wrapped, other.kind); got != (i == j) {
					t.Errorf("errors.Is(%q wrapped, %v) = %v, want %v", name, other.kind, got, i == j)
				}
			}
		}
	}
}
