package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
	"github.com/oklog/ulid/v2"
)

// projections are those of a store as the command line opens it.
func projections() []store.Projection {
	return []store.Projection{mailbox.Projection(), reservations.Projection(), fts.Projection(), tasks.Projection(), mailbox.AttentionProjection(), mailbox.RulesProjection()}
}

// TestProjectionsConform runs every projection both ways over generated
// histories: the tables written by the live write path must equal, row
// for row, those rebuilt from the archive alone (doctor --reindex), and
// those an index left behind at an older commit reaches by catching up.
// Presence, which lives only in the index, is not compared.
func TestProjectionsConform(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { testProjectionsConform(t, seed) })
	}
}

func testProjectionsConform(t *testing.T, seed uint64) {
	ctx := context.Background()
	dir := t.TempDir()
	h := newHistory(t, dir, seed)
	h.run(200)
	// An index left at this commit, as a process that died, or a store
	// synced from elsewhere, would leave it.
	older := filepath.Join(t.TempDir(), "index.db")
	snapshotIndex(t, filepath.Join(dir, "index.db"), older)
	h.run(200)

	for _, op := range []string{"register", "send", "post", "send batch", "reply", "mark", "mark all", "request contact", "decide contact",
		"policy", "retire", "reserve", "renew or release", "force release", "lock", "import",
		"task create", "task update", "task claim", "task unclaim", "task close", "task reopen", "task dep add", "task dep rm",
		"subscribe", "unsubscribe", "state", "control pause", "control resume", "control interrupt", "rules set"} {
		if n := h.done[op]; n < 2 {
			t.Errorf("the history did %q %d times: too few to mean much", op, n)
		}
	}
	if t.Failed() {
		t.Fatalf("operations done: %v", h.done)
	}
	live := contents(t, h.st)
	// Topics (lowercase in the index) and attachments are among what is
	// compared.
	for _, want := range []string{"team-api", `"sha256":`} {
		if !slices.ContainsFunc(live["messages"], func(row string) bool { return strings.Contains(row, want) }) {
			t.Errorf("no message row holds %q", want)
		}
	}

	if _, err := h.st.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	compareContents(t, "rebuilt from the archive", contents(t, h.st), live)
	if problems, err := h.st.Check(ctx); err != nil || len(problems) > 0 {
		t.Errorf("doctor --check: %v %q", err, problems)
	}

	h.st.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(dir, "index.db") + suffix)
	}
	if err := os.Rename(older, filepath.Join(dir, "index.db")); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, dir, h.now)
	if err := st.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	compareContents(t, "caught up from an older commit", contents(t, st), live)
}

