package mailbox

import (
	"errors"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/names"
)

// Sentinel errors callers branch on. Each error returned by this package
// wraps at most one of them, and most carry a hint (see internal/fault).
var (
	ErrNotRegistered    = errors.New("not registered")
	ErrInvalidName      = names.ErrInvalid
	ErrNameTaken        = errors.New("name taken")
	ErrUnknownRecipient = errors.New("unknown recipient")
	ErrInvalidTopic     = errors.New("invalid topic")
	// ErrAgentRetired: the recipient is retired (or deregistered) and
	// takes no new mail until it is brought back.
	ErrAgentRetired    = errors.New("agent retired")
	ErrNotFound        = fault.ErrNotFound        // shared with every package
	ErrAmbiguousID     = fault.ErrAmbiguousID     // shared with every package
	ErrInvalidArgument = fault.ErrInvalidArgument // shared with every package
)
