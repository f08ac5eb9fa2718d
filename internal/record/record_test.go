package record

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// created is a whole-second UTC time, the precision records keep.
var created = time.Date(2026, 11, 22, 14, 3, 59, 0, time.UTC)

// newID returns a valid ULID for t whose random part is made of b.
func newID(t time.Time, b byte) string {
	return ulid.MustNew(ulid.Timestamp(t), strings.NewReader(strings.Repeat(string([]byte{b}), 10))).String()
}

func baseMessage() *Message {
	return &Message{
		Project:    "backend-3fa1c2d9",
		ID:         newID(created, 1),
		From:       "GreenCastle",
		To:         []string{"BlueLake"},
		Subject:    "Auth API ready",
		Importance: "normal",
		Created:    created,
		Body:       "The endpoint is live.\n",
	}
}

// frontMatter returns the front matter lines of an encoded message file.
func frontMatter(t *testing.T, data []byte) []string {
	t.Helper()
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatalf("no front matter in %q", s)
	}
	head, _, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		t.Fatalf("front matter not closed in %q", s)
	}
	return strings.Split(head, "\n")
}

func frontMatterKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var keys []string
	for _, line := range frontMatter(t, data) {
		k, _, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("front matter line %q has no key", line)
		}
		keys = append(keys, k)
	}
	return keys
}

func frontMatterValue(t *testing.T, data []byte, key string) (string, bool) {
	t.Helper()
	for _, line := range frontMatter(t, data) {
		if k, v, _ := strings.Cut(line, ": "); k == key {
			return v, true
		}
	}
	return "", false
}

