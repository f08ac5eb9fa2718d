package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/reservations"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/oklog/ulid/v2"
	"github.com/rogpeppe/go-internal/txtar"
)

const pySlug = "data-projects-backend"

// pyFixture writes the Python archive of testdata/script/import.txtar (the
// files under py/) into a temporary directory, with the inbox and outbox
// copies its copies.txt lists, and returns the storage root.
func pyFixture(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "import.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var copies string
	for _, f := range ar.Files {
		if f.Name == "copies.txt" {
			copies = string(f.Data)
		}
		rel, ok := strings.CutPrefix(f.Name, "py/")
		if !ok {
			continue
		}
		writeFile(t, filepath.Join(dir, rel), string(f.Data))
	}
	proj := filepath.Join(dir, "projects", pySlug)
	sc := bufio.NewScanner(strings.NewReader(copies))
	for sc.Scan() {
		box, name, _ := strings.Cut(sc.Text(), " ")
		parts := strings.SplitN(box, "/", 3) // Name/inbox/YYYY/MM
		data, err := os.ReadFile(filepath.Join(proj, "messages", parts[2], name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(proj, "agents", box, name), string(data))
	}
	return dir
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a store with a fake clock and a project with agents.
type fixture struct {
	t     testing.TB
	st    *store.Store
	proj  project.Project
	clock time.Time
}

// newFixture opens a store of the mailbox's and the reservations' tables,
// which an import writes.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	var err error
	f.st, err = store.Open(t.TempDir(), store.Options{Now: func() time.Time { return f.clock },
		Projections: []store.Projection{mailbox.Projection(), reservations.Projection()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	f.proj = project.Project{Key: "example.com/acme/shop", Slug: project.Slug("example.com/acme/shop")}
	return f
}

func (f *fixture) as(agent string) *mailbox.Mailbox {
	f.t.Helper()
	mb, err := mailbox.Open(context.Background(), f.st, f.proj, agent)
	if err != nil {
		f.t.Fatal(err)
	}
	return mb
}

// ids lists the ids of the messages of every project's branch, project by
// project, each in the order of its files: by day, then by id.
func ids(f *fixture) []string {
	f.t.Helper()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"--git-dir", f.st.ArchiveDir()}, args...)...).Output()
		if err != nil {
			f.t.Fatal(err)
		}
		return string(out)
	}
	var list []string
	for _, branch := range strings.Fields(git("for-each-ref", "--format=%(refname)", "refs/heads/projects/")) {
		for _, p := range strings.Split(git("ls-tree", "-r", "--name-only", branch), "\n") {
			if dir, file := path.Split(p); strings.HasPrefix(dir, "messages/") {
				list = append(list, file[:26])
			}
		}
	}
	return list
}

