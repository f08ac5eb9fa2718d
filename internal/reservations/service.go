package reservations

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/glob"
	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
)

// Sentinel errors callers branch on.
var (
	// ErrConflict: a pattern overlaps another agent's reservation.
	ErrConflict = errors.New("reservation conflict")
	// ErrNotFound: no such reservation of the agent's (fault.ErrNotFound).
	ErrNotFound = fault.ErrNotFound
	// ErrInvalidArgument: a bad TTL, a revival of an expired lease, a
	// forced release of a live holder, a malformed or too short id
	// (fault.ErrInvalidArgument).
	ErrInvalidArgument = fault.ErrInvalidArgument
	// ErrAmbiguousID: an id prefix names several reservations
	// (fault.ErrAmbiguousID).
	ErrAmbiguousID = fault.ErrAmbiguousID
)

// MinIDPrefix is the shortest reservation id prefix accepted.
const MinIDPrefix = 6

// StaleAfter is how long a holder must have been silent before another
// agent may take its reservation with a forced release.
const StaleAfter = 30 * time.Minute

// Reservation is a lease as commands report it.
type Reservation = record.Reservation

// Conflict is an existing reservation that stands in the way of a pattern.
type Conflict struct {
	Pattern       string // the pattern asked for
	Holder        string
	HolderPattern string
	Exclusive     bool
	Expires       time.Time
}

// Options shape a reservation.
type Options struct {
	TTL            time.Duration
	Shared         bool
	Reason         string
	AllowConflicts bool // grant anyway, still reporting the conflicts
	Unconfirmed    bool // granted offline: see record.Reservation.Unconfirmed
	// IdempotencyKey, when set, makes a retry of the same reservation
	// (the same key from the same agent within store.KeyWindow) return
	// the first one's result and write nothing.
	IdempotencyKey string
}

// Result is what Reserve did.
type Result struct {
	Granted   []Reservation
	Conflicts []Conflict
	Warnings  []string
}

// Service is one agent's view of a project's reservations.
type Service struct {
	st      *store.Store
	slug    string
	agent   string
	isDir   func(rel string) bool
	grant   Writer // how grants are written; st.UpdateProject unless DecideBy said otherwise
	pushed  bool   // DecideBy set grant: what it writes reaches the remote first
	offline bool   // renewals and locks are unconfirmed (Offline)
}

// Writer writes an update as store.UpdateProject does: fn decides and
// queues the records, under the project's lock against an up-to-date index. It may run
// fn more than once (each time against a newer index), so fn must start
// over each time.
type Writer func(ctx context.Context, fn func(*store.Tx) error) error

// DecideBy makes w write the grants (Reserve, Renew, lock acquisitions)
// instead of the store's UpdateProject: a synced project's grants are decided by
// the push to its remote. A lease or lock granted offline that such a
// grant renews is decided by that push too: it is confirmed.
func (s *Service) DecideBy(w Writer) { s.grant, s.pushed = w, true }

// unconfirmed says whether a grant is unconfirmed, when it was (was) and
// when asked for offline (offline): until a push decides it.
func (s *Service) unconfirmed(was, offline bool) bool { return offline || (was && !s.pushed) }

// Offline makes the renewals s makes and the locks it takes unconfirmed:
// granted here without the remote, until a sync decides them.
func (s *Service) Offline() { s.offline = true }

// New returns the reservations of project slug, acting as agent (a
// registered name). isDir tells whether a repository path is a directory
// (a literal directory name reserves everything below it); it may be nil.
func New(st *store.Store, slug, agent string, isDir func(string) bool) *Service {
	return &Service{st: st, slug: slug, agent: agent, isDir: isDir, grant: func(ctx context.Context, fn func(*store.Tx) error) error {
		return st.UpdateProject(ctx, slug, fn)
	}}
}

// scope is the index as one operation reads it: a Querier, and the row id
// of the service's project in it (0 while the store holds nothing of the
// project, which then has no reservations).
type scope struct {
	q   store.Querier
	pid int64
}

func (s *Service) scope(ctx context.Context, q store.Querier) (scope, error) {
	p, _, err := store.LookupProject(ctx, q, s.slug)
	return scope{q, p.ID}, err
}

const columns = `id, agent, pattern, exclusive, reason, created, expires, released, released_by, release_reason, unconfirmed, auto, session`

// load returns reservations of the project matching where (a condition on
// the columns), oldest first.
func (s *Service) load(ctx context.Context, sc scope, where string, args ...any) ([]Reservation, error) {
	var out []Reservation
	err := s.each(ctx, sc, where, args, func(_ int64, r Reservation) { out = append(out, r) })
	return out, err
}

