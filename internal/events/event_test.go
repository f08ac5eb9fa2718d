package events

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/service"
)

const slug = "shop-01234567"

// commitRecords commits the records' files on the project's branch of arc
// after parent ("" for its first commit) and returns the commit.
// flatReservation is a reservation where releases before
// record.ReservationFile's layout wrote it.
type flatReservation struct{ *record.Reservation }

func (r flatReservation) Files() []record.File {
	f := r.Reservation.Files()[0]
	return []record.File{{Path: record.ProjectDir(r.Project) + "/" + record.LegacyReservationFile(r.ID), Data: f.Data}}
}

func commitRecords(t testing.TB, arc *archive.Archive, parent string, recs ...record.Record) string {
	t.Helper()
	var files []record.File
	for _, r := range recs {
		files = append(files, r.Files()...)
	}
	return commitFiles(t, arc, parent, files)
}

// reservationVersions is a reservation taken at t0, renewed, and released.
func reservationVersions(t0 time.Time) (taken, renewed, released *record.Reservation) {
	taken = &record.Reservation{Project: slug, ID: "01KAQ0000000000000000000RS", Agent: "GreenCastle", Pattern: "src/**",
		Exclusive: true, Created: t0, Expires: t0.Add(time.Hour)}
	r := *taken
	r.Expires = t0.Add(2 * time.Hour)
	rel := r
	rel.Released = t0.Add(time.Minute)
	return taken, &r, &rel
}

func newArchive(t testing.TB) *archive.Archive {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "archive.git")
	if err := archive.Init(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	arc, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { arc.Close() })
	return arc
}

