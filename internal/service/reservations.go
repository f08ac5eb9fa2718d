package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/reservations"
)

// leases opens sc's mailbox, checks that the acting agent is registered
// (refreshing its last-seen time), and returns the reservations and locks
// of the project as that agent sees them.
func (s *Service) leases(ctx context.Context, sc Scope) (*session, *reservations.Service, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return nil, nil, err
	}
	rs, err := x.leases(ctx)
	return x, rs, err
}

// leases checks that x's agent is registered (refreshing its last-seen
// time) and returns the reservations and locks of x's project as that agent
// sees them.
func (x *session) leases(ctx context.Context) (*reservations.Service, error) {
	me, err := x.mb.Whoami(ctx)
	if err != nil {
		return nil, err
	}
	var isDir func(string) bool
	if root := x.project().Root; root != "" {
		isDir = func(rel string) bool {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
			return err == nil && fi.IsDir()
		}
	}
	return reservations.New(x.st, x.project().Slug, me.Name, isDir), nil
}

// overview returns the reservations and locks of x's project as nobody in
// particular sees them: for listing.
func (x *session) overview() *reservations.Service {
	return reservations.New(x.st, x.project().Slug, "", nil)
}

// ReserveRequest leases patterns of repository paths.
type ReserveRequest struct {
	// Patterns are doublestar globs relative to the scope's directory
	// (relative to the repository root outside a working tree); a
	// directory name covers what is below it.
	Patterns       []string
	TTL            time.Duration
	Shared         bool
	Reason         string
	AllowConflicts bool // grant anyway, still reporting the conflicts
	// Offline grants here without the remote, the lease marked
	// unconfirmed until a sync decides it.
	Offline bool
	// IdempotencyKey, when set, makes a retry (the same key from the same
	// agent within 24 hours) return the first reservation's result and
	// write nothing.
	IdempotencyKey string
}

// ReserveResponse is the document of reserve: {"granted": [reservation...],
// "conflicts": [...]}.
type ReserveResponse struct {
	Conflicts []Conflict    `json:"conflicts"`
	Granted   []Reservation `json:"granted"`

	Warnings []string `json:"warnings,omitempty"` // about what was granted, such as a broad pattern
	// HooksWarning: git no longer runs the guard's hooks in the
	// repository, so the reservation stops no commit.
	HooksWarning *HooksWarning `json:"-"`
}

// Reserve leases req.Patterns, all or none: when one overlaps another
// agent's active reservation (and either is exclusive), nothing is granted
// unless AllowConflicts, the error wraps reservations.ErrConflict, and the
// response lists every conflict.
func (s *Service) Reserve(ctx context.Context, sc Scope, req ReserveRequest) (ReserveResponse, error) {
	if len(req.Patterns) == 0 {
		return ReserveResponse{}, UsageField("patterns", "no patterns given")
	}
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return ReserveResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return ReserveResponse{}, err
	}
	pats, err := x.project().RepoPatterns(req.Patterns)
	if err != nil {
		return ReserveResponse{}, err
	}
	if err := s.decideByPush(x, rs, req.Offline || req.AllowConflicts); err != nil {
		return ReserveResponse{}, err
	}
	res, err := rs.Reserve(ctx, pats, reservations.Options{
		TTL: req.TTL, Shared: req.Shared, Reason: req.Reason, AllowConflicts: req.AllowConflicts, Unconfirmed: req.Offline,
		IdempotencyKey: req.IdempotencyKey,
	})
	if err != nil && !errors.Is(err, reservations.ErrConflict) {
		return ReserveResponse{}, err
	}
	return ReserveResponse{Conflicts: mapSlice(res.Conflicts, conflictDoc), Granted: reservationDocs(res.Granted), Warnings: res.Warnings,
		HooksWarning: GuardHooksWarning(x.project())}, err
}

// Selection picks the acting agent's own reservations: by pattern (given
// like ReserveRequest.Patterns), by id (or unique prefix), or all active
// ones.
type Selection struct {
	Patterns []string
	IDs      []string
	All      bool
}

