package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentmail/agentmail/internal/service"
)

// Text from the store (bodies, subjects, names, tasks, reasons) may hold
// control characters and escape sequences: another agent's, an imported
// archive's, or a hand-edited file's. Printed raw on a terminal they could
// move the cursor, retitle the window, hide text or mimic agentmail's own
// output, so on a terminal they are shown escaped, Go style (\x1b, \r,
// \u009b). Piped output and --json stay exactly as stored.

// escaper shows stored text on standard output: escaped when it is a
// terminal, as it is otherwise.
type escaper struct{ on bool }

// line shows a one-line field (a name, subject, task, reason): newlines
// and tabs are escaped too, so that the field keeps to its line and column.
func (x escaper) line(s string) string {
	if !x.on {
		return s
	}
	return escapeControls(s, false)
}

// text shows a body: its lines and tabs are kept.
func (x escaper) text(s string) string {
	if !x.on {
		return s
	}
	return escapeControls(s, true)
}

func (x escaper) lines(ss []string) []string {
	if !x.on {
		return ss
	}
	return mapSlice(ss, x.line)
}

// message returns m with every field it shows escaped.
func (x escaper) message(m service.Message) service.Message {
	if !x.on {
		return m
	}
	m.Thread, m.From, m.Subject, m.Path = x.line(m.Thread), x.line(m.From), x.line(m.Subject), x.line(m.Path)
	m.Category, m.ReplyTo = x.optLine(m.Category), x.optLine(m.ReplyTo)
	m.To, m.Cc, m.Bcc = x.lines(m.To), x.lines(m.Cc), x.lines(m.Bcc)
	if len(m.Attachments) > 0 {
		atts := slices.Clone(m.Attachments)
		for i := range atts {
			atts[i].Name, atts[i].MediaType = x.line(atts[i].Name), x.line(atts[i].MediaType)
		}
		m.Attachments = atts
	}
	return m
}

func (x escaper) optLine(s *string) *string {
	if s == nil {
		return nil
	}
	e := x.line(*s)
	return &e
}

func (x escaper) received(m service.Received) service.Received {
	m.Message = x.message(m.Message)
	return m
}

func (x escaper) fullMessage(m service.FullMessage) service.FullMessage {
	m.Received, m.Body = x.received(m.Received), x.text(m.Body)
	return m
}

func (x escaper) agent(a service.Agent) service.Agent {
	a.Name, a.Program, a.Model, a.Task = x.line(a.Name), x.line(a.Program), x.line(a.Model), x.line(a.Task)
	a.Role, a.Branch, a.Worktree = x.line(a.Role), x.line(a.Branch), x.line(a.Worktree)
	return a
}

func (x escaper) reservation(r service.Reservation) service.Reservation {
	r.Agent, r.Pattern, r.Reason = x.line(r.Agent), x.line(r.Pattern), x.line(r.Reason)
	return r
}

func (x escaper) contact(c service.Contact) service.Contact {
	c.From, c.To, c.Reason = x.line(c.From), x.line(c.To), x.line(c.Reason)
	return c
}

// escapeControls escapes the C0 and C1 control characters of s (keeping
// newlines and tabs when keepLines), DEL, the bidirectional embeddings,
// overrides and isolates (which reorder what follows them on screen), and
// bytes that are not UTF-8.
func escapeControls(s string, keepLines bool) string {
	i := strings.IndexFunc(s, func(r rune) bool { return needsEscape(r, keepLines) })
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case !needsEscape(r, keepLines):
			b.WriteString(s[:size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		s = s[size:]
	}
	return b.String()
}

func needsEscape(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// colorful reports whether w may be given ANSI styles: a terminal, unless
// NO_COLOR is set (no-color.org) or TERM is dumb.
func colorful(w any) bool {
	return isTerminal(w) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
