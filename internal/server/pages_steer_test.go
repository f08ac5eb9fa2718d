package server

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// steerForm is a browser on one of the overseer's forms: post sends the
// form of the page at u to u, with the page's CSRF token and cookie (and
// header, when given, as "Name: value").
type steerForm struct {
	t      *testing.T
	client *http.Client
	u      string
}

func newSteerForm(t *testing.T, u string) *steerForm {
	jar, _ := cookiejar.New(nil)
	return &steerForm{t: t, client: &http.Client{Jar: jar}, u: u}
}

func (f *steerForm) post(form url.Values, header ...string) (int, string) {
	f.t.Helper()
	page := get(f.t, f.client, f.u)
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		f.t.Fatalf("no form on %s:\n%s", f.u, page)
	}
	form.Set("csrf", m[1])
	req, err := http.NewRequest("POST", f.u, strings.NewReader(form.Encode()))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, h := range header {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// refused checks that a post without the CSRF token, and one with it
// from another site's page, are refused (403).
func (f *steerForm) refused(form url.Values) {
	f.t.Helper()
	resp, err := http.PostForm(f.u, form)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		f.t.Fatalf("a post without the CSRF token: %d", resp.StatusCode)
	}
	if status, page := f.post(form, "Origin: http://evil.example"); status != 403 || !strings.Contains(page, "cross-origin") {
		f.t.Fatalf("a cross-site post: %d\n%s", status, page)
	}
}

// subjects are the subjects of agent's inbox, newest first, each "From:
// Subject".
func (h *harness) subjects(agent string) []string {
	r, err := h.svc.Inbox(context.Background(), h.scope(agent), service.InboxRequest{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.From+": "+m.Subject)
	}
	return out
}

