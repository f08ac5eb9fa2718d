package web

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fts"
)

// The fixtures are a project as the service would describe it: a team of
// agents at work, and one agent whose profile and mail carry payloads that
// would change the page's title (pwnedTitle) or fetch hitPath if they ever
// ran or loaded.

const (
	hitPath    = "/hit"
	pwnedTitle = "PWNED"
	fixtureNow = "2026-11-22T10:00:00Z"
)

// payload is markup that acts if a page lets it through: a script, an
// image that fails, an image that loads, a javascript: link.
const payload = `<script>document.title='` + pwnedTitle + `';fetch('` + hitPath + `?script')</script>` +
	`<img src=x onerror="document.title='` + pwnedTitle + `';fetch('` + hitPath + `?onerror')">` +
	`<img src="` + hitPath + `?img">` +
	`<a href="javascript:document.title='` + pwnedTitle + `'">click</a> &amp; &lt;b&gt; &#60;i&#62;`

// hostileBody is a markdown body that tries every way in.
const hostileBody = "Hello " + payload + "\n\n" +
	"<script>document.title='" + pwnedTitle + "'</script>\n\n" +
	"<iframe src=\"" + hitPath + "?iframe\"></iframe>\n\n" +
	"<style>body{background:url(" + hitPath + "?css)}</style>\n\n" +
	"[a link](javascript:document.title='" + pwnedTitle + "') [entity link](&#106;avascript:alert(1)) " +
	"[data](data:text/html,<script>alert(1)</script>) ![tracker](" + hitPath + "?mdimg)\n\n" +
	"<javascript:alert(1)> and &lt;script&gt; stays text\n"

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ago(d time.Duration) time.Time { return at(fixtureNow).Add(-d) }

func str(s string) *string { return &s }

func count(n int) *int { return &n }

var fixtureProject = Project{Key: "github.com/acme/shop", Slug: "shop-3fa1c2d9",
	Holds: Counts{Agents: 5, Messages: 1284, Reservations: 4}}

var hostileThread = `thread-<script>document.title='` + pwnedTitle + `'</script>/x y`

var fixtureAgents = []Agent{
	{Name: "GreenCastle", Program: "claude-code", Model: "opus-4", Task: "Auth API: sessions, tokens and the login routes",
		Registered: ago(50 * time.Hour), LastSeen: ago(40 * time.Second), Policy: "open", State: "active", Reservations: count(2),
		Role: "implementer", Branch: "auth-rework", Claims: []Claim{{ID: "01JD3Y4QZ8R7T6Y5U4I3O2P1AB", Title: "Session tokens"}},
		Mail: &MailCounts{AcksOwed: 1}},
	{Name: "BlueLake", Program: "codex", Model: "gpt-5", Task: "Frontend login form and session handling",
		Registered: ago(49 * time.Hour), LastSeen: ago(3 * time.Minute), Policy: "auto", State: "active", Reservations: count(1),
		Mail: &MailCounts{Unread: 4, Urgent: 1, AwaitingAck: 1}},
	{Name: "RedCat", Program: "gemini-cli", Model: "gemini-2.5-pro", Task: "Database migrations",
		Registered: ago(30 * time.Hour), LastSeen: ago(14 * time.Minute), Policy: "open", State: "idle", Reservations: count(0),
		Mail: &MailCounts{Unread: 1000}},
	{Name: "QuietFox", Program: "opencode", Model: "", Task: "",
		Registered: ago(90 * time.Hour), LastSeen: ago(26 * time.Hour), Policy: "open", State: "stale", Reservations: count(0)},
	{Name: "EvilTwin", Program: payload, Model: payload, Task: "Task " + payload,
		Registered: ago(2 * time.Hour), LastSeen: ago(5 * time.Minute), Policy: "open", State: "active", Reservations: count(1)},
	{Name: "OldOwl", Program: "claude-code", Task: "Retired after the v1 release", Retired: true,
		Registered: ago(400 * time.Hour), LastSeen: ago(200 * time.Hour), Policy: "open", State: "stale", Reservations: count(0)},
}

