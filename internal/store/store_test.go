package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/flock"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/mattn/go-sqlite3"
	"github.com/oklog/ulid/v2"
)

const slug = "backend-3fa1c2d9"

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func clock() time.Time { return t0 }

func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{Now: clock, LockWait: 5 * time.Second, Projections: testProjections})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newID(t time.Time, n int) string {
	var entropy [10]byte
	entropy[8], entropy[9] = byte(n>>8), byte(n)
	return ulid.MustNew(ulid.Timestamp(t), strings.NewReader(string(entropy[:]))).String()
}

func project(s string) *record.Project {
	return &record.Project{Key: "github.com/org/" + s, Slug: s, Created: t0}
}

func agent(name string) *record.Agent {
	return &record.Agent{Project: slug, Name: name, Program: "claude-code", Model: "opus", Task: "task of " + name, Registered: t0}
}

func message(n int) *record.Message {
	created := t0.Add(time.Duration(n) * time.Minute)
	return &record.Message{
		Project: slug, ID: newID(created, n), From: "GreenCastle",
		To: []string{"BlueLake"}, Cc: []string{"RedCat"}, Bcc: []string{"QuietOwl"},
		Subject: fmt.Sprintf("message %d", n), Importance: "normal", Created: created,
		Body: fmt.Sprintf("body %d\n---\nwith a fence\n", n),
	}
}

// setup registers the project and its agents in one update.
func setup(t *testing.T, s *Store) {
	t.Helper()
	put(t, s, "agent: register", project(slug), agent("GreenCastle"), agent("BlueLake"), agent("RedCat"), agent("QuietOwl"))
}

func put(t *testing.T, s *Store, subject string, recs ...record.Record) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *Tx) error {
		tx.Put(recs...)
		tx.Describe("GreenCastle", subject)
		return nil
	})
	if err != nil {
		t.Fatalf("Update(%s): %v", subject, err)
	}
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// branch is the test project's branch in the archive.
var branch = archive.ProjectRef(slug)

// archiveHead returns the archive's state: the test project's branch.
func archiveHead(t *testing.T, s *Store) string {
	t.Helper()
	return slug + ":" + runGit(t, s.ArchiveDir(), "rev-parse", branch)
}