// patterns returns the row ids and patterns of the project's reservations
// matching where, oldest first: all that the cheap first pass of Reserve
// and Check needs.
func (s *Service) patterns(ctx context.Context, sc scope, where string, args ...any) ([]int64, []string, error) {
	rows, err := sc.q.QueryContext(ctx, patternsQuery(where), append([]any{sc.pid}, args...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("read reservations: %w", err)
	}
	defer rows.Close()
	var rowids []int64
	var patterns []string
	for rows.Next() {
		var rowid int64
		var pattern string
		if err := rows.Scan(&rowid, &pattern); err != nil {
			return nil, nil, fmt.Errorf("read reservations: %w", err)
		}
		rowids, patterns = append(rowids, rowid), append(patterns, pattern)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read reservations: %w", err)
	}
	return rowids, patterns, nil
}

// patternsQuery selects the row id and pattern of the reservations of
// project ? matching where, oldest first.
func patternsQuery(where string) string {
	return `SELECT rowid, pattern FROM reservations WHERE project_id = ` + store.JoinParam + ` AND (` + where + `) ORDER BY id`
}

// each calls fn with the rowid and contents of each reservation of the
// project matching where, oldest first.
func (s *Service) each(ctx context.Context, sc scope, where string, args []any, fn func(rowid int64, r Reservation)) error {
	return s.query(ctx, sc, eachQuery(where), append([]any{sc.pid}, args...), fn)
}

// eachQuery selects the row id and columns of the reservations of project
// ? matching where, oldest first.
func eachQuery(where string) string {
	return `SELECT rowid, ` + columns + ` FROM reservations WHERE project_id = ` + store.JoinParam + ` AND (` + where + `) ORDER BY id`
}

// query calls fn with the rowid and contents of each row of q, which
// selects the rowid and columns of reservations of the project.
func (s *Service) query(ctx context.Context, sc scope, q string, args []any, fn func(rowid int64, r Reservation)) error {
	rows, err := sc.q.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r := Reservation{Project: s.slug}
		var rowid int64
		var created, expires string
		var released sql.NullString
		if err := rows.Scan(&rowid, &r.ID, &r.Agent, &r.Pattern, &r.Exclusive, &r.Reason, &created, &expires, &released, &r.ReleasedBy, &r.ReleaseReason, &r.Unconfirmed, &r.Auto, &r.Session); err != nil {
			return err
		}
		r.Created, _ = record.ParseTime(created)
		r.Expires, _ = record.ParseTime(expires)
		if released.Valid {
			r.Released, _ = record.ParseTime(released.String)
		}
		fn(rowid, r)
	}
	return rows.Err()
}

// jsonArray renders integers or strings as a JSON array, for json_each: a
// list of values as one statement argument, however long. Strings must be
// valid UTF-8 (normalized patterns are), which JSON keeps as it is.
func jsonArray[T int64 | string](vs []T) string {
	b, err := json.Marshal(vs)
	if err != nil {
		panic(err) // integers and strings always marshal
	}
	return string(b)
}

// rowidIn selects the reservations whose row ids are in a JSON array, its
// argument.
const rowidIn = `rowid IN (SELECT value FROM json_each(` + store.JoinParam + `))`

// activeWhere selects the reservations that hold at a time, its argument.
const activeWhere = `released IS NULL AND expires > ` + store.JoinParam

// mine returns the agent's reservations that hold at now: what Renew and
// Release choose from. (The others' are thousands, perhaps.)
func (s *Service) mine(ctx context.Context, sc scope, now time.Time) ([]Reservation, error) {
	return s.load(ctx, sc, mineWhere, record.FormatTime(now), s.agent)
}

// mineWhere selects the reservations that hold at a time of an agent, its
// arguments.
const mineWhere = activeWhere + ` AND agent = ` + store.JoinParam

// near returns, oldest first, every agent's active reservations whose
// literal directory meets one of dirs: those that may overlap patterns
// with these literal directories, and the same patterns of the agent's
// own, which a reservation extends. With thousands of active reservations,
// most lie in unrelated directories: the index of active reservations by
// literal directory (the dir column) finds those that contain one of dirs
// or are one (nearby), and those below one of dirs (a range each).
func (s *Service) near(ctx context.Context, sc scope, now time.Time, dirs []string) ([]Reservation, error) {
	var rs []Reservation
	add := func(_ int64, r Reservation) { rs = append(rs, r) }
	var err error
	if slices.Contains(dirs, "") { // the root meets every directory
		err = s.each(ctx, sc, activeWhere, []any{record.FormatTime(now)}, add)
	} else {
		err = s.query(ctx, sc, nearQuery, []any{sc.pid, record.FormatTime(now), jsonArray(glob.Nearby(dirs)), jsonArray(dirs)}, add)
	}
	if err != nil {
		return nil, fmt.Errorf("read reservations: %w", err)
	}
	return rs, nil
}

// nearQuery selects the row id and columns of the reservations of project
// ?1 active at ?2 whose literal directory is one of the JSON array ?3 or
// below one of the JSON array ?4, oldest first. The unary + on the outer
// columns keep SQLite from scanning every active reservation by the other
// index: the rows are looked up by rowid.
const nearQuery = `SELECT rowid, ` + columns + ` FROM reservations WHERE +project_id = +?1
	AND +released IS NULL AND +expires > +?2
	AND rowid IN (
		SELECT r.rowid FROM json_each(?3) j CROSS JOIN reservations r
			WHERE r.project_id = +?1 AND r.released IS NULL AND r.dir = j.value
		UNION ALL
		SELECT r.rowid FROM json_each(?4) j CROSS JOIN reservations r
			WHERE r.project_id = +?1 AND r.released IS NULL AND r.dir > j.value || '/' AND r.dir < j.value || '0')
	ORDER BY id`

// literalDirs returns the literal directory of each pattern.
func literalDirs(pats []string) []string {
	dirs := make([]string, len(pats))
	for i, p := range pats {
		dirs[i] = glob.LiteralDir(p)
	}
	return dirs
}

