package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a real webhook receiver on loopback: it checks each
// delivery's signature with the secret and counts the deliveries it
// accepted by id.
type receiver struct {
	t      *testing.T
	secret []byte
	srv    *httptest.Server

	mu       sync.Mutex
	answers  []int          // the statuses to answer, in turn; 200 once spent
	accepted map[string]int // delivery id -> times accepted (2xx)
	bodies   []Body
	calls    int
	bad      []string // what was wrong with a request
}

func newReceiver(t *testing.T, secret string, answers ...int) *receiver {
	r := &receiver{t: t, secret: []byte(secret), answers: answers, accepted: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if !Verify(r.secret, body, req.Header.Get("X-Agentmail-Signature")) {
		r.bad = append(r.bad, "signature "+req.Header.Get("X-Agentmail-Signature"))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var b Body
	if err := json.Unmarshal(body, &b); err != nil {
		r.bad = append(r.bad, "body: "+err.Error())
	}
	if req.Header.Get("X-Agentmail-Delivery") != b.ID || b.ID == "" {
		r.bad = append(r.bad, "delivery id header "+req.Header.Get("X-Agentmail-Delivery")+" body "+b.ID)
	}
	ts, err := strconv.ParseInt(req.Header.Get("X-Agentmail-Timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)) > 5*time.Minute {
		r.bad = append(r.bad, "timestamp "+req.Header.Get("X-Agentmail-Timestamp"))
	}
	status := 200
	if len(r.answers) > 0 {
		status, r.answers = r.answers[0], r.answers[1:]
	}
	if status/100 == 2 {
		r.accepted[b.ID]++
		r.bodies = append(r.bodies, b)
	}
	w.WriteHeader(status)
}

func (r *receiver) snapshot() (calls int, accepted map[string]int, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	acc := map[string]int{}
	for k, v := range r.accepted {
		acc[k] = v
	}
	return r.calls, acc, append([]string(nil), r.bad...)
}

const secret = "0123456789abcdef0123456789abcdef"

func open(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func add(t *testing.T, db *DB, url string, events ...string) Hook {
	t.Helper()
	h, err := db.Add(context.Background(), AddRequest{Project: "p-1", URL: url, Events: events, Secret: []byte(secret), AllowPrivate: true}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var fast = Options{Backoff: 10 * time.Millisecond, Poll: 10 * time.Millisecond, Timeout: 5 * time.Second}

// drain runs the dispatcher until the queue is empty or the time is up.
func drain(t *testing.T, db *DB, opts Options) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := db.NewDispatcher(opts)
	for {
		if _, err := p.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := db.Pending(ctx); n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the queue did not drain")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestSignedDeliveryOfChosenEvents(t *testing.T) {
	rcv := newReceiver(t, secret)
	db := open(t, t.TempDir())
	defer db.Close()
	add(t, db, rcv.srv.URL, "message,post")
	ctx := context.Background()
	ids, err := db.Enqueue(ctx, "p-1", "", "post", []byte(`{"type":"post","topic":"builds"}`), time.Now())
	if err != nil || len(ids) != 1 {
		t.Fatalf("enqueue post: %v %v", ids, err)
	}
	if ids, _ := db.Enqueue(ctx, "p-1", "", "lock", []byte(`{"type":"lock"}`), time.Now()); len(ids) != 0 {
		t.Fatalf("a lock event was queued for a hook of message and post: %v", ids)
	}
	if ids, _ := db.Enqueue(ctx, "p-2", "", "post", []byte(`{"type":"post"}`), time.Now()); len(ids) != 0 {
		t.Fatalf("another project's event was queued: %v", ids)
	}
	drain(t, db, fast)
	calls, acc, bad := rcv.snapshot()
	if len(bad) > 0 || calls != 1 || acc[ids[0]] != 1 {
		t.Fatalf("calls %d, accepted %v, bad %v", calls, acc, bad)
	}
	if got := string(rcv.bodies[0].Event); got != `{"type":"post","topic":"builds"}` {
		t.Fatalf("event %s", got)
	}
	log, _ := db.Log(ctx, "p-1", "", 0)
	if len(log) != 1 || log[0].State != StateDelivered || log[0].Status != 200 {
		t.Fatalf("log %+v", log)
	}
}

func TestWrongSecretIsRefusedByTheReceiver(t *testing.T) {
	rcv := newReceiver(t, "another secret, not the hook's one")
	db := open(t, t.TempDir())
	defer db.Close()
	h := add(t, db, rcv.srv.URL, "*")
	a, err := db.Test(context.Background(), "p-1", h.ID, fast)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != http.StatusUnauthorized || a.State != StateFailed {
		t.Fatalf("a test signed with the hook's secret passed a receiver of another: %+v", a)
	}
}

func TestRetryAfter500Then200(t *testing.T) {
	rcv := newReceiver(t, secret, 500, 500)
	db := open(t, t.TempDir())
	defer db.Close()
	h := add(t, db, rcv.srv.URL, "*")
	ctx := context.Background()
	ids, _ := db.Enqueue(ctx, "p-1", "", "message", []byte(`{"type":"message"}`), time.Now())
	drain(t, db, fast)
	calls, acc, bad := rcv.snapshot()
	if len(bad) > 0 || calls != 3 || acc[ids[0]] != 1 || len(acc) != 1 {
		t.Fatalf("calls %d, accepted %v, bad %v", calls, acc, bad)
	}
	log, _ := db.Log(ctx, "p-1", h.ID, 0)
	if len(log) != 3 || log[0].State != StateDelivered || log[1].Status != 500 || log[1].State != StatePending || log[2].Attempt != 1 {
		t.Fatalf("log %+v", log)
	}
	for i, b := range rcv.bodies {
		if b.ID != ids[0] || b.Attempt != 3 {
			t.Fatalf("body %d: %+v", i, b)
		}
	}
}

// TestQueueSurvivesRestart: deliveries queued while the receiver fails,
// and the process stops; the next process (a new DB on the same
// directory) delivers every one, each once.
func TestQueueSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	rcv := newReceiver(t, secret, 503, 503, 503)
	db := open(t, dir)
	add(t, db, rcv.srv.URL, "*")
	ctx := context.Background()
	var ids []string
	for range 3 {
		id, err := db.Enqueue(ctx, "p-1", "", "state", []byte(`{"type":"state"}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id...)
	}
	// The first process tries each once (503), then stops mid-run.
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		db.NewDispatcher(Options{Backoff: time.Hour, Poll: 5 * time.Millisecond}).Run(run)
		close(done)
	}()
	for {
		if calls, _, _ := rcv.snapshot(); calls >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	<-done
	db.Close()

	db = open(t, dir)
	defer db.Close()
	if n, _ := db.Pending(ctx); n != 3 {
		t.Fatalf("%d deliveries waiting after the restart, want 3", n)
	}
	// The next process: its clock past the backoff.
	later := fast
	later.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	drain(t, db, later)
	calls, acc, bad := rcv.snapshot()
	if len(bad) > 0 || calls != 6 || len(acc) != 3 {
		t.Fatalf("calls %d, accepted %v, bad %v", calls, acc, bad)
	}
	for _, id := range ids {
		if acc[id] != 1 {
			t.Fatalf("delivery %s accepted %d times: %v", id, acc[id], acc)
		}
	}
}

// TestTwoDispatchersDeliverOnce: two processes' dispatchers on one store
// deliver each delivery once.
func TestTwoDispatchersDeliverOnce(t *testing.T) {
	dir := t.TempDir()
	rcv := newReceiver(t, secret)
	a, b := open(t, dir), open(t, dir)
	defer a.Close()
	defer b.Close()
	add(t, a, rcv.srv.URL, "*")
	ctx := context.Background()
	for range 40 {
		if _, err := a.Enqueue(ctx, "p-1", "", "post", []byte(`{}`), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, db := range []*DB{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); drain(t, db, fast) }()
	}
	wg.Wait()
	calls, acc, bad := rcv.snapshot()
	if len(bad) > 0 || calls != 40 || len(acc) != 40 {
		t.Fatalf("calls %d, accepted %d, bad %v", calls, len(acc), bad)
	}
}

func TestFullQueueDropsTheOldest(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	db.maxQueue = 3
	add(t, db, "http://127.0.0.1:9/", "*")
	ctx := context.Background()
	var ids []string
	for range 5 {
		id, err := db.Enqueue(ctx, "p-1", "", "post", []byte(`{}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id...)
	}
	if n, _ := db.Pending(ctx); n != 3 {
		t.Fatalf("%d waiting, want 3", n)
	}
	log, _ := db.Log(ctx, "p-1", "", 0)
	if len(log) != 2 || log[0].State != StateDropped || log[1].Delivery != ids[0] || log[0].Delivery != ids[1] {
		t.Fatalf("log %+v (ids %v)", log, ids)
	}
}

func TestPrivateAddressesRefused(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"http://127.0.0.1:8080/x", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/latest", "http://192.168.0.1/", "http://localhost/", "http://0.0.0.0/", "http://100.64.0.1/"} {
		if err := CheckURL(ctx, u, false); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s: %v, want a private address refused", u, err)
		}
		if err := CheckURL(ctx, u, true); err != nil {
			t.Errorf("%s allowed: %v", u, err)
		}
	}
	for _, u := range []string{"ftp://example.com/", "example.com/hook", "http://user:pw@example.com/"} {
		if err := CheckURL(ctx, u, true); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want invalid", u, err)
		}
	}
	if !Private(netip.MustParseAddr("::ffff:127.0.0.1")) || Private(netip.MustParseAddr("93.184.216.34")) {
		t.Error("Private misjudges")
	}
	// A hook that does not allow private addresses is not connected to one,
	// whatever its host resolves to when it is sent.
	rcv := newReceiver(t, secret)
	db := open(t, t.TempDir())
	defer db.Close()
	h := add(t, db, rcv.srv.URL, "*")
	if _, err := db.db.Exec(`UPDATE hooks SET allow_private = 0`); err != nil {
		t.Fatal(err)
	}
	a, err := db.Test(ctx, "p-1", h.ID, fast)
	if err != nil {
		t.Fatal(err)
	}
	if calls, _, _ := rcv.snapshot(); calls != 0 || a.Status != 0 || a.State != StateFailed {
		t.Fatalf("a private receiver was called: %d calls, %+v", calls, a)
	}
}

func TestAddChecks(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	ctx := context.Background()
	for _, req := range []AddRequest{
		{URL: "http://127.0.0.1/", Events: []string{"nope"}, Secret: []byte(secret), AllowPrivate: true},
		{URL: "http://127.0.0.1/", Events: nil, Secret: []byte(secret), AllowPrivate: true},
		{URL: "http://127.0.0.1/", Events: []string{"post"}, Secret: []byte("short"), AllowPrivate: true},
	} {
		if _, err := db.Add(ctx, req, time.Now()); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%+v: %v", req, err)
		}
	}
	h := add(t, db, "http://127.0.0.1/", "all")
	if _, err := db.Remove(ctx, "p-2", h.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removed from another project: %v", err)
	}
	if _, err := db.Remove(ctx, "p-1", h.ID); err != nil {
		t.Fatal(err)
	}
	if l, _ := db.List(ctx, "p-1"); len(l) != 0 {
		t.Fatalf("left %v", l)
	}
}

// The cursor of a project is the last event id queued for its hooks, in
// the queue's transaction; a project without hooks keeps none.
func TestCursors(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	ctx := context.Background()
	id := strings.Repeat("a", 40)
	if _, err := db.Enqueue(ctx, "p-1", id+":0", "post", []byte(`{}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.Cursors(ctx); len(c) != 0 {
		t.Fatalf("a cursor without hooks: %v", c)
	}
	add(t, db, "http://127.0.0.1/", "post")
	db.Enqueue(ctx, "p-1", id+":1", "lock", []byte(`{}`), time.Now())   // not asked for: the cursor moves all the same
	db.Enqueue(ctx, "p-1", "", "reservation", []byte(`{}`), time.Now()) // an expiry: no id
	if c, _ := db.Cursors(ctx); c["p-1"] != id+":1" {
		t.Fatalf("cursors %v", c)
	}
}