// Each file of the archive's layout is classified into its events, given
// what the file held before.
func TestFileEvents(t *testing.T) {
	arc := newArchive(t)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	msg := &record.Message{Project: slug, ID: "01KAQ0000000000000000000AB", From: "GreenCastle", To: []string{"BlueLake"},
		Cc: []string{"RedFox", "BlueLake"}, Bcc: []string{"QuietOwl"}, Subject: "Plan", Importance: "high", Created: t0, Body: "x"}
	msgFiles := msg.Files() // canonical, outbox, inbox copies
	res, renewed, released := reservationVersions(t0)
	lock := &record.Lock{Project: slug, Key: "deploy/staging", Holder: "GreenCastle", Created: t0, Expires: t0.Add(5 * time.Minute)}
	lockRenewed := *lock
	lockRenewed.Expires = t0.Add(10 * time.Minute)
	lockReleased := *lock
	lockReleased.Released = t0.Add(time.Minute)
	lockRetaken := lockReleased
	lockRetaken.Released, lockRetaken.Created = time.Time{}, t0.Add(2*time.Minute)
	lockOther := *lock
	lockOther.Holder, lockOther.Created = "BlueLake", t0.Add(6*time.Minute)
	read := &record.Receipt{Project: slug, Message: msg.ID, Agent: "BlueLake", ReadAt: t0}
	acked := *read
	acked.AckedAt = t0.Add(time.Minute)
	asked := &record.Contact{Project: slug, From: "RedFox", To: "BlueLake", State: "requested", Requested: t0}
	approved := *asked
	approved.State, approved.Decided = "approved", t0.Add(time.Minute)
	agent := &record.Agent{Project: slug, Name: "BlueLake", Program: "codex", Registered: t0, Updated: t0}
	retired := *agent
	retired.Retired, retired.Updated = true, t0.Add(time.Minute)
	proj := &record.Project{Key: "github.com/acme/shop", Slug: slug, Created: t0}
	moved := *res
	moved.ID = "01KAQ0000000000000000000RT"
	movedReleased := moved
	movedReleased.ID = "01KAQ0000000000000000000RV"
	flatReleased := movedReleased
	movedReleased.Released = t0.Add(time.Minute)

	file := func(r record.Record) record.File { return r.Files()[0] }
	head := "" // of the branch the cases write what their files held before
	for _, tc := range []struct {
		name string
		prev record.Record // what the file held before; nil: nothing
		file record.File
		want []string // "type agent state"
	}{
		{"message: one event per recipient", nil, msgFiles[0], []string{"message BlueLake", "message RedFox", "message QuietOwl"}},
		{"outbox copy", nil, msgFiles[1], nil},
		{"inbox copy", nil, msgFiles[2], nil},
		{"receipt read", nil, file(read), []string{"receipt BlueLake read"}},
		{"receipt acked", read, file(&acked), []string{"receipt BlueLake acked"}},
		{"reservation new", nil, file(res), []string{"reservation GreenCastle taken"}},
		{"reservation rewritten", res, file(renewed), []string{"reservation GreenCastle renewed"}},
		{"reservation released", renewed, file(released), []string{"reservation GreenCastle released"}},
		{"lock new", nil, file(lock), []string{"lock GreenCastle taken"}},
		{"lock extended", lock, file(&lockRenewed), []string{"lock GreenCastle renewed"}},
		{"lock released", lock, file(&lockReleased), []string{"lock GreenCastle released"}},
		{"lock taken again after release", &lockReleased, file(&lockRetaken), []string{"lock GreenCastle taken"}},
		{"lock taken by another after expiry", lock, file(&lockOther), []string{"lock BlueLake taken"}},
		{"contact request", nil, file(asked), []string{"contact BlueLake requested"}},
		{"contact approved", asked, file(&approved), []string{"contact BlueLake approved"}},
		{"agent registered", nil, file(agent), []string{"agent BlueLake registered"}},
		{"agent updated", agent, file(&retired), []string{"agent BlueLake updated"}},
		{"project", nil, file(proj), nil},
		{"reservation at the flat path of an earlier release", nil, flatReservation{res}.Files()[0], []string{"reservation GreenCastle taken"}},
		{"reservation moved to its place", flatReservation{&moved}, file(&moved), nil},
		{"reservation moved, released meanwhile", flatReservation{&flatReleased}, file(&movedReleased), []string{"reservation GreenCastle released"}},
		{"malformed reservation", nil, record.File{Path: "projects/" + slug + "/reservations/x.json", Data: []byte("{")}, nil},
		{"unknown file", nil, record.File{Path: "projects/" + slug + "/notes/x.txt", Data: []byte("x")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := ""
			if tc.prev != nil {
				prev = commitRecords(t, arc, head, tc.prev)
				head = prev
			}
			rel := record.File{Path: strings.TrimPrefix(tc.file.Path, record.ProjectDir(slug)+"/"), Data: tc.file.Data}
			var c archive.CommitInfo
			if prev != "" {
				c.Parents = []string{prev}
			}
			evs, err := fileEvents(slug, rel, parentFiles(arc, c), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				got = append(got, strings.TrimSpace(e.Type+" "+e.Agent+" "+e.State))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

// A message event shows the message as its recipient sees it: a bcc
// recipient finds only itself under bcc, the others nobody.
func TestMessageEventsBcc(t *testing.T) {
	m := &record.Message{Project: slug, ID: "01KAQ0000000000000000000AB", From: "GreenCastle", To: []string{"BlueLake"},
		Bcc: []string{"QuietOwl", "RedFox"}, Subject: "Plan", Importance: "normal", Created: time.Now()}
	for _, e := range messageEvents(m) {
		want := []string{}
		if e.Agent != "BlueLake" {
			want = []string{e.Agent}
		}
		if !slices.Equal(e.Message.Bcc, want) || e.Message.ID != m.ID || e.Message.Path != m.Path() {
			t.Errorf("%s sees %+v", e.Agent, e.Message)
		}
	}
}

// A commit's events are numbered in its id, and carry its time.
func TestCommitEventsIDs(t *testing.T) {
	arc := newArchive(t)
	m := &record.Message{Project: slug, ID: "01KAQ0000000000000000000AB", From: "GreenCastle", To: []string{"BlueLake", "RedFox"},
		Subject: "Plan", Importance: "normal", Created: time.Now()}
	h := commitRecords(t, arc, "", m)
	c, err := arc.ReadCommit(h)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := commitEvents(arc, slug, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].ID != h+":0" || evs[1].ID != h+":1" || evs[1].Commit != h ||
		evs[0].Time != record.FormatTime(c.Time) || evs[0].Project != slug {
		t.Fatalf("events %+v", evs)
	}
	for _, id := range []string{evs[1].ID, strings.ToUpper(h) + ":1"} {
		if pos, err := parseID(id); err != nil || pos != (position{h, 1}) {
			t.Errorf("parseID(%q) = %v, %v", id, pos, err)
		}
	}
	// A commit alone (what a page names: the head it was made at) stands
	// after all of that commit's events.
	if pos, err := parseID(h); err != nil || pos.commit != h || pos.n < len(evs) {
		t.Errorf("parseID(%q) = %v, %v", h, pos, err)
	}
	for _, id := range []string{"", h + ":", h + ":-1", h[:39] + ":0", h[:39] + "g:0", h[:39], "x:1"} {
		if _, err := parseID(id); err == nil {
			t.Errorf("parseID(%q) accepted", id)
		}
	}
}

// A poll with nothing new: the branches are read, nothing else.
func BenchmarkPollIdle(b *testing.B) {
	f := newFixture(b, "GreenCastle", "BlueLake")
	f.send("GreenCastle", []string{"BlueLake"}, "hello")
	arc, err := f.svc.ArchivePath(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	feed, err := NewFeed(arc.Path, Options{Poll: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer feed.Close()
	for b.Loop() {
		if err := feed.poll(); err != nil {
			b.Fatal(err)
		}
	}
}

// Classifying the commit of one new message, in a day of 500: read back
// from its trees (another process's commit), or from the files written
// (this process's, see Feed.Written).
func BenchmarkMessageCommitEvents(b *testing.B) {
	arc, c, _ := dayOf500(b)
	for b.Loop() {
		evs, err := commitEvents(arc, slug, c)
		if err != nil || len(evs) != 1 {
			b.Fatal(evs, err)
		}
	}
}

func BenchmarkMessageWrittenEvents(b *testing.B) {
	arc, c, files := dayOf500(b)
	for b.Loop() {
		evs, err := writtenEvents(arc, slug, c, ownFiles(slug, files))
		if err != nil || len(evs) != 1 {
			b.Fatal(evs, err)
		}
	}
}

// dayOf500 is an archive with a day of 500 messages, then the commit of
// one more and the files it wrote.
func dayOf500(b *testing.B) (*archive.Archive, archive.CommitInfo, []record.File) {
	arc := newArchive(b)
	day := make([]record.Record, 501)
	for i := range day {
		day[i] = &record.Message{Project: slug, ID: fmt.Sprintf("01KAQ00000000000000000%04d", i),
			From: "GreenCastle", To: []string{"BlueLake"}, Subject: fmt.Sprint("Message ", i), Importance: "normal",
			Created: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Body: "body"}
	}
	head := commitRecords(b, arc, commitRecords(b, arc, "", day[:500]...), day[500])
	c, err := arc.ReadCommit(head)
	if err != nil {
		b.Fatal(err)
	}
	return arc, c, day[500].Files()
}

// The events of a commit made from the files it wrote (writtenEvents, for
// this process's own writes) are those its trees give (commitEvents): the
// same ids, order and data, through copies, a path written twice, a
// record written again unchanged and a malformed file.
func TestWrittenEventsAsCommitEvents(t *testing.T) {
	arc := newArchive(t)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	msg := &record.Message{Project: slug, ID: "01KAQ0000000000000000000AB", From: "GreenCastle", To: []string{"BlueLake"},
		Cc: []string{"RedFox"}, Bcc: []string{"QuietOwl"}, Subject: "Plan", Importance: "high", Created: t0, Body: "x"}
	reply := &record.Message{Project: slug, ID: "01KAQ0000000000000000000AC", From: "BlueLake", To: []string{"GreenCastle"},
		Subject: "Re: Plan", Importance: "normal", ReplyTo: msg.ID, Created: t0, Body: "y"}
	res, renewed, released := reservationVersions(t0)
	lock := &record.Lock{Project: slug, Key: "deploy/staging", Holder: "GreenCastle", Created: t0, Expires: t0.Add(5 * time.Minute)}
	read := &record.Receipt{Project: slug, Message: msg.ID, Agent: "BlueLake", ReadAt: t0}
	acked := *read
	acked.AckedAt = t0.Add(time.Minute)
	asked := &record.Contact{Project: slug, From: "RedFox", To: "BlueLake", State: "requested", Requested: t0}
	agent := &record.Agent{Project: slug, Name: "BlueLake", Program: "codex", Registered: t0, Updated: t0}
	updated := *agent
	updated.Task, updated.Updated = "review", t0.Add(time.Minute)
	malformed := record.File{Path: record.ProjectDir(slug) + "/reservations/bad.json", Data: []byte("{")}
	project := &record.Project{Key: "github.com/acme/shop", Slug: slug, Created: t0}
	title := "Schema"
	const task = "01KAQ0000000000000000000T0"
	created := &record.TaskOp{Project: slug, Task: task, ID: task, Op: record.TaskCreate, By: "GreenCastle", At: t0, Title: &title}
	claimed := &record.TaskOp{Project: slug, Task: task, ID: "01KAQ0000000000000000000T1", Op: record.TaskClaim, By: "BlueLake", At: t0, Agent: "BlueLake"}
	started := &record.TaskOp{Project: slug, Task: task, ID: "01KAQ0000000000000000000T2", Op: record.TaskStatus, By: "BlueLake", At: t0, Status: "in_progress"}
	moot := &record.TaskOp{Project: slug, Task: task, ID: "01KAQ0000000000000000000T3", Op: record.TaskClaim, By: "RedFox", At: t0, Agent: "RedFox"}

	files := func(recs ...record.Record) []record.File {
		var out []record.File
		for _, r := range recs {
			out = append(out, r.Files()...)
		}
		return out
	}
	head := commitRecords(t, arc, "", project)
	for _, tc := range []struct {
		name  string
		files []record.File
		want  int // events
	}{
		{"a message with its copies, a profile", files(agent, msg), 4},
		{"a receipt, a reservation, a lock, a contact", files(read, res, lock, asked), 4},
		{"a path twice: the last counts", files(&updated, read, &acked, reply, renewed), 4},
		{"a record written again unchanged", files(renewed), 0},
		{"unchanged beside changed", files(lock, released), 1},
		{"a malformed file", []record.File{malformed}, 0},
		{"a task created", files(created), 1},
		{"a task claimed and started in one commit", files(claimed, started), 2},
		{"a claim another's claim makes moot", files(moot), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head = commitFiles(t, arc, head, tc.files)
			c, err := arc.ReadCommit(head)
			if err != nil {
				t.Fatal(err)
			}
			want, err := commitEvents(arc, slug, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := writtenEvents(arc, slug, c, ownFiles(slug, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != tc.want {
				t.Errorf("%d events from the trees, want %d", len(want), tc.want)
			}
			if g, w := eventsJSON(t, got), eventsJSON(t, want); g != w {
				t.Errorf("from the files written:\n%s\nfrom the trees:\n%s", g, w)
			}
		})
	}
}

// commitFiles commits files on the project's branch of arc after parent
// ("" for its first commit) and returns the commit.
func commitFiles(t testing.TB, arc *archive.Archive, parent string, files []record.File) string {
	t.Helper()
	var changes []archive.Change
	for _, f := range files {
		changes = append(changes, archive.Change{Path: f.Path, Data: f.Data})
	}
	state := ""
	if parent != "" {
		state = slug + ":" + parent
	}
	res, err := arc.CommitProjects(state, changes, archive.Author{Name: "test", Email: "test@agentmail", When: time.Now()}, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := archive.ParseState(res.Head)
	if err != nil {
		t.Fatal(err)
	}
	return s[slug]
}

// eventsJSON is each event's id and data, one a line.
func eventsJSON(t testing.TB, evs []Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", e.ID, data)
	}
	return b.String()
}

// TestWebhooksKnowEveryType: a webhook may ask for every type of event the
// stream carries, and for nothing else (the webhooks package cannot import
// this one, so the list is kept twice and held equal here).
func TestWebhooksKnowEveryType(t *testing.T) {
	for _, ty := range Types {
		if !slices.Contains(service.WebhookEvents, ty) {
			t.Errorf("webhooks cannot ask for %s events", ty)
		}
	}
	if len(Types) != len(service.WebhookEvents) {
		t.Errorf("event types %v, webhook events %v", Types, service.WebhookEvents)
	}
}