// conflicts returns the conflicts of patterns pats (compiled: globs) with
// the other agents' reservations among held (only the exclusive ones when
// shared), which must hold every active one near pats (near).
func (s *Service) conflicts(pats []string, globs []*glob.Glob, held []Reservation, shared bool) []Conflict {
	out := []Conflict{}
	for _, h := range held {
		if h.Agent == s.agent || shared && !h.Exclusive {
			continue
		}
		hg, err := glob.Compile(h.Pattern)
		if err != nil {
			continue // written by a newer agentmail; cannot judge it
		}
		for i, g := range globs {
			if g.Overlaps(hg) {
				out = append(out, Conflict{pats[i], h.Agent, h.Pattern, h.Exclusive, h.Expires})
			}
		}
	}
	return out
}

// normalize validates and normalizes patterns, returning warnings for broad
// ones.
func (s *Service) normalize(raw []string) ([]string, []*glob.Glob, []string, error) {
	if len(raw) == 0 {
		return nil, nil, nil, fault.WithHint(fmt.Errorf("%w: no patterns given", ErrInvalidArgument), "name the paths to reserve, e.g. src/api/** or docs/")
	}
	var pats []string
	var globs []*glob.Glob
	var warnings []string
	for _, r := range raw {
		g, err := glob.NormalizeCompile(r, s.isDir)
		if err != nil {
			return nil, nil, nil, fault.WithHint(err, "patterns are globs relative to the repository root: src/api/**, docs/*.md, Makefile")
		}
		p := g.String()
		if slices.Contains(pats, p) {
			continue
		}
		if g.Broad() {
			warnings = append(warnings, fmt.Sprintf("%q covers nearly the whole repository", p))
		}
		pats, globs = append(pats, p), append(globs, g)
	}
	return pats, globs, warnings, nil
}

// Reserve leases patterns, all or none: if any overlaps another agent's
// active reservation (and either side is exclusive), nothing is granted and
// the error wraps ErrConflict, with every conflict in the result. Reserving
// one's own pattern again extends it. The decision is made under the store
// lock against the index, so two agents racing for one pattern cannot both
// win.
func (s *Service) Reserve(ctx context.Context, patterns []string, o Options) (Result, error) {
	if o.TTL <= 0 || o.TTL > MaxTTL {
		return Result{}, fault.WithField(fmt.Errorf("%w: the TTL must be positive and at most %s, got %s", ErrInvalidArgument, maxTTLText, o.TTL),
			"ttl", "example", "1h", "max", MaxTTL.String())
	}
	if err := store.CheckKey(o.IdempotencyKey); err != nil {
		return Result{}, err
	}
	pats, globs, warnings, err := s.normalize(patterns)
	if err != nil {
		return Result{}, err
	}
	dirs := literalDirs(pats)
	res := Result{Warnings: warnings}
	err = s.grant(ctx, func(tx *store.Tx) error {
		res.Granted, res.Conflicts = []Reservation{}, []Conflict{}
		sc, err := s.scope(ctx, tx)
		if err != nil {
			return err
		}
		if ok, err := tx.Replay(ctx, s.agent, o.IdempotencyKey, "reserve", &res); err != nil || ok {
			return err
		}
		now := s.st.Now()
		held, err := s.near(ctx, sc, now, dirs)
		if err != nil {
			return err
		}
		res.Conflicts = s.conflicts(pats, globs, held, o.Shared)
		if len(res.Conflicts) > 0 && !o.AllowConflicts {
			return &ConflictError{Conflicts: res.Conflicts}
		}
		own := map[string]Reservation{}
		for _, h := range held {
			if h.Agent == s.agent {
				own[h.Pattern] = h
			}
		}
		// One write's new leases share their id's time, so they share one
		// directory of the archive (and their short ids most of a prefix).
		idTime := ulid.Timestamp(s.st.Clock())
		for _, p := range pats {
			r, ok := own[p]
			if !ok || r.Exclusive != !o.Shared {
				r = Reservation{Project: s.slug, ID: ulid.MustNew(idTime, ulid.DefaultEntropy()).String(),
					Agent: s.agent, Pattern: p, Exclusive: !o.Shared, Created: now}
			}
			r.Reason = o.Reason
			r.Unconfirmed = s.unconfirmed(r.Unconfirmed, o.Unconfirmed)
			r.Expires = latest(r.Expires, lastExpiry(r, now.Add(o.TTL)))
			res.Granted = append(res.Granted, r)
			tx.Put(&r)
		}
		kind := "exclusive"
		if o.Shared {
			kind = "shared"
		}
		tx.Describe(s.agent, fmt.Sprintf("reserve: %s %s (%s, %s)", s.agent, summarize(pats), kind, o.TTL))
		return tx.Remember(s.agent, o.IdempotencyKey, "reserve", res)
	})
	return res, err
}

// ConflictError lists the conflicts that stopped a reservation.
type ConflictError struct{ Conflicts []Conflict }

