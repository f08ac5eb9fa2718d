package fault

import "errors"

// Kinds of failure that several packages report. Each package that reports
// one names it among its own sentinels (mailbox.ErrNotFound is
// fault.ErrNotFound), so that a caller branches on one error value
// whichever package the failure came from, and maps it to one error code.
var (
	// ErrInvalidArgument: an input is malformed or out of range.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound: nothing has the id or name given.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguousID: an id prefix names several things.
	ErrAmbiguousID = errors.New("ambiguous id")
	// ErrTimeout: what a wait waited for did not come in time.
	ErrTimeout = errors.New("timed out")
)
