package export

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/fts"
	"github.com/agentmail/agentmail/internal/ids"
)

//go:embed assets
var assets embed.FS

// PerPage is how many messages a page of the timeline lists.
const PerPage = 200

// Result says what Write wrote.
type Result struct {
	Messages int   `json:"messages"`
	Threads  int   `json:"threads"`
	Agents   int   `json:"agents"`
	Tasks    int   `json:"tasks"`
	Files    int   `json:"files"` // the manifest's entries
	Bytes    int64 `json:"bytes"` // their size
	Signed   bool  `json:"signed"`
}

// pageData is what every page's layout reads.
type pageData struct {
	Site    *Site
	Title   string
	Section string
	Root    string // the way back to the site's root: "" or "../"
	Search  bool   // the page loads the search scripts
}

type timelineData struct {
	pageData
	Messages    []Message
	Total, Page int
	Pages       int
	Prev, Next  string
}

type messageData struct {
	pageData
	Message Message
}

type threadData struct {
	pageData
	Thread   string
	Messages []Message
}

// thread is a thread on the threads page.
type thread struct {
	ID           string
	Subject      string
	Participants []string
	Count        int
	Last         time.Time
}

type threadsData struct {
	pageData
	Threads []thread
}

// agentRow is an agent on the agents page.
type agentRow struct {
	Agent
	Sent, Received int
}

type agentsData struct {
	pageData
	Agents []agentRow
}

// taskColumn is a column of the tasks board.
type taskColumn struct {
	Key, Title string
	Tasks      []Task
}

type tasksData struct {
	pageData
	Columns []taskColumn
	Total   int
	Titles  map[string]string // a task's title by id, for its dependencies
	Short   ids.Short         // a task's shortest unique prefix, as the board shows it
}

// writer writes a site's files, hashing each as it goes.
type writer struct {
	dir    string
	hashes map[string]string // path (slash-separated) -> SHA-256, hex
	bytes  int64
}