func openStore(t *testing.T, dir string, now func() time.Time) *store.Store {
	t.Helper()
	st, err := store.Open(dir, store.Options{Now: now, Projections: projections()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func contents(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	c, err := st.Contents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compareContents reports, per table, the rows got has that want has not,
// and the other way round.
func compareContents(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for table := range want {
		extra, missing := setMinus(got[table], want[table]), setMinus(want[table], got[table])
		for _, r := range extra {
			t.Errorf("%s: %s has a row the live index has not: %s", what, table, r)
		}
		for _, r := range missing {
			t.Errorf("%s: %s lacks a row of the live index: %s", what, table, r)
		}
	}
}

func setMinus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// snapshotIndex copies the index at path, as it is now, to dst.
func snapshotIndex(t *testing.T, path, dst string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`VACUUM INTO ?`, dst); err != nil {
		t.Fatal(err)
	}
}

// history writes a random but valid history of two projects through the
// domain packages' live write paths: registrations, policies, retirement,
// mail with cc, bcc, threads and replies, reads and acknowledgements,
// contact requests and answers, reservations reserved, renewed, released
// and taken by force, locks and lock runs, and imports; its clock moves
// on by random steps so that leases expire.
type history struct {
	t        *testing.T
	rng      *rand.Rand
	st       *store.Store
	clock    time.Time
	projects []project.Project
	proj     project.Project // the project of the next operation
	agents   map[string][]string
	sent     map[string][]string // project key -> message ids
	leases   map[string][]string // project key -> reservation ids
	runs     map[string]*reservations.Lock
	imported int
	tasks    map[string][]string // project key -> task ids
	trng     *rand.Rand          // the tasks' random choices
	arng     *rand.Rand          // the channels', states' and controls' random choices
	done     map[string]int      // operations that succeeded, by name
}

var (
	agentNames = []string{"GreenCastle", "BlueLake", "RedFox", "PurpleOtter", "SilverLake", "AmberFox"}
	words      = []string{"deploy", "auth", "cache", "POL-358", "schema", "review", "flaky", "résumé"}
	patterns   = []string{"src/**", "src/api/**", "src/api/*.go", "docs/*.md", "docs/", "Makefile", "web/{a,b}/*.ts", "**/*.lock"}
)

func newHistory(t *testing.T, dir string, seed uint64) *history {
	h := &history{t: t, rng: rand.New(rand.NewPCG(seed, 7)), clock: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC),
		agents: map[string][]string{}, sent: map[string][]string{}, leases: map[string][]string{}, runs: map[string]*reservations.Lock{}, tasks: map[string][]string{}, trng: rand.New(rand.NewPCG(seed, 11)), arng: rand.New(rand.NewPCG(seed, 13)),
		done: map[string]int{}}
	for _, key := range []string{"github.com/acme/shop", "/srv/other"} {
		p, err := project.ProjectFromKey(key)
		if err != nil {
			t.Fatal(err)
		}
		h.projects = append(h.projects, p)
	}
	h.st = openStore(t, dir, h.now)
	return h
}

func (h *history) now() time.Time { return h.clock }

func (h *history) pick(list []string) string { return list[h.rng.IntN(len(list))] }

func (h *history) mailbox(agent string) *mailbox.Mailbox {
	h.t.Helper()
	mb, err := mailbox.Open(context.Background(), h.st, h.proj, agent)
	if err != nil {
		h.t.Fatal(err)
	}
	return mb
}

func (h *history) leasesOf(agent string) *reservations.Service {
	return reservations.New(h.st, h.proj.Slug, agent, nil)
}

// expected reports whether err is a refusal a valid history meets (a
// policy, a conflict, a lock held, an id gone): anything else fails.
func expected(err error) bool {
	for _, kind := range []error{fault.ErrInvalidArgument, fault.ErrNotFound, fault.ErrAmbiguousID, mailbox.ErrContactRequired,
		mailbox.ErrContactBlocked, mailbox.ErrUnknownRecipient, mailbox.ErrAgentRetired, mailbox.ErrNameTaken, mailbox.ErrNotRegistered,
		reservations.ErrConflict, reservations.ErrLockHeld} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}

func (h *history) check(op string, err error) {
	h.t.Helper()
	if err != nil && !expected(err) {
		h.t.Fatalf("%s: %v", op, err)
	}
	if err == nil {
		h.done[op]++
	}
}

// run performs n operations.
func (h *history) run(n int) {
	ops := []struct {
		weight int
		do     func()
	}{
		{3, h.register}, {10, h.send}, {2, h.post}, {2, h.sendBatch}, {4, h.reply}, {6, h.mark}, {2, h.contact},
		{1, h.policy}, {1, h.retire}, {6, h.reserve}, {3, h.renewOrRelease}, {3, h.forceRelease},
		{4, h.lock}, {1, h.importBatch}, {4, h.advance},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for range n {
		h.proj = h.projects[0]
		if h.rng.IntN(5) == 0 {
			h.proj = h.projects[1]
		}
		if len(h.agents[h.proj.Key]) < 2 {
			h.register()
			continue
		}
		r := h.rng.IntN(total)
		for _, o := range ops {
			if r -= o.weight; r < 0 {
				o.do()
				break
			}
		}
		if h.trng.IntN(2) == 0 {
			h.task() // on a random stream of its own, which leaves the others' histories as they were
		}
		if h.arng.IntN(4) == 0 {
			h.attention() // on a stream of its own too
		}
	}
}

func (h *history) agent() string { return h.pick(h.agents[h.proj.Key]) }

func (h *history) advance() { h.clock = h.clock.Add(time.Duration(h.rng.IntN(90)) * time.Minute) }

func (h *history) register() {
	name := h.pick(agentNames)
	policy := h.policyName()
	_, err := h.mailbox("").Register(context.Background(), mailbox.RegisterInput{Name: name, Program: "p", Task: "t " + name, Policy: policy,
		Role: []string{"", "reviewer", "Backend"}[h.arng.IntN(3)]})
	h.check("register", err)
	if err == nil && !slices.Contains(h.agents[h.proj.Key], name) {
		h.agents[h.proj.Key] = append(h.agents[h.proj.Key], name)
	}
}

func (h *history) draft() mailbox.Draft {
	d := mailbox.Draft{To: []string{h.agent()}, Subject: h.pick(words) + " " + h.pick(words),
		Body: "**" + h.pick(words) + "** and `" + h.pick(words) + "`\n\n- " + h.pick(words), Importance: h.pick(mailbox.Importances)}
	if h.rng.IntN(3) == 0 {
		d.Cc = []string{h.agent()}
	}
	if h.rng.IntN(4) == 0 {
		d.Bcc = []string{h.agent()}
	}
	switch h.rng.IntN(4) {
	case 0:
		d.Thread = "thread-" + h.pick(words)
	case 1:
		if sent := h.sent[h.proj.Key]; len(sent) > 0 {
			d.Thread = h.pick(sent) // join a message's thread
		}
	}
	if h.rng.IntN(4) == 0 {
		d.Category = h.pick(mailbox.Categories)
	}
	d.AckRequired = h.rng.IntN(3) == 0
	d.AsHuman = h.rng.IntN(10) == 0
	if h.rng.IntN(4) == 0 {
		d.Topic = topics[h.rng.IntN(len(topics))]
	}
	if h.rng.IntN(5) == 0 {
		// A few contents over and over: the archive stores each once.
		for i := range 1 + h.rng.IntN(2) {
			w := h.pick(words)
			d.Attachments = append(d.Attachments, mailbox.AttachmentInput{Name: fmt.Sprintf("%d-%s.txt", i, w), Data: []byte("notes on " + w + "\n")})
		}
	}
	return d
}

// topics are the topics of the history's messages, in the spellings
// senders use.
var topics = []string{"builds", "Team-API", "release_2.1"}

// post sends a message with a topic and no recipients: a post to the
// channel.
func (h *history) post() {
	d := h.draft()
	d.To, d.Cc, d.Bcc = nil, nil, nil
	d.Topic = topics[h.rng.IntN(len(topics))]
	m, err := h.mailbox(h.agent()).Send(context.Background(), d)
	h.check("post", err)
	if err == nil {
		h.sent[h.proj.Key] = append(h.sent[h.proj.Key], m.ID)
	}
}

func (h *history) send() {
	m, err := h.mailbox(h.agent()).Send(context.Background(), h.draft())
	h.check("send", err)
	if err == nil {
		h.sent[h.proj.Key] = append(h.sent[h.proj.Key], m.ID)
	}
}

func (h *history) sendBatch() {
	d1, d2 := h.draft(), h.draft()
	d1.AsHuman, d2.AsHuman = false, false
	msgs, err := h.mailbox(h.agent()).SendBatch(context.Background(), []mailbox.Draft{d1, d2})
	h.check("send batch", err)
	for _, m := range msgs {
		h.sent[h.proj.Key] = append(h.sent[h.proj.Key], m.ID)
	}
}

// received returns a message agent received, if any.
func (h *history) received(agent string) (string, bool) {
	inbox, err := h.mailbox(agent).Inbox(context.Background(), mailbox.InboxQuery{})
	h.check("inbox", err)
	if len(inbox) == 0 {
		return "", false
	}
	return inbox[h.rng.IntN(len(inbox))].ID, true
}

func (h *history) reply() {
	agent := h.agent()
	id, ok := h.received(agent)
	if !ok {
		return
	}
	m, err := h.mailbox(agent).Reply(context.Background(), id, mailbox.ReplyDraft{All: h.rng.IntN(2) == 0, Body: "on it: " + h.pick(words),
		Hold: time.Duration(h.rng.IntN(2)) * time.Minute})
	h.check("reply", err)
	if err == nil {
		h.sent[h.proj.Key] = append(h.sent[h.proj.Key], m.ID)
	}
}

func (h *history) mark() {
	agent := h.agent()
	ack := h.rng.IntN(2) == 0
	if h.rng.IntN(3) == 0 {
		_, err := h.mailbox(agent).Mark(context.Background(), nil, true, ack)
		h.check("mark all", err)
		return
	}
	if id, ok := h.received(agent); ok {
		_, err := h.mailbox(agent).Mark(context.Background(), []string{id}, false, ack)
		h.check("mark", err)
	}
}

func (h *history) contact() {
	from, to := h.agent(), h.agent()
	_, err := h.mailbox(from).RequestContact(context.Background(), to, "about "+h.pick(words))
	h.check("request contact", err)
	if err == nil && h.rng.IntN(2) == 0 {
		_, err = h.mailbox(to).DecideContact(context.Background(), from, h.rng.IntN(3) != 0)
		h.check("decide contact", err)
	}
}

// policyName is a contact policy, open more often than not, so that
// mail flows.
func (h *history) policyName() string {
	if h.rng.IntN(2) == 0 {
		return "open"
	}
	return h.pick(mailbox.Policies)
}

func (h *history) policy() {
	_, err := h.mailbox(h.agent()).SetPolicy(context.Background(), h.policyName())
	h.check("policy", err)
}

func (h *history) retire() {
	_, err := h.mailbox("").Retire(context.Background(), h.agent(), h.rng.IntN(2) == 0)
	h.check("retire", err)
}

func (h *history) reserve() {
	pats := []string{h.pick(patterns)}
	if h.rng.IntN(3) == 0 {
		pats = append(pats, h.pick(patterns))
	}
	res, err := h.leasesOf(h.agent()).Reserve(context.Background(), pats, reservations.Options{TTL: time.Duration(1+h.rng.IntN(120)) * time.Minute,
		Shared: h.rng.IntN(3) == 0, Reason: h.pick(words), AllowConflicts: h.rng.IntN(4) == 0})
	h.check("reserve", err)
	for _, r := range res.Granted {
		h.leases[h.proj.Key] = append(h.leases[h.proj.Key], r.ID)
	}
}

func (h *history) renewOrRelease() {
	ids := h.leases[h.proj.Key]
	if len(ids) == 0 {
		return
	}
	ctx := context.Background()
	s := h.leasesOf(h.agent())
	sel := reservations.Selector{IDs: []string{h.pick(ids)}}
	if h.rng.IntN(4) == 0 {
		sel = reservations.Selector{All: true}
	}
	var err error
	if h.rng.IntN(2) == 0 {
		_, err = s.Renew(ctx, sel, time.Duration(1+h.rng.IntN(60))*time.Minute)
	} else {
		_, err = s.Release(ctx, sel)
	}
	h.check("renew or release", err)
}

func (h *history) forceRelease() {
	if ids := h.leases[h.proj.Key]; len(ids) > 0 {
		_, err := h.leasesOf(h.agent()).ForceRelease(context.Background(), h.pick(ids), "silent")
		h.check("force release", err)
	}
}

func (h *history) lock() {
	ctx := context.Background()
	agent, key := h.agent(), "deploy/"+h.pick([]string{"staging", "prod"})
	s := h.leasesOf(agent)
	runKey := h.proj.Key + " " + key
	var err error
	switch run := h.runs[runKey]; {
	case run != nil && h.rng.IntN(2) == 0:
		_, err = reservations.New(h.st, h.proj.Slug, run.Holder, nil).ReleaseRun(ctx, *run)
		delete(h.runs, runKey)
	case run != nil:
		_, err = reservations.New(h.st, h.proj.Slug, run.Holder, nil).RenewRun(ctx, *run, 10*time.Minute)
	case h.rng.IntN(3) == 0:
		var l reservations.Lock
		if l, err = s.AcquireRun(ctx, key, 10*time.Minute, 0); err == nil {
			h.runs[runKey] = &l
		}
	case h.rng.IntN(2) == 0:
		_, err = s.Acquire(ctx, key, time.Duration(1+h.rng.IntN(30))*time.Minute, 0)
	case h.rng.IntN(2) == 0:
		_, err = s.RenewLock(ctx, key, 5*time.Minute)
	default:
		_, err = s.ReleaseLock(ctx, key)
	}
	h.check("lock", err)
}

// importBatch imports an agent, messages and a reservation as one commit,
// as internal/importer does, with ids and times of their own.
func (h *history) importBatch() {
	h.imported++
	ctx := context.Background()
	created := h.clock.Add(-time.Duration(1+h.rng.IntN(1000)) * time.Hour)
	id := func(n int) string {
		var entropy [10]byte
		entropy[0], entropy[8], entropy[9] = byte(h.imported), byte(n), byte(h.rng.IntN(256))
		return ulid.MustNew(ulid.Timestamp(created), strings.NewReader(string(entropy[:]))).String()
	}
	from, to := h.agent(), h.pick(agentNames) // to may be new: it is imported too
	batch := mailbox.ImportBatch{
		Agents:   []record.Agent{{Name: to, Program: "py", Registered: created, Updated: created.Add(time.Hour)}},
		Messages: []record.Message{{ID: id(1), From: from, To: []string{to}, Subject: "imported " + h.pick(words), Body: h.pick(words), Created: created}},
	}
	if h.rng.IntN(2) == 0 {
		batch.Messages = append(batch.Messages, record.Message{ID: id(2), Thread: "py-thread", From: to, To: []string{from},
			Bcc: []string{h.agent()}, Subject: "re", Importance: "high", AckRequired: true, Created: created})
	}
	if h.rng.IntN(3) == 0 {
		// A batch as large as a real import's has its records prepared
		// ahead of the inserts (store.index).
		for n := 10; n < 40; n++ {
			batch.Messages = append(batch.Messages, record.Message{ID: id(n), From: from, To: []string{to},
				Subject: "bulk " + h.pick(words), Body: "**" + h.pick(words) + "** " + h.pick(words), Created: created})
		}
	}
	rs := []record.Reservation{{ID: id(3), Agent: from, Pattern: h.pick([]string{"src/**", "docs/x.md"}), Exclusive: true,
		Created: created, Expires: created.Add(2 * time.Hour)}}
	mb, res := h.mailbox(""), h.leasesOf("") // opened before the update: Open catches up
	err := h.st.Update(ctx, func(tx *store.Tx) error {
		if _, _, err := mb.Import(ctx, tx, batch); err != nil {
			return err
		}
		if _, _, err := res.Import(ctx, tx, rs); err != nil {
			return err
		}
		tx.Describe("agentmail", "import: test")
		return nil
	})
	h.check("import", err)
	if err == nil && !slices.Contains(h.agents[h.proj.Key], to) {
		h.agents[h.proj.Key] = append(h.agents[h.proj.Key], to)
	}
}

// task makes one change of the project's tasks: a task or an epic made
// (under an epic, after other tasks, at times), updated, claimed (or
// started, or taken over), unclaimed, closed (an epic closes its
// children), reopened, a dependency added (a cycle is refused) or removed.
func (h *history) task() {
	ctx := context.Background()
	ts := tasks.New(h.st, h.proj.Slug, tpick(h, h.agents[h.proj.Key]))
	known := h.tasks[h.proj.Key]
	some := func() string { return tpick(h, known) }
	if len(known) < 3 || h.trng.IntN(5) == 0 {
		d := tasks.Draft{Title: tpick(h, words) + " " + tpick(h, words), Description: "*" + tpick(h, words) + "*", Type: tpick(h, tasks.Types),
			Labels: []string{tpick(h, []string{"api", "ui"})}, Paths: []string{tpick(h, patterns)}}
		p := h.trng.IntN(5)
		d.Priority = &p
		if len(known) > 0 && h.trng.IntN(2) == 0 {
			d.Deps = []string{some()}
		}
		if len(known) > 0 && h.trng.IntN(3) == 0 {
			d.Parent = some()
		}
		t, err := ts.Create(ctx, d)
		h.check("task create", err)
		if err == nil {
			h.tasks[h.proj.Key] = append(known, t.ID)
		}
		return
	}
	all, err := tasks.New(h.st, h.proj.Slug, "").List(ctx, tasks.Filter{All: true})
	if err != nil {
		h.t.Fatal(err)
	}
	var claimed, closed, depending []tasks.Task
	for _, t := range all {
		switch {
		case t.Claim != "":
			claimed = append(claimed, t)
		case t.Status == tasks.Closed:
			closed = append(closed, t)
		}
		if len(t.Deps) > 0 {
			depending = append(depending, t)
		}
	}
	one := func(list []tasks.Task) (tasks.Task, bool) {
		if len(list) == 0 {
			return tasks.Task{}, false
		}
		return list[h.trng.IntN(len(list))], true
	}
	op := tpick(h, []string{"task update", "task claim", "task claim", "task unclaim", "task close", "task reopen", "task dep add", "task dep rm"})
	switch op {
	case "task update":
		title, p := tpick(h, words)+" again", h.trng.IntN(5)
		_, err = ts.Update(ctx, some(), tasks.Change{Title: &title, Priority: &p})
	case "task claim":
		_, _, err = ts.Claim(ctx, some(), tasks.ClaimOptions{Start: h.trng.IntN(2) == 0, Force: h.trng.IntN(4) == 0, Reason: "silent"})
		if errors.Is(err, tasks.ErrClaimed) {
			err = nil
		}
	case "task unclaim":
		t, ok := one(claimed)
		if !ok {
			return
		}
		_, err = tasks.New(h.st, h.proj.Slug, t.Claim).Unclaim(ctx, t.ID, nil)
	case "task close":
		_, err = ts.Close(ctx, some(), tpick(h, words), nil)
	case "task reopen":
		t, ok := one(closed)
		if !ok {
			return
		}
		_, err = ts.Reopen(ctx, t.ID)
	case "task dep add":
		_, err = ts.AddDep(ctx, some(), some())
		if errors.Is(err, tasks.ErrCycle) {
			err = nil
		}
	case "task dep rm":
		t, ok := one(depending)
		if !ok {
			return
		}
		_, err = ts.RemoveDep(ctx, t.ID, tpick(h, t.Deps))
	}
	h.check(op, err)
}

// attention is one change of what steers an agent: a channel followed or
// left, a state said, a pause, resume or interrupt by another agent or the
// human overseer, or the project's rules or a role's playbook set.
func (h *history) attention() {
	ctx := context.Background()
	names := h.agents[h.proj.Key]
	pick := func(list []string) string { return list[h.arng.IntN(len(list))] }
	me := pick(names)
	switch h.arng.IntN(5) {
	case 4:
		_, err := h.mailbox(pick(append([]string{mailbox.HumanSender}, names...))).SetRules(ctx, pick([]string{"", "reviewer", "backend"}), pick(words))
		h.check("rules set", err)
	case 0:
		on := h.arng.IntN(3) > 0
		_, _, err := h.mailbox(me).Subscribe(ctx, pick(topics), on)
		h.check(map[bool]string{true: "subscribe", false: "unsubscribe"}[on], err)
	case 1:
		_, err := h.mailbox(me).SetState(ctx, pick(record.AgentStates), pick(words))
		h.check("state", err)
	default:
		by := pick(append([]string{mailbox.HumanSender}, names...))
		action := pick([]string{mailbox.ControlPause, mailbox.ControlResume, mailbox.ControlInterrupt})
		_, err := h.mailbox(by).Control(ctx, pick(names), action, pick(words))
		h.check("control "+action, err)
	}
}

func tpick(h *history, list []string) string { return list[h.trng.IntN(len(list))] }