// selector turns sel's patterns into repository patterns.
func (sel Selection) selector(proj project.Project) (reservations.Selector, error) {
	pats, err := proj.RepoPatterns(sel.Patterns)
	return reservations.Selector{Patterns: pats, IDs: sel.IDs, All: sel.All}, err
}

// empty reports whether sel names nothing.
func (sel Selection) empty() bool { return len(sel.Patterns) == 0 && len(sel.IDs) == 0 && !sel.All }

// RenewRequest extends reservations: those selected, or every active one
// of the agent's when none is.
type RenewRequest struct {
	Selection
	Extend time.Duration
	// Offline renews here without the remote, the leases marked
	// unconfirmed until a sync decides them.
	Offline bool
}

// RenewResponse is the document of renew: {"renewed": [reservation...],
// "conflicts": []}.
type RenewResponse struct {
	Conflicts []Conflict    `json:"conflicts"`
	Renewed   []Reservation `json:"renewed"`
}

// Renew extends the acting agent's active reservations req selects by
// req.Extend. An expired reservation cannot be renewed: it may already be
// someone else's.
func (s *Service) Renew(ctx context.Context, sc Scope, req RenewRequest) (RenewResponse, error) {
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return RenewResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return RenewResponse{}, err
	}
	sel, err := req.selector(x.project())
	if err != nil {
		return RenewResponse{}, err
	}
	if err := s.grantOffline(x, rs, req.Offline); err != nil {
		return RenewResponse{}, err
	}
	renewed, err := rs.Renew(ctx, sel, req.Extend)
	var lost *reservations.ConflictError
	if errors.As(err, &lost) {
		return RenewResponse{Conflicts: mapSlice(lost.Conflicts, conflictDoc), Renewed: []Reservation{}}, err
	}
	if err != nil {
		return RenewResponse{}, err
	}
	return RenewResponse{Conflicts: []Conflict{}, Renewed: reservationDocs(renewed)}, nil
}

// ReleaseResponse is the document of release: {"released":
// [reservation...], "conflicts": []}.
type ReleaseResponse struct {
	Conflicts []Conflict    `json:"conflicts"`
	Released  []Reservation `json:"released"`
}

// Release ends the acting agent's active reservations sel selects.
func (s *Service) Release(ctx context.Context, sc Scope, sel Selection) (ReleaseResponse, error) {
	if sel.empty() {
		return ReleaseResponse{}, UsageField("selection", "nothing to release named")
	}
	x, rs, err := s.leases(ctx, sc)
	if err != nil {
		return ReleaseResponse{}, err
	}
	rsel, err := sel.selector(x.project())
	if err != nil {
		return ReleaseResponse{}, err
	}
	released, err := rs.Release(ctx, rsel)
	if err != nil {
		return ReleaseResponse{}, err
	}
	return ReleaseResponse{Conflicts: []Conflict{}, Released: reservationDocs(released)}, nil
}

// ForceReleaseRequest takes another agent's reservation.
type ForceReleaseRequest struct {
	ID     string // the reservation, or a unique prefix of 6+ characters
	Reason string // why, for its holder
	// AsHuman releases it as the human overseer (HumanSender), who needs
	// no agent: recorded as Human's, the message to the holder is Human's.
	AsHuman bool
}

// ForceRelease ends another agent's reservation, which must have expired
// or whose holder must have been silent for reservations.StaleAfter, and
// sends the holder a message saying who took it and why.
func (s *Service) ForceRelease(ctx context.Context, sc Scope, req ForceReleaseRequest) (ReleaseResponse, error) {
	var x *session
	var rs *reservations.Service
	var err error
	if req.AsHuman {
		if x, err = s.session(ctx, sc); err == nil {
			rs = reservations.New(x.st, x.project().Slug, HumanSender, nil)
		}
	} else {
		x, rs, err = s.leases(ctx, sc)
	}
	if err != nil {
		return ReleaseResponse{}, err
	}
	r, err := rs.ForceRelease(ctx, req.ID, req.Reason)
	if err != nil {
		return ReleaseResponse{}, err
	}
	if r.Agent != r.ReleasedBy {
		if _, err := x.mb.Send(ctx, mailbox.Draft{AsHuman: req.AsHuman, To: []string{r.Agent}, Importance: "high",
			Subject: "Released your reservation of " + r.Pattern,
			Body:    fmt.Sprintf("%s released your reservation %s of `%s`: %s", r.ReleasedBy, r.ID, r.Pattern, r.ReleaseReason)}); err != nil {
			return ReleaseResponse{}, fmt.Errorf("released, but could not tell %s: %w", r.Agent, err)
		}
	}
	return ReleaseResponse{Conflicts: []Conflict{}, Released: reservationDocs([]reservations.Reservation{r})}, nil
}

