package export

import (
	"fmt"
	"html/template"
	"regexp"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
)

// Site is what an export shows: one project's mailbox.
type Site struct {
	Project string // the project's slug
	Key     string // the project's key
	// Generated is when the export was made.
	Generated time.Time
	// Messages are the project's messages, newest first.
	Messages []Message
	Agents   []Agent
	// Tasks are the project's work items, each in its board column.
	Tasks []Task
}

// Task is a work item as an export shows it.
type Task struct {
	ID          string
	Title       string
	Description string
	Type        string
	Priority    int
	Status      string // open, in_progress, closed
	Column      string // ready, progress, blocked, closed (the board's)
	CloseReason string
	Parent      string
	Deps        []string
	Labels      []string
	Claim       string // the agent that holds it; "" when unclaimed
	Created     time.Time
	Closed      time.Time
}

// Message is a message as an export shows it. Bcc lists are never shown.
type Message struct {
	ID          string
	Thread      string
	From        string
	To, Cc      []string
	Subject     string
	Importance  string
	AckRequired bool
	Category    string
	Topic       string
	ReplyTo     string
	Created     time.Time
	Body        string
	Attachments []Attachment
}

// Attachment is an attachment's description; its content is not exported.
type Attachment struct {
	Name      string
	Size      int64
	MediaType string
}

// Agent is an agent of the project.
type Agent struct {
	Name       string
	Program    string
	Model      string
	Task       string
	Registered time.Time
	LastSeen   time.Time
	Retired    bool
}

// Options say how a site is written.
type Options struct {
	// Markdown renders a message body as safe HTML; nil shows bodies as
	// preformatted text.
	Markdown func(body string) template.HTML
	// Stylesheet is the site's style.css.
	Stylesheet []byte
	// SignKey is an SSH private key file (or a public key whose private
	// half an ssh-agent holds) that signs the manifest; "" signs nothing.
	SignKey string
	// Keygen is the ssh-keygen program; "" finds it on $PATH.
	Keygen string
}

// Redaction says what an export leaves out.
type Redaction struct {
	// Bodies drops every message body and task description.
	Bodies bool
	// Patterns are masked wherever they match: subjects, bodies, names,
	// threads, topics, tasks, attachment names.
	Patterns []*regexp.Regexp
}

// Mask is what a redacted match is replaced by.
const Mask = "[redacted]"

// BodyDropped is the body of a message in an export without bodies.
const BodyDropped = "*(body redacted)*"

// Empty reports whether r redacts nothing.
func (r Redaction) Empty() bool { return !r.Bodies && len(r.Patterns) == 0 }

// Redact applies r to every text of s, in place. It runs before anything
// is written, so that no file of the export (the search index included)
// holds what r masks.
func (r Redaction) Redact(s *Site) {
	if r.Empty() {
		return
	}
	mask := func(p *string) {
		for _, re := range r.Patterns {
			*p = re.ReplaceAllLiteralString(*p, Mask)
		}
	}
	maskAll := func(list []string) {
		for i := range list {
			mask(&list[i])
		}
	}
	mask(&s.Project)
	mask(&s.Key)
	for i := range s.Messages {
		m := &s.Messages[i]
		if r.Bodies {
			m.Body = BodyDropped
		}
		for _, p := range []*string{&m.ID, &m.Thread, &m.From, &m.Subject, &m.Category, &m.Topic, &m.ReplyTo, &m.Body} {
			mask(p)
		}
		maskAll(m.To)
		maskAll(m.Cc)
		for j := range m.Attachments {
			mask(&m.Attachments[j].Name)
		}
	}
	for i := range s.Agents {
		a := &s.Agents[i]
		for _, p := range []*string{&a.Name, &a.Program, &a.Model, &a.Task} {
			mask(p)
		}
	}
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if r.Bodies {
			t.Description = ""
		}
		for _, p := range []*string{&t.ID, &t.Title, &t.Description, &t.CloseReason, &t.Parent, &t.Claim} {
			mask(p)
		}
		maskAll(t.Deps)
		maskAll(t.Labels)
	}
}

// CompilePatterns compiles redaction patterns (Go regular expressions).
// An empty pattern, or one that matches the empty string, would mask
// between every character and is refused.
func CompilePatterns(patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: redaction pattern %q is no regular expression: %v", fault.ErrInvalidArgument, p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%w: redaction pattern %q matches the empty string, which would mask between every character", fault.ErrInvalidArgument, p)
		}
		out = append(out, re)
	}
	return out, nil
}
