// Package fault attaches advice to errors: what the user (often an agent)
// should do next. The command line prints it after the error.
package fault

import "errors"

type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// Hinter is an error that knows its own advice, such as a conflict that
// names its holder.
type Hinter interface {
	error
	Hint() string
}

// WithHint returns err with a hint attached; a nil err stays nil.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// Hint returns the outermost hint attached to err, else the hint of the
// first Hinter in its chain, or "".
func Hint(err error) string {
	var h *hinted
	if errors.As(err, &h) {
		return h.hint
	}
	var hr Hinter
	if errors.As(err, &hr) {
		return hr.Hint()
	}
	return ""
}
