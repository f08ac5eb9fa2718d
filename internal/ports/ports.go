// Package ports leases TCP ports of this machine to agents under stable
// names ("shop:api"), so that dev servers running side by side do not
// collide. A claim is a record of the archive (record.Port, one file per
// host and name) decided under the project's write lock: claims made at
// once, by any number of processes, get different ports. A port is checked
// free by binding it before it is handed out.
//
// Ports belong to a machine. A claim is tagged with the host it was made
// on and is granted, renewed, released and found on that host only; a
// synced project carries the claims of other hosts, which are listed with
// their host and never hand out or hold back a port here.
package ports

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/store"
)

// Errors callers branch on.
var (
	// ErrHeld: another agent holds the name's port on this host.
	ErrHeld = errors.New("port held")
	// ErrNoFreePort: every port of the range is claimed or bound.
	ErrNoFreePort = errors.New("no free port")
	// ErrNotFound: no claim by that name on this host.
	ErrNotFound = fmt.Errorf("%w: no port claim", mailbox.ErrNotFound)
	// ErrInvalidArgument: a bad name or TTL.
	ErrInvalidArgument = mailbox.ErrInvalidArgument
)

// The range new ports are chosen from: below Linux's ephemeral range
// (32768-60999), where outgoing connections take their local ports, and
// above the usual fixed ones.
const (
	RangeStart = 20000
	RangeSize  = 10000
)

// Port is a claim as commands report it.
type Port = record.Port

// HeldError says who holds the name's port.
type HeldError struct{ Port Port }

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s: %s (port %d on %s) is held by %s until %s", ErrHeld, e.Port.Name, e.Port.Port, e.Port.Host,
		e.Port.Holder, record.FormatTime(e.Port.Expires))
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// Detail names the claim: a face words from it how to proceed (use the
// holder's port, claim another name, or ask the holder).
func (e *HeldError) Detail() fault.Detail {
	return fault.Detail{Values: map[string]any{
		"name": e.Port.Name, "port": e.Port.Port, "host": e.Port.Host, "holder": e.Port.Holder, "expires": record.FormatTime(e.Port.Expires),
	}}
}

// Host returns the name claims made here are tagged with: the host name.
func Host() (string, error) {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "", fmt.Errorf("find this machine's host name: %v", err)
	}
	return h, nil
}

// Service claims the ports of one project on one host, acting as agent.
type Service struct {
	st    *store.Store
	slug  string
	agent string
	host  string
	// Free reports whether a port can be bound on this machine now. It is
	// Bindable unless a test says otherwise.
	Free func(port int) bool
}

// New returns the port claims of project slug on host, acting as agent
// ("" to list only).
func New(st *store.Store, slug, agent, host string) *Service {
	return &Service{st: st, slug: slug, agent: agent, host: host, Free: Bindable}
}