func (w *writer) write(name string, data []byte) error {
	path := filepath.Join(w.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	w.hashes[name] = hex.EncodeToString(sum[:])
	w.bytes += int64(len(data))
	return nil
}

// plainID reports whether a message id may name a file as it is (a ULID:
// 1 to 64 ASCII letters and digits).
func plainID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// messageFile is the page of the message id, relative to the site's root.
func messageFile(id string) string {
	if plainID(id) {
		return "messages/" + id + ".html"
	}
	return "messages/" + hashName(id) + ".html"
}

// threadFile is the page of a thread, relative to the site's root: named
// by a hash, as a thread's name may be any text.
func threadFile(id string) string { return "threads/" + hashName(id) + ".html" }

func hashName(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// ErrNotEmpty: the directory an export is to be written to holds files.
var ErrNotEmpty = fmt.Errorf("%w: the export's directory is not empty", fault.ErrInvalidArgument)

// Write writes s as a static site into dir, which must be missing or
// empty, and its manifest (and the manifest's signature, with
// opts.SignKey). Redact s first: Write writes what it is given.
func Write(dir string, s *Site, opts Options) (Result, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Result{}, fault.WithField(fmt.Errorf("%w: %s holds %d entries; name a new or empty directory", ErrNotEmpty, dir, len(entries)),
			"dir", "dir", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	t, err := parseTemplates(opts)
	if err != nil {
		return Result{}, err
	}
	w := &writer{dir: dir, hashes: map[string]string{}}
	render := func(name, page string, data any) error {
		var buf bytes.Buffer
		if err := t[page].ExecuteTemplate(&buf, "layout", data); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		return w.write(name, buf.Bytes())
	}
	base := func(title, section, root string) pageData {
		return pageData{Site: s, Title: title, Section: section, Root: root}
	}

	// The timeline, newest first, PerPage messages a page.
	pages := max(1, (len(s.Messages)+PerPage-1)/PerPage)
	timelineFile := func(n int) string {
		if n == 1 {
			return "index.html"
		}
		return fmt.Sprintf("timeline-%d.html", n)
	}
	for n := 1; n <= pages; n++ {
		d := timelineData{pageData: base("Timeline", "timeline", ""), Total: len(s.Messages), Page: n, Pages: pages}
		d.Messages = s.Messages[min(len(s.Messages), (n-1)*PerPage):min(len(s.Messages), n*PerPage)]
		if n > 1 {
			d.Prev = timelineFile(n - 1)
		}
		if n < pages {
			d.Next = timelineFile(n + 1)
		}
		if err := render(timelineFile(n), "timeline", d); err != nil {
			return Result{}, err
		}
	}

	// Each message, and the threads (oldest message first within one).
	byThread := map[string][]Message{}
	var order []string // threads, most recently active first
	for _, m := range s.Messages {
		if err := render(messageFile(m.ID), "message", messageData{base(m.Subject, "timeline", "../"), m}); err != nil {
			return Result{}, err
		}
		if _, ok := byThread[m.Thread]; !ok {
			order = append(order, m.Thread)
		}
		byThread[m.Thread] = append(byThread[m.Thread], m)
	}
	threads := make([]thread, 0, len(order))
	for _, id := range order {
		msgs := byThread[id]
		slices.Reverse(msgs)
		th := thread{ID: id, Subject: msgs[0].Subject, Count: len(msgs), Last: msgs[len(msgs)-1].Created}
		for _, m := range msgs {
			for _, who := range append([]string{m.From}, append(m.To, m.Cc...)...) {
				if !slices.Contains(th.Participants, who) {
					th.Participants = append(th.Participants, who)
				}
			}
		}
		threads = append(threads, th)
		if err := render(threadFile(id), "thread", threadData{base(th.Subject, "threads", "../"), id, msgs}); err != nil {
			return Result{}, err
		}
	}
	if err := render("threads.html", "threads", threadsData{base("Threads", "threads", ""), threads}); err != nil {
		return Result{}, err
	}

	// The agents, with what each sent and received.
	rows := make([]agentRow, len(s.Agents))
	at := map[string]int{}
	for i, a := range s.Agents {
		rows[i] = agentRow{Agent: a}
		at[a.Name] = i
	}
	for _, m := range s.Messages {
		if i, ok := at[m.From]; ok {
			rows[i].Sent++
		}
		for _, r := range append(slices.Clip(m.To), m.Cc...) {
			if i, ok := at[r]; ok {
				rows[i].Received++
			}
		}
	}
	if err := render("agents.html", "agents", agentsData{base("Agents", "agents", ""), rows}); err != nil {
		return Result{}, err
	}

	// The tasks, on a board: ready, in progress, blocked, closed (newest
	// closed first), each column in the service's order.
	cols := []taskColumn{{Key: "ready", Title: "Ready"}, {Key: "progress", Title: "In progress"}, {Key: "blocked", Title: "Blocked"}, {Key: "closed", Title: "Closed"}}
	titles := map[string]string{}
	sorted := make([]string, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		titles[t.ID] = t.Title
		sorted = append(sorted, t.ID)
		if i := slices.IndexFunc(cols, func(c taskColumn) bool { return c.Key == t.Column }); i >= 0 {
			cols[i].Tasks = append(cols[i].Tasks, t)
		}
	}
	slices.SortStableFunc(cols[3].Tasks, func(a, b Task) int { return b.Closed.Compare(a.Closed) })
	slices.Sort(sorted)
	if err := render("tasks.html", "tasks", tasksData{base("Tasks", "tasks", ""), cols, len(s.Tasks), titles, ids.ShortenSorted(sorted)}); err != nil {
		return Result{}, err
	}

	// Search: the page, its script and its index.
	sd := base("Search", "search", "")
	sd.Search = true
	if err := render("search.html", "search", sd); err != nil {
		return Result{}, err
	}
	script, err := assets.ReadFile("assets/search.js")
	if err != nil {
		return Result{}, err
	}
	if err := w.write("search.js", script); err != nil {
		return Result{}, err
	}
	index, err := searchIndex(s.Messages)
	if err != nil {
		return Result{}, err
	}
	if err := w.write("search-index.js", index); err != nil {
		return Result{}, err
	}
	if err := w.write("style.css", opts.Stylesheet); err != nil {
		return Result{}, err
	}

	res := Result{Messages: len(s.Messages), Threads: len(threads), Agents: len(s.Agents), Tasks: len(s.Tasks), Files: len(w.hashes), Bytes: w.bytes}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest(w.hashes), 0o644); err != nil {
		return Result{}, err
	}
	if opts.SignKey != "" {
		if err := sign(opts.Keygen, opts.SignKey, filepath.Join(dir, ManifestFile)); err != nil {
			return Result{}, err
		}
		res.Signed = true
	}
	return res, nil
}

// searchIndex is search-index.js: a script that sets the index the search
// page reads (a script, not a JSON file, which a page opened from file://
// may not fetch). Each entry: id, sent (UTC), sender, recipients, subject,
// thread, topic, the body as text, the message's page.
func searchIndex(msgs []Message) ([]byte, error) {
	entries := make([][9]string, len(msgs))
	for i, m := range msgs {
		entries[i] = [9]string{m.ID, when(m.Created), m.From, strings.Join(append(slices.Clip(m.To), m.Cc...), ", "),
			m.Subject, m.Thread, m.Topic, fts.PlainText(m.Body), messageFile(m.ID)}
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString("// The messages of this export, for search.js.\nwindow.AGENTMAIL_SEARCH = ")
	buf.Write(data)
	buf.WriteString(";\n")
	return buf.Bytes(), nil
}

// when is how a page shows a time: absolute, in UTC, as a site read at
// any later time cannot say "2 hours ago".
func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// parseTemplates parses each page with the layout.
func parseTemplates(opts Options) (map[string]*template.Template, error) {
	md := opts.Markdown
	if md == nil {
		md = func(body string) template.HTML {
			return template.HTML("<pre>" + template.HTMLEscapeString(body) + "</pre>")
		}
	}
	funcs := template.FuncMap{
		"markdown":    md,
		"when":        when,
		"day":         func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"messageFile": messageFile,
		"threadFile":  threadFile,
		"lower":       strings.ToLower,

		"plural": func(n int, one, many string) string {
			if n == 1 {
				return one
			}
			return many
		},
	}
	out := map[string]*template.Template{}
	for _, page := range []string{"timeline", "message", "thread", "threads", "agents", "tasks", "search"} {
		t, err := template.New(page).Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/"+page+".html")
		if err != nil {
			return nil, err
		}
		out[page] = t
	}
	return out, nil
}

// ManifestFile lists every other file of an export with its SHA-256, in
// sha256sum's format (sha256sum -c checks it too); SignatureFile is its
// SSH signature.
const (
	ManifestFile  = "MANIFEST.sha256"
	SignatureFile = ManifestFile + ".sig"
)

func manifest(hashes map[string]string) []byte {
	names := make([]string, 0, len(hashes))
	for n := range hashes {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&buf, "%s  %s\n", hashes[n], n)
	}
	return buf.Bytes()
}