func (e *ConflictError) Error() string {
	var parts []string
	for _, c := range e.Conflicts {
		parts = append(parts, fmt.Sprintf("%s overlaps %s's %s", c.Pattern, c.Holder, c.HolderPattern))
	}
	return fmt.Sprintf("%s: %s", ErrConflict, strings.Join(parts, "; "))
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// Detail names the first conflict's holder, its pattern and when it
// expires, and whether every holder shares (then a shared lease would be
// granted): a face words from them how to proceed (wait, ask the holder,
// share, or take the paths anyway).
func (e *ConflictError) Detail() fault.Detail {
	if len(e.Conflicts) == 0 {
		return fault.Detail{}
	}
	c := e.Conflicts[0]
	return fault.Detail{Values: map[string]any{
		"holder": c.Holder, "holder_pattern": c.HolderPattern, "pattern": c.Pattern, "expires": record.FormatTime(c.Expires),
		"all_shared": !slices.ContainsFunc(e.Conflicts, func(c Conflict) bool { return c.Exclusive }),
	}}
}

// MaxTTL is the longest a lease lasts from its grant: reserve's TTL and
// renew's extension are at most that, and a renewal ends there. A lease
// of another store's that lasts longer (a broken or hostile remote's, on
// ** until 2099) is kept out of the index (see projection.Admit). It is a
// bound against absurd times, not a policy: long enough for every lease
// earlier versions granted in their fixtures (10000h, renewed by 10000h)
// and for the leases imported from mcp_agent_mail (expiring 2030).
// Changing it changes what the index keeps: change the projection's Name
// with it.
const MaxTTL = 10 * 365 * 24 * time.Hour

// maxTTLText is MaxTTL as messages say it.
const maxTTLText = "87600h (10 years)"

// lastExpiry returns expires, or the end of r's life (MaxTTL after its
// grant) when that comes first.
func lastExpiry(r Reservation, expires time.Time) time.Time {
	if end := r.Created.Add(MaxTTL); expires.After(end) {
		return end
	}
	return expires
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func summarize(pats []string) string {
	if len(pats) <= 3 {
		return strings.Join(pats, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(pats[:3], ", "), len(pats)-3)
}

// Selector picks an agent's own reservations: by pattern, by id, or all
// active ones.
type Selector struct {
	Patterns []string
	IDs      []string
	All      bool
	// Reason chooses the agent's active reservations given for this
	// reason (a task's claim takes its paths so), none being no error.
	Reason string
}

// normalize returns sel with its patterns normalized, as Reserve
// normalizes them.
func (sel Selector) normalize(isDir func(string) bool) (Selector, error) {
	pats := make([]string, len(sel.Patterns))
	for i, raw := range sel.Patterns {
		p, err := glob.NormalizePattern(raw, isDir)
		if err != nil {
			return sel, err
		}
		pats[i] = p
	}
	sel.Patterns = pats
	return sel, nil
}

// held returns the agent's reservations that hold at now among which sel
// (normalized) chooses: what Renew and Release choose from. A selection by
// pattern alone chooses among those in the patterns' literal directories,
// which the directory index finds without reading the other agents'
// active reservations (thousands, perhaps).
func (s *Service) held(ctx context.Context, sc scope, now time.Time, sel Selector) ([]Reservation, error) {
	if sel.All || len(sel.IDs) > 0 || len(sel.Patterns) == 0 {
		return s.mine(ctx, sc, now)
	}
	rs, err := s.near(ctx, sc, now, literalDirs(sel.Patterns))
	return slices.DeleteFunc(rs, func(r Reservation) bool { return r.Agent != s.agent }), err
}

// pick returns the agent's reservations chosen by sel (normalized), among
// rs, the agent's own at now. An id that names none of rs is looked up
// among the active reservations of the project, to say who holds it.
func (s *Service) pick(ctx context.Context, sc scope, now time.Time, rs []Reservation, sel Selector) ([]Reservation, error) {
	var out []Reservation
	if sel.Reason != "" {
		for _, r := range rs {
			if r.Agent == s.agent && r.Reason == sel.Reason {
				out = append(out, r)
			}
		}
		return out, nil
	}
	if sel.All || len(sel.Patterns)+len(sel.IDs) == 0 {
		for _, r := range rs {
			if r.Agent == s.agent {
				out = append(out, r)
			}
		}
		return out, nil
	}
	for _, p := range sel.Patterns {
		i := slices.IndexFunc(rs, func(r Reservation) bool { return r.Agent == s.agent && r.Pattern == p })
		if i < 0 {
			return nil, fault.WithField(fmt.Errorf("%w: %s holds no active reservation of %q", ErrNotFound, s.agent, p), "patterns", "pattern", p)
		}
		out = append(out, rs[i])
	}
	for _, raw := range sel.IDs {
		id, err := s.resolveID(ctx, sc, raw)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rs, func(r Reservation) bool { return r.ID == id })
		if i >= 0 {
			out = append(out, rs[i])
			continue
		}
		r, err := s.activeByID(ctx, sc, now, id)
		if err != nil {
			return nil, err
		}
		if r.Agent != s.agent {
			return nil, fault.WithField(fmt.Errorf("%w: reservation %s is held by %s", ErrInvalidArgument, r.ID, r.Agent), "ids", "id", r.ID, "holder", r.Agent)
		}
		out = append(out, r)
	}
	return out, nil
}

// activeByID returns the reservation id if it holds at now, else an
// ErrNotFound.
func (s *Service) activeByID(ctx context.Context, sc scope, now time.Time, id string) (Reservation, error) {
	found, err := s.load(ctx, sc, activeWhere+` AND id = ?`, record.FormatTime(now), id)
	if err != nil {
		return Reservation{}, fmt.Errorf("read reservation %s: %w", id, err)
	}
	if len(found) == 0 {
		return Reservation{}, fault.WithField(fmt.Errorf("%w: reservation %s is not active (it expired or was released)", ErrNotFound, id), "ids", "id", id)
	}
	return found[0], nil
}

// reservationIDs is how the project's reservation ids are resolved and
// named in errors.
func (s *Service) reservationIDs() ids.Kind {
	return ids.Kind{Noun: "reservation", Min: MinIDPrefix, Invalid: ErrInvalidArgument, NotFound: ErrNotFound,
		Ambiguous: ErrAmbiguousID, Lister: "the list of reservations, expired ones included", Field: "reservation_id", In: "project " + s.slug}
}

// idRange chooses the reservations of project ?1 whose ids are from ?2
// up to ?3; idMatches lists at most ?4 of them, with what each reserves.
const (
	idRange   = `WHERE id >= ?2 AND id < ?3 AND project_id = +?1`
	idMatches = `SELECT id, pattern || ' by ' || agent FROM reservations ` + idRange + ` ORDER BY id LIMIT +?4`
)

// resolveID turns a full id or a unique prefix into the id of one of the
// project's reservations, active or not, as ShortIDs abbreviates them.
func (s *Service) resolveID(ctx context.Context, sc scope, raw string) (string, error) {
	return s.reservationIDs().Resolve(raw, ids.InProject(ctx, sc.q, idMatches, `SELECT count(*) FROM reservations `+idRange, sc.pid))
}

// ShortIDs abbreviates reservation ids for display: each to the shortest
// prefix that no other reservation of the project has, and at least
// ids.MinDisplay characters, so that every displayed id works when pasted
// back.
func (s *Service) ShortIDs(ctx context.Context, list []string) (ids.Short, error) {
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return ids.Short{}, err
	}
	return ids.Shorten(ctx, sc.q, idNeighbours, []any{sc.pid}, list)
}

// idNeighbours lists the ids of a JSON array ?2 with the ids of the
// reservations of project ?1 before and after each.
const idNeighbours = `SELECT j.value,
	(SELECT id FROM reservations WHERE id < j.value AND project_id = +?1 ORDER BY id DESC LIMIT 1),
	(SELECT id FROM reservations WHERE id > j.value AND project_id = +?1 ORDER BY id LIMIT 1)
	FROM json_each(?2) j`

// Renew extends the agent's active reservations chosen by sel by extend.
// A lease granted offline that overlaps another agent's is not renewed
// (the error is a ConflictError).
// An expired reservation cannot be renewed: it may already be someone
// else's.
func (s *Service) Renew(ctx context.Context, sel Selector, extend time.Duration) ([]Reservation, error) {
	if extend <= 0 || extend > MaxTTL {
		return nil, fault.WithField(fmt.Errorf("%w: the extension must be positive and at most %s, got %s", ErrInvalidArgument, maxTTLText, extend),
			"extend", "example", "30m", "max", MaxTTL.String())
	}
	sel, err := sel.normalize(s.isDir)
	if err != nil {
		return nil, err
	}
	var out []Reservation
	err = s.grant(ctx, func(tx *store.Tx) error {
		out = nil
		sc, now, chosen, err := s.chooseHeld(ctx, tx, sel)
		if errors.Is(err, ErrNotFound) {
			return s.expired(ctx, sc, sel, now, err)
		}
		if err != nil {
			return err
		}
		if err := s.unsettled(ctx, sc, now, chosen); err != nil {
			return err
		}
		for _, r := range chosen {
			r.Expires = lastExpiry(r, r.Expires.Add(extend))
			r.Unconfirmed = s.unconfirmed(r.Unconfirmed, s.offline)
			out = append(out, r)
			tx.Put(&r)
		}
		tx.Describe(s.agent, fmt.Sprintf("renew: %s %s (+%s)", s.agent, summarize(patternsOf(out)), extend))
		return nil
	})
	return out, err
}

// chooseHeld returns, in the write tx, the agent's active reservations
// that sel chooses, with the write's scope and time (those also when the
// error is ErrNotFound, for the caller to explain it).
func (s *Service) chooseHeld(ctx context.Context, tx *store.Tx, sel Selector) (scope, time.Time, []Reservation, error) {
	sc, err := s.scope(ctx, tx)
	if err != nil {
		return sc, time.Time{}, nil, err
	}
	now := s.st.Now()
	mine, err := s.held(ctx, sc, now, sel)
	if err != nil {
		return sc, now, nil, err
	}
	chosen, err := s.pick(ctx, sc, now, mine, sel)
	return sc, now, chosen, err
}

// unsettled returns a ConflictError when a lease of rs granted offline
// (unconfirmed) overlaps another agent's active lease: two machines granted
// them apart, and a sync will end the one that reached the remote last, so
// it is not renewed meanwhile.
func (s *Service) unsettled(ctx context.Context, sc scope, now time.Time, rs []Reservation) error {
	var lost []Conflict
	for _, r := range rs {
		g, err := glob.Compile(r.Pattern)
		if !r.Unconfirmed || err != nil {
			continue
		}
		held, err := s.near(ctx, sc, now, []string{glob.LiteralDir(r.Pattern)})
		if err != nil {
			return err
		}
		lost = append(lost, s.conflicts([]string{r.Pattern}, []*glob.Glob{g}, held, !r.Exclusive)...)
	}
	if len(lost) > 0 {
		return &ConflictError{Conflicts: lost}
	}
	return nil
}

// expired explains a renewal that found nothing active (notFound): when
// what sel names has expired, the error says so, since an expired
// reservation cannot be renewed but may be taken again.
func (s *Service) expired(ctx context.Context, sc scope, sel Selector, now time.Time, notFound error) error {
	mine, err := s.load(ctx, sc, `released IS NULL AND agent = ?`, s.agent)
	if err != nil {
		return fmt.Errorf("read reservations: %w", err)
	}
	// Newest first: of a pattern reserved twice, the active one is chosen.
	slices.Reverse(mine)
	chosen, err := s.pick(ctx, sc, now, mine, sel)
	if err != nil {
		return notFound
	}
	for _, r := range chosen {
		if !r.Active(now) {
			return fault.WithField(fmt.Errorf("%w: reservation of %s expired at %s", ErrInvalidArgument, r.Pattern, record.FormatTime(r.Expires)),
				"selection", "pattern", r.Pattern, "expired", record.FormatTime(r.Expires))
		}
	}
	return notFound
}

// Release ends the agent's active reservations chosen by sel.
func (s *Service) Release(ctx context.Context, sel Selector) ([]Reservation, error) {
	sel, err := sel.normalize(s.isDir)
	if err != nil {
		return nil, err
	}
	var out []Reservation
	err = s.grant(ctx, func(tx *store.Tx) error {
		out = nil
		_, now, chosen, err := s.chooseHeld(ctx, tx, sel)
		if err != nil {
			return err
		}
		for _, r := range chosen {
			r.Released = now
			out = append(out, r)
			tx.Put(&r)
		}
		tx.Describe(s.agent, fmt.Sprintf("release: %s %s", s.agent, summarize(patternsOf(out))))
		return nil
	})
	return out, err
}

// ForceRelease ends another agent's reservation id, which must have expired
// or whose holder must have been silent for StaleAfter.
func (s *Service) ForceRelease(ctx context.Context, id, reason string) (Reservation, error) {
	if strings.TrimSpace(reason) == "" {
		return Reservation{}, fault.WithField(fmt.Errorf("%w: a forced release needs a reason", ErrInvalidArgument), "reason", "problem", "empty")
	}
	var out Reservation
	err := s.st.UpdateProject(ctx, s.slug, func(tx *store.Tx) error {
		sc, err := s.scope(ctx, tx)
		if err != nil {
			return err
		}
		now := s.st.Now()
		full, err := s.resolveID(ctx, sc, id)
		if err != nil {
			return err
		}
		found, err := s.load(ctx, sc, `id = ?`, full)
		if err != nil {
			return fmt.Errorf("read reservation %s: %w", full, err)
		}
		r := found[0]
		if !r.Released.IsZero() {
			return fault.WithField(fmt.Errorf("%w: reservation %s of %s was released already", ErrNotFound, r.ID, r.Pattern),
				"ids", "id", r.ID, "released", true)
		}
		if r.Active(now) && r.Agent != s.agent {
			last, seen, err := s.presence().LastSeen(ctx, tx, s.slug, r.Agent)
			if err != nil {
				return fmt.Errorf("when %s was last seen: %w", r.Agent, err)
			}
			if seen && now.Sub(last) < StaleAfter {
				return fault.WithHint(fmt.Errorf("%w: %s's reservation of %s is live (holder seen %s ago, expires %s)", ErrInvalidArgument,
					r.Agent, r.Pattern, now.Sub(last).Round(time.Second), record.FormatTime(r.Expires)),
					"message the holder and wait, or wait until it expires")
			}
		}
		r.Released, r.ReleasedBy, r.ReleaseReason = now, s.agent, reason
		out = r
		tx.Put(&r)
		tx.Describe(s.agent, fmt.Sprintf("release: %s took %s from %s (%s)", s.agent, r.Pattern, r.Agent, reason))
		return nil
	})
	return out, err
}

// Supersede ends reservation id, whoever holds it, as released by by for
// reason, if it is still active: a sync found that it lost to one that
// reached the remote first. It returns the reservation as ended, and
// whether it ended it.
func (s *Service) Supersede(ctx context.Context, id, by, reason string) (Reservation, bool, error) {
	var out Reservation
	var ended bool
	err := s.st.UpdateProject(ctx, s.slug, func(tx *store.Tx) error {
		sc, err := s.scope(ctx, tx)
		if err != nil {
			return err
		}
		now := s.st.Now()
		found, err := s.load(ctx, sc, `id = ?`, id)
		if err != nil || len(found) == 0 || !found[0].Active(now) {
			return err
		}
		out, ended = found[0], true
		out.Released, out.ReleasedBy, out.ReleaseReason = now, by, reason
		tx.Put(&out)
		tx.Describe(by, fmt.Sprintf("release: %s's %s lost to a lease on the remote (%s)", out.Agent, out.Pattern, reason))
		return nil
	})
	return out, ended, err
}

func patternsOf(rs []Reservation) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pattern
	}
	return out
}