func indexHead(t *testing.T, db *sql.DB) string {
	t.Helper()
	var h string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'head'`).Scan(&h); err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return h
}

func commitCount(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	fmt.Sscan(runGit(t, s.ArchiveDir(), "rev-list", "--count", branch), &n)
	return n
}

// dumpQueries read every table of the index with project ids replaced by
// slugs, in a stable order.
var dumpQueries = map[string]string{
	"projects": `SELECT key, slug, created FROM projects ORDER BY slug`,
	"agents": `SELECT p.slug, a.fold, a.name, a.program, a.model, a.task, a.registered, a.updated
		FROM agents a LEFT JOIN projects p ON p.id = a.project_id ORDER BY 1, 2`,
	"messages": `SELECT m.id, p.slug, m.thread, m.named_thread, m.sender, m.to_list, m.cc_list, m.bcc_list,
		m.subject, m.importance, m.ack_required, m.category, m.reply_to, m.created, m.path, m.body
		FROM messages m LEFT JOIN projects p ON p.id = m.project_id ORDER BY m.id`,
	"recipients": `SELECT p.slug, r.agent, r.message_id, r.kind, IFNULL(r.read_at, '-'), IFNULL(r.acked_at, '-')
		FROM recipients r LEFT JOIN projects p ON p.id = r.project_id ORDER BY 1, 2, 3`,
	"presence": `SELECT slug, fold, last_seen FROM presence ORDER BY 1, 2`,
}

func dump(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(dumpQueries[table])
	if err != nil {
		t.Fatalf("dump %s: %v", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var fields []string
		for _, v := range vals {
			fields = append(fields, v.String)
		}
		out = append(out, strings.Join(fields, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func dumpAll(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	all := map[string][]string{}
	for table := range dumpQueries {
		all[table] = dump(t, db, table)
	}
	return all
}

func fresh(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Fresh(context.Background()); err != nil {
		t.Fatalf("Fresh: %v", err)
	}
}

func setPresence(t *testing.T, s *Store, projectSlug, fold, when string) {
	t.Helper()
	_, err := s.db.Exec(`INSERT INTO presence(slug, fold, last_seen) VALUES (?, ?, ?)`, projectSlug, fold, when)
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "store")
	s := openStore(t, dir)
	if n := s.Notes(); len(n) != 0 {
		t.Errorf("a brand-new store has notes: %q", n)
	}
	if s.Dir() != dir || s.ArchiveDir() != filepath.Join(dir, "archive.git") {
		t.Errorf("Dir, ArchiveDir = %q, %q", s.Dir(), s.ArchiveDir())
	}
	if !archive.Exists(s.ArchiveDir()) {
		t.Fatal("no archive")
	}
	if _, err := os.Stat(filepath.Join(dir, "index.db")); err != nil {
		t.Fatalf("no index: %v", err)
	}
	runGit(t, s.ArchiveDir(), "fsck", "--strict")
	// No history yet: Init's main branch went without a LegacyRef, which
	// only a store that really was migrated has.
	if refs := runGit(t, s.ArchiveDir(), "for-each-ref", "--format=%(refname)"); refs != "" {
		t.Errorf("new archive's refs: %q, want none (no project yet, nothing migrated)", refs)
	}
	fresh(t, s)
	if h := indexHead(t, s.db); h != "" {
		t.Errorf("index head %q after Fresh of an archive with no project, want \"\"", h)
	}
	if got, want := s.Now(), t0; !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Now() = %v", got)
	}
	setup(t, s)
	h := archiveHead(t, s)
	before := dumpAll(t, s.db)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := openStore(t, dir)
	if n := s2.Notes(); len(n) != 0 {
		t.Errorf("reopening a healthy store gives notes: %q", n)
	}
	fresh(t, s2)
	if got := archiveHead(t, s2); got != h {
		t.Errorf("reopen moved the archive from %s to %s", h, got)
	}
	if got := dumpAll(t, s2.db); !reflect.DeepEqual(got, before) {
		t.Errorf("reopened index:\n%v\nwant\n%v", got, before)
	}
}

// A store whose path holds characters of SQLite's URI syntax keeps its
// index inside it, and opens again, read-write and read-only.
func TestOpenOddPath(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "run #1?x=%41", "store")
	s := openStore(t, dir)
	setup(t, s)
	before := dumpAll(t, s.db)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.db")); err != nil {
		t.Fatalf("no index in the store: %v", err)
	}
	if stray, _ := filepath.Glob(filepath.Join(parent, "run *")); len(stray) != 1 {
		t.Errorf("files beside the store's directory: %q", stray)
	}
	s2 := openStore(t, dir)
	fresh(t, s2)
	if got := dumpAll(t, s2.db); !reflect.DeepEqual(got, before) {
		t.Errorf("reopened index:\n%v\nwant\n%v", got, before)
	}
}

func TestOpenNotWritable(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(parent, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(parent, "store"), Options{}); !errors.Is(err, ErrNotWritable) {
		t.Errorf("Open below a regular file: %v, want ErrNotWritable", err)
	}
}

// A new archive is as readable as the store directory it is made in (a
// reader without write access answers from it), not private to its creator.
func TestOpenArchiveReadableAsStore(t *testing.T) {
	for _, perm := range []os.FileMode{0o755, 0o750, 0o700} {
		dir := filepath.Join(t.TempDir(), "store")
		if err := os.Mkdir(dir, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, perm); err != nil { // whatever the umask
			t.Fatal(err)
		}
		s := openStore(t, dir)
		fi, err := os.Stat(s.ArchiveDir())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm {
			t.Errorf("store %v: archive %v, want %v", perm, fi.Mode().Perm(), perm)
		}
	}
}

func TestUpdateCommitsAndIndexes(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	m := message(1)
	base := runGit(t, s.ArchiveDir(), "rev-parse", branch)
	put(t, s, "mail: GreenCastle -> BlueLake, RedCat | message 1", m)

	// One commit, on the previous head, by the described author.
	if got := runGit(t, s.ArchiveDir(), "log", "--format=%P|%an <%ae>|%at|%s", "-1", branch); got != fmt.Sprintf("%s|GreenCastle <greencastle@agentmail>|%d|mail: GreenCastle -> BlueLake, RedCat | message 1", base, t0.Unix()) {
		t.Errorf("commit = %q", got)
	}
	if n := commitCount(t, s); n != 2 {
		t.Errorf("%d commits, want 2 (setup, message)", n)
	}
	// Every file of the record is in the project's branch, rooted at the
	// project's directory, byte for byte.
	for _, f := range m.Files() {
		rel := strings.TrimPrefix(f.Path, "projects/"+slug+"/")
		if got := runGit(t, s.ArchiveDir(), "cat-file", "-p", branch+":"+rel); got != strings.TrimSpace(string(f.Data)) {
			t.Errorf("archive %s = %q, want %q", f.Path, got, f.Data)
		}
	}
	if indexHead(t, s.db) != archiveHead(t, s) {
		t.Error("index head is not the archive head")
	}

	want := map[string][]string{
		"projects": {"github.com/org/backend-3fa1c2d9|backend-3fa1c2d9|2026-11-22T09:00:00Z"},
		"agents": {
			slug + "|bluelake|BlueLake|claude-code|opus|task of BlueLake|2026-11-22T09:00:00Z|",
			slug + "|greencastle|GreenCastle|claude-code|opus|task of GreenCastle|2026-11-22T09:00:00Z|",
			slug + "|quietowl|QuietOwl|claude-code|opus|task of QuietOwl|2026-11-22T09:00:00Z|",
			slug + "|redcat|RedCat|claude-code|opus|task of RedCat|2026-11-22T09:00:00Z|",
		},
		"messages": {m.ID + "|" + slug + "|" + m.ID + "||GreenCastle|BlueLake|RedCat|QuietOwl|message 1|normal|0|||2026-11-22T09:01:00Z|" + m.Path() + "|" + m.Body},
		"recipients": {
			slug + "|BlueLake|" + m.ID + "|to|-|-",
			slug + "|QuietOwl|" + m.ID + "|bcc|-|-",
			slug + "|RedCat|" + m.ID + "|cc|-|-",
		},
		"presence": nil,
	}
	if got := dumpAll(t, s.db); !reflect.DeepEqual(got, want) {
		t.Errorf("index:\n%q\nwant\n%q", got, want)
	}

	// A receipt updates its recipient row.
	put(t, s, "ack: BlueLake", &record.Receipt{Project: slug, Message: m.ID, Agent: "BlueLake", ReadAt: t0, AckedAt: t0.Add(time.Second)})
	if got := dump(t, s.db, "recipients")[0]; got != slug+"|BlueLake|"+m.ID+"|to|2026-11-22T09:00:00Z|2026-11-22T09:00:01Z" {
		t.Errorf("after receipt: %q", got)
	}
	// Reads inside an update see what earlier updates wrote.
	err := s.Update(context.Background(), func(tx *Tx) error {
		var n int
		if err := tx.sql.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 1 {
			return fmt.Errorf("messages in tx: %d, %v", n, err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	boom := errors.New("boom")
	tests := []struct {
		name string
		fn   func(tx *Tx) error
	}{
		{"error after put", func(tx *Tx) error { tx.Put(message(1)); return boom }},
		{"error after put and sql", func(tx *Tx) error {
			tx.Put(message(2), agent("NewAgent"))
			if _, err := tx.sql.Exec(`INSERT INTO presence(slug, fold, last_seen) VALUES ('x', 'x', 'y')`); err != nil {
				return err
			}
			if _, err := tx.sql.Exec(`UPDATE agents SET task = 'changed'`); err != nil {
				return err
			}
			return fmt.Errorf("wrapped: %w", boom)
		}},
		{"error without put", func(tx *Tx) error { return boom }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, packs := archiveHead(t, s), s.arc.Packs()
			before := dumpAll(t, s.db)
			if err := s.Update(context.Background(), tt.fn); !errors.Is(err, boom) {
				t.Fatalf("Update = %v, want the function's error", err)
			}
			if got := archiveHead(t, s); got != head {
				t.Errorf("archive moved from %s to %s", head, got)
			}
			if got := s.arc.Packs(); got != packs {
				t.Errorf("%d packs, was %d: objects were written", got, packs)
			}
			if got := dumpAll(t, s.db); !reflect.DeepEqual(got, before) {
				t.Errorf("index changed:\n%v\nwant\n%v", got, before)
			}
			if indexHead(t, s.db) != head {
				t.Error("index head moved")
			}
		})
	}
}

// TestOnAbort: what a caller registers runs when the update writes
// nothing, and only then.
func TestOnAbort(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		fail  error
		put   bool
		undid bool
	}{
		{"committed", nil, true, false},
		{"nothing to commit", nil, false, false},
		{"failed", boom, true, true},
	} {
		undid := false
		err := s.Update(context.Background(), func(tx *Tx) error {
			tx.OnAbort(func() { undid = true })
			if tt.put {
				tx.Put(agent("Agent" + tt.name))
			}
			return tt.fail
		})
		if !errors.Is(err, tt.fail) || undid != tt.undid {
			t.Errorf("%s: Update = %v, undone %v; want %v, %v", tt.name, err, undid, tt.fail, tt.undid)
		}
	}
}

func TestUpdateWithoutPut(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	head, n := archiveHead(t, s), commitCount(t, s)
	err := s.Update(context.Background(), func(tx *Tx) error {
		tx.Describe("GreenCastle", "nothing")
		_, err := tx.sql.Exec(`INSERT INTO presence(slug, fold, last_seen) VALUES ((SELECT slug FROM projects), 'greencastle', '2026-11-22T10:00:00Z')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if archiveHead(t, s) != head || commitCount(t, s) != n {
		t.Error("an update without records made a commit")
	}
	if got := dump(t, s.db, "presence"); !reflect.DeepEqual(got, []string{slug + "|greencastle|2026-11-22T10:00:00Z"}) {
		t.Errorf("presence = %q; the update's SQL was not committed", got)
	}
}

