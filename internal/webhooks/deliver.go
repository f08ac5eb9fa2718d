package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/agentmail/agentmail/internal/record"
)

// Options tune delivery; the zero value is what serve uses.
type Options struct {
	// Now is the clock; time.Now if nil.
	Now func() time.Time
	// Backoff is the wait after a first failed attempt, doubled after each
	// further one up to MaxBackoff; 2 s if zero.
	Backoff time.Duration
	// MaxBackoff bounds the wait between attempts; 10 minutes if zero.
	MaxBackoff time.Duration
	// Timeout bounds one attempt; 10 s if zero.
	Timeout time.Duration
	// Poll is how often the queue is looked at when not woken; 1 s if zero.
	Poll time.Duration
	// Note is told of deliveries that failed for good; nil drops it.
	Note func(string)
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	return o
}

// backoff is the wait after the attempt-th failed attempt.
func (o Options) backoff(attempt int) time.Duration {
	d := o.Backoff
	for i := 1; i < attempt && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}

// client returns the HTTP client of deliveries: it follows no redirect (a
// redirect is an answer that is not 2xx), and refuses private addresses
// unless allowPrivate.
func (o Options) client(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: o.Timeout}
	if !allowPrivate {
		dialer.Control = dialControl
	}
	return &http.Client{
		Timeout:       o.Timeout,
		Transport:     &http.Transport{DialContext: dialer.DialContext, Proxy: nil, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Dispatcher sends the queue's deliveries as they fall due, until its
// context ends. Wake it when deliveries were queued.
type Dispatcher struct {
	db      *DB
	opts    Options
	wake    chan struct{}
	public  *http.Client
	private *http.Client
}

// NewDispatcher returns a dispatcher of d's queue.
func (d *DB) NewDispatcher(opts Options) *Dispatcher {
	opts = opts.withDefaults()
	return &Dispatcher{db: d, opts: opts, wake: make(chan struct{}, 1), public: opts.client(false), private: opts.client(true)}
}

// Wake has the dispatcher look at the queue now.
func (p *Dispatcher) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends. Deliveries that were under way when a
// previous process stopped are taken up again once their claim lapses.
func (p *Dispatcher) Run(ctx context.Context) {
	t := time.NewTicker(p.opts.Poll)
	defer t.Stop()
	for {
		for ctx.Err() == nil {
			n, err := p.RunDue(ctx)
			if err != nil && ctx.Err() == nil && p.opts.Note != nil {
				p.opts.Note(fmt.Sprintf("webhooks: %v", err))
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.wake:
		}
	}
}

// due is a delivery claimed for an attempt.
type due struct {
	id, hook, event string
	data            []byte
	attempts        int
}

// RunDue makes one attempt of each delivery due now (up to 32) and returns
// how many it attempted.
func (p *Dispatcher) RunDue(ctx context.Context) (int, error) {
	now := p.opts.Now()
	list, err := p.claim(ctx, now)
	if err != nil {
		return 0, err
	}
	for _, d := range list {
		if err := p.attempt(ctx, d); err != nil {
			return 0, err
		}
	}
	return len(list), nil
}

// claim takes the deliveries due at now for one attempt: each is claimed
// for longer than an attempt lasts, so that another process delivering
// from the same store leaves it alone.
func (p *Dispatcher) claim(ctx context.Context, now time.Time) ([]due, error) {
	tx, err := p.db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, hook, event, data, attempts FROM deliveries
		WHERE next_at <= ? AND claimed_until <= ? ORDER BY next_at, created LIMIT 32`, now.UnixMilli(), now.UnixMilli())
	if err != nil {
		return nil, err
	}
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.hook, &d.event, &d.data, &d.attempts); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, d)
	}
	rows.Close()
	until := now.Add(2*p.opts.Timeout + time.Duration(len(list))*p.opts.Timeout).UnixMilli()
	for _, d := range list {
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET claimed_until = ? WHERE id = ?`, until, d.id); err != nil {
			return nil, err
		}
	}
	return list, tx.Commit()
}

// attempt makes one attempt of d and records its outcome.
func (p *Dispatcher) attempt(ctx context.Context, d due) error {
	h, secret, err := p.db.get(ctx, "", d.hook)
	if errors.Is(err, ErrNotFound) { // removed meanwhile
		_, err = p.db.db.ExecContext(ctx, `DELETE FROM deliveries WHERE id = ?`, d.id)
		return err
	}
	if err != nil {
		return err
	}
	a := p.send(ctx, h, secret, d.id, d.event, d.data, d.attempts+1)
	if ctx.Err() != nil && a.Status == 0 {
		// Stopped mid-attempt: release the claim, the next run tries again.
		_, err := p.db.db.ExecContext(context.Background(), `UPDATE deliveries SET claimed_until = 0 WHERE id = ?`, d.id)
		return errors.Join(err, ctx.Err())
	}
	return p.db.record(context.Background(), h.Project, a, func(tx *sql.Tx) error {
		switch a.State {
		case StatePending:
			_, err := tx.Exec(`UPDATE deliveries SET attempts = ?, next_at = ?, claimed_until = 0 WHERE id = ?`,
				a.Attempt, a.At.Add(p.opts.backoff(a.Attempt)).UnixMilli(), d.id)
			return err
		default:
			if a.State == StateFailed && p.opts.Note != nil {
				p.opts.Note(fmt.Sprintf("webhooks: delivery %s to %s failed %d times, the last: %s", d.id, h.URL, a.Attempt, a.Error))
			}
			_, err := tx.Exec(`DELETE FROM deliveries WHERE id = ?`, d.id)
			return err
		}
	})
}

// record logs a in the project's log and runs change, in one transaction.
func (d *DB) record(ctx context.Context, project string, a Attempt, change func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := change(tx); err != nil {
		return err
	}
	if err := logAttempt(ctx, tx, project, a); err != nil {
		return err
	}
	return tx.Commit()
}

// send posts one attempt of a delivery to h and returns its log entry,
// its State what the delivery becomes: delivered on a 2xx answer, failed
// once MaxAttempts are spent, else pending.
func (p *Dispatcher) send(ctx context.Context, h Hook, secret []byte, id, typ string, event []byte, attempt int) Attempt {
	start := p.opts.Now()
	a := Attempt{Delivery: id, Hook: h.ID, Event: typ, Attempt: attempt, At: start.UTC()}
	body, err := json.Marshal(Body{ID: id, Hook: h.ID, Attempt: attempt, Timestamp: record.FormatTime(start), Event: json.RawMessage(event)})
	if err == nil {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", "agentmail-webhook")
			req.Header.Set("X-Agentmail-Delivery", id)
			req.Header.Set("X-Agentmail-Event", typ)
			req.Header.Set("X-Agentmail-Timestamp", strconv.FormatInt(start.Unix(), 10))
			req.Header.Set("X-Agentmail-Signature", Sign(secret, body))
			client := p.public
			if h.AllowPrivate {
				client = p.private
			}
			var resp *http.Response
			resp, err = client.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				a.Status = resp.StatusCode
				if resp.StatusCode < 200 || resp.StatusCode > 299 {
					err = fmt.Errorf("the receiver answered %s", resp.Status)
				}
			}
		}
	}
	a.Millis = time.Since(start).Milliseconds()
	switch {
	case err == nil:
		a.State = StateDelivered
	case attempt >= MaxAttempts:
		a.State, a.Error = StateFailed, err.Error()
	default:
		a.State, a.Error = StatePending, err.Error()
	}
	return a
}

// Test sends the hook id of the project one ping delivery now, once, and
// returns its log entry (it is logged; it is not queued, nor retried).
func (d *DB) Test(ctx context.Context, project, id string, opts Options) (Attempt, error) {
	h, secret, err := d.get(ctx, project, id)
	if err != nil {
		return Attempt{}, err
	}
	opts = opts.withDefaults()
	p := &Dispatcher{db: d, opts: opts, public: opts.client(false), private: opts.client(true)}
	now := opts.Now()
	event, _ := json.Marshal(map[string]string{"type": EventPing, "project": project, "hook": h.ID, "time": record.FormatTime(now)})
	a := p.send(ctx, h, secret, newID("dl_"), EventPing, event, 1)
	if a.State == StatePending { // a test is not retried
		a.State = StateFailed
	}
	return a, d.record(ctx, project, a, func(*sql.Tx) error { return nil })
}