// Bindable reports whether a TCP port can be bound on every address of
// this machine now: no other process listens on it.
func Bindable(port int) bool {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

var portName = regexp.MustCompile(`^[A-Za-z0-9._:-]+(/[A-Za-z0-9._:-]+)*$`)

// CheckName refuses a name that is not a port name.
func CheckName(name string) error {
	if len(name) > 100 || !portName.MatchString(name) || slices.Contains(strings.Split(name, "/"), "..") || slices.Contains(strings.Split(name, "/"), ".") {
		return fault.WithHint(fmt.Errorf("%w: invalid port name %q", ErrInvalidArgument, name),
			"names are letters, digits, '.', '_', ':', '-' and '/', like shop:api")
	}
	return nil
}

const columns = `host, name, port, holder, created, expires, released`

func scan(row interface{ Scan(...any) error }, slug string) (Port, error) {
	p := Port{Project: slug}
	var created, expires string
	var released sql.NullString
	if err := row.Scan(&p.Host, &p.Name, &p.Port, &p.Holder, &created, &expires, &released); err != nil {
		return p, err
	}
	p.Created, _ = record.ParseTime(created)
	p.Expires, _ = record.ParseTime(expires)
	if released.Valid {
		p.Released, _ = record.ParseTime(released.String)
	}
	return p, nil
}

// claim reads the claim of name on the service's host, and the project's
// row id; ok says there is one.
func (s *Service) claim(ctx context.Context, q store.Querier, name string) (pid int64, cur Port, ok bool, err error) {
	proj, _, err := store.LookupProject(ctx, q, s.slug)
	if err != nil {
		return 0, Port{}, false, err
	}
	cur, err = scan(q.QueryRowContext(ctx, `SELECT `+columns+` FROM ports WHERE project_id = ? AND host = ? AND name = ?`, proj.ID, s.host, name), s.slug)
	if errors.Is(err, sql.ErrNoRows) {
		return proj.ID, cur, false, nil
	}
	return proj.ID, cur, err == nil, err
}

// taken returns the ports held at now on the service's host under names
// other than name.
func (s *Service) taken(ctx context.Context, q store.Querier, pid int64, name string, now time.Time) (map[int]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT port FROM ports WHERE project_id = ? AND host = ? AND name != ? AND released IS NULL AND expires > ?`,
		pid, s.host, name, record.FormatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out[p] = true
	}
	return out, rows.Err()
}

// candidates returns the ports to try for name, in order: the one it had
// last (prev, 0 for none), then the range from a place the name chooses,
// so that a name tends to get the same port even in a new store.
func candidates(name string, prev int) []int {
	h := fnv.New32a()
	h.Write([]byte(name))
	start := int(h.Sum32() % RangeSize)
	out := make([]int, 0, RangeSize+1)
	if prev > 0 {
		out = append(out, prev)
	}
	for i := range RangeSize {
		if p := RangeStart + (start+i)%RangeSize; p != prev {
			out = append(out, p)
		}
	}
	return out
}

func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fault.WithField(fmt.Errorf("%w: the TTL must be positive, got %s", ErrInvalidArgument, ttl), "ttl", "example", "1h")
	}
	return nil
}

// Claim leases a free port of this host to the agent under name for ttl:
// the port the name had last when it is still free (unclaimed here and
// bindable), else the first free one from where the name points in the
// range. Claiming a name one holds extends it, on the same port. A name
// another agent holds is ErrHeld (a *HeldError).
func (s *Service) Claim(ctx context.Context, name string, ttl time.Duration) (Port, error) {
	if err := CheckName(name); err != nil {
		return Port{}, err
	}
	if err := checkTTL(ttl); err != nil {
		return Port{}, err
	}
	var out Port
	err := s.st.UpdateProject(ctx, s.slug, func(tx *store.Tx) error {
		now := s.st.Now()
		pid, cur, ok, err := s.claim(ctx, tx, name)
		if err != nil {
			return err
		}
		if ok && cur.Held(now) {
			if cur.Holder != s.agent {
				out = cur
				return &HeldError{Port: cur}
			}
			out = cur
			out.Expires = now.Add(ttl)
			tx.Put(&out)
			tx.Describe(s.agent, fmt.Sprintf("port: %s renews %s (%d on %s)", s.agent, name, out.Port, s.host))
			return nil
		}
		taken, err := s.taken(ctx, tx, pid, name, now)
		if err != nil {
			return err
		}
		for _, port := range candidates(name, cur.Port) {
			if taken[port] || !s.Free(port) {
				continue
			}
			out = Port{Project: s.slug, Host: s.host, Name: name, Port: port, Holder: s.agent, Created: now, Expires: now.Add(ttl)}
			tx.Put(&out)
			tx.Describe(s.agent, fmt.Sprintf("port: %s claims %s (%d on %s)", s.agent, name, port, s.host))
			return nil
		}
		return fault.WithValues(fmt.Errorf("%w in %d-%d on %s", ErrNoFreePort, RangeStart, RangeStart+RangeSize-1, s.host),
			"first", RangeStart, "last", RangeStart+RangeSize-1, "host", s.host)
	})
	return out, err
}

// Release ends the agent's claim of name on this host.
func (s *Service) Release(ctx context.Context, name string) (Port, error) {
	if err := CheckName(name); err != nil {
		return Port{}, err
	}
	var out Port
	err := s.st.UpdateProject(ctx, s.slug, func(tx *store.Tx) error {
		now := s.st.Now()
		_, cur, ok, err := s.claim(ctx, tx, name)
		switch {
		case err != nil:
			return err
		case !ok || !cur.Held(now) || cur.Holder != s.agent:
			return fault.WithField(fmt.Errorf("%w named %s held by %s on %s", ErrNotFound, name, s.agent, s.host), "name", "port", name, "holder", s.agent, "host", s.host)
		}
		out = cur
		out.Released = now
		tx.Put(&out)
		tx.Describe(s.agent, fmt.Sprintf("port: %s releases %s (%d on %s)", s.agent, name, out.Port, s.host))
		return nil
	})
	return out, err
}

// Get returns the claim held now under name on this host.
func (s *Service) Get(ctx context.Context, name string) (Port, error) {
	if err := CheckName(name); err != nil {
		return Port{}, err
	}
	_, cur, ok, err := s.claim(ctx, s.st.Index(), name)
	if err != nil {
		return Port{}, err
	}
	if !ok || !cur.Held(s.st.Now()) {
		return Port{}, fault.WithField(fmt.Errorf("%w named %s on %s", ErrNotFound, name, s.host), "name", "port", name, "host", s.host)
	}
	return cur, nil
}

// List returns the claims held now, on every host the project knows of,
// by host and name.
func (s *Service) List(ctx context.Context) ([]Port, error) {
	out := []Port{}
	q := s.st.Index()
	p, ok, err := store.LookupProject(ctx, q, s.slug)
	if err != nil || !ok {
		return out, err
	}
	rows, err := q.QueryContext(ctx, `SELECT `+columns+` FROM ports WHERE project_id = ? AND released IS NULL AND expires > ? ORDER BY host, name`,
		p.ID, record.FormatTime(s.st.Now()))
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scan(rows, s.slug)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Projection returns the port claims' part of the index.
func Projection() store.Projection { return projection{} }

type projection struct{}

func (projection) Name() string { return "ports1" }

func (projection) Tables() []store.Table {
	return []store.Table{{Name: "ports", Create: `CREATE TABLE ports(project_id INTEGER NOT NULL, host TEXT NOT NULL, name TEXT NOT NULL,
		port INTEGER NOT NULL, holder TEXT NOT NULL, created TEXT NOT NULL, expires TEXT NOT NULL, released TEXT,
		PRIMARY KEY(project_id, host, name)) WITHOUT ROWID`}}
}

func (projection) Prepare(record.Record) any { return nil }

func (projection) Apply(w *store.Writer, rec record.Record, _ any) error {
	r, ok := rec.(*record.Port)
	if !ok {
		return nil
	}
	pid, err := w.ProjectID(r.Project)
	if err != nil {
		return err
	}
	_, err = w.Exec(`INSERT OR REPLACE INTO ports(project_id, host, name, port, holder, created, expires, released)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, pid, r.Host, r.Name, r.Port, r.Holder, record.FormatTime(r.Created),
		record.FormatTime(r.Expires), store.NullTime(r.Released))
	return err
}