// externalCommit writes records straight into the archive, as a process
// killed between its archive commit and its index commit leaves them.
func externalCommit(t *testing.T, dir string, recs ...record.Record) string {
	t.Helper()
	a, err := archive.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	var changes []archive.Change
	for _, r := range recs {
		for _, f := range r.Files() {
			changes = append(changes, archive.Change{Path: f.Path, Data: f.Data})
		}
	}
	res, err := a.CommitProjects(h.String(), changes, archive.Author{Name: "Crashed", Email: "crashed@agentmail", When: t0}, "crashed write", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Head
}

func TestCatchUpNextProcess(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	s.Close()

	m1, m2 := message(1), message(2)
	rcpt := &record.Receipt{Project: slug, Message: m1.ID, Agent: "RedCat", ReadAt: t0}
	h := externalCommit(t, filepath.Join(dir, "archive.git"), m1, m2, rcpt)

	s2 := openStore(t, dir)
	if indexHead(t, s2.db) == h {
		t.Fatal("index already at the external commit")
	}
	fresh(t, s2)
	if got := indexHead(t, s2.db); got != h {
		t.Errorf("index head %s, want %s", got, h)
	}
	if got := dump(t, s2.db, "messages"); len(got) != 2 {
		t.Errorf("messages after catch-up: %q", got)
	}
	if got := dump(t, s2.db, "recipients"); len(got) != 6 || got[4] != slug+"|RedCat|"+m1.ID+"|cc|2026-11-22T09:00:00Z|-" {
		t.Errorf("recipients after catch-up: %q", got)
	}
	// The caught-up index is the one a rebuild gives.
	if problems, err := s2.Check(context.Background()); err != nil || len(problems) != 0 {
		t.Errorf("Check after catch-up: %q, %v", problems, err)
	}

	// The next write builds on the external commit: nothing is lost.
	put(t, s2, "after", message(3))
	if got := slug + ":" + runGit(t, s2.ArchiveDir(), "rev-parse", branch+"^"); got != h {
		t.Errorf("new commit's parent is %s, want the external commit %s", got, h)
	}
	if got := dump(t, s2.db, "messages"); len(got) != 3 {
		t.Errorf("messages: %d, want 3", len(got))
	}
}

// TestSnapshot checks that the statements of a Snapshot all see the index
// as it was at the first, while another process writes.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	put(t, s, "one", message(1))
	other := openStore(t, dir) // as another process would
	count := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) int {
		t.Helper()
		var n int
		if err := q.QueryRowContext(context.Background(), `SELECT count(*) FROM messages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	err := s.Snapshot(context.Background(), func(conn Querier) error {
		before := count(conn)
		put(t, other, "two", message(2))
		if after := count(conn); after != before {
			t.Errorf("inside a snapshot, %d messages, then %d after another process wrote", before, after)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(s.db); n != 2 {
		t.Errorf("after the snapshot: %d messages, want 2", n)
	}
}

func TestCatchUpSkipsMalformed(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	s.Close()
	a, _ := archive.Open(filepath.Join(dir, "archive.git"))
	h, _ := a.State()
	m := message(1)
	bad := "projects/" + slug + "/messages/2026/11/22/01JD0000000000000000000000-bad.md"
	changes := []archive.Change{{Path: bad, Data: []byte("no front matter")}}
	for _, f := range m.Files() {
		changes = append(changes, archive.Change{Path: f.Path, Data: f.Data})
	}
	res, err := a.CommitProjects(h.String(), changes, archive.Author{Name: "X", Email: "x@agentmail", When: t0}, "bad", nil)
	a.Close()
	if err != nil {
		t.Fatal(err)
	}

	s2 := openStore(t, dir)
	fresh(t, s2)
	if indexHead(t, s2.db) != res.Head {
		t.Error("index did not catch up")
	}
	if got := dump(t, s2.db, "messages"); len(got) != 1 || !strings.HasPrefix(got[0], m.ID) {
		t.Errorf("messages: %q", got)
	}
	notes := s2.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], bad) {
		t.Errorf("notes = %q, want one naming %s", notes, bad)
	}
	if n := s2.Notes(); len(n) != 0 {
		t.Errorf("Notes returned %q a second time", n)
	}
}

// TestCatchUpSameProcess: a long-lived Store (agentmail serve, a library
// user) that has read the archive must still heal when another process
// commits to the archive and dies before updating the index.
func TestCatchUpSameProcess(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	if problems, err := s.Check(context.Background()); err != nil || len(problems) != 0 {
		t.Fatalf("Check: %q, %v", problems, err)
	}
	for i := 1; i <= 2; i++ {
		h := externalCommit(t, s.ArchiveDir(), message(i))
		if err := s.Fresh(context.Background()); err != nil {
			t.Fatalf("Fresh after external commit %d: %v", i, err)
		}
		if indexHead(t, s.db) != h {
			t.Errorf("index not at external commit %d", i)
		}
	}
	if got := dump(t, s.db, "messages"); len(got) != 2 {
		t.Errorf("%d messages, want 2", len(got))
	}
}

func TestReindex(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	for i := 1; i <= 3; i++ {
		put(t, s, fmt.Sprint(i), message(i))
	}
	m2 := message(2)
	m2.Thread, m2.Category, m2.AckRequired, m2.ReplyTo = "auth", "HANDOFF", true, message(1).ID
	m2.ID = newID(m2.Created, 99)
	put(t, s, "threaded", m2)
	put(t, s, "receipts",
		&record.Receipt{Project: slug, Message: message(1).ID, Agent: "BlueLake", ReadAt: t0},
		&record.Receipt{Project: slug, Message: m2.ID, Agent: "QuietOwl", ReadAt: t0, AckedAt: t0.Add(time.Hour)})
	upd := agent("BlueLake")
	upd.Task, upd.Updated = "new task", t0.Add(time.Hour)
	put(t, s, "agent update", upd)
	setPresence(t, s, slug, "bluelake", "2026-11-22T12:00:00Z")

	before := dumpAll(t, s.db)
	beforeSchema := schemaOf(t, s.db)
	head := indexHead(t, s.db)
	st, err := s.Reindex(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 4 {
		t.Errorf("Reindex counted %d messages, want 4", st.Messages)
	}
	if got := dumpAll(t, s.db); !reflect.DeepEqual(got, before) {
		t.Errorf("rebuilt index:\n%q\nwant\n%q", got, before)
	}
	if indexHead(t, s.db) != head {
		t.Error("index head changed")
	}
	// The rebuild drops the derived tables' indexes and builds them again.
	if got := schemaOf(t, s.db); !reflect.DeepEqual(got, beforeSchema) {
		t.Errorf("schema after Reindex:\n%q\nwant\n%q", got, beforeSchema)
	}
	var want []string
	rows, err := s.db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN ('projects', 'agents', 'messages', 'recipients') ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	rows.Close()
	var dropped []string
	for _, tb := range s.proj.derived() {
		for _, ix := range tb.Indexes {
			dropped = append(dropped, indexName(ix))
		}
	}
	slices.Sort(dropped)
	if !slices.Equal(dropped, want) {
		t.Errorf("a rebuild drops and rebuilds the indexes %q, want all of the derived tables' %q", dropped, want)
	}
	if problems, err := s.Check(context.Background()); err != nil || len(problems) != 0 {
		t.Errorf("Check after Reindex: %q, %v", problems, err)
	}
}

// schemaOf lists the index's tables and indexes with their SQL.
// TestReindexProgress: the callback hears of each message as it is
// indexed, against the count the index held before, raised when the
// archive holds more.
func TestReindexProgress(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	for i := 1; i <= 3; i++ {
		put(t, s, fmt.Sprint(i), message(i))
	}
	// A fourth message the index has not caught up with yet.
	externalCommit(t, filepath.Join(dir, "archive.git"), message(4))
	type call struct{ done, total int }
	var calls []call
	st, err := s.ReindexWithProgress(context.Background(), func(done, total int) {
		calls = append(calls, call{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []call{{1, 3}, {2, 3}, {3, 3}, {4, 4}}
	if !reflect.DeepEqual(calls, want) || st.Messages != 4 {
		t.Errorf("progress calls %v (%d messages), want %v", calls, st.Messages, want)
	}
}

func schemaOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestReindexKeepsPresenceWithItsProject: a rebuild renumbers projects; it
// must not hand one project's presence to another.
func TestReindexKeepsPresenceWithItsProject(t *testing.T) {
	s := openStore(t, t.TempDir())
	// Created in the opposite of path order.
	put(t, s, "zeta", project("zeta-00000000"))
	put(t, s, "alpha", project("alpha-00000000"))
	setPresence(t, s, "zeta-00000000", "greencastle", "2026-11-22T10:00:00Z")
	setPresence(t, s, "alpha-00000000", "bluelake", "2026-11-22T11:00:00Z")
	before := dump(t, s.db, "presence")
	if _, err := s.Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, s.db, "presence"); !reflect.DeepEqual(got, before) {
		t.Errorf("presence after Reindex:\n%q\nwant\n%q", got, before)
	}
}

func TestOpenRepairsIndex(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(t *testing.T, path string)
		wantNote string
	}{
		{"garbage", func(t *testing.T, path string) {
			removeIndex(t, path)
			if err := os.WriteFile(path, []byte(strings.Repeat("this is not a database\n", 200)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "unreadable"},
		{"short garbage", func(t *testing.T, path string) {
			removeIndex(t, path)
			if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "unreadable"},
		{"missing", removeIndex, "missing"},
		// A closed index leaves its WAL behind, empty, so deleting
		// index.db alone still gives a clean rebuild.
		{"missing, its WAL kept", func(t *testing.T, path string) {
			if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
				t.Fatalf("WAL after close: %v, %v; want an empty file", fi, err)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "missing"},
		{"other layout", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
				t.Fatal(err)
			}
		}, "another version of agentmail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openStore(t, dir)
			setup(t, s)
			put(t, s, "m", message(1))
			want := dumpAll(t, s.db)
			s.Close()

			tt.damage(t, filepath.Join(dir, "index.db"))
			s2 := openStore(t, dir)
			notes := s2.Notes()
			if len(notes) != 1 || !strings.Contains(notes[0], tt.wantNote) {
				t.Errorf("notes = %q, want one mentioning %q", notes, tt.wantNote)
			}
			fresh(t, s2)
			if got := dumpAll(t, s2.db); !reflect.DeepEqual(got, want) {
				t.Errorf("rebuilt index:\n%q\nwant\n%q", got, want)
			}
			if indexHead(t, s2.db) != archiveHead(t, s2) {
				t.Error("rebuilt index is not at the archive head")
			}
			// Repaired once, quiet afterwards.
			s2.Close()
			s3 := openStore(t, dir)
			if n := s3.Notes(); len(n) != 0 {
				t.Errorf("notes after the repair: %q", n)
			}
		})
	}
}

// renamedMail is testMail under another name: the index of a store opened
// with it is rebuilt. reshapedMail also changes the presence table.
type (
	renamedMail  struct{ testMail }
	reshapedMail struct{ testMail }
)

func (renamedMail) Name() string  { return "testmail2" }
func (reshapedMail) Name() string { return "testmail3" }

func (m reshapedMail) Tables() []Table {
	tables := m.testMail.Tables()
	for i, t := range tables {
		if t.Name == "presence" {
			tables[i].Create = strings.Replace(t.Create, "last_seen TEXT NOT NULL,", "last_seen TEXT NOT NULL, since TEXT,", 1)
		}
	}
	return tables
}

// An index rebuilt because the projections changed keeps presence, which
// the archive cannot give back, unless the presence table changed too.
func TestLayoutChangeKeepsPresence(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	put(t, s, "m", message(1))
	setPresence(t, s, slug, "greencastle", "2026-11-22T10:00:00Z")
	want := dumpAll(t, s.db)
	s.Close()

	for _, tt := range []struct {
		projection Projection
		presence   []string
	}{
		{renamedMail{}, want["presence"]},
		{reshapedMail{}, nil},
	} {
		s, err := Open(dir, Options{Now: clock, LockWait: 5 * time.Second, Projections: []Projection{tt.projection}})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "another version of agentmail") {
			t.Errorf("%s: notes = %q, want a rebuild", tt.projection.Name(), n)
		}
		fresh(t, s)
		got := dumpAll(t, s.db)
		if !reflect.DeepEqual(got["messages"], want["messages"]) {
			t.Errorf("%s: messages after the rebuild = %q, want %q", tt.projection.Name(), got["messages"], want["messages"])
		}
		if p := dump(t, s.db, "presence"); !reflect.DeepEqual(p, tt.presence) {
			t.Errorf("%s: presence after the rebuild = %q, want %q", tt.projection.Name(), p, tt.presence)
		}
		s.Close()
	}
}

func TestGarbageIndexNoteNamesCause(t *testing.T) {
	dir := t.TempDir()
	openStore(t, dir).Close()
	path := filepath.Join(dir, "index.db")
	removeIndex(t, path)
	os.WriteFile(path, []byte(strings.Repeat("x", 4096)), 0o644)
	s := openStore(t, dir)
	notes := s.Notes()
	if len(notes) != 1 || strings.Contains(notes[0], "<nil>") || !strings.Contains(notes[0], "not a database") {
		t.Errorf("notes = %q, want the cause (file is not a database)", notes)
	}
}

func removeIndex(t *testing.T, path string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func TestCheck(t *testing.T) {
	s := openStore(t, t.TempDir())
	setup(t, s)
	put(t, s, "m1", message(1))
	put(t, s, "m2", message(2), &record.Receipt{Project: slug, Message: message(1).ID, Agent: "BlueLake", ReadAt: t0})
	ctx := context.Background()
	if problems, err := s.Check(ctx); err != nil || len(problems) != 0 {
		t.Fatalf("Check on a healthy store: %q, %v", problems, err)
	}

	tests := []struct {
		name, sql, table string
	}{
		{"subject changed", `UPDATE messages SET subject = 'x' WHERE id = '` + message(1).ID + `'`, "messages"},
		{"body changed", `UPDATE messages SET body = body || ' ' `, "messages"},
		{"message deleted", `DELETE FROM messages WHERE id = '` + message(2).ID + `'`, "messages"},
		{"bcc recipient lost", `DELETE FROM recipients WHERE kind = 'bcc'`, "recipients"},
		{"receipt lost", `UPDATE recipients SET read_at = NULL`, "recipients"},
		{"agent task changed", `UPDATE agents SET task = 'y' WHERE fold = 'redcat'`, "agents"},
		{"extra project", `INSERT INTO projects(key, slug, created) VALUES ('k', 'ghost-00000000', '')`, "projects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.db.Exec(tt.sql); err != nil {
				t.Fatal(err)
			}
			tampered := dumpAll(t, s.db)
			problems, err := s.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 || !strings.Contains(problems[0], "index table "+tt.table+" differs") {
				t.Errorf("Check = %q, want one problem with table %s", problems, tt.table)
			}
			if got := dumpAll(t, s.db); !reflect.DeepEqual(got, tampered) {
				t.Error("Check changed the index")
			}
			if _, err := s.Reindex(ctx); err != nil {
				t.Fatal(err)
			}
			if problems, err := s.Check(ctx); err != nil || len(problems) != 0 {
				t.Errorf("Check after Reindex: %q, %v", problems, err)
			}
		})
	}

	// An index behind the archive is reported, not silently caught up.
	h := externalCommit(t, s.ArchiveDir(), message(3))
	problems, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "index is at") || !strings.Contains(problems[0], h[:12]) {
		t.Errorf("Check with the index behind: %q", problems)
	}

	// A damaged archive is reported.
	s2 := openStore(t, t.TempDir())
	setup(t, s2)
	packs, _ := filepath.Glob(filepath.Join(s2.ArchiveDir(), "objects", "pack", "*.pack"))
	for _, p := range packs {
		os.Chmod(p, 0o644)
		data, _ := os.ReadFile(p)
		data[len(data)/2] ^= 0xff
		os.WriteFile(p, data, 0o644)
	}
	problems, _ = s2.Check(ctx)
	found := false
	for _, p := range problems {
		found = found || strings.HasPrefix(p, "archive:")
	}
	if !found {
		t.Errorf("Check on a corrupted pack: %q", problems)
	}
}

func TestConcurrentUpdates(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	base := commitCount(t, s)
	s.Close()

	const writers, each = 4, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			st, err := Open(dir, Options{Now: clock, LockWait: 20 * time.Second, Projections: testProjections})
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			for i := 0; i < each; i++ {
				n := 100 + w*each + i
				err := st.Update(context.Background(), func(tx *Tx) error {
					tx.Put(message(n))
					tx.Describe("GreenCastle", fmt.Sprintf("mail %d", n))
					return nil
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d, update %d: %w", w, i, err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	s2 := openStore(t, dir)
	fresh(t, s2)
	if n := commitCount(t, s2); n != base+writers*each {
		t.Errorf("%d commits, want %d", n, base+writers*each)
	}
	subjects := strings.Split(runGit(t, s2.ArchiveDir(), "log", "--format=%s", fmt.Sprintf("-%d", writers*each), branch), "\n")
	seen := map[string]bool{}
	for _, sub := range subjects {
		if seen[sub] {
			t.Errorf("commit %q twice", sub)
		}
		seen[sub] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct commits, want %d", len(seen), writers*each)
	}
	if got := dump(t, s2.db, "messages"); len(got) != writers*each {
		t.Errorf("%d messages indexed, want %d", len(got), writers*each)
	}
	if problems, err := s2.Check(context.Background()); err != nil || len(problems) != 0 {
		t.Errorf("Check: %q, %v", problems, err)
	}
}

// TestConcurrentFirstOpen: several processes start on a store that does not
// exist yet.
func TestConcurrentFirstOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := Open(dir, Options{Now: clock, LockWait: 10 * time.Second, Projections: testProjections})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			errs[i] = s.Fresh(context.Background())
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	s := openStore(t, dir)
	// One archive was made: one init commit among its objects (no ref
	// keeps it: a new store was never migrated, see TestOpen).
	objs := runGit(t, s.ArchiveDir(), "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)")
	if n := strings.Count(objs, "commit"); n != 1 {
		t.Errorf("%d commits after concurrent creation, want 1 (init)", n)
	}
	if refs := runGit(t, s.ArchiveDir(), "for-each-ref"); refs != "" {
		t.Errorf("refs after concurrent creation: %q", refs)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".archive-init-*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

func TestLockBusy(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Now: clock, LockWait: 100 * time.Millisecond, Projections: testProjections})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fresh(t, s)
	l, err := flock.Acquire(filepath.Join(dir, "lock"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()

	start := time.Now()
	err = s.Update(context.Background(), func(tx *Tx) error { tx.Put(project(slug)); return nil })
	if !errors.Is(err, ErrBusy) {
		t.Errorf("Update with the lock held: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 3*time.Second {
		t.Errorf("Update gave up after %v, want about 100ms", d)
	}
	// An index that is up to date needs no lock to read.
	if err := s.Fresh(context.Background()); err != nil {
		t.Errorf("Fresh on an up-to-date index with the lock held: %v", err)
	}
	// One that is behind does.
	externalCommit(t, s.ArchiveDir(), project(slug))
	if err := s.Fresh(context.Background()); !errors.Is(err, ErrBusy) {
		t.Errorf("Fresh behind with the lock held: %v, want ErrBusy", err)
	}
	l.Release()
	// (A new Store: the same one trips over TestCatchUpSameProcess's bug.)
	s2 := openStore(t, dir)
	if err := s2.Fresh(context.Background()); err != nil {
		t.Errorf("Fresh after release: %v", err)
	}
}

// TestPacksStayBounded: every write adds a pack; the store consolidates
// them so that readers never have to search an unbounded number.
func TestPacksStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	s := openStore(t, t.TempDir())
	setup(t, s)
	for i := 0; i < archive.MaxPacks+6; i++ {
		put(t, s, fmt.Sprint(i), &record.Receipt{Project: slug, Message: message(1).ID, Agent: "BlueLake", ReadAt: t0.Add(time.Duration(i) * time.Second)})
	}
	if n := s.arc.Packs(); n > archive.MaxPacks {
		t.Errorf("%d packs after %d writes, want at most %d", n, archive.MaxPacks+6, archive.MaxPacks)
	}
	runGit(t, s.ArchiveDir(), "fsck", "--strict")
	if n := s.Notes(); len(n) != 0 {
		t.Errorf("notes: %q", n)
	}
}

// TestObjectCacheAcrossRollUp: the object cache, once flushed, holds
// exactly the commit and trees git has under their names, for a big write,
// across a roll-up and after it.
func TestObjectCacheAcrossRollUp(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	s := openStore(t, t.TempDir())
	setup(t, s)
	var msgs []record.Record
	for i := 0; i < 200; i++ { // a big day directory
		msgs = append(msgs, message(i))
	}
	put(t, s, "many", msgs...)
	check := func(stage string) {
		t.Helper()
		s.flushCached()
		rows, err := s.db.Query(`SELECT hash, data FROM objects`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for ; rows.Next(); n++ {
			var h string
			var data []byte
			if err := rows.Scan(&h, &data); err != nil {
				t.Fatal(err)
			}
			typ := runGit(t, s.ArchiveDir(), "cat-file", "-t", h)
			want, err := exec.Command("git", "--git-dir", s.ArchiveDir(), "cat-file", typ, h).Output()
			if err != nil || !bytes.Equal(data, want) {
				t.Errorf("%s: cached %s %s differs from git's (%v)", stage, typ, h, err)
			}
		}
		if n == 0 {
			t.Errorf("%s: nothing cached", stage)
		}
	}
	check("after a big write")
	for i := 0; ; i++ {
		packs := s.arc.Packs()
		put(t, s, fmt.Sprint(i), message(200+i))
		if s.arc.Packs() < packs {
			break
		}
		if i > archive.MaxPacks {
			t.Fatal("no roll-up")
		}
	}
	check("right after a roll-up")
	put(t, s, "after", message(300))
	check("after the next write")
	runGit(t, s.ArchiveDir(), "fsck", "--strict")
	if n := s.Notes(); len(n) != 0 {
		t.Errorf("notes: %q", n)
	}
}

// TestObjectCacheFlush: a store writes the objects table with its first
// write, then every flushEvery writes and as it closes, not with each
// write; the next process's write then finds the commit it builds on in
// the table.
func TestObjectCacheFlush(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	cached := func() int {
		t.Helper()
		var n int
		if err := s.writer().QueryRow(`SELECT count(*) FROM objects`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// setup made the store's first write, which flushed.
	before := cached()
	if before == 0 {
		t.Error("the first write left the objects table empty")
	}
	put(t, s, "one", message(1))
	if n := cached(); n != before {
		t.Errorf("a write changed the objects table (%d rows, was %d) before a flush was due", n, before)
	}
	for i := 2; i <= flushEvery; i++ {
		put(t, s, fmt.Sprint(i), message(i))
	}
	if n := cached(); n == before {
		t.Errorf("%d writes left the objects table as it was", flushEvery)
	}
	put(t, s, "last", message(100))
	head, err := s.ProjectHead(slug)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	next := openStore(t, dir)
	var n int
	if err := next.writer().QueryRow(`SELECT count(*) FROM objects WHERE hash = ?`, head).Scan(&n); err != nil || n != 1 {
		t.Errorf("after Close, the objects table holds the head commit %d times (%v), want once", n, err)
	}
}

// DefaultDirIn reads the environment it is given, in DefaultDir's order.
func TestDefaultDirIn(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AGENTMAIL_HOME": "/a", "XDG_DATA_HOME": "/x", "HOME": "/h"}, "/a"},
		{map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"}, filepath.Join("/x", "agentmail")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".local", "share", "agentmail")},
		{nil, ""},
	}
	for _, tt := range tests {
		got, err := DefaultDirIn(func(k string) string { return tt.env[k] })
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("%v: %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

// TestPacksStayBoundedAcrossMerges: a commit proposed and then adopted (a
// grant decided by the push) adds a pack, as a write does; Adopt keeps
// the count bounded as Update does.
func TestPacksStayBoundedAcrossMerges(t *testing.T) {
	if testing.Short() {
		t.Skip("many writes")
	}
	ctx := context.Background()
	s := openStore(t, t.TempDir())
	setup(t, s)
	for i := 0; i < archive.MaxPacks+6; i++ {
		p, err := s.Propose(ctx, slug, func(tx *Tx) error {
			tx.Put(&record.Receipt{Project: slug, Message: message(1).ID, Agent: "BlueLake", ReadAt: t0.Add(time.Duration(i) * time.Second)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Adopt(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.arc.Packs(); n > archive.MaxPacks {
		t.Errorf("%d packs after %d merges, want at most %d", n, archive.MaxPacks+6, archive.MaxPacks)
	}
	runGit(t, s.ArchiveDir(), "fsck", "--strict")
}

// The WAL keeps its size across a checkpoint while the store is open, so
// that the commits after it overwrite the file rather than extend it, and
// is emptied when the store closes.
func TestWALKeptAcrossCheckpoints(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	setup(t, s)
	for n := range 20 {
		put(t, s, "mail", message(n))
	}
	wal := filepath.Join(dir, "index.db-wal")
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	if _, err := s.writer().Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		t.Fatal(err)
	}
	put(t, s, "mail", message(20)) // starts the WAL again
	if after := size(); after != before {
		t.Errorf("WAL after a checkpoint and a commit: %d bytes, was %d: want it kept", after, before)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := size(); after != 0 {
		t.Errorf("WAL after close: %d bytes, want 0", after)
	}
}

// No connection to the index syncs it, readers included: the last
// connection of a process to close checkpoints the WAL, and with SQLite's
// default (NORMAL) a read command or a send synced the WAL, the directory
// and index.db as it exited. The index is rebuilt from the archive, which
// is what a write syncs.
func TestIndexSyncsNothing(t *testing.T) {
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	var w, r int
	if err := s.writer().QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&w); err != nil {
		t.Fatal(err)
	}
	if err := s.Index().QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&r); err != nil {
		t.Fatal(err)
	}
	if w != 0 || r != 0 {
		t.Errorf("synchronous: writer %d, readers %d; want 0 (OFF) for both", w, r)
	}
}

// A one-shot store (the command line's) reads, writes, catches up with
// another process's write, snapshots and reindexes on one connection, and
// opens no other; its writes leave the objects table alone.
func TestOneShot(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Now: clock, LockWait: 5 * time.Second, Projections: testProjections, OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.rdb != s.db {
		t.Fatal("a store of one connection opened a pool of readers")
	}
	setup(t, s)
	put(t, s, "one", message(1))
	put(t, openStore(t, dir), "two", message(2)) // as another process would
	ctx := context.Background()
	if err := s.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(q Querier) int {
		t.Helper()
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(s.Index()); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
	if err := s.Snapshot(ctx, func(q Querier) error {
		if n := count(q); n != 2 {
			t.Errorf("in a snapshot: %d messages, want 2", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Index().ExecContext(ctx, `INSERT INTO presence(slug, fold, last_seen) VALUES (?, 'bluelake', '2026-11-22T09:00:00Z')`, slug); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	cached := func() int {
		t.Helper()
		var n int
		if err := s.Index().QueryRowContext(ctx, `SELECT count(*) FROM objects`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := cached() // the other store's write
	if before == 0 {
		t.Fatal("a store that is not one-shot cached no objects")
	}
	put(t, s, "three", message(3))
	if n := count(s.Index()); n != 3 {
		t.Errorf("after a reindex and a write, %d messages, want 3", n)
	}
	if s.rdb != s.db || s.db.Stats().OpenConnections != 1 {
		t.Errorf("%d connections open, want 1", s.db.Stats().OpenConnections)
	}
	s.flushCached()
	head, err := s.ProjectHead(slug)
	if err != nil {
		t.Fatal(err)
	}
	var has int
	if err := s.Index().QueryRowContext(ctx, `SELECT count(*) FROM objects WHERE hash = ?`, head).Scan(&has); err != nil {
		t.Fatal(err)
	}
	if after := cached(); after != before || has != 0 {
		t.Errorf("a one-shot write changed the objects table: %d rows, then %d, its commit in it: %d", before, after, has)
	}
}

// What opening a one-shot store (every command line process) asks of
// SQLite, from its first statement to its close, on an index that is up to
// date: one connection, reads alone (no write, no transaction: a read
// never takes the write lock, and gives up no checkpoint work to its
// close), and at most a few SELECTs. A layout check or a cache lookup made
// at every open shows here first (issue 25).
func TestOneShotOpenStatements(t *testing.T) {
	dir := t.TempDir()
	seed := openStore(t, dir)
	setup(t, seed)
	put(t, seed, "one", message(1))
	if err := seed.Close(); err != nil {
		t.Fatal(err)
	}
	var conns int
	ops := map[string]int{}
	connectHook = func(c *sqlite3.SQLiteConn) {
		conns++
		c.RegisterAuthorizer(func(op int, arg1, _, _ string) int {
			switch op {
			case sqlite3.SQLITE_SELECT:
				ops["SELECT"]++
			case sqlite3.SQLITE_PRAGMA:
				ops["PRAGMA "+arg1]++
			case sqlite3.SQLITE_TRANSACTION:
				ops["TRANSACTION "+arg1]++
			case sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE:
				ops["write "+arg1]++
			}
			return sqlite3.SQLITE_OK
		})
	}
	t.Cleanup(func() { connectHook = nil })
	s, err := Open(dir, Options{Now: clock, LockWait: 5 * time.Second, Projections: testProjections, OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := LookupProject(context.Background(), s.Index(), slug); err != nil || !ok {
		t.Fatalf("LookupProject: %v, %v", ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if conns != 1 {
		t.Errorf("%d connections opened, want 1", conns)
	}
	// The layout, the head the index reflects and the project.
	const maxSelects = 3
	for op, n := range ops {
		switch {
		case op == "SELECT":
			if n > maxSelects {
				t.Errorf("%d SELECTs compiled, want at most %d", n, maxSelects)
			}
		case strings.HasPrefix(op, "PRAGMA "):
		default:
			t.Errorf("%s: %d times; a one-shot open of an index that is up to date only reads", op, n)
		}
	}
	t.Logf("%v", ops)
}