// TestAssignFromTaskPage: the overseer gives a task BlueLake holds to
// GreenCastle from the task's page, then ends GreenCastle's claim (task
// assign|unclaim --as-human): each holder gets a message from Human, the
// history says so. A post without the token or from another site changes
// nothing (403); one without a reason is shown on the page, status 400.
func TestAssignFromTaskPage(t *testing.T) {
	ctx := context.Background()
	h := startServer(t, Config{})
	h.seed([]string{"GreenCastle", "BlueLake"})
	task, err := h.svc.CreateTask(ctx, h.scope("GreenCastle"), service.CreateTaskRequest{Title: "Fix login", Paths: []string{"src/auth/**"}})
	if err != nil {
		t.Fatal(err)
	}
	id := task.Task.ID
	if _, err := h.svc.ClaimTask(ctx, h.scope("BlueLake"), service.ClaimTaskRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	holder := func() string {
		t.Helper()
		r, err := h.svc.GetTask(ctx, h.scope(""), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Task.Claim == nil {
			return ""
		}
		return r.Task.Claim.Agent
	}
	f := newSteerForm(t, h.base+"/mail/"+h.slug+"/task/"+id)

	f.refused(url.Values{"to": {"GreenCastle"}, "reason": {"cross-site"}})
	if holder() != "BlueLake" {
		t.Fatalf("a refused post changed the claim: %s", holder())
	}
	status, page := f.post(url.Values{"to": {"GreenCastle"}, "reason": {"  "}})
	if status != 400 || !strings.Contains(page, "no reason given") || !strings.Contains(page, "write why in the reason field") || holder() != "BlueLake" ||
		!strings.Contains(page, `<option value="GreenCastle" selected>`) {
		t.Fatalf("no reason: %d, holder %s\n%s", status, holder(), page)
	}
	status, page = f.post(url.Values{"to": {"GreenCastle"}, "reason": {"BlueLake is on the release"}})
	if status != 200 || !strings.Contains(page, "Gave the claim to GreenCastle; BlueLake was told.") ||
		!strings.Contains(page, "overseer: claim given to GreenCastle: BlueLake is on the release") || holder() != "GreenCastle" {
		t.Fatalf("reassign: %d, holder %s\n%s", status, holder(), page)
	}
	if got := h.subjects("BlueLake"); len(got) != 1 || got[0] != "Human: Your claim of task Fix login ended" {
		t.Fatalf("BlueLake's inbox: %q", got)
	}
	if got := h.subjects("GreenCastle"); len(got) != 1 || got[0] != "Human: Task Fix login is yours" {
		t.Fatalf("GreenCastle's inbox: %q", got)
	}
	leases, err := h.svc.Reservations(ctx, h.scope(""), service.ReservationsRequest{})
	if err != nil || len(leases.Reservations) != 0 {
		t.Fatalf("the task's reservations of BlueLake outlived its claim: %+v, %v", leases.Reservations, err)
	}

	status, page = f.post(url.Values{"to": {""}, "reason": {"needs a design first"}})
	if status != 200 || !strings.Contains(page, "Unclaimed; GreenCastle was told.") || holder() != "" ||
		!strings.Contains(page, "overseer: claim of GreenCastle ended: needs a design first") {
		t.Fatalf("unclaim: %d, holder %s\n%s", status, holder(), page)
	}
	if strings.Contains(page, "nobody (unclaim)") || !strings.Contains(page, ">Assign</button>") {
		t.Fatalf("an unclaimed task's form offers to unclaim it:\n%s", page)
	}
	status, page = f.post(url.Values{"to": {"NoSuchAgent"}, "reason": {"why not"}})
	if status != 404 || !strings.Contains(page, "no agent NoSuchAgent to give the task to") || !strings.Contains(page, `value="why not"`) {
		t.Fatalf("an unknown agent: %d\n%s", status, page)
	}
}

// TestForceReleaseFromReservations: the overseer releases a lease from the
// reservations page (release --force --as-human): a live holder's is
// refused, saying so on the page; once the holder has been silent for an
// hour it is released and the holder told by Human. A post without the
// token or from another site releases nothing (403); one without a reason
// is shown on the page, status 400.
func TestForceReleaseFromReservations(t *testing.T) {
	ctx := context.Background()
	var ahead atomic.Int64 // how far the server's clock is ahead of the seeding's
	h := startServer(t, Config{Store: service.Config{Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }}})
	h.seed([]string{"GreenCastle", "BlueLake"})
	res, err := h.svc.Reserve(ctx, h.scope("BlueLake"), service.ReserveRequest{Patterns: []string{"docs/**"}, TTL: 3 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Granted[0].ID
	held := func() bool {
		t.Helper()
		r, err := h.svc.Reservations(ctx, h.scope(""), service.ReservationsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Reservations) == 1
	}
	f := newSteerForm(t, h.base+"/mail/"+h.slug+"/reservations")

	f.refused(url.Values{"id": {id}, "reason": {"cross-site"}})
	if !held() {
		t.Fatal("a refused post released the lease")
	}
	status, page := f.post(url.Values{"id": {id}})
	if status != 400 || !strings.Contains(page, "no reason given") || !held() {
		t.Fatalf("no reason: %d\n%s", status, page)
	}
	if status, page = f.post(url.Values{"id": {""}, "reason": {"went quiet"}}); status != 400 || !strings.Contains(page, "choose the lease to release in the list") {
		t.Fatalf("no lease chosen: %d\n%s", status, page)
	}
	status, page = f.post(url.Values{"id": {id}, "reason": {"went quiet"}})
	if status != 400 || !strings.Contains(page, "BlueLake&#39;s reservation of docs/** is live") || !strings.Contains(page, `value="went quiet"`) || !held() {
		t.Fatalf("a live holder's lease: %d\n%s", status, page)
	}
	ahead.Store(int64(time.Hour))
	status, page = f.post(url.Values{"id": {id}, "reason": {"went quiet"}})
	if status != 200 || !strings.Contains(page, "Released BlueLake&#39;s reservation of docs/**; BlueLake was told.") || held() {
		t.Fatalf("a silent holder's lease: %d\n%s", status, page)
	}
	if got := h.subjects("BlueLake"); len(got) != 1 || got[0] != "Human: Released your reservation of docs/**" {
		t.Fatalf("BlueLake's inbox: %q", got)
	}
}