var fixtureReservations = []Reservation{
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0S", Agent: "GreenCastle", Pattern: "src/api/**", Exclusive: true, Reason: "auth rewrite",
		Created: ago(45 * time.Minute), Expires: ago(-15 * time.Minute)},
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0T", Agent: "GreenCastle", Pattern: "docs/auth.md", Exclusive: false, Reason: "",
		Created: ago(45 * time.Minute), Expires: ago(-75 * time.Minute)},
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0U", Agent: "BlueLake", Pattern: "web/src/login/*.tsx", Exclusive: true, Reason: "login form",
		Created: ago(20 * time.Minute), Expires: ago(-40 * time.Minute)},
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0V", Agent: "EvilTwin", Pattern: "src/<script>document.title='" + pwnedTitle + "'</script>/**",
		Exclusive: true, Reason: payload, Created: ago(10 * time.Minute), Expires: ago(-50 * time.Minute),
		Clashes: []Reservation{{Agent: "GreenCastle", Pattern: "src/api/**"}}},
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0W", Agent: "RedCat", Pattern: "migrations/", Exclusive: true, Reason: "schema 12",
		Created: ago(3 * time.Hour), Expires: ago(2 * time.Hour)},
	{ID: "01JD3Y4Q8R7T6Y5U4I3O2P1A0X", Agent: "QuietFox", Pattern: "README.md", Exclusive: false, Reason: "typo fixes",
		Created: ago(28 * time.Hour), Expires: ago(27 * time.Hour), Released: ago(27*time.Hour + 30*time.Minute)},
}

var fixtureLocks = []Lock{
	{Key: "deploy/staging", Holder: "GreenCastle", Created: ago(2 * time.Minute), Expires: ago(-3 * time.Minute)},
	{Key: "build/frontend", Holder: "BlueLake", Created: ago(30 * time.Minute), Expires: ago(25 * time.Minute)},
	{Key: "evil/<script>document.title='" + pwnedTitle + "'</script>", Holder: "EvilTwin", Created: ago(time.Minute), Expires: ago(-4 * time.Minute)},
}

var fixtureContacts = []Contact{
	{From: "RedCat", To: "BlueLake", State: "approved", Reason: "need the session schema",
		Requested: ago(5 * time.Hour), Decided: ago(4 * time.Hour), Expires: ago(-30 * 24 * time.Hour)},
	{From: "QuietFox", To: "GreenCastle", State: "requested", Reason: "README overlaps your docs",
		Requested: ago(26 * time.Hour)},
	{From: "EvilTwin", To: "GreenCastle", State: "denied", Reason: payload,
		Requested: ago(90 * time.Minute), Decided: ago(80 * time.Minute)},
}

// fixtureMessage builds a message of the fixture thread.
func fixtureMessage(n int, from string, to []string, subject, body string, age time.Duration) FullMessage {
	id := fmt.Sprintf("01JD3Y%02dQ8R7T6Y5U4I3O2P1A", n)
	created := ago(age)
	m := FullMessage{Received: Received{Message: Message{
		ID: id, Thread: "01JD3Y01Q8R7T6Y5U4I3O2P1A", From: from, To: to, Cc: []string{}, Bcc: []string{},
		Subject: subject, Importance: "normal", Created: created,
		Path: fmt.Sprintf("projects/shop-3fa1c2d9/messages/2026/11/22/%s-%s.md", id, "auth-api-ready"),
	}}, Body: body}
	return m
}

var fixtureThread = func() []FullMessage {
	a := fixtureMessage(1, "GreenCastle", []string{"BlueLake"}, "Auth API ready for the login form",
		"The routes are in `src/api/auth.go`:\n\n"+
			"| route | method | notes |\n|---|:-:|---|\n| `/login` | POST | sets the session cookie |\n| `/logout` | POST | idempotent |\n\n"+
			"- [x] sessions\n- [x] tokens\n- [ ] rate limits (next)\n\n"+
			"See the [design note](https://example.com/design/auth) and **ack** when the form is wired.\n\n"+
			"```go\nhttp.HandleFunc(\"POST /login\", h.login)\n```\n", 3*time.Hour)
	a.Category, a.AckRequired, a.Importance = str("HANDOFF"), true, "high"
	a.ReadAt, a.AckedAt = ago(150*time.Minute), ago(140*time.Minute)
	b := fixtureMessage(2, "BlueLake", []string{"GreenCastle"}, "Re: Auth API ready for the login form",
		"Wired up. One question: does `/logout` clear the CSRF cookie too?\n\n> sets the session cookie\n", 2*time.Hour)
	b.ReplyTo = str(a.ID)
	b.ReadAt = ago(100 * time.Minute)
	c := fixtureMessage(3, "GreenCastle", []string{"BlueLake"}, "Re: Auth API ready for the login form",
		"It does not; I'll add it. Holding `src/api/**` for another 15 minutes.", 30*time.Minute)
	c.ReplyTo = str(b.ID)
	return []FullMessage{a, b, c}
}()

// inbox is BlueLake's inbox: the thread's messages to it, and more.
var fixtureInbox = func() []Received {
	var out []Received
	subjects := []struct {
		from, subject, cat, imp string
		age                     time.Duration
		read, ack, acked        bool
	}{
		{"RedCat", "Migration 12 is BLOCKED on the session table", "BLOCKED", "urgent", 5 * time.Minute, false, true, false},
		{"GreenCastle", "Re: Auth API ready for the login form", "", "normal", 30 * time.Minute, false, false, false},
		{"EvilTwin", "Subject " + payload, "INFO", "normal", 50 * time.Minute, false, true, false},
		{"RedCat", "Decision: UUIDv7 for session ids", "DECISION", "normal", 2 * time.Hour, true, false, false},
		{"GreenCastle", "Auth API ready for the login form", "HANDOFF", "high", 3 * time.Hour, true, true, true},
		{"QuietFox", "Typo sweep of the README", "", "low", 27 * time.Hour, true, false, false},
		{"GreenCastle", "Standup notes", "INFO", "normal", 50 * time.Hour, true, false, false},
	}
	for i, s := range subjects {
		m := fixtureMessage(10+i, s.from, []string{"BlueLake"}, s.subject, "", s.age).Received
		if s.cat != "" {
			m.Category = str(s.cat)
		}
		m.Importance, m.AckRequired = s.imp, s.ack
		if s.read {
			m.ReadAt = ago(s.age - time.Minute)
		}
		if s.acked {
			m.AckedAt = ago(s.age - 2*time.Minute)
		}
		if s.from == "EvilTwin" {
			m.Thread = hostileThread
		}
		out = append(out, m)
	}
	return out
}()

// hostileMessage is EvilTwin's message, every header and the body hostile.
var hostileMessage = func() FullMessage {
	m := fixtureMessage(12, "EvilTwin", []string{"BlueLake", "GreenCastle"}, "Subject "+payload, hostileBody, 50*time.Minute)
	m.Thread, m.Category, m.AckRequired = hostileThread, str("INFO"), true
	m.Cc = []string{"RedCat"}
	m.ReplyTo = str("01JD3Y01Q8R7T6Y5U4I3O2P1A\"><script>document.title='" + pwnedTitle + "'</script>")
	return m
}()

func fixturePage() Page {
	p := fixtureProject
	return Page{Project: &p, Now: at(fixtureNow), Events: "/api/events?project=" + p.Slug, Live: []string{"message", "receipt"}}
}

// marked is a snippet with fts's markers around its hits.
func marked(s ...string) string {
	out := ""
	for i, part := range s {
		if i%2 == 1 {
			out += fts.MarkOpen + part + fts.MarkClose
		} else {
			out += part
		}
	}
	return out
}

// fixtureViews are every page, by the file name the preview writes.
func fixtureViews() map[string]View {
	page := fixturePage()
	noLive := page
	noLive.Events, noLive.Live = "", nil
	thread := fixtureThread
	threadReceived := []Received{thread[0].Received, thread[1].Received, thread[2].Received}
	pending := []AwaitingAck{
		{Received: fixtureInbox[0], WaitingFor: []string{"BlueLake", "GreenCastle"}},
		{Received: fixtureInbox[2], WaitingFor: []string{"BlueLake"}},
	}
	hits := []SearchHit{
		{ID: thread[0].ID, Thread: thread[0].Thread, From: "GreenCastle", Subject: thread[0].Subject, Created: thread[0].Created,
			Marked: marked("The routes are in src/api/auth.go … ", "login", " sets the ", "session", " cookie …"), Score: 7.2},
		{ID: thread[1].ID, Thread: thread[1].Thread, From: "BlueLake", Subject: thread[1].Subject, Created: thread[1].Created,
			Marked: marked("Wired up. … does /logout clear the CSRF cookie … ", "session", ""), Score: 5.1},
		{ID: hostileMessage.ID, Thread: hostileThread, From: "EvilTwin", Subject: hostileMessage.Subject, Created: hostileMessage.Created,
			Marked: marked("Hello <script>document.title='"+pwnedTitle+"'</script> ", "session", " <img src=x onerror=\"fetch('"+hitPath+"?snippet')\">"), Score: 1.3},
	}
	pausedAgent := fixtureAgents[1]
	pausedAgent.PausedBy, pausedAgent.PauseReason = Human, "hold the login form until the schema lands"
	return map[string]View{
		"projects": ProjectsView{Page: Page{Now: at(fixtureNow)}, Projects: []Project{fixtureProject,
			{Key: "/home/dev/src/tools", Slug: "tools-0b1c2d3e", Holds: Counts{Agents: 1, Messages: 12}},
			{Key: "github.com/acme/<script>document.title='" + pwnedTitle + "'</script>", Slug: "evil-00000000", Holds: Counts{}}}},
		"project": ProjectView{Page: page, Agents: fixtureAgents, Reservations: fixtureReservations[:4], Locks: fixtureLocks[:1],
			Timeline: Timeline{Newest: true, Older: "/mail/shop-3fa1c2d9?before=" + fixtureInbox[4].ID,
				Items: func() []TimelineItem {
					var out []TimelineItem
					for _, m := range fixtureInbox[:5] {
						m := m.Message
						out = append(out, TimelineItem{Kind: "message", Key: m.ID, Agent: m.From, At: m.Created, Message: &m})
					}
					// The other kinds, among the messages, one of them hostile.
					return append(out[:1:1], append([]TimelineItem{
						{Kind: "task", Key: "k1", Event: "claimed", Agent: "BlueLake", By: "BlueLake", At: ago(7 * time.Minute),
							Task: TaskRef{ID: "01JD3Y4QZZZZZZZZZZZZZZZZZZ", Title: "Login form " + payload}},
						{Kind: "lease", Key: "k2", Event: "taken", Agent: "BlueLake", At: ago(8 * time.Minute), Pattern: "src/web/**", Exclusive: true},
						{Kind: "state", Key: "k3", Event: "stuck", Agent: "RedCat", Note: "waiting on the schema " + payload, At: ago(9 * time.Minute)},
						{Kind: "control", Key: "k4", Event: "paused", Agent: "BlueLake", By: "Human", Note: "hold the login form", At: ago(10 * time.Minute)},
						{Kind: "lease", Key: "k5", Event: "released", Agent: "GreenCastle", At: ago(11 * time.Minute), Pattern: "db/**"},
					}, out[1:]...)...)
				}()}},
		"inbox": MailboxView{Page: page, Agent: pausedAgent, Messages: fixtureInbox,
			Older: fixtureInbox[len(fixtureInbox)-1].ID, CSRF: "fixture-token", Steered: "Paused " + pausedAgent.Name + "."},
		"channels": ChannelsView{Page: page, Channels: []Channel{{Topic: "builds", Messages: 14, Last: ago(5 * time.Minute)},
			{Topic: "team-api", Messages: 3, Last: ago(26 * time.Hour)}}},
		"channel": ChannelView{Page: page, Topic: "builds", Messages: fixtureInbox[:4], CSRF: "fixture-token",
			Posted: &fixtureInbox[0].Message, Form: PostForm{Body: "Deploy frozen until 18:00"}},
		"history": HistoryView{Page: page, From: "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6", Next: 50, Changes: []Change{
			{Commit: "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6", Author: "Human", Time: ago(4 * time.Minute), Subject: "control: Human pauses BlueLake",
				Files: []string{"projects/shop-3fa1c2d9/agents/BlueLake/control.json"}, Means: []string{"BlueLake paused by Human"}},
			{Commit: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", Author: "GreenCastle", Time: ago(30 * time.Minute),
				Subject: "send: GreenCastle -> BlueLake: Re: Auth API ready for the login form",
				Files: []string{"projects/shop-3fa1c2d9/messages/2026/11/22/01JD3Y01Q8R7T6Y5U4I3O2P1A-re-auth-api-ready.md",
					"projects/shop-3fa1c2d9/agents/BlueLake/inbox/2026/11/01JD3Y01Q8R7T6Y5U4I3O2P1A.md"},
				Means: []string{"message “Re: Auth API ready for the login form” sent by GreenCastle to BlueLake"}},
			{Commit: "2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e", Author: "Evil<script>", Time: ago(2 * time.Hour), Subject: "reserve: " + payload,
				Means: []string{"lease on " + payload + " held by Evil<script> (exclusive, until 14:00 UTC)"}}}},
		"threads": ThreadsView{Page: page, Older: thread[0].ID, Threads: []ThreadSummary{
			{Thread: thread[0].Thread, Subject: thread[0].Subject, Messages: 3, Participants: []string{"BlueLake", "GreenCastle"},
				LastID: thread[2].ID, LastFrom: "BlueLake", Last: ago(20 * time.Minute)},
			{Thread: hostileThread, Subject: hostileMessage.Subject, Messages: 1, Participants: []string{"BlueLake", "EvilTwin", "GreenCastle"},
				LastID: hostileMessage.ID, LastFrom: "EvilTwin", Last: ago(50 * time.Minute)}}},
		"inbox-older": MailboxView{Page: page, Agent: fixtureAgents[1], Messages: fixtureInbox[5:], Before: fixtureInbox[4].ID},
		"outbox": MailboxView{Page: page, Agent: fixtureAgents[0], Outbox: true,
			Messages: []Received{thread[2].Received, thread[0].Received}},
		"message": MessageView{Page: page, Agent: "BlueLake", Message: thread[0], Thread: threadReceived, ThreadSize: len(threadReceived),
			Commit: "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6"},
		"message-attachments": MessageView{Page: page, Agent: "BlueLake", Message: withAttachments(thread[0]), Thread: threadReceived,
			ThreadSize: len(threadReceived), Commit: "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6"},
		"message-hostile": MessageView{Page: page, Agent: "BlueLake", Message: hostileMessage,
			Thread: []Received{hostileMessage.Received, thread[1].Received}, ThreadSize: 2, Commit: "9f1c2e3d4b5a69788796a5b4c3d2e1f0a9b8c7d6"},
		"thread":         ThreadView{Page: page, Thread: thread[0].Thread, Agent: "BlueLake", Messages: thread},
		"thread-hostile": ThreadView{Page: page, Thread: hostileThread, Messages: []FullMessage{hostileMessage, thread[1]}},
		"search": SearchView{Page: noLive, Query: "session login", Searched: true, Results: hits,
			Filters: SearchFilters{From: "GreenCastle", Since: "2026-11-01"},
			Notes:   []string{`ignored "NEAR(": not supported`}},
		"search-empty": SearchView{Page: noLive, Query: payload, Searched: true},
		"search-start": SearchView{Page: noLive},
		"reservations": ReservationsView{Page: page, Reservations: fixtureReservations, Locks: fixtureLocks, Steering: Steering{CSRF: "fixture-token"}},
		"contacts":     ContactsView{Page: page, Contacts: fixtureContacts},
		"acks":         AcksView{Page: page, Pending: pending},
		"compose": ComposeView{Page: noLive, Agents: fixtureAgents, CSRF: "fixture-csrf-token", MaxSubject: 200,
			Form: ComposeForm{Importance: "normal"}},
		"compose-sent": ComposeView{Page: noLive, Agents: fixtureAgents, CSRF: "fixture-csrf-token",
			Form: ComposeForm{Importance: "normal"}, Sent: &thread[0].Message},
		"compose-error": ComposeView{Page: noLive, Agents: fixtureAgents, CSRF: "fixture-csrf-token",
			Form:  ComposeForm{To: []string{"BlueLake"}, Subject: "", Body: "Please stop " + payload, Importance: "urgent"},
			Error: "invalid form: the subject is empty", Hint: "write a subject"},
		"error": ErrorView{Status: 404, Code: "NOT_FOUND", Message: "no message " + payload, Hint: "check the id"},
	}
}

// withAttachments is m filed under a topic with three attachments: an
// image, an SVG and a text file with a hostile name.
func withAttachments(m FullMessage) FullMessage {
	m.Topic = "ui-bugs"
	m.Attachments = []Attachment{
		{Name: "shot.png", SHA256: strings.Repeat("a", 64), Size: 2048, MediaType: "image/png"},
		{Name: "diagram.svg", SHA256: strings.Repeat("b", 64), Size: 300, MediaType: "image/svg+xml"},
		{Name: "<script>alert(1)</script>.txt", SHA256: strings.Repeat("c", 64), Size: 15, MediaType: "text/plain; charset=utf-8"},
	}
	return m
}