func TestRoundTrip(t *testing.T) {
	full := baseMessage()
	full.ID = newID(created, 2)
	full.Thread = "auth-rollout"
	full.To = []string{"BlueLake", "RedCat"}
	full.Cc = []string{"SilverFox"}
	full.Bcc = []string{"QuietOwl", "BraveBear"}
	full.Importance = "urgent"
	full.AckRequired = true
	full.Category = "HANDOFF"
	full.ReplyTo = newID(created.Add(-time.Hour), 3)
	full.Topic = "team-api"
	_, shot := NewAttachment("p", "shot 1.png", "image/png", []byte("\x89PNG..."))
	_, notes := NewAttachment("p", "notes-ünï.txt", "text/plain; charset=utf-8", nil)
	full.Attachments = []Attachment{shot, notes}

	post := baseMessage()
	post.ID = newID(created, 6)
	post.To = nil
	post.Topic = "builds"

	bccOnly := baseMessage()
	bccOnly.ID = newID(created, 4)
	bccOnly.To = nil
	bccOnly.Bcc = []string{"QuietOwl"}

	noSubject := baseMessage()
	noSubject.ID = newID(created, 5)
	noSubject.Subject = ""

	tests := []struct {
		name string
		rec  Record
		path string // canonical path
	}{
		{"project", &Project{Key: "github.com/Org/Backend", Slug: "backend-3fa1c2d9", Created: created},
			"projects/backend-3fa1c2d9/project.json"},
		{"archived project", &Project{Key: "github.com/Org/Backend", Slug: "backend-3fa1c2d9", Created: created, Archived: created.Add(time.Hour)},
			"projects/backend-3fa1c2d9/project.json"},
		{"hard-deleted agent", &DeletedAgent{Project: "backend-3fa1c2d9", Name: "GreenCastle", Deleted: created, By: "BlueLake"},
			"projects/backend-3fa1c2d9/agents/GreenCastle/profile.json"},
		{"purged message", PurgedFor(full, created.Add(time.Hour), "BlueLake", "older than 30 days"), full.Path()},
		{"project with path key", &Project{Key: "/home/me/src/my \"app\"", Slug: "my-app-00000000", Created: created},
			"projects/my-app-00000000/project.json"},
		{"agent", &Agent{Project: "backend-3fa1c2d9", Name: "GreenCastle", Program: "claude-code", Model: "opus",
			Task: "auth: \"login\" flow\nand tests", Registered: created, Updated: created.Add(time.Hour)},
			"projects/backend-3fa1c2d9/agents/GreenCastle/profile.json"},
		{"agent never updated, no task", &Agent{Project: "backend-3fa1c2d9", Name: "BlueLake", Program: "codex",
			Model: "gpt", Registered: created},
			"projects/backend-3fa1c2d9/agents/BlueLake/profile.json"},
		{"presence", &Presence{Project: "backend-3fa1c2d9", Agent: "GreenCastle", LastSeen: created},
			"projects/backend-3fa1c2d9/agents/GreenCastle/presence.json"},
		{"subscriptions", &Subscriptions{Project: "backend-3fa1c2d9", Agent: "GreenCastle",
			Topics: []Subscription{{"builds", created}, {"jobs", created.Add(time.Hour)}}, Updated: created.Add(time.Hour)},
			"projects/backend-3fa1c2d9/agents/GreenCastle/subscriptions.json"},
		{"state", &AgentState{Project: "backend-3fa1c2d9", Agent: "GreenCastle", State: "stuck", Note: "need \"db\"", Updated: created},
			"projects/backend-3fa1c2d9/agents/GreenCastle/state.json"},
		{"control", &Control{Project: "backend-3fa1c2d9", Agent: "BlueLake", Paused: true, PauseBy: "Human", PauseReason: "wait",
			PauseAt: created, InterruptBy: "GreenCastle", InterruptAt: created.Add(time.Minute)},
			"projects/backend-3fa1c2d9/agents/BlueLake/control.json"},
		{"control never paused", &Control{Project: "backend-3fa1c2d9", Agent: "BlueLake"},
			"projects/backend-3fa1c2d9/agents/BlueLake/control.json"},
		{"invariants", &Rules{Project: "backend-3fa1c2d9", Body: "# Rules\n\n---\n\nrole: x\n---\n\nno trailing newline", By: "Human", Updated: created},
			"projects/backend-3fa1c2d9/rules/invariants.md"},
		{"playbook", &Rules{Project: "backend-3fa1c2d9", Role: "reviewer", Body: "", By: "GreenCastle", Updated: created},
			"projects/backend-3fa1c2d9/rules/roles/reviewer.md"},
		{"receipt unread", &Receipt{Project: "backend-3fa1c2d9", Message: full.ID, Agent: "BlueLake"},
			"projects/backend-3fa1c2d9/receipts/2026/11/22/" + full.ID + "/BlueLake.json"},
		{"receipt read", &Receipt{Project: "backend-3fa1c2d9", Message: full.ID, Agent: "BlueLake", ReadAt: created},
			"projects/backend-3fa1c2d9/receipts/2026/11/22/" + full.ID + "/BlueLake.json"},
		{"receipt acked", &Receipt{Project: "backend-3fa1c2d9", Message: full.ID, Agent: "RedCat",
			ReadAt: created, AckedAt: created.Add(time.Minute)},
			"projects/backend-3fa1c2d9/receipts/2026/11/22/" + full.ID + "/RedCat.json"},
		{"message minimal", baseMessage(),
			"projects/backend-3fa1c2d9/messages/2026/11/22/" + baseMessage().ID + "-auth-api-ready.md"},
		{"message every field", full,
			"projects/backend-3fa1c2d9/messages/2026/11/22/" + full.ID + "-auth-api-ready.md"},
		{"message bcc only", bccOnly,
			"projects/backend-3fa1c2d9/messages/2026/11/22/" + bccOnly.ID + "-auth-api-ready.md"},
		{"message without subject", noSubject,
			"projects/backend-3fa1c2d9/messages/2026/11/22/" + noSubject.ID + "-message.md"},
		{"post to a topic", post,
			"projects/backend-3fa1c2d9/messages/2026/11/22/" + post.ID + "-auth-api-ready.md"},
		{"reservation granted offline", &Reservation{Project: "backend-3fa1c2d9", ID: "01JD0000000000000000000001", Agent: "GreenCastle",
			Pattern: "src/**", Exclusive: true, Created: created, Expires: created.Add(time.Hour), Unconfirmed: true},
			"projects/backend-3fa1c2d9/reservations/2024/11/18/15/59/22/112/01JD0000000000000000000001.json"},
		{"reservation confirmed, released", &Reservation{Project: "backend-3fa1c2d9", ID: "01JD0000000000000000000002", Agent: "BlueLake",
			Pattern: "docs/**", Created: created, Expires: created.Add(time.Hour), Released: created.Add(time.Minute),
			ReleasedBy: "Human", ReleaseReason: "lost"},
			"projects/backend-3fa1c2d9/reservations/2024/11/18/15/59/22/112/01JD0000000000000000000002.json"},
		{"lock released", &Lock{Project: "backend-3fa1c2d9", Key: "deploy/staging", Holder: "GreenCastle",
			Created: created, Expires: created.Add(5 * time.Minute), Released: created.Add(time.Minute)},
			"projects/backend-3fa1c2d9/locks/deploy~staging.json"},
		{"lock held by a run", &Lock{Project: "backend-3fa1c2d9", Key: "build/x", Holder: "GreenCastle",
			Created: created, Expires: created.Add(5 * time.Minute), Run: "9f86d081884c7d65"},
			"projects/backend-3fa1c2d9/locks/build~x.json"},
		{"lock taken offline", &Lock{Project: "backend-3fa1c2d9", Key: "build/x", Holder: "GreenCastle",
			Created: created, Expires: created.Add(5 * time.Minute), Unconfirmed: true},
			"projects/backend-3fa1c2d9/locks/build~x.json"},
		{"port claim", &Port{Project: "backend-3fa1c2d9", Host: "build-1.local", Name: "shop:api", Port: 20417, Holder: "GreenCastle",
			Created: created, Expires: created.Add(time.Hour)},
			"projects/backend-3fa1c2d9/ports/build-1.local/shop:api.json"},
		{"port released", &Port{Project: "backend-3fa1c2d9", Host: "build-1.local", Name: "web/dev server", Port: 20418, Holder: "BlueLake",
			Created: created, Expires: created.Add(time.Hour), Released: created.Add(time.Minute)},
			"projects/backend-3fa1c2d9/ports/build-1.local/web%2Fdev%20server.json"},
		{"task created", &TaskOp{Project: "backend-3fa1c2d9", Task: "01JD0000000000000000000003", ID: "01JD0000000000000000000003",
			Op: TaskCreate, By: "GreenCastle", At: created, Title: ptr("Fix login"), Description: ptr("It *fails*.\n"), Type: ptr("bug"),
			Priority: ptr(1), Labels: &[]string{"auth"}, Paths: &[]string{"src/auth/**"}, Deps: []string{"01JD0000000000000000000001"}},
			"projects/backend-3fa1c2d9/tasks/2024/11/18/01JD0000000000000000000003/01JD0000000000000000000003.json"},
		{"task claimed by force", &TaskOp{Project: "backend-3fa1c2d9", Task: "01JD0000000000000000000003", ID: "01JD0000000000000000000009",
			Op: TaskClaim, By: "BlueLake", At: created, Agent: "BlueLake", Force: true, Reason: "holder silent"},
			"projects/backend-3fa1c2d9/tasks/2024/11/18/01JD0000000000000000000003/01JD0000000000000000000009.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.rec.Files()
			if len(files) == 0 {
				t.Fatal("no files")
			}
			if files[0].Path != tt.path {
				t.Errorf("canonical path = %q, want %q", files[0].Path, tt.path)
			}
			got, err := Decode(files[0].Path, files[0].Data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.rec) {
				t.Errorf("Decode(Files()[0]) =\n%#v\nwant\n%#v", got, tt.rec)
			}
			// Every other file is a copy: Decode ignores it and the index
			// never even reads its directory.
			for _, f := range files[1:] {
				rec, err := Decode(f.Path, f.Data)
				if rec != nil || err != nil {
					t.Errorf("Decode(%s) = %v, %v; want a copy to be ignored", f.Path, rec, err)
				}
				dir := path.Dir(path.Dir(path.Dir(path.Dir(f.Path)))) // strip YYYY/MM/DD/file
				if !SkipCopies(dir) {
					t.Errorf("SkipCopies(%q) = false for the directory of copy %s", dir, f.Path)
				}
			}
			_, purged := tt.rec.(*Purged) // a tombstone at the message's file and its copies
			if _, ok := tt.rec.(*Message); !ok && !purged && len(files) != 1 {
				t.Errorf("%T has %d files, want 1", tt.rec, len(files))
			}
		})
	}
}

