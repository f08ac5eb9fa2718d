package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// View is a page's data. Each view type is shown by its own template.
type View interface {
	// Section names the navigation entry the page belongs to.
	Section() string
	template() string
}

// Section implements View.
func (ProjectsView) Section() string { return "projects" }
func (ProjectView) Section() string  { return "agents" }
func (v MailboxView) Section() string {
	if v.Agent.Name == Human {
		return "human" // the overseer's own mail
	}
	return "agents"
}
func (MessageView) Section() string      { return "agents" }
func (ThreadView) Section() string       { return "agents" }
func (SearchView) Section() string       { return "search" }
func (ReservationsView) Section() string { return "reservations" }
func (ContactsView) Section() string     { return "contacts" }
func (AcksView) Section() string         { return "acks" }
func (ComposeView) Section() string      { return "compose" }
func (ChannelsView) Section() string     { return "channels" }
func (ChannelView) Section() string      { return "channels" }
func (HistoryView) Section() string      { return "history" }
func (ErrorView) Section() string        { return "" }

func (ProjectsView) template() string     { return "projects.html" }
func (ProjectView) template() string      { return "project.html" }
func (MailboxView) template() string      { return "mailbox.html" }
func (MessageView) template() string      { return "message.html" }
func (ThreadView) template() string       { return "thread.html" }
func (SearchView) template() string       { return "search.html" }
func (ReservationsView) template() string { return "reservations.html" }
func (ContactsView) template() string     { return "contacts.html" }
func (AcksView) template() string         { return "acks.html" }
func (ComposeView) template() string      { return "compose.html" }
func (ChannelsView) template() string     { return "channels.html" }
func (ChannelView) template() string      { return "channel.html" }
func (HistoryView) template() string      { return "history.html" }
func (ErrorView) template() string        { return "error.html" }

// Pages renders the views with the embedded templates.
type Pages struct {
	byName map[string]*template.Template
}

// NewPages parses the embedded templates; message bodies are rendered by
// md.
func NewPages(md *Markdown) (*Pages, error) {
	base, err := template.New("layout.html").Funcs(funcs(md)).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("layout template: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &Pages{byName: map[string]*template.Template{}}
	for _, path := range names {
		name := strings.TrimPrefix(path, "templates/")
		if name == "layout.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, path)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		p.byName[name] = t
	}
	return p, nil
}

// Render writes the page of v.
func (p *Pages) Render(w io.Writer, v View) error {
	t, ok := p.byName[v.template()]
	if !ok {
		return fmt.Errorf("no template %s", v.template())
	}
	if err := t.ExecuteTemplate(w, "layout", v); err != nil {
		return fmt.Errorf("render %s: %w", v.template(), err)
	}
	return nil
}

// Serve answers with the page of v and the given status. The page is
// rendered whole before anything is written, so that a failure is a clean
// 500.
func (p *Pages) Serve(w http.ResponseWriter, status int, v View) {
	var buf bytes.Buffer
	if err := p.Render(&buf, v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// ErrorPage answers with an error page; it fits Guard.ErrorPage.
func (p *Pages) ErrorPage(w http.ResponseWriter, _ *http.Request, status int, code, message, hint string) {
	p.Serve(w, status, ErrorView{Status: status, Code: code, Message: message, Hint: hint})
}

// staticVersions maps each embedded asset to a hash of its content, which
// its address carries so that a new binary's assets are fetched anew. It
// is computed on first use, not as every command of the binary starts.
var staticVersions = sync.OnceValue(func() map[string]string {
	v := map[string]string{}
	_ = fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		v[strings.TrimPrefix(path, "static/")] = hex.EncodeToString(sum[:6])
		return nil
	})
	return v
})

// StaticURL is the address of an embedded asset (style.css, live.js,
// favicon.svg).
func StaticURL(name string) string {
	return StaticPrefix + name + "?v=" + staticVersions()[name]
}

// StaticHandler serves the embedded assets under StaticPrefix; mount it on
// RouteStatic. They may be cached: their addresses change with them.
func StaticHandler() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix(StaticPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		files.ServeHTTP(w, r)
	})
}
