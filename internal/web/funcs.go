package web

import (
	"fmt"
	"hash/fnv"
	"html"
	"html/template"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentmail/agentmail/internal/service"
)

// funcs are the templates' helpers.
func funcs(md *Markdown) template.FuncMap {
	return template.FuncMap{
		"markdown":      md.Render,
		"when":          when,
		"snippet":       snippet,
		"initials":      initials,
		"hue":           hue,
		"shortID":       shortID,
		"join":          strings.Join,
		"deref":         deref,
		"leaseState":    leaseState,
		"activeLeases":  activeLeases,
		"lockState":     lockState,
		"isUnread":      func(m Received) bool { return m.ReadAt.IsZero() },
		"awaitsAck":     func(m Received) bool { return m.AckRequired && m.AckedAt.IsZero() },
		"heldBy":        heldBy,
		"plural":        plural,
		"static":        StaticURL,
		"projectURL":    ProjectURL,
		"inboxURL":      InboxURL,
		"outboxURL":     OutboxURL,
		"controlURL":    ControlURL,
		"channelURL":    ChannelURL,
		"historyURL":    HistoryURL,
		"leasesAtURL":   LeasesAtURL,
		"messageURL":    MessageURL,
		"threadURL":     ThreadURL,
		"searchURL":     SearchURL,
		"archiveURL":    ArchiveURL,
		"attachmentURL": AttachmentURL,
		"attachmentList": func(project, id, agent string, list []Attachment) AttachmentList {
			return AttachmentList{project, id, agent, list}
		},
		"size":            func(n int64) string { return service.FormatSize(int(n)) },
		"sectionURL":      func(project, section string) string { return mailURL(project, section) },
		"taskURL":         TaskURL,
		"threadsURL":      ThreadsURL,
		"importances":     func() []string { return Importances },
		"categories":      func() []string { return Categories },
		"timelineKinds":   func() []string { return TimelineKinds },
		"toAll":           func() string { return ToAll },
		"csrfField":       func() string { return CSRFField },
		"notLowOrNormal":  func(s string) bool { return s == "high" || s == "urgent" },
		"lower":           strings.ToLower,
		"gitShowCommand":  gitShowCommand,
		"composeSelected": func(f ComposeForm, to string) bool { return slices.Contains(f.To, to) },
		"replyURL":        ReplyURL,
		"add":             func(a, b int) int { return a + b },
		"human":           func() string { return Human },
		"count": func(n int) string { // a count that stopped at the cap says so
			if n >= service.MailCountCap {
				return fmt.Sprintf("%d+", n)
			}
			return fmt.Sprint(n)
		},
	}
}

// when is a time as a page shows it: relative to now, the exact time in
// its title, and "never" for the zero time. It holds no text from outside.
func when(now, t time.Time) template.HTML {
	if t.IsZero() {
		return `<span class="never">never</span>`
	}
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s">%s</time>`,
		t.UTC().Format(time.RFC3339), t.UTC().Format("2006-01-02 15:04:05 UTC"), relative(now, t)))
}

// relative says how long before or after now t is, shortly: "just now",
// "5m ago", "in 42m", "3d ago"; past a week, the date.
func relative(now, t time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh", int(d.Round(time.Hour)/time.Hour))
	case d < 7*24*time.Hour:
		s = fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	default:
		if t.Year() == now.Year() {
			return t.UTC().Format("Jan 2")
		}
		return t.UTC().Format("Jan 2, 2006")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// snippet shows a search hit's snippet with its hits in <mark>: the text
// is escaped first, and fts's markers (private-use characters, which
// escaping leaves alone and stored text never holds) become the tags.
func snippet(h SearchHit) template.HTML {
	if h.Marked == "" {
		return template.HTML(html.EscapeString(h.Snippet))
	}
	return template.HTML(service.Highlight(html.EscapeString(h.Marked), "<mark>", "</mark>"))
}

// initials are the capitals of an agent's name (GreenCastle: GC), or its
// first letter.
func initials(name string) string {
	var b []rune
	for _, r := range name {
		if unicode.IsUpper(r) && len(b) < 2 {
			b = append(b, r)
		}
	}
	if len(b) == 0 {
		for _, r := range name {
			return string(unicode.ToUpper(r))
		}
		return "?"
	}
	return string(b)
}

// hue gives each name one of twelve colours, the same on every page.
func hue(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("hue-%d", h.Sum32()%12)
}

// shortID is the first ten characters of an id, for display (the whole id
// is in the link and the title).
func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// leaseState is a reservation's state at now: active, expired or
// released.
func leaseState(now time.Time, r Reservation) string {
	switch {
	case !r.Released.IsZero():
		return "released"
	case !r.Expires.IsZero() && !r.Expires.After(now):
		return "expired"
	}
	return "active"
}

// lockState is a lock's state at now: held or expired.
func lockState(now time.Time, l Lock) string {
	if !l.Expires.IsZero() && !l.Expires.After(now) {
		return "expired"
	}
	return "held"
}

// heldBy returns the reservations of agent among rs.
func heldBy(rs []Reservation, agent string) []Reservation {
	var out []Reservation
	for _, r := range rs {
		if r.Agent == agent {
			out = append(out, r)
		}
	}
	return out
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// gitShowCommand is the command that prints a file of the archive as of
// a commit.
func gitShowCommand(commit, path string) string {
	return fmt.Sprintf(`git --git-dir "$(agentmail archive path)" show %s:%s`, commit, shellQuote(path))
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("/._-", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
