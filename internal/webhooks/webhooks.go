// Package webhooks delivers a project's events to URLs registered for
// them: agentmail serve posts each chosen event, signed with the hook's
// secret, retries with exponential backoff, and keeps a delivery log.
//
// Everything lives in one SQLite file of the store directory,
// webhooks.db, beside the index and never in the archive (which syncs):
// the hooks with their secrets, the queue of deliveries (bounded, so a
// receiver that is down for long cannot fill the disk) and the log of
// attempts. The queue survives a restart of the process that delivers:
// a delivery leaves it only once its receiver answered 2xx, or once it
// ran out of attempts, or was pushed out of a full queue (both logged).
//
// A delivery is one HTTP POST of a JSON body
//
//	{"id": DELIVERY, "hook": HOOK, "attempt": N, "timestamp": RFC3339, "event": EVENT}
//
// where EVENT is the event's document (as the live stream's data), with
// the headers X-Agentmail-Delivery (the id, the same on every attempt:
// a receiver drops one it has seen), X-Agentmail-Timestamp (Unix seconds
// of this attempt, the body's timestamp: a receiver refuses an old one),
// X-Agentmail-Event (the event's type) and X-Agentmail-Signature:
// "sha256=" and the hex HMAC-SHA256 of the body with the hook's secret.
//
// A webhook is a request the server makes: a URL whose host is or
// resolves to a loopback, private, link-local or unspecified address is
// refused, when it is added and again when each connection is made
// (after DNS), unless the hook allows private addresses.
package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	_ "github.com/mattn/go-sqlite3" // the driver of webhooks.db
)

// File is the name of the webhooks' database in the store directory.
const File = "webhooks.db"

// Errors.
var (
	// ErrInvalidArgument: a URL, event type or secret that cannot be used.
	ErrInvalidArgument = fault.ErrInvalidArgument
	// ErrNotFound: no hook by that id in the project.
	ErrNotFound = fault.ErrNotFound
	// ErrPrivateAddress: the URL's host is a loopback or private address,
	// and the hook does not allow them.
	ErrPrivateAddress = errors.New("private address")
)

// Events are the event types a hook may ask for, as the live stream names
// them; "*" asks for all of them. "ping" is the test delivery's.
var Events = []string{"message", "post", "receipt", "reservation", "lock", "contact", "agent", "state", "control", "task", "work"}

// EventPing is the type of a test delivery (Test).
const EventPing = "ping"

// MinSecret is the shortest secret accepted, in bytes.
const MinSecret = 16

// Limits of the queue and the log.
const (
	// MaxQueue is how many deliveries may wait; past it the oldest waiting
	// one is dropped (and logged) for the new one.
	MaxQueue = 10000
	// MaxLog is how many log entries are kept, the newest.
	MaxLog = 10000
	// MaxAttempts is how many times a delivery is tried before it fails.
	MaxAttempts = 8
)

// States of a delivery.
const (
	StatePending   = "pending"
	StateDelivered = "delivered"
	StateFailed    = "failed"
	StateDropped   = "dropped"
)

// Hook is a registered webhook (its secret is never shown).
type Hook struct {
	ID           string    `json:"id"`
	Project      string    `json:"project"`
	URL          string    `json:"url"`
	Events       []string  `json:"events"`
	AllowPrivate bool      `json:"allow_private"`
	Created      time.Time `json:"created"`
}

// Wants reports whether the hook asked for events of type typ.
func (h Hook) Wants(typ string) bool {
	return typ == EventPing || slices.Contains(h.Events, "*") || slices.Contains(h.Events, typ)
}

// Attempt is one entry of the delivery log: one try of a delivery (or
// its drop from a full queue).
type Attempt struct {
	Delivery string    `json:"delivery"`
	Hook     string    `json:"hook"`
	Event    string    `json:"event"`
	Attempt  int       `json:"attempt"`
	Status   int       `json:"status"` // the receiver's HTTP status; 0 when none came
	Error    string    `json:"error,omitempty"`
	State    string    `json:"state"` // the delivery's state after it
	At       time.Time `json:"at"`
	Millis   int64     `json:"ms"`
}

// DB is the webhooks' database of one store. It is safe for concurrent
// use, by several processes too (a delivery is claimed before it is sent).
type DB struct {
	db       *sql.DB
	maxQueue int // MaxQueue; a test makes it smaller
}