// Filter chooses reservations to list.
type Filter struct {
	Agent   string // "" for everyone
	Expired bool   // include expired and released ones
}

// List returns reservations, oldest first.
func (s *Service) List(ctx context.Context, f Filter) ([]Reservation, error) {
	where, args := `released IS NULL AND expires > ?`, []any{record.FormatTime(s.st.Now())}
	if f.Expired {
		where, args = `1`, nil
	}
	if f.Agent != "" {
		where += ` AND lower(agent) = ?`
		args = append(args, strings.ToLower(f.Agent))
	}
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return nil, err
	}
	rs, err := s.load(ctx, sc, where, args...)
	if rs == nil {
		rs = []Reservation{}
	}
	return rs, err
}

// Covering returns, oldest first, the active exclusive reservations that
// may cover one of the paths that paths returns, as written or ignoring
// case: every one that does, and perhaps a few more (the caller matches
// them). It calls paths (which may wait for git) only when an agent other
// than except ("" for nobody; names compare ignoring ASCII case) holds
// something exclusively, and returns nothing otherwise. It reads one
// snapshot of the index. With thousands of active reservations it reads
// the rows of only those whose literal directory is one of the paths or
// contains one (nearby), ignoring case, looked up in the index of active
// reservations by directory: before calling paths, it lists the few
// directories that lower-casing changes (capitals, letters beyond ASCII),
// which are then compared lower-cased here; every other directory is
// lower-case already. The reservations have the columns a guard check
// uses: ID, Agent, Pattern, Exclusive, Created and Expires.
func (s *Service) Covering(ctx context.Context, except string, paths func() ([]string, error)) ([]Reservation, error) {
	var out []Reservation
	err := s.st.Snapshot(ctx, func(q store.Querier) error {
		sc, err := s.scope(ctx, q)
		if err != nil {
			return err
		}
		now := record.FormatTime(s.st.Now())
		var held bool
		if err := q.QueryRowContext(ctx, anyExclusiveQuery, sc.pid, now, except).Scan(&held); err != nil || !held {
			return readErr(err)
		}
		var cased []string // the directories lower-casing changes
		if err := scanAll(ctx, q, casedDirsQuery, []any{sc.pid}, func(rows *sql.Rows) error {
			var d string
			err := rows.Scan(&d)
			cased = append(cased, d)
			return err
		}); err != nil {
			return readErr(err)
		}
		ps, err := paths()
		if err != nil {
			return err
		}
		lower := make([]string, len(ps))
		for i, p := range ps {
			lower[i] = strings.ToLower(strings.TrimPrefix(p, "./"))
		}
		keys := glob.Nearby(lower)
		near := make(map[string]bool, len(keys))
		for _, k := range keys {
			near[k] = true
		}
		for _, d := range cased {
			if near[strings.ToLower(d)] {
				keys = append(keys, d)
			}
		}
		return readErr(scanAll(ctx, q, coveringQuery, []any{sc.pid, now, jsonArray(keys)}, func(rows *sql.Rows) error {
			r := Reservation{Project: s.slug, Exclusive: true}
			var created, expires string
			if err := rows.Scan(&r.ID, &r.Agent, &r.Pattern, &created, &expires); err != nil {
				return err
			}
			r.Created, _ = record.ParseTime(created)
			r.Expires, _ = record.ParseTime(expires)
			out = append(out, r)
			return nil
		}))
	})
	return out, err
}