func TestMessageFiles(t *testing.T) {
	m := baseMessage()
	m.To = []string{"BlueLake", "RedCat"}
	m.Cc = []string{"SilverFox"}
	m.Bcc = []string{"QuietOwl", "BraveBear"}
	name := m.ID + "-auth-api-ready.md"
	dir := "projects/backend-3fa1c2d9/"
	want := []string{
		dir + "messages/2026/11/22/" + name,
		dir + "agents/GreenCastle/outbox/2026/11/22/" + name,
		dir + "agents/BlueLake/inbox/2026/11/22/" + name,
		dir + "agents/RedCat/inbox/2026/11/22/" + name,
		dir + "agents/SilverFox/inbox/2026/11/22/" + name,
		dir + "agents/QuietOwl/inbox/2026/11/22/" + name,
		dir + "agents/BraveBear/inbox/2026/11/22/" + name,
	}
	files := m.Files()
	var got []string
	byPath := map[string][]byte{}
	for _, f := range files {
		got = append(got, f.Path)
		byPath[f.Path] = f.Data
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.Path() != want[0] {
		t.Errorf("Path() = %q, want %q", m.Path(), want[0])
	}

	tests := []struct {
		name    string
		file    string
		wantBcc string // "" for no bcc key
	}{
		{"canonical", want[0], "[QuietOwl, BraveBear]"},
		{"sender outbox", want[1], "[QuietOwl, BraveBear]"},
		{"to BlueLake", want[2], ""},
		{"to RedCat", want[3], ""},
		{"cc SilverFox", want[4], ""},
		{"bcc QuietOwl", want[5], "[QuietOwl]"},
		{"bcc BraveBear", want[6], "[BraveBear]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := byPath[tt.file]
			bcc, ok := frontMatterValue(t, data, "bcc")
			if tt.wantBcc == "" {
				if ok {
					t.Errorf("%s has bcc: %s; recipients must not see the bcc list", tt.file, bcc)
				}
			} else if bcc != tt.wantBcc {
				t.Errorf("%s bcc = %q (present %v), want %q", tt.file, bcc, ok, tt.wantBcc)
			}
			// Every copy is a complete, decodable message with the same
			// visible fields and body.
			c, err := DecodeMessage(m.Project, data)
			if err != nil {
				t.Fatalf("DecodeMessage(%s): %v", tt.file, err)
			}
			c.Bcc = m.Bcc
			if !reflect.DeepEqual(c, m) {
				t.Errorf("copy %s decodes to %#v, want %#v (bcc aside)", tt.file, c, m)
			}
		})
	}
	if string(byPath[want[1]]) != string(m.Encode()) {
		t.Error("sender's outbox copy differs from the canonical file")
	}

	// Without bcc every copy is the canonical file, byte for byte.
	m.Bcc = nil
	files = m.Files()
	if len(files) != 5 {
		t.Fatalf("without bcc: %d files, want 5", len(files))
	}
	for _, f := range files {
		if string(f.Data) != string(m.Encode()) {
			t.Errorf("without bcc, %s differs from the canonical file:\n%s", f.Path, f.Data)
		}
	}
}