const schema = `
CREATE TABLE IF NOT EXISTS hooks (
	id TEXT PRIMARY KEY, project TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL,
	secret BLOB NOT NULL, allow_private INTEGER NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS deliveries (
	id TEXT PRIMARY KEY, hook TEXT NOT NULL, event TEXT NOT NULL, data BLOB NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL, claimed_until INTEGER NOT NULL DEFAULT 0,
	created INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries(next_at);
CREATE TABLE IF NOT EXISTS log (
	seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL, hook TEXT NOT NULL, project TEXT NOT NULL,
	event TEXT NOT NULL, attempt INTEGER NOT NULL, status INTEGER NOT NULL, error TEXT NOT NULL,
	state TEXT NOT NULL, at INTEGER NOT NULL, ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS log_delivery ON log(delivery);
CREATE TABLE IF NOT EXISTS cursors (project TEXT PRIMARY KEY, event TEXT NOT NULL);
`

// Open opens (creating it if need be) the webhooks' database of the store
// directory dir. Close it when done.
func Open(dir string) (*DB, error) {
	path := filepath.Join(dir, File)
	dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) +
		"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=30000&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("webhooks: open %s: %w", path, err)
	}
	return &DB{db: db, maxQueue: MaxQueue}, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// newID returns a random id with the prefix.
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// AddRequest is a webhook to register.
type AddRequest struct {
	Project      string
	URL          string
	Events       []string // event types, or "*"
	Secret       []byte
	AllowPrivate bool
}

// CheckEvents returns the event types asked for, checked, sorted and each
// once; an empty list or an unknown type is ErrInvalidArgument.
func CheckEvents(events []string) ([]string, error) {
	var out []string
	for _, e := range events {
		for _, t := range strings.Split(e, ",") {
			t = strings.ToLower(strings.TrimSpace(t))
			if t == "" {
				continue
			}
			if t == "all" {
				t = "*"
			}
			if t != "*" && !slices.Contains(Events, t) {
				return nil, fault.WithHint(fmt.Errorf("%w: unknown event type %q", ErrInvalidArgument, t),
					"event types are "+strings.Join(Events, ", ")+", or * for all")
			}
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		return nil, fault.WithHint(fmt.Errorf("%w: no event types", ErrInvalidArgument),
			"name the event types to deliver: "+strings.Join(Events, ", ")+", or * for all")
	}
	slices.Sort(out)
	return out, nil
}

// CheckURL checks that raw is an http or https URL whose host may be
// called: one that is, or resolves to, no private address unless
// allowPrivate.
func CheckURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fault.WithHint(fmt.Errorf("%w: %q is no http or https URL", ErrInvalidArgument, raw),
			"give the receiver's full URL, such as https://example.com/agentmail")
	}
	if u.User != nil {
		return fault.WithHint(fmt.Errorf("%w: the URL carries a user name or password", ErrInvalidArgument),
			"leave credentials out of the URL: the signature authenticates the deliveries")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		ips, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		if err != nil {
			return fault.WithHint(fmt.Errorf("%w: cannot resolve %s: %v", ErrInvalidArgument, host, err),
				"check the host name")
		}
		addrs = ips
	}
	for _, a := range addrs {
		if !Private(a) {
			continue
		}
		if a.String() == host {
			return fmt.Errorf("%w: the URL's host %s is a loopback or private address, which a webhook may not call", ErrPrivateAddress, host)
		}
		return fmt.Errorf("%w: the URL's host %s is %s, a loopback or private address, which a webhook may not call", ErrPrivateAddress, host, a)
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT, private too.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Private reports whether a is an address a webhook may reach only when
// its hook allows private addresses: loopback, private, link-local,
// unspecified, multicast or shared (CGNAT).
func Private(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || cgnat.Contains(a)
}

// Add registers a webhook and returns it.
func (d *DB) Add(ctx context.Context, req AddRequest, now time.Time) (Hook, error) {
	events, err := CheckEvents(req.Events)
	if err != nil {
		return Hook{}, err
	}
	if err := CheckURL(ctx, req.URL, req.AllowPrivate); err != nil {
		return Hook{}, err
	}
	if len(req.Secret) < MinSecret {
		return Hook{}, fault.WithHint(fmt.Errorf("%w: the secret is %d bytes, fewer than %d", ErrInvalidArgument, len(req.Secret), MinSecret),
			"use a long random secret, such as 32 random bytes in hex (openssl rand -hex 32)")
	}
	h := Hook{ID: newID("wh_"), Project: req.Project, URL: req.URL, Events: events, AllowPrivate: req.AllowPrivate, Created: now.UTC().Truncate(time.Second)}
	_, err = d.db.ExecContext(ctx, `INSERT INTO hooks(id, project, url, events, secret, allow_private, created) VALUES(?,?,?,?,?,?,?)`,
		h.ID, h.Project, h.URL, strings.Join(h.Events, ","), req.Secret, h.AllowPrivate, h.Created.Unix())
	if err != nil {
		return Hook{}, fmt.Errorf("webhooks: add: %w", err)
	}
	return h, nil
}

// hookRow reads a hook and its secret from a row.
func hookRow(scan func(...any) error) (Hook, []byte, error) {
	var h Hook
	var events string
	var secret []byte
	var created int64
	if err := scan(&h.ID, &h.Project, &h.URL, &events, &secret, &h.AllowPrivate, &created); err != nil {
		return Hook{}, nil, err
	}
	h.Events = strings.Split(events, ",")
	h.Created = time.Unix(created, 0).UTC()
	return h, secret, nil
}

const hookColumns = `id, project, url, events, secret, allow_private, created`

// List returns the project's hooks, oldest first.
func (d *DB) List(ctx context.Context, project string) ([]Hook, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+hookColumns+` FROM hooks WHERE project = ? ORDER BY created, id`, project)
	if err != nil {
		return nil, fmt.Errorf("webhooks: list: %w", err)
	}
	defer rows.Close()
	hooks := []Hook{}
	for rows.Next() {
		h, _, err := hookRow(rows.Scan)
		if err != nil {
			return nil, err
		}
		hooks = append(hooks, h)
	}
	return hooks, rows.Err()
}