// readErr says that err, if any, is a failure to read reservations.
func readErr(err error) error {
	if err != nil {
		return fmt.Errorf("read reservations: %w", err)
	}
	return nil
}

// scanAll runs query with args on q and calls fn on each row.
func scanAll(ctx context.Context, q store.Querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// anyExclusiveQuery says whether project ?1 has a reservation active at ?2
// held exclusively by an agent other than ?3.
const anyExclusiveQuery = `SELECT EXISTS (SELECT 1 FROM reservations WHERE project_id = ?1 AND released IS NULL
	AND expires > ?2 AND exclusive AND lower(agent) != lower(?3))`

// casedDir is the condition on a reservation's literal directory that
// lower-casing may change it: capitals, or more bytes than characters
// (beyond ASCII, which SQLite's lower leaves alone).
const casedDir = `(dir != lower(dir) OR length(CAST(dir AS BLOB)) != length(dir))`

// casedDirsQuery selects the literal directories of the unreleased
// reservations of project ? that lower-casing may change (casedDir). It
// reads the partial index of those alone, most often empty: scanning the
// index by directory for them took half a millisecond of every guard
// check at 1,500 open reservations.
const casedDirsQuery = `SELECT DISTINCT dir FROM reservations INDEXED BY reservations_cased
	WHERE project_id = ? AND released IS NULL AND ` + casedDir

// coveringQuery selects the id, agent, pattern, created and expires of the
// exclusive reservations of project ?1 active at ?2 whose literal
// directory is one of the JSON array ?3, looked up in the index by
// directory, oldest first.
const coveringQuery = `SELECT id, agent, pattern, created, expires FROM reservations INDEXED BY reservations_dir
	WHERE project_id = ?1 AND released IS NULL AND dir IN (SELECT value FROM json_each(?3))
	AND expires > ?2 AND exclusive
	ORDER BY id`

// PathHolders is who holds one path.
type PathHolders struct {
	Path    string
	Holders []Reservation
}

// Check says, for each path, which active reservations cover it. It
// changes nothing. It reads every active pattern, but whole reservations
// only for those that hold one of the paths, both from one snapshot of the
// index.
func (s *Service) Check(ctx context.Context, paths []string) ([]PathHolders, error) {
	var out []PathHolders
	err := s.st.Snapshot(ctx, func(q store.Querier) error {
		sc, err := s.scope(ctx, q)
		if err != nil {
			return err
		}
		out, err = s.check(ctx, sc, paths)
		return err
	})
	return out, err
}

func (s *Service) check(ctx context.Context, sc scope, paths []string) ([]PathHolders, error) {
	now := record.FormatTime(s.st.Now())
	rowids, patterns, err := s.patterns(ctx, sc, activeWhere, now)
	if err != nil {
		return nil, err
	}
	m := glob.NewMatcher(patterns)
	matches := make([][]int, len(paths))
	var holding []int64
	seen := make([]bool, len(rowids))
	for i, p := range paths {
		matches[i] = m.Match(p, false)
		for _, j := range matches[i] {
			if !seen[j] {
				seen[j] = true
				holding = append(holding, rowids[j])
			}
		}
	}
	held := make(map[int64]Reservation, len(holding))
	if len(holding) > 0 {
		where, args := rowidIn, []any{jsonArray(holding)}
		if 2*len(holding) > len(rowids) {
			// Most leases hold a path: one scan of the active ones (the
			// same rows, in this snapshot) beats a lookup each.
			where, args = activeWhere, []any{now}
		}
		if err := s.each(ctx, sc, where, args, func(rowid int64, r Reservation) {
			held[rowid] = r
		}); err != nil {
			return nil, fmt.Errorf("read reservations: %w", err)
		}
	}
	out := make([]PathHolders, len(paths))
	for i, p := range paths {
		out[i] = PathHolders{Path: p, Holders: []Reservation{}}
		for _, j := range matches[i] {
			out[i].Holders = append(out[i].Holders, held[rowids[j]])
		}
	}
	return out, nil
}

// Import queues in tx, the transaction of an update of the store,
// reservations brought over from another system with their own ids (ULIDs)
// and times, leaving alone those whose id the store holds already: it
// returns how many it wrote and how many were present. Patterns must be
// normalized (glob.NormalizePattern); holders are taken as given, the caller
// vouching that they are agents of the project. An error leaves the update
// to be abandoned.
func (s *Service) Import(ctx context.Context, tx *store.Tx, rs []Reservation) (written, present int, err error) {
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.ID] {
			present++
			continue
		}
		seen[r.ID] = true
		if _, err := ulid.ParseStrict(r.ID); err != nil {
			return written, present, fault.WithHint(fmt.Errorf("%w: %q is not a ULID", ErrInvalidArgument, r.ID), "imported reservations need ULID ids")
		}
		if r.Created.IsZero() || r.Expires.IsZero() {
			return written, present, fault.WithHint(fmt.Errorf("%w: reservation %s has no creation or expiry time", ErrInvalidArgument, r.ID),
				"give every imported reservation its times")
		}
		if _, err := glob.Compile(r.Pattern); err != nil {
			return written, present, fault.WithHint(fmt.Errorf("reservation %s: %w", r.ID, err), "normalize imported patterns with NormalizePattern")
		}
		found, err := s.exists(ctx, tx, r.ID)
		if err != nil {
			return written, present, err
		}
		if found {
			present++
			continue
		}
		r.Project = s.slug
		r.Created, r.Expires = r.Created.UTC().Truncate(time.Second), r.Expires.UTC().Truncate(time.Second)
		if !r.Released.IsZero() {
			r.Released = r.Released.UTC().Truncate(time.Second)
		}
		tx.Put(&r)
		written++
	}
	return written, present, nil
}