// ReservationsRequest chooses reservations to list: the active ones of
// every agent by default.
type ReservationsRequest struct {
	Mine       bool   // only the acting agent's
	Holder     string // only this agent's (unless Mine)
	Expired    bool   // include expired and released ones
	Abbreviate bool   // fill the response's Short, for display
}

// ReservationsResponse is the document of reservations:
// {"reservations": [reservation...]}.
type ReservationsResponse struct {
	Reservations []Reservation `json:"reservations"`

	Short ids.Short `json:"short_ids,omitempty"` // each id's shortest unique prefix, when asked for (Abbreviate)
}

// Reservations lists reservations, oldest first.
func (s *Service) Reservations(ctx context.Context, sc Scope, req ReservationsRequest) (ReservationsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ReservationsResponse{}, err
	}
	f := reservations.Filter{Expired: req.Expired}
	if req.Mine {
		me, err := x.mb.Whoami(ctx)
		if err != nil {
			return ReservationsResponse{}, err
		}
		f.Agent = me.Name
	} else if req.Holder != "" {
		f.Agent = req.Holder
	}
	rs := x.overview()
	list, err := rs.List(ctx, f)
	if err != nil {
		return ReservationsResponse{}, err
	}
	resp := ReservationsResponse{Reservations: reservationDocs(list)}
	if req.Abbreviate {
		resp.Short, err = rs.ShortIDs(ctx, mapSlice(list, func(r reservations.Reservation) string { return r.ID }))
	}
	return resp, err
}

// PathHolders is who holds one path.
type PathHolders struct {
	Path    string        `json:"path"`
	Holders []Reservation `json:"holders"`
}

// CheckPathsResponse is the document of reservations check: {"paths":
// [{"path", "holders": [reservation...]}]}.
type CheckPathsResponse struct {
	Paths []PathHolders `json:"paths"`
}

// CheckPaths says, for each path (relative to the scope's directory),
// which active reservations cover it. It changes nothing.
func (s *Service) CheckPaths(ctx context.Context, sc Scope, paths []string) (CheckPathsResponse, error) {
	if len(paths) == 0 {
		return CheckPathsResponse{}, UsageField("paths", "no paths given")
	}
	x, err := s.session(ctx, sc)
	if err != nil {
		return CheckPathsResponse{}, err
	}
	rel, err := x.project().RepoPaths(paths)
	if err != nil {
		return CheckPathsResponse{}, err
	}
	held, err := x.overview().Check(ctx, rel)
	if err != nil {
		return CheckPathsResponse{}, err
	}
	return CheckPathsResponse{Paths: mapSlice(held, func(h reservations.PathHolders) PathHolders {
		return PathHolders{h.Path, reservationDocs(h.Holders)}
	})}, nil
}

// LeaseClashes returns, for each of rs active at now that overlaps another
// agent's active lease (either exclusive: what --allow-conflicts let
// through), those other leases, in rs's order.
func LeaseClashes(rs []Reservation, now time.Time) map[string][]Reservation {
	var active []reservations.Lease
	byID := map[string]Reservation{}
	for _, r := range rs {
		if r.Released.IsZero() && now.Before(r.Expires.Time) {
			active = append(active, reservations.Lease{ID: r.ID, Agent: r.Agent, Pattern: r.Pattern, Exclusive: r.Exclusive})
			byID[r.ID] = r
		}
	}
	out := map[string][]Reservation{}
	for id, others := range reservations.Clashes(active) {
		out[id] = mapSlice(others, func(o string) Reservation { return byID[o] })
	}
	return out
}
