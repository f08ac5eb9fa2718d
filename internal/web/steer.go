package web

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
)

// The routes of the overseer's steering forms of the task and
// reservations pages (the guard checks their CSRF token as it does
// compose's and the control form's).
const (
	RouteAssignTask   = "POST /mail/{project}/task/{id}"
	RouteForceRelease = "POST /mail/{project}/reservations"
)

// Steering is what a page with an overseer's form carries: the form's CSRF
// token, and what the last post did (Done) or why it could not (Error,
// Hint).
type Steering struct {
	CSRF        string
	Done        string
	Error, Hint string
	Reason      string // the reason posted, kept in the form when the post failed
}

// AssignForm is the task page's form: give the claim to an agent (To),
// or end it (To ""), for a reason.
type AssignForm struct {
	To     string
	Reason string
}

// ReadAssign reads a posted task form. A missing reason is an error
// wrapping ErrInvalidForm, with a hint.
func ReadAssign(form url.Values) (AssignForm, error) {
	f := AssignForm{To: strings.TrimSpace(form.Get("to")), Reason: strings.TrimSpace(form.Get("reason"))}
	if f.Reason == "" {
		return f, fault.WithHint(fmt.Errorf("%w: no reason given", ErrInvalidForm), "write why in the reason field: the holder receives it")
	}
	return f, nil
}

// ForceReleaseForm is a reservations page row's form: release that
// reservation, for a reason.
type ForceReleaseForm struct {
	ID     string
	Reason string
}

// ReadForceRelease reads a posted release form. A missing reservation or
// reason is an error wrapping ErrInvalidForm, with a hint.
func ReadForceRelease(form url.Values) (ForceReleaseForm, error) {
	f := ForceReleaseForm{ID: strings.TrimSpace(form.Get("id")), Reason: strings.TrimSpace(form.Get("reason"))}
	switch {
	case f.ID == "":
		return f, fault.WithHint(fmt.Errorf("%w: no reservation named", ErrInvalidForm), "choose the lease to release in the list")
	case f.Reason == "":
		return f, fault.WithHint(fmt.Errorf("%w: no reason given", ErrInvalidForm), "write why in the reason field: the holder receives it")
	}
	return f, nil
}

// activeLeases returns the reservations of rs still held at now: those
// the overseer may release.
func activeLeases(now time.Time, rs []Reservation) []Reservation {
	var out []Reservation
	for _, r := range rs {
		if leaseState(now, r) == "active" {
			out = append(out, r)
		}
	}
	return out
}