// get returns the hook id of the project (of any project when project is
// ""), with its secret.
func (d *DB) get(ctx context.Context, project, id string) (Hook, []byte, error) {
	h, secret, err := hookRow(d.db.QueryRowContext(ctx, `SELECT `+hookColumns+` FROM hooks WHERE id = ? AND (? = '' OR project = ?)`, id, project, project).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return Hook{}, nil, fault.WithHint(fmt.Errorf("%w: no webhook %q in project %s", ErrNotFound, id, project),
			"list the project's webhooks to see their ids")
	}
	return h, secret, err
}

// Remove unregisters the hook id of the project, and drops its waiting
// deliveries; the log keeps its entries.
func (d *DB) Remove(ctx context.Context, project, id string) (Hook, error) {
	h, _, err := d.get(ctx, project, id)
	if err != nil {
		return Hook{}, err
	}
	if _, err := d.db.ExecContext(ctx, `DELETE FROM hooks WHERE id = ?`, id); err != nil {
		return Hook{}, err
	}
	_, err = d.db.ExecContext(ctx, `DELETE FROM deliveries WHERE hook = ?`, id)
	return h, err
}

// Enqueue queues a delivery of the event (its id, type and JSON document)
// of the project for each of the project's hooks that asked for its type,
// and returns their ids. A full queue drops its oldest deliveries first.
// The event's id (when it has one: an expiry has none) becomes the
// project's cursor (Cursors), in the same transaction: what a restarted
// server replays from.
func (d *DB) Enqueue(ctx context.Context, project, eventID, typ string, event []byte, now time.Time) ([]string, error) {
	hooks, err := d.List(ctx, project)
	if err != nil || len(hooks) == 0 {
		return nil, err
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var ids []string
	for _, h := range hooks {
		if !h.Wants(typ) {
			continue
		}
		id, err := d.enqueue(ctx, tx, h, typ, event, now)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if eventID != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO cursors(project, event) VALUES (?, ?)
			ON CONFLICT(project) DO UPDATE SET event = excluded.event`, project, eventID); err != nil {
			return nil, err
		}
	}
	return ids, tx.Commit()
}

// Cursors returns, by project, the id of the last event queued for the
// project's webhooks.
func (d *DB) Cursors(ctx context.Context) (map[string]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT c.project, c.event FROM cursors c WHERE EXISTS (SELECT 1 FROM hooks h WHERE h.project = c.project)`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, e string
		if err := rows.Scan(&p, &e); err != nil {
			return nil, err
		}
		out[p] = e
	}
	return out, rows.Err()
}

// enqueue queues one delivery to h in tx.
func (d *DB) enqueue(ctx context.Context, tx *sql.Tx, h Hook, typ string, event []byte, now time.Time) (string, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM deliveries`).Scan(&n); err != nil {
		return "", err
	}
	if n >= d.maxQueue {
		rows, err := tx.QueryContext(ctx, `SELECT d.id, d.hook, d.event, d.attempts, h.project FROM deliveries d LEFT JOIN hooks h ON h.id = d.hook ORDER BY d.created, d.id LIMIT ?`, n-d.maxQueue+1)
		if err != nil {
			return "", err
		}
		var dropped []Attempt
		var projects []string
		for rows.Next() {
			var a Attempt
			var proj sql.NullString
			if err := rows.Scan(&a.Delivery, &a.Hook, &a.Event, &a.Attempt, &proj); err != nil {
				rows.Close()
				return "", err
			}
			dropped = append(dropped, a)
			projects = append(projects, proj.String)
		}
		rows.Close()
		for i, a := range dropped {
			a.Error, a.State, a.At = "the queue is full: dropped for a newer delivery", StateDropped, now
			if _, err := tx.ExecContext(ctx, `DELETE FROM deliveries WHERE id = ?`, a.Delivery); err != nil {
				return "", err
			}
			if err := logAttempt(ctx, tx, projects[i], a); err != nil {
				return "", err
			}
		}
	}
	id := newID("dl_")
	_, err := tx.ExecContext(ctx, `INSERT INTO deliveries(id, hook, event, data, next_at, created) VALUES(?,?,?,?,?,?)`,
		id, h.ID, typ, event, now.UnixMilli(), now.UnixNano())
	return id, err
}

// execer is a *sql.DB or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// logAttempt appends a to the log of the project, and trims the log.
func logAttempt(ctx context.Context, x execer, project string, a Attempt) error {
	res, err := x.ExecContext(ctx, `INSERT INTO log(delivery, hook, project, event, attempt, status, error, state, at, ms) VALUES(?,?,?,?,?,?,?,?,?,?)`,
		a.Delivery, a.Hook, project, a.Event, a.Attempt, a.Status, a.Error, a.State, a.At.UnixMilli(), a.Millis)
	if err != nil {
		return err
	}
	if seq, err := res.LastInsertId(); err == nil && seq%100 == 0 {
		_, err = x.ExecContext(ctx, `DELETE FROM log WHERE seq <= ?`, seq-MaxLog)
		return err
	}
	return nil
}

// Log returns the project's log, newest first: the attempts of the hook
// id ("" for every hook), at most limit (0: 50).
func (d *DB) Log(ctx context.Context, project, hook string, limit int) ([]Attempt, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := d.db.QueryContext(ctx, `SELECT delivery, hook, event, attempt, status, error, state, at, ms FROM log
		WHERE project = ? AND (? = '' OR hook = ?) ORDER BY seq DESC LIMIT ?`, project, hook, hook, limit)
	if err != nil {
		return nil, fmt.Errorf("webhooks: log: %w", err)
	}
	defer rows.Close()
	out := []Attempt{}
	for rows.Next() {
		var a Attempt
		var at int64
		if err := rows.Scan(&a.Delivery, &a.Hook, &a.Event, &a.Attempt, &a.Status, &a.Error, &a.State, &at, &a.Millis); err != nil {
			return nil, err
		}
		a.At = time.UnixMilli(at).UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// Pending returns how many deliveries wait in the queue.
func (d *DB) Pending(ctx context.Context) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM deliveries`).Scan(&n)
	return n, err
}

// Sign returns the signature header's value of body with secret:
// "sha256=" and the hex HMAC-SHA256.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature (the X-Agentmail-Signature header) is
// body's with secret: what a receiver checks.
func Verify(secret, body []byte, signature string) bool {
	return hmac.Equal([]byte(signature), []byte(Sign(secret, body)))
}

// Body is the JSON body of a delivery.
type Body struct {
	ID        string          `json:"id"`
	Hook      string          `json:"hook"`
	Attempt   int             `json:"attempt"`
	Timestamp string          `json:"timestamp"`
	Event     json.RawMessage `json:"event"`
}

// dialControl refuses a connection to a private address.
func dialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot tell the address %s", ErrPrivateAddress, address)
	}
	if Private(ap.Addr()) {
		return fmt.Errorf("%w: %s is a loopback or private address, which a webhook may not call", ErrPrivateAddress, ap.Addr())
	}
	return nil
}