func (f *fixture) importPy(dir string, o Options) Report {
	f.t.Helper()
	rep, err := AgentMail(context.Background(), f.st, f.as(""), dir, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return rep
}

func (f *fixture) head() string {
	f.t.Helper()
	h, err := f.st.Head()
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// commitSubjects lists the subjects of the commits of the projects'
// branches, newest first.
func (f *fixture) commitSubjects() []string {
	f.t.Helper()
	out, err := exec.Command("git", "--git-dir", f.st.ArchiveDir(), "log", "--format=%s", "--branches=projects/*").Output()
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func hasWarning(rep Report, file, text string) bool {
	return slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.HasPrefix(w, file+": ") && strings.Contains(w, text)
	})
}

// checkCounts checks what an import reports it imported and found
// malformed.
func checkCounts(t *testing.T, rep Report, imported, malformed Counts) {
	t.Helper()
	if rep.Imported != imported {
		t.Errorf("imported %+v, want %+v", rep.Imported, imported)
	}
	if rep.Malformed != malformed {
		t.Errorf("malformed %+v, want %+v", rep.Malformed, malformed)
	}
}

func TestImportAgentMailFixture(t *testing.T) {
	f := newFixture(t)
	dir := pyFixture(t)
	rep := f.importPy(dir, Options{})
	checkCounts(t, rep, Counts{4, 10, 2}, Counts{2, 2, 0})
	if rep.Skipped != (Counts{}) || rep.Source != pySlug {
		t.Errorf("skipped %+v, source %q", rep.Skipped, rep.Source)
	}
	p := "projects/" + pySlug + "/"
	for _, w := range []struct{ file, text string }{
		{p + "agents/SilverHill/profile.json", "not a valid profile"},
		{p + "agents/ChartreuseWombat/profile.json", "invalid agent name"},
		{p + "messages/2025/10/2025-10-25T10-00-00Z__broken__112.md", "front matter is not valid JSON"},
		{p + "messages/2025/10/2025-10-24T09-00-00Z__fixture-data__107.md", "no recipient left"},
		{p + "messages/2025/10/2025-10-23T11-11-11Z__design-review__106.md", `recipient dropped (to): invalid agent name "ChartreuseWombat"`},
	} {
		if !hasWarning(rep, w.file, w.text) {
			t.Errorf("no warning %q for %s in:\n%s", w.text, w.file, strings.Join(rep.Warnings, "\n"))
		}
	}
	if len(rep.Warnings) != 6 {
		t.Errorf("%d warnings, want 6:\n%s", len(rep.Warnings), strings.Join(rep.Warnings, "\n"))
	}
	if got := f.commitSubjects()[0]; got != "import: agent-mail 4 agents, 10 messages, 2 reservations" {
		t.Errorf("commit subject %q", got)
	}

	// Thread FEAT-12 keeps its order, times, recipients and bodies.
	_, msgs, err := f.as("").Thread(context.Background(), "FEAT-12")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 {
		t.Fatalf("thread FEAT-12 has %d messages", len(msgs))
	}
	first := msgs[0]
	if first.From != "GreenCastle" || !slices.Equal(first.To, []string{"BlueLake"}) || !slices.Equal(first.Cc, []string{"RedFox"}) ||
		first.Importance != "high" || !first.AckRequired || first.Subject != "Auth API ready" ||
		!first.Created.Equal(time.Date(2025, 10, 21, 9, 14, 3, 0, time.UTC)) {
		t.Errorf("first message %+v", first)
	}
	u := ulid.MustParseStrict(first.ID)
	if got := ulid.Time(u.Time()); !got.Equal(time.Date(2025, 10, 21, 9, 14, 3, 512e6, time.UTC)) {
		t.Errorf("id %s carries time %s", first.ID, got)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "projects", pySlug, "messages/2025/10/2025-10-21T10-02-59Z__re-auth-api-ready-session-schema-v2__103.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, wantBody, _ := strings.Cut(string(raw), "\n---\n\n")
	if msgs[2].Body != wantBody || !strings.Contains(wantBody, "\n---\nid: uuid\nuser: élève 学生\n---\n") {
		t.Errorf("body\n%q\nwant\n%q", msgs[2].Body, wantBody)
	}
	if msgs[2].Subject != "Re: Auth API ready — session schema v2 ☃" {
		t.Errorf("subject %q", msgs[2].Subject)
	}

	// A reply to an unthreaded message shares the thread named by its id.
	_, msgs, err = f.as("").Thread(context.Background(), "104")
	if err != nil || len(msgs) != 2 || msgs[0].Subject != "Flaky test in CI" || !slices.Equal(msgs[0].Bcc, []string{"PurpleOtter"}) {
		t.Fatalf("thread 104: %v %+v", err, msgs)
	}
	inbox, err := f.as("PurpleOtter").Inbox(context.Background(), mailbox.InboxQuery{})
	if err != nil || len(inbox) != 3 {
		t.Fatalf("PurpleOtter's inbox: %v %+v", err, inbox)
	}

	agents, err := f.as("").Agents(context.Background(), false, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range agents {
		got = append(got, a.Name)
		if a.Name == "BlueLake" && (a.Program != "codex-cli" || a.Model != "gpt-5-codex" || a.Task != "web frontend" ||
			!a.Registered.Equal(time.Date(2025, 10, 20, 8, 5, 0, 0, time.UTC)) || !a.LastSeen.Equal(time.Date(2025, 11, 2, 9, 0, 0, 0, time.UTC))) {
			t.Errorf("BlueLake %+v", a)
		}
	}
	if !slices.Equal(got, []string{"BlueLake", "GreenCastle", "PurpleOtter", "RedFox"}) {
		t.Errorf("agents %v", got)
	}

	rs, err := reservations.New(f.st, f.proj.Slug, "", nil).List(context.Background(), reservations.Filter{Expired: true})
	if err != nil {
		t.Fatal(err)
	}
	var released, expires string
	for _, r := range rs {
		released, expires = max(released, record.FormatTime(r.Released)), max(expires, record.FormatTime(r.Expires))
	}
	if len(rs) != 2 || released != "2025-10-21T11:30:00Z" || expires != "2030-01-01T00:00:00Z" {
		t.Errorf("reservations: %d, released %s, expires %s", len(rs), released, expires)
	}

	// Importing again writes nothing.
	head := f.head()
	again := f.importPy(dir, Options{})
	if again.Imported != (Counts{}) || again.Skipped != (Counts{4, 10, 2}) || again.Malformed != rep.Malformed {
		t.Errorf("again: imported %+v skipped %+v malformed %+v", again.Imported, again.Skipped, again.Malformed)
	}
	if f.head() != head {
		t.Error("a second import committed")
	}
	if problems, err := f.st.Check(context.Background()); err != nil || len(problems) > 0 {
		t.Errorf("check: %v %v", err, problems)
	}
}

func TestImportBatches(t *testing.T) {
	f := newFixture(t)
	dir := pyFixture(t)
	rep := f.importPy(dir, Options{BatchSize: 5})
	if rep.Imported != (Counts{4, 10, 2}) {
		t.Fatalf("imported %+v", rep.Imported)
	}
	want := []string{
		"import: agent-mail 1 reservation",
		"import: agent-mail 4 messages, 1 reservation",
		"import: agent-mail 5 messages",
		"import: agent-mail 4 agents, 1 message",
	}
	if got := f.commitSubjects(); !slices.Equal(got, want) {
		t.Errorf("commits\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImportProgress: the callback hears of every batch, with counts that
// grow to the number of records read.
func TestImportProgress(t *testing.T) {
	f := newFixture(t)
	type call struct{ done, total int }
	var calls []call
	f.importPy(pyFixture(t), Options{BatchSize: 5, Progress: func(done, total int) {
		calls = append(calls, call{done, total})
	}})
	want := []call{{0, 16}, {5, 16}, {10, 16}, {15, 16}, {16, 16}} // 4 agents, 10 messages, 2 reservations
	if !slices.Equal(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
}

func TestImportKeepsRegisteredAgents(t *testing.T) {
	f := newFixture(t)
	if _, err := f.as("RedFox").Register(context.Background(), mailbox.RegisterInput{Program: "native"}); err != nil {
		t.Fatal(err)
	}
	rep := f.importPy(pyFixture(t), Options{})
	if rep.Imported.Agents != 3 || rep.Skipped.Agents != 1 || rep.Imported.Messages != 10 {
		t.Errorf("imported %+v skipped %+v", rep.Imported, rep.Skipped)
	}
	me, err := f.as("RedFox").Whoami(context.Background())
	if err != nil || me.Program != "native" {
		t.Errorf("RedFox %+v %v", me, err)
	}
	out, err := f.as("RedFox").Outbox(context.Background(), 0, "")
	if err != nil || len(out) != 2 {
		t.Errorf("RedFox's outbox %v %d", err, len(out))
	}
}

func TestImportIDs(t *testing.T) {
	dir := pyFixture(t)
	a, b := newFixture(t), newFixture(t)
	a.importPy(dir, Options{})
	b.importPy(dir, Options{})
	if !slices.Equal(ids(a), ids(b)) {
		t.Error("two imports into the same project gave different ids")
	}
	if !slices.IsSorted(ids(a)) {
		t.Error("ids are not in time order")
	}
	// Another project of the same store gets ids of its own: message ids
	// are unique across the store.
	other, err := project.ProjectFromKey("example.com/acme/other")
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mailbox.Open(context.Background(), a.st, other, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := AgentMail(context.Background(), a.st, mb, dir, Options{})
	if err != nil || rep.Imported.Messages != 10 {
		t.Fatalf("second project: %v %+v", err, rep.Imported)
	}
	distinct := map[string]bool{}
	for _, id := range ids(a) {
		distinct[id] = true
	}
	if n := len(distinct); n != 20 {
		t.Errorf("%d distinct message ids in two projects, want 20", n)
	}
}

// pyMessageFile renders a message file as the Python server writes it,
// with front matter given as JSON lines.
func pyMessageFile(fields ...string) string {
	return "---json\n{\n  " + strings.Join(fields, ",\n  ") + "\n}\n---\n\nbody\n"
}

func TestImportMalformedFiles(t *testing.T) {
	profile := func(name string) string {
		return `{"name": "` + name + `", "program": "p", "model": "m", "task_description": "t", "inception_ts": "2025-10-20T08:00:00"}`
	}
	good := []string{`"id": 1`, `"from": "GreenCastle"`, `"to": ["BlueLake"]`, `"subject": "ok"`, `"created": "2025-10-21T09:00:00+00:00"`}
	without := func(key string, extra ...string) string {
		var out []string
		for _, f := range good {
			if !strings.HasPrefix(f, `"`+key+`"`) {
				out = append(out, f)
			}
		}
		return pyMessageFile(append(out, extra...)...)
	}
	files := map[string]string{
		"agents/GreenCastle/profile.json": profile("GreenCastle"),
		"agents/BlueLake/profile.json":    profile("BlueLake"),
		"agents/RedFox/profile.json":      `{"name": "RedFox", "program": "p"}`,
		"agents/AmberFox/profile.json":    profile("BlueHarbor"),
		"agents/GreenOtter/notes.txt":     "no profile here",
		"agents/RedCastle/profile.json":   `{"name": "RedCastle", "program": ["p"], "inception_ts": "2025-10-20T08:00:00Z"}`,
		"messages/2025/10/ok.md":          pyMessageFile(good...),
		"messages/2025/10/nofrom.md":      without("from"),
		"messages/2025/10/badtime.md":     without("created", `"created": "yesterday"`),
		"messages/2025/10/badid.md":       without("id", `"id": {"n": 1}`),
		"messages/2025/10/nosubject.md":   without("subject"),
		"messages/2025/10/plain.md":       "---\nid: 1\n---\n\nnot the server's format\n",
		"messages/2025/10/unclosed.md":    "---json\n{\"id\": 1}\n",
		"messages/2025/10/noblank.md":     "---json\n{\"id\": 1}\n---\nbody\n",
		"messages/2025/10/latin1.md":      strings.TrimSuffix(pyMessageFile(good...), "body\n") + "\xe9t\xe9\n",
		"messages/2025/10/stranger.md":    without("from", `"from": "SilverLake"`),
		"messages/2025/10/human.md":       without("from", `"from": "root"`),
		"messages/2025/10/notes.txt":      "stray",
		"messages/2025/10/longsubj.md": pyMessageFile(`"id": 2`, `"from": "BlueLake"`, `"to": ["GreenCastle", "SilverLake"]`,
			`"subject": "`+strings.Repeat("x", 250)+`"`, `"importance": "critical"`, `"created": "2025-10-21T09:00:00Z"`,
			`"attachments": [{"type": "file", "path": "attachments/ab/ab.webp"}]`),
		"file_reservations/id-1.json": `{"id": 1, "agent": "GreenCastle", "path_pattern": "src/**", "created_ts": "2025-10-21T09:00:00Z", "expires_ts": "2025-10-21T10:00:00Z"}`,
		"file_reservations/id-2.json": `{"id": 2, "agent": "SilverLake", "path_pattern": "src/**", "created_ts": "2025-10-21T09:00:00Z", "expires_ts": "2025-10-21T10:00:00Z"}`,
		"file_reservations/id-3.json": `{"id": 3, "agent": "GreenCastle", "path_pattern": "/etc/passwd", "created_ts": "2025-10-21T09:00:00Z", "expires_ts": "2025-10-21T10:00:00Z"}`,
		"file_reservations/id-4.json": `{"id": 4, "agent": "GreenCastle", "path_pattern": "src/**", "created_ts": "2025-10-21T09:00:00Z"}`,
		"file_reservations/id-5.json": `{"id": 5, "agent": "GreenCastle", "path_pattern": "src/**", "created_ts": "2025-10-21T09:00:00Z", "expires_ts": "2025-10-21T10:00:00Z", "released_ts": "soon"}`,
		"file_reservations/id-6.json": `[1, 2]`,
	}
	root := t.TempDir()
	for name, data := range files {
		writeFile(t, filepath.Join(root, "projects", "demo", name), data)
	}
	f := newFixture(t)
	rep := f.importPy(root, Options{})
	checkCounts(t, rep, Counts{2, 2, 1}, Counts{4, 11, 5})
	p := "projects/demo/"
	for file, text := range map[string]string{
		"agents/RedFox/profile.json":     "inception_ts: missing",
		"agents/AmberFox/profile.json":   "the profile names BlueHarbor but lives under agents/AmberFox",
		"agents/GreenOtter/profile.json": "no profile.json",
		"messages/2025/10/nofrom.md":     "front matter lacks from",
		"messages/2025/10/badtime.md":    `created: "yesterday" is not an ISO 8601 time`,
		"messages/2025/10/badid.md":      "want a string or number",
		"messages/2025/10/nosubject.md":  "front matter lacks subject",
		"messages/2025/10/plain.md":      `no front matter (the file does not start with a "---json" line)`,
		"messages/2025/10/unclosed.md":   "front matter not closed",
		"messages/2025/10/noblank.md":    "no blank line after the front matter",
		"messages/2025/10/latin1.md":     "not valid UTF-8",
		"messages/2025/10/stranger.md":   "sender: SilverLake has no profile and is not registered here",
		"messages/2025/10/human.md":      `sender: invalid agent name "root"`,
		"messages/2025/10/notes.txt":     "not a message file",
		"messages/2025/10/longsubj.md":   "subject cut to 200 characters",
		"file_reservations/id-2.json":    "holder: SilverLake has no profile",
		"file_reservations/id-3.json":    "absolute paths are not allowed",
		"file_reservations/id-4.json":    "lacks expires_ts",
		"file_reservations/id-5.json":    "released_ts",
		"file_reservations/id-6.json":    "not a valid reservation",
	} {
		if !hasWarning(rep, p+file, text) {
			t.Errorf("no warning %q for %s", text, file)
		}
	}
	for _, text := range []string{`recipient dropped (to): SilverLake has no profile`, `unknown importance "critical" imported as normal`, "1 attachment not imported"} {
		if !hasWarning(rep, p+"messages/2025/10/longsubj.md", text) {
			t.Errorf("no warning %q for longsubj.md", text)
		}
	}
	if t.Failed() {
		t.Log(strings.Join(rep.Warnings, "\n"))
	}
	msgs, err := f.as("GreenCastle").Inbox(context.Background(), mailbox.InboxQuery{})
	if err != nil || len(msgs) != 1 {
		t.Fatalf("inbox %v %+v", err, msgs)
	}
	if m := msgs[0]; len([]rune(m.Subject)) != mailbox.MaxSubject || m.Importance != "normal" || !slices.Equal(m.To, []string{"GreenCastle"}) {
		t.Errorf("imported %+v", m)
	}
}

func TestImportChoosesProject(t *testing.T) {
	root := t.TempDir()
	for _, slug := range []string{"alpha", "beta"} {
		writeFile(t, filepath.Join(root, "projects", slug, "agents", "GreenCastle", "profile.json"),
			`{"name": "GreenCastle", "inception_ts": "2025-10-20T08:00:00Z"}`)
	}
	f := newFixture(t)
	_, err := AgentMail(context.Background(), f.st, f.as(""), root, Options{})
	if !errors.Is(err, fault.ErrInvalidArgument) || !strings.Contains(err.Error(), "holds 2 agent-mail projects: alpha, beta") {
		t.Errorf("several projects: %v", err)
	}
	_, err = AgentMail(context.Background(), f.st, f.as(""), root, Options{SourceProject: "gamma"})
	if !errors.Is(err, fault.ErrNotFound) || !strings.Contains(err.Error(), "it has: alpha, beta") {
		t.Errorf("unknown project: %v", err)
	}
	rep := f.importPy(root, Options{SourceProject: "beta"})
	if rep.Source != "beta" || rep.Imported.Agents != 1 {
		t.Errorf("beta: %+v", rep)
	}
	// A project's own directory works too.
	rep = f.importPy(filepath.Join(root, "projects", "alpha"), Options{})
	if rep.Source != "alpha" || rep.Skipped.Agents != 1 {
		t.Errorf("alpha: %+v", rep)
	}
	if _, err := AgentMail(context.Background(), f.st, f.as(""), t.TempDir(), Options{}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("empty directory: %v", err)
	}
}

func TestParsePyTime(t *testing.T) {
	want := time.Date(2025, 10, 21, 9, 14, 3, 512345000, time.UTC)
	for _, s := range []string{"2025-10-21T09:14:03.512345+00:00", "2025-10-21T11:14:03.512345+02:00", "2025-10-21T09:14:03.512345Z",
		"2025-10-21T09:14:03.512345", "2025-10-21 09:14:03.512345", "2025-10-21 09:14:03.512345+00:00"} {
		got, err := parsePyTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("parsePyTime(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "yesterday", "2025-10-21", "1761037443"} {
		if _, err := parsePyTime(s); err == nil {
			t.Errorf("parsePyTime(%q) accepted", s)
		}
	}
	if got := record.FormatTime(want); got != "2025-10-21T09:14:03Z" {
		t.Errorf("stored as %s", got)
	}
}

// TestImportWarningsInFileOrder: the files are read at once, but their
// warnings come in the order of the files, and of a file's own, and the
// first of two copies of a message is the one kept.
func TestImportWarningsInFileOrder(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "projects", "demo")
	writeFile(t, filepath.Join(proj, "agents", "GreenCastle", "profile.json"),
		`{"name": "GreenCastle", "program": "p", "inception_ts": "2025-10-20T08:00:00"}`)
	writeFile(t, filepath.Join(proj, "agents", "BlueLake", "profile.json"),
		`{"name": "BlueLake", "program": "p", "inception_ts": "2025-10-20T08:00:00"}`)
	var want []string
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("messages/2025/10/m%03d.md", i)
		switch i % 3 {
		case 0: // two warnings of its own, in this order
			writeFile(t, filepath.Join(proj, name), pyMessageFile(fmt.Sprintf(`"id": %d`, i), `"from": "GreenCastle"`,
				`"to": ["BlueLake", "SilverLake"]`, `"subject": "s"`, `"importance": "critical"`, `"created": "2025-10-21T09:00:00Z"`))
			want = append(want, "projects/demo/"+name+": recipient dropped (to): SilverLake has no profile and is not registered here",
				"projects/demo/"+name+`: unknown importance "critical" imported as normal`)
		case 1: // malformed
			writeFile(t, filepath.Join(proj, name), "not a message\n")
			want = append(want, "projects/demo/"+name+`: skipped: no front matter (the file does not start with a "---json" line)`)
		case 2: // the same message as the one before it but one
			writeFile(t, filepath.Join(proj, name), pyMessageFile(fmt.Sprintf(`"id": %d`, i-2), `"from": "GreenCastle"`,
				`"to": ["BlueLake"]`, `"subject": "s"`, `"created": "2025-10-21T09:00:00Z"`))
			want = append(want, fmt.Sprintf("projects/demo/%s: skipped: the same message as projects/demo/messages/2025/10/m%03d.md", name, i-2))
		}
	}
	f := newFixture(t)
	rep := f.importPy(root, Options{})
	checkCounts(t, rep, Counts{2, 100, 0}, Counts{0, 100, 0})
	if rep.Skipped.Messages != 100 {
		t.Errorf("skipped %d messages, want 100", rep.Skipped.Messages)
	}
	if !slices.Equal(rep.Warnings, want) {
		for i := range min(len(want), len(rep.Warnings)) {
			if rep.Warnings[i] != want[i] {
				t.Fatalf("warning %d:\n got %s\nwant %s", i, rep.Warnings[i], want[i])
			}
		}
		t.Fatalf("%d warnings, want %d", len(rep.Warnings), len(want))
	}
}

// TestPyString: ids and thread ids are strings, numbers or null, escapes
// and all.
func TestPyString(t *testing.T) {
	for in, want := range map[string]string{
		`"abc"`: "abc", `""`: "", `"a\"b"`: `a"b`, `"caf\u00e9"`: "café", `"x\/y"`: "x/y",
		`12`: "12", `-1.5e3`: "-1.5e3", `0`: "0", `null`: "",
	} {
		var v struct {
			P pyString `json:"p"`
		}
		if err := json.Unmarshal([]byte(`{"p": `+in+`}`), &v); err != nil || string(v.P) != want {
			t.Errorf("%s: got %q, %v; want %q", in, v.P, err, want)
		}
	}
	for _, in := range []string{`true`, `{}`, `[1]`} {
		var v struct {
			P pyString `json:"p"`
		}
		if err := json.Unmarshal([]byte(`{"p": `+in+`}`), &v); err == nil {
			t.Errorf("%s: got %q, want an error", in, v.P)
		}
	}
}