// exists reports whether the store holds a reservation with id, in any
// project: ids are unique across the store.
func (s *Service) exists(ctx context.Context, q store.Querier, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM reservations WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// WouldConflict reports, without reserving anything, what a reservation
// of patterns (shared or exclusive) would meet: the conflicts with other
// agents' active reservations that Reserve would refuse it for, and the
// acting agent's own active reservations among those near the patterns
// (which Reserve would extend). It returns the patterns as normalized.
func (s *Service) WouldConflict(ctx context.Context, patterns []string, shared bool) ([]string, []Conflict, []Reservation, error) {
	pats, globs, _, err := s.normalize(patterns)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := s.scope(ctx, s.st.Index())
	if err != nil {
		return nil, nil, nil, readErr(err)
	}
	held, err := s.near(ctx, sc, s.st.Now(), literalDirs(pats))
	if err != nil {
		return nil, nil, nil, err
	}
	own := []Reservation{}
	for _, h := range held {
		if h.Agent != s.agent {
			continue
		}
		hg, err := glob.Compile(h.Pattern)
		if err != nil {
			continue
		}
		for _, g := range globs {
			if g.Overlaps(hg) {
				own = append(own, h)
				break
			}
		}
	}
	return pats, s.conflicts(pats, globs, held, shared), own, nil
}