func TestMessageDatedByUTC(t *testing.T) {
	// 01:30 at +05:00 is the previous day in UTC.
	local := time.Date(2026, 11, 22, 1, 30, 0, 0, time.FixedZone("X", 5*3600))
	m := baseMessage()
	m.Created = local
	m.ID = newID(local, 9)
	if got, want := m.Path(), "projects/backend-3fa1c2d9/messages/2026/11/21/"+m.ID+"-auth-api-ready.md"; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if v, _ := frontMatterValue(t, m.Encode(), "created"); v != "2026-11-21T20:30:00Z" {
		t.Errorf("created = %q, want 2026-11-21T20:30:00Z", v)
	}
	d, err := DecodeMessage(m.Project, m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Created.Equal(local) || d.Created.Location() != time.UTC {
		t.Errorf("Created = %v, want %v in UTC", d.Created, local)
	}
}

func TestEncodeGolden(t *testing.T) {
	m := baseMessage()
	m.Thread = "auth"
	m.Cc = []string{"SilverFox", "RedCat"}
	m.Bcc = []string{"QuietOwl"}
	m.AckRequired = true
	m.Category = "DECISION"
	m.ReplyTo = "01JD0000000000000000000000"
	m.Importance = "high"
	m.Subject = `Say "hi": now`
	want := "---\n" +
		"id: " + m.ID + "\n" +
		"thread: \"auth\"\n" +
		"from: GreenCastle\n" +
		"to: [BlueLake]\n" +
		"cc: [SilverFox, RedCat]\n" +
		"bcc: [QuietOwl]\n" +
		"subject: \"Say \\\"hi\\\": now\"\n" +
		"importance: high\n" +
		"ack_required: true\n" +
		"category: DECISION\n" +
		"reply_to: 01JD0000000000000000000000\n" +
		"created: 2026-11-22T14:03:59Z\n" +
		"---\n" +
		"\n" +
		"The endpoint is live.\n"
	if got := string(m.Encode()); got != want {
		t.Errorf("Encode() =\n%s\nwant\n%s", got, want)
	}
}

func TestFrontMatterKeys(t *testing.T) {
	tests := []struct {
		name string
		edit func(m *Message)
		want []string
	}{
		{"minimal", func(m *Message) {},
			[]string{"id", "from", "to", "subject", "importance", "ack_required", "created"}},
		{"all optional keys", func(m *Message) {
			m.Thread, m.Cc, m.Bcc, m.Category, m.ReplyTo = "t", []string{"A"}, []string{"B"}, "INFO", newID(created, 7)
			m.Topic, m.Hold = "builds", time.Minute
			_, a := NewAttachment(m.Project, "a.txt", "text/plain", []byte("a"))
			m.Attachments = []Attachment{a}
		}, []string{"id", "thread", "from", "to", "cc", "bcc", "subject", "importance", "ack_required", "category", "topic", "reply_to", "created", "hold", "attachments"}},
		{"thread and reply only", func(m *Message) { m.Thread, m.ReplyTo = "t", newID(created, 7) },
			[]string{"id", "thread", "from", "to", "subject", "importance", "ack_required", "reply_to", "created"}},
		{"cc and category only", func(m *Message) { m.Cc, m.Category = []string{"A"}, "BLOCKED" },
			[]string{"id", "from", "to", "cc", "subject", "importance", "ack_required", "category", "created"}},
		{"empty lists omitted", func(m *Message) { m.Cc, m.Bcc = []string{}, []string{} },
			[]string{"id", "from", "to", "subject", "importance", "ack_required", "created"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := baseMessage()
			tt.edit(m)
			if got := frontMatterKeys(t, m.Encode()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keys = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBodyRoundTrip(t *testing.T) {
	bodies := []struct{ name, body string }{
		{"empty", ""},
		{"just a newline", "\n"},
		{"two newlines", "\n\n"},
		{"no final newline", "no newline at the end"},
		{"dash lines", "before\n---\nbetween\n---\nafter\n"},
		{"starts with dashes", "---\n"},
		{"starts with dashes and blank", "---\n\n---\n"},
		{"own front matter", "---\nid: 01JD0000000000000000000000\nfrom: Mallory\nsubject: \"fake\"\n---\n\nfake body\n"},
		{"front matter without final newline", "---\ntitle: x\n---"},
		{"unicode", "Grüße, 世界 🚀\nnbsp:\u00a0 rtl:\u202e done\n"},
		{"crlf", "line one\r\nline two\r\n---\r\n\r\n"},
		{"lone cr", "a\rb\r"},
		{"leading blank lines", "\n\n\nindented\n"},
		{"trailing spaces", "trailing   \n\t\n  "},
		{"nul and control bytes", "a\x00b\x1bc\n"},
		{"yaml-looking", "key: value\n- item\n...\n"},
		{"long", strings.Repeat("0123456789abcdef\n", 4096)},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			m := baseMessage()
			m.Body = tt.body
			data := m.Encode()
			if !strings.HasSuffix(string(data), "---\n\n"+tt.body) {
				t.Errorf("file does not end with the blank line and the body verbatim:\n%q", data)
			}
			for _, f := range m.Files() {
				got, err := DecodeMessage(m.Project, f.Data)
				if err != nil {
					t.Fatalf("DecodeMessage(%s): %v", f.Path, err)
				}
				if got.Body != tt.body {
					t.Errorf("%s: body = %q, want %q", f.Path, got.Body, tt.body)
				}
			}
			rec, err := Decode(m.Path(), data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec, m) {
				t.Errorf("Decode = %#v, want %#v", rec, m)
			}
		})
	}
}

func TestSubjectAndThreadRoundTrip(t *testing.T) {
	strs := []struct{ name, s string }{
		{"plain", "Auth API ready"},
		{"double quotes", `He said "ship it"`},
		{"single quotes", `it's 'done'`},
		{"colon", "re: status: green"},
		{"colon space at start", ": leading"},
		{"backslashes", `C:\path\to\file \n not a newline \\`},
		{"unicode", "Grüße 世界 — ✓ 🚀"},
		{"line separators", "a\u2028b\u2029c"},
		{"hash", "# not a comment #tag"},
		{"leading spaces", "   leading and trailing   "},
		{"yaml specials", "- [x] {y}: &a *b !c |d >e %f @g `h`"},
		{"html", "<b>bold</b> & more"},
		{"newline and tab", "two\nlines\tand tab"},
		{"front matter fence", "---"},
		{"yaml booleans", "yes"},
		{"null", "null"},
		{"dash space", "- item"},
	}
	for _, tt := range strs {
		t.Run(tt.name, func(t *testing.T) {
			m := baseMessage()
			m.Subject = tt.s
			m.Thread = tt.s
			data := m.Encode()
			if n := len(frontMatter(t, data)); n != 8 {
				t.Errorf("front matter has %d lines, want 8 (a value spilled onto another line):\n%s", n, data)
			}
			got, err := DecodeMessage(m.Project, data)
			if err != nil {
				t.Fatalf("DecodeMessage: %v\n%s", err, data)
			}
			if got.Subject != tt.s || got.Thread != tt.s {
				t.Errorf("subject, thread = %q, %q; want %q", got.Subject, got.Thread, tt.s)
			}
			if got.Body != m.Body {
				t.Errorf("body = %q, want %q", got.Body, m.Body)
			}
		})
	}
}

func TestThreadID(t *testing.T) {
	tests := []struct {
		thread, id, want string
	}{
		{"", "01JD0000000000000000000000", "01JD0000000000000000000000"},
		{"auth-rollout", "01JD0000000000000000000000", "auth-rollout"},
		{"01JC0000000000000000000000", "01JD0000000000000000000000", "01JC0000000000000000000000"},
	}
	for _, tt := range tests {
		m := &Message{Thread: tt.thread, ID: tt.id}
		if got := m.ThreadID(); got != tt.want {
			t.Errorf("ThreadID(thread %q, id %q) = %q, want %q", tt.thread, tt.id, got, tt.want)
		}
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"Auth API ready", 48, "auth-api-ready"},
		{"  leading and trailing  ", 48, "leading-and-trailing"},
		{"Hello, World!!!", 48, "hello-world"},
		{"a--b__c..d", 48, "a-b-c-d"},
		{"POL-358: fix", 48, "pol-358-fix"},
		{"", 48, ""},
		{"!!! ??? ---", 48, ""},
		{"世界", 48, ""},
		{"Grüße aus Köln", 48, "gr-e-aus-k-ln"},
		{"CamelCase", 48, "camelcase"},
		{"abcdefghij", 4, "abcd"},
		{"ab cd ef", 5, "ab-cd"},
		{"trailing dash ", 8, "trailing"},
		{"version 2.0.1", 48, "version-2-0-1"},
		{"tab\tand\nnewline", 48, "tab-and-newline"},
		{"İstanbul", 48, "istanbul"},
	}
	for _, tt := range tests {
		got := Slugify(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("Slugify(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		for _, r := range got {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Errorf("Slugify(%q) = %q contains %q", tt.in, got, r)
			}
		}
		if strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slugify(%q) = %q has a stray dash", tt.in, got)
		}
	}
}

func TestSubjectSlug(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"Überprüfung der API", 48, "uberprufung-der-api"},
		{"Grüße aus Köln", 48, "grusse-aus-koln"},
		{"naïve café, señor", 48, "naive-cafe-senor"},
		{"Ærø Łódź þing", 48, "aero-lodz-thing"},
		{"İstanbul", 48, "istanbul"},
		{"世界", 48, "世界"},
		{"你好，世界！", 48, "你好-世界"},
		{"Привет, мир", 48, "привет-мир"},
		{"がんばって", 48, "がんばって"}, // the voicing marks are part of the letters
		{"한국어 테스트", 48, "한국어-테스트"},
		{"हिन्दी पाठ", 48, "हिन्दी-पाठ"},
		{"ﬁle Ｆｕｌｌ ①", 48, "file-full-1"},
		{"launch 🚀 now", 48, "launch-now"},
		{"\u202eevil\u202c name", 48, "evil-name"},
		{"a/b\\c:d\x00e", 48, "a-b-c-d-e"},
		{"世界世界", 7, "世界"},  // never half a character
		{"ab 世界", 4, "ab"}, // nor a dash at the end
		{"été", 2, "et"},
	}
	for _, tt := range tests {
		got := SubjectSlug(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("SubjectSlug(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if len(got) > tt.max || !utf8.ValidString(got) || strings.ContainsAny(got, "/\\.\x00") {
			t.Errorf("SubjectSlug(%q, %d) = %q is not a safe file name part", tt.in, tt.max, got)
		}
	}
}

// For ASCII, SubjectSlug is Slugify: messages named before keep the names
// a rebuilt index gives them. The rule for any subject (unitsSlug) and the
// one SubjectSlug takes for ASCII (asciiSlug) both give Slugify's names.
func TestSubjectSlugOfASCII(t *testing.T) {
	inputs := []string{"Auth API ready", "  leading and trailing  ", "Hello, World!!!", "a--b__c..d", "POL-358: fix",
		"", "!!! ??? ---", "CamelCase", "version 2.0.1", "tab\tand\nnewline", strings.Repeat("x", 47) + " yz", "ab cd ef", "trailing dash ",
		"[]^_`{|}~@\x7f\x00 AZaz09"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(70))
		for i := range b {
			b[i] = byte(rng.IntN(utf8.RuneSelf))
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		for _, max := range []int{3, 4, 5, 8, 48} {
			want := Slugify(in, max)
			if got := unitsSlug(in, max); got != want {
				t.Errorf("unitsSlug(%q, %d) = %q, Slugify gives %q", in, max, got, want)
			}
			if got := SubjectSlug(in, max); got != want {
				t.Errorf("SubjectSlug(%q, %d) = %q, Slugify gives %q", in, max, got, want)
			}
		}
	}
}

// A message file keeps the name it was written under, even when the rule
// for names changed since (subjects beyond ASCII were slugged differently).
func TestMessageKeepsItsFileName(t *testing.T) {
	m := baseMessage()
	m.Subject = "Grüße aus Köln"
	data := m.Files()[0].Data
	old := "projects/backend-3fa1c2d9/messages/2026/11/22/" + m.ID + "-gr-e-aus-k-ln.md"
	rec, err := Decode(old, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.(*Message).Path(); got != old {
		t.Errorf("Path of a message found at %s = %s", old, got)
	}
	if got, want := m.Path(), "projects/backend-3fa1c2d9/messages/2026/11/22/"+m.ID+"-grusse-aus-koln.md"; got != want {
		t.Errorf("Path of a new message = %s, want %s", got, want)
	}
}

func TestSlugifyMaxLength(t *testing.T) {
	for _, tt := range []struct {
		in  string
		max int
	}{
		{"ab cd ef", 3},
		{strings.Repeat("x", 47) + " yz", 48},
	} {
		if got := Slugify(tt.in, tt.max); len(got) > tt.max {
			t.Errorf("Slugify(%q, %d) = %q, %d bytes", tt.in, tt.max, got, len(got))
		}
	}
}

func TestSkipCopies(t *testing.T) {
	tests := []struct {
		dir  string
		want bool
	}{
		{"projects/p/agents/BlueLake/inbox", true},
		{"projects/p/agents/BlueLake/outbox", true},
		{"projects/p/agents/BlueLake", false},
		{"projects/p/agents", false},
		{"projects/p/messages", false},
		{"projects/p/messages/2026", false},
		{"projects/p/receipts", false},
		{"projects/p/agents/BlueLake/inbox/2026", false},
		{"projects/p/other/BlueLake/inbox", false},
		{"projects/p/attachments", true},
		{"projects/p/attachments/ab", false},
		{"projects", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := SkipCopies(tt.dir); got != tt.want {
			t.Errorf("SkipCopies(%q) = %v, want %v", tt.dir, got, tt.want)
		}
	}
}

func TestDecodeIgnoresUnknownPaths(t *testing.T) {
	for _, p := range []string{
		"README.md",
		"projects",
		"projects/p",
		"projects/p/future.json",
		"projects/p/future/thing/x.json",
		"elsewhere/p/project.json",
		"projects/p/agents/BlueLake/notes.txt",
		"projects/p/agents/BlueLake/inbox/2026/11/22/x.md",
		"projects/p/agents/BlueLake/outbox/2026/11/22/x.md",
		"projects/p/attachments/2c/2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
	} {
		rec, err := Decode(p, []byte("not a record at all"))
		if rec != nil || err != nil {
			t.Errorf("Decode(%q) = %v, %v; want nil, nil", p, rec, err)
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	m := baseMessage()
	msgPath := m.Path()
	good := string(m.Encode())
	id := m.ID
	r := &Receipt{Project: "p", Message: id, Agent: "BlueLake"}
	rcpPath := r.Files()[0].Path
	const (
		projPath  = "projects/p/project.json"
		agentPath = "projects/p/agents/BlueLake/profile.json"
	)
	tests := []struct {
		name, path, data string
	}{
		{"message empty file", msgPath, ""},
		{"message no front matter", msgPath, "just a body\n"},
		{"message crlf fence", msgPath, strings.ReplaceAll(good, "\n", "\r\n")},
		{"message unclosed", msgPath, "---\nid: " + id + "\nfrom: A\ncreated: 2026-11-22T14:03:59Z\n"},
		{"message no blank line", msgPath, strings.Replace(good, "---\n\n", "---\nbody", 1)},
		{"message bad id", msgPath, strings.Replace(good, "id: "+id, "id: not-a-ulid", 1)},
		{"message id missing", msgPath, strings.Replace(good, "id: "+id+"\n", "", 1)},
		{"message bad time", msgPath, strings.Replace(good, "2026-11-22T14:03:59Z", "yesterday", 1)},
		{"message created missing", msgPath, strings.Replace(good, "created: 2026-11-22T14:03:59Z\n", "", 1)},
		{"message from missing", msgPath, strings.Replace(good, "from: GreenCastle\n", "", 1)},
		{"message bad ack", msgPath, strings.Replace(good, "ack_required: false", "ack_required: maybe", 1)},
		{"message bad subject", msgPath, strings.Replace(good, `subject: "Auth API ready"`, `subject: "unterminated`, 1)},
		{"message bare subject", msgPath, strings.Replace(good, `subject: "Auth API ready"`, `subject: Auth API ready`, 1)},
		{"message bad list", msgPath, strings.Replace(good, "to: [BlueLake]", "to: BlueLake", 1)},
		{"message line without key", msgPath, strings.Replace(good, "from: GreenCastle", "from:GreenCastle", 1)},
		{"message bad topic", msgPath, strings.Replace(good, "created:", "topic: ../x\ncreated:", 1)},
		{"message attachments not json", msgPath, strings.Replace(good, "created:", "attachments: [a.png]\ncreated:", 1)},
		{"message attachment path in name", msgPath, strings.Replace(good, "created:", `attachments: [{"name":"../a","sha256":"`+strings.Repeat("a", 64)+`","size":1}]`+"\ncreated:", 1)},
		{"message attachment bad sha", msgPath, strings.Replace(good, "created:", `attachments: [{"name":"a","sha256":"../../x","size":1}]`+"\ncreated:", 1)},
		{"message attachment twice", msgPath, strings.Replace(good, "created:", `attachments: [{"name":"a","sha256":"`+strings.Repeat("a", 64)+`"},{"name":"a","sha256":"`+strings.Repeat("a", 64)+`"}]`+"\ncreated:", 1)},
		{"project bad json", projPath, `{"key": "k", "slug": `},
		{"project bad time", projPath, `{"key": "k", "slug": "p", "created": "22/11/2026"}`},
		{"project not an object", projPath, `["k"]`},
		{"agent bad json", agentPath, `{name: BlueLake}`},
		{"agent bad registered", agentPath, `{"name": "BlueLake", "registered": "soon"}`},
		{"agent bad updated", agentPath, `{"name": "BlueLake", "registered": "2026-11-22T14:03:59Z", "updated": "later"}`},
		{"agent name mismatch", agentPath, `{"name": "RedCat", "registered": "2026-11-22T14:03:59Z"}`},
		{"receipt bad json", rcpPath, `{"message": `},
		{"receipt bad read_at", rcpPath, `{"message": "` + id + `", "agent": "BlueLake", "read_at": "now"}`},
		{"receipt bad acked_at", rcpPath, `{"message": "` + id + `", "agent": "BlueLake", "acked_at": 5}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Decode(tt.path, []byte(tt.data))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode error = %v, want one wrapping ErrMalformed", err)
			}
			if rec != nil {
				t.Errorf("Decode returned a record %#v along with the error", rec)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestTimes(t *testing.T) {
	if s := FormatTime(time.Time{}); s != "" {
		t.Errorf("FormatTime(zero) = %q, want \"\"", s)
	}
	local := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("Y", -7*3600))
	if s := FormatTime(local); s != "2026-01-02T10:04:05Z" {
		t.Errorf("FormatTime = %q", s)
	}
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"2026-01-02T10:04:05Z", time.Date(2026, 1, 2, 10, 4, 5, 0, time.UTC), false},
		{"2026-01-02T03:04:05-07:00", time.Date(2026, 1, 2, 10, 4, 5, 0, time.UTC), false},
		{"2026-01-02 10:04:05", time.Time{}, true},
		{"garbage", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) || (err == nil && got.Location() != time.UTC) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v (error %v) in UTC", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReservationLayout(t *testing.T) {
	at := time.Date(2026, 11, 25, 9, 4, 5, 67_000_000, time.UTC)
	id := newID(at, 7)
	tests := []struct {
		name, id, file string
	}{
		{"ULID: its time down to the millisecond", id, "reservations/2026/11/25/09/04/05/067/" + id + ".json"},
		{"the millisecond 0", newID(at.Truncate(time.Second), 1), "reservations/2026/11/25/09/04/05/000/" + newID(at.Truncate(time.Second), 1) + ".json"},
		{"not a ULID: flat, as before", "bench-1", "reservations/bench-1.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReservationFile(tt.id); got != tt.file {
				t.Errorf("ReservationFile(%q) = %q, want %q", tt.id, got, tt.file)
			}
			to, moved := RelocateReservation(tt.id + ".json")
			if want := strings.TrimPrefix(tt.file, "reservations/"); moved != (want != tt.id+".json") || (moved && to != want) {
				t.Errorf("RelocateReservation(%q) = %q, %v; want %q", tt.id+".json", to, moved, want)
			}
		})
	}
	for _, name := range []string{"README.md", "2026", id} {
		if to, moved := RelocateReservation(name); moved {
			t.Errorf("RelocateReservation(%q) = %q, true; want it left alone", name, to)
		}
	}
}

func TestDecodeReservationEitherLayout(t *testing.T) {
	r := &Reservation{Project: "p", ID: newID(created, 3), Agent: "GreenCastle", Pattern: "src/**",
		Created: created, Expires: created.Add(time.Hour)}
	data := r.Files()[0].Data
	for _, p := range []string{"projects/p/" + ReservationFile(r.ID), "projects/p/" + LegacyReservationFile(r.ID)} {
		got, err := Decode(p, data)
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("Decode(%q) = %#v, %v; want %#v", p, got, err, r)
		}
	}
	for _, p := range []string{"projects/p/reservations/2026/x.json", "projects/p/reservations/2026/11/25/09/04/05/x.json"} {
		if rec, err := Decode(p, data); rec != nil || err != nil {
			t.Errorf("Decode(%q) = %v, %v; want nil, nil (not a path of either layout)", p, rec, err)
		}
	}
}

// BenchmarkSubjectSlugASCII names a message of an ASCII subject, as every
// page listing messages does for each.
func BenchmarkSubjectSlugASCII(b *testing.B) {
	for b.Loop() {
		SubjectSlug("Re: the cache index query is slow after the retry, see POL-358", 48)
	}
}

// TestReservationFileAsMarshalled: a reservation's file is byte for byte
// what json.MarshalIndent made of it before Files wrote it out directly,
// whatever its strings hold and whichever optional members it has.
func TestReservationFileAsMarshalled(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 0, 1, 42e6, time.UTC)
	base := Reservation{Project: "shop-00000000", ID: "01KAQ7N3J2XG1T4M0V8Y5ZC6B9", Agent: "GreenCastle",
		Pattern: "src/api/**", Exclusive: true, Reason: "auth rewrite", Created: at, Expires: at.Add(time.Hour)}
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x01\x1f\x7f",
		"é ünïcödé 日本", "line\u2028sep\u2029", "bad \xff utf-8", "src/{a,b}/[!x]*.go"}
	var cases []Reservation
	for _, s := range strs {
		r := base
		r.Pattern, r.Reason = s, s
		cases = append(cases, r)
		r.Released, r.ReleasedBy, r.ReleaseReason, r.Unconfirmed, r.Exclusive = at.Add(time.Minute), s, s, true, false
		cases = append(cases, r)
	}
	for _, opt := range []func(*Reservation){
		func(r *Reservation) { r.ReleasedBy = "BlueLake" },
		func(r *Reservation) { r.ReleaseReason = "holder silent" },
		func(r *Reservation) { r.Unconfirmed = true },
		func(r *Reservation) { r.Released = at.Add(2 * time.Hour) },
		func(r *Reservation) { r.Auto, r.Session = true, "00893aaf-19fa-41d2-8238-13269b9b3ca0" },
		func(r *Reservation) { r.Auto, r.Session = true, "" },
	} {
		r := base
		opt(&r)
		cases = append(cases, r)
	}
	for _, r := range cases {
		want := marshal(reservationJSON{r.ID, r.Agent, r.Pattern, r.Exclusive, r.Reason, FormatTime(r.Created), FormatTime(r.Expires),
			optTime(r.Released), r.ReleasedBy, r.ReleaseReason, r.Unconfirmed, r.Auto, r.Session})
		if got := r.Files()[0].Data; !bytes.Equal(got, want) {
			t.Errorf("file of %+v:\n%s\nwant (json.MarshalIndent):\n%s", r, got, want)
		}
	}
}

func TestAttachmentFile(t *testing.T) {
	data := []byte("foo")
	f, a := NewAttachment("p", "foo.txt", "text/plain", data)
	const sum = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	want := Attachment{Name: "foo.txt", SHA256: sum, Size: 3, MediaType: "text/plain"}
	if a != want {
		t.Errorf("entry = %+v, want %+v", a, want)
	}
	files := f.Files()
	if len(files) != 1 || files[0].Path != "projects/p/attachments/2c/"+sum || string(files[0].Data) != "foo" {
		t.Errorf("Files() = %+v", files)
	}
	if rec, err := Decode(files[0].Path, files[0].Data); rec != nil || err != nil {
		t.Errorf("Decode(attachment) = %v, %v; want nil, nil: the index keeps nothing of it", rec, err)
	}
	if !SkipCopies(path.Dir(path.Dir(files[0].Path))) {
		t.Error("the index reads the attachments' directory")
	}
}

func TestNormalTopic(t *testing.T) {
	for in, want := range map[string]string{"builds": "builds", " Team-API ": "team-api", "release_2.1": "release_2.1", "_x": "_x",
		strings.Repeat("a", 64): strings.Repeat("a", 64)} {
		if got, ok := NormalTopic(in); !ok || got != want {
			t.Errorf("NormalTopic(%q) = %q, %v; want %q, true", in, got, ok, want)
		}
	}
	for _, in := range []string{"", " ", "-x", ".x", "a b", "a/b", "a\nb", "café", strings.Repeat("a", 65), "#builds"} {
		if got, ok := NormalTopic(in); ok {
			t.Errorf("NormalTopic(%q) = %q, true; want it refused", in, got)
		}
	}
}

func TestValidAttachmentName(t *testing.T) {
	for _, ok := range []string{"a.png", "shot 1.png", "ünï.txt", ".env", strings.Repeat("x", 255)} {
		if why := ValidAttachmentName(ok); why != "" {
			t.Errorf("ValidAttachmentName(%q) = %q, want it valid", ok, why)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "a\nb", "\xff", strings.Repeat("x", 256)} {
		if ValidAttachmentName(bad) == "" {
			t.Errorf("ValidAttachmentName(%q) accepted it", bad)
		}
	}
}

func ptr[T any](v T) *T { return &v }
