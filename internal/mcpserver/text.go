package mcpserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/service"
)

// The text of a result is for the model, and many clients show it nothing
// else: it says what the document says that an agent acts on (whole ids,
// names, subjects, bodies when asked for), in a few lines.

// stamp writes a document time, or "never".
func stamp(t service.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

// count writes n and the noun, plural unless n is 1.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// names writes a list of names, or "nobody".
func names(list []string) string {
	if len(list) == 0 {
		return "nobody"
	}
	return strings.Join(list, ", ")
}

// header writes a message's one-line summary: id, sender, recipients,
// subject, and what stands out. The thread is named only when it is not
// the message's own id (the thread a message starts is named by its id, and
// either id joins it): most messages start their thread, and every byte of
// a listing is paid for on both sides of the connection.
func header(m service.Message) string {
	var b strings.Builder
	writeHeader(&b, m, 0)
	return b.String()
}

// writeHeader writes header's line to b, growing b by more bytes for
// what follows it.
func writeHeader(b *strings.Builder, m service.Message, more int) {
	post := m.Topic != "" && len(m.To)+len(m.Cc)+len(m.Bcc) == 0
	to := names(m.To)
	if post {
		to = "#" + m.Topic + " (a post)"
	}
	// Written without fmt: a listing writes one a message.
	b.Grow(len(m.ID) + len(m.From) + len(to) + len(m.Subject) + 64 + more)
	b.WriteString(m.ID)
	b.WriteByte(' ')
	b.WriteString(stamp(m.Created))
	b.WriteString(" from ")
	b.WriteString(m.From)
	b.WriteString(" to ")
	b.WriteString(to)
	if len(m.Cc) > 0 {
		b.WriteString(" cc ")
		b.WriteString(names(m.Cc))
	}
	if len(m.Bcc) > 0 {
		b.WriteString(" bcc ")
		b.WriteString(names(m.Bcc))
	}
	b.WriteString(": ")
	b.WriteString(strconv.Quote(m.Subject))
	var about []string
	if m.Thread != m.ID {
		about = append(about, "thread "+m.Thread)
	}
	if m.Importance != "" && m.Importance != "normal" {
		about = append(about, m.Importance)
	}
	if m.Category != nil {
		about = append(about, *m.Category)
	}
	if m.AckRequired {
		about = append(about, "ack required")
	}
	if m.Topic != "" && !post {
		about = append(about, "topic "+m.Topic)
	}
	for _, a := range m.Attachments {
		about = append(about, fmt.Sprintf("attached %s (%s, %d bytes)", a.Name, a.MediaType, a.Size))
	}
	if len(about) > 0 {
		b.WriteString(" (" + strings.Join(about, ", ") + ")")
	}
}

// receivedHeader adds the receipt to a message's summary.
func receivedHeader(m service.Received) string {
	return receivedEntry(m, "")
}

// receivedEntry is withBody(receivedHeader(m), body), written in one
// buffer: a listing writes one a message.
func receivedEntry(m service.Received, body string) string {
	state := "unread"
	switch {
	case !m.AckedAt.IsZero():
		state = "acknowledged"
	case !m.ReadAt.IsZero():
		state = "read"
	}
	hasBody := body != ""
	body = strings.TrimRight(body, "\n")
	var b strings.Builder
	writeHeader(&b, m.Message, len(state)+3+len(body)+len(body)/16+5)
	b.WriteString(" [")
	b.WriteString(state)
	b.WriteByte(']')
	if hasBody {
		b.WriteString("\n    ")
		for {
			i := strings.IndexByte(body, '\n')
			if i < 0 {
				break
			}
			b.WriteString(body[:i])
			b.WriteString("\n    ")
			body = body[i+1:]
		}
		b.WriteString(body)
	}
	return b.String()
}

// withBody adds a body, indented under its header.
func withBody(head, body string) string {
	if body == "" {
		return head
	}
	return head + "\n    " + strings.ReplaceAll(strings.TrimRight(body, "\n"), "\n", "\n    ")
}

// listing writes a title line, then one entry per line, or the title and
// "none".
func listing(title string, entries []string) string {
	if len(entries) == 0 {
		return title + ": none"
	}
	return title + ":\n" + strings.Join(entries, "\n")
}

// lines writes each element of list as a line.
func lines[T any](list []T, line func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = line(v)
	}
	return out
}

func fullMessages(list []service.FullMessage) []string {
	return lines(list, func(m service.FullMessage) string { return receivedEntry(m.Received, m.Body) })
}

func reservationLine(r service.Reservation) string {
	return r.ID + " " + r.Pattern + " " + leaseTerms(r)
}

// leaseTerms writes what a reservation's line says after its id and
// pattern: holder, kind, expiry, release, reason.
func leaseTerms(r service.Reservation) string {
	kind := "shared"
	if r.Exclusive {
		kind = "exclusive"
	}
	terms := fmt.Sprintf("by %s (%s, expires %s)", r.Agent, kind, stamp(r.Expires))
	if !r.Released.IsZero() {
		terms += ", released " + stamp(r.Released)
	}
	if r.Reason != "" {
		terms += ": " + r.Reason
	}
	return terms
}

func reservationLines(list []service.Reservation) []string { return lines(list, reservationLine) }

// reservationListing writes a title and the reservations of list. When
// they share their terms (leaseTerms), as the leases one reserve, renewal
// or release made do, the title says them once and each line is an id and
// a pattern: a third of the text for 50 leases, all an agent acts on.
func reservationListing(title string, list []service.Reservation) string {
	if len(list) < 2 {
		return listing(title, reservationLines(list))
	}
	var b strings.Builder
	b.WriteString(title + " " + leaseTerms(list[0]))
	for _, r := range list {
		if !sameTerms(r, list[0]) {
			return listing(title, reservationLines(list))
		}
		b.WriteString("\n" + r.ID + " " + r.Pattern)
	}
	return b.String()
}

// sameTerms reports whether a and b have the same terms (leaseTerms).
func sameTerms(a, b service.Reservation) bool {
	return a.Agent == b.Agent && a.Exclusive == b.Exclusive && a.Reason == b.Reason &&
		a.Expires.Equal(b.Expires.Time) && a.Released.Equal(b.Released.Time)
}

func conflictLine(k service.Conflict) string {
	return fmt.Sprintf("%s overlaps %s's %s (until %s)", k.Pattern, k.Holder, k.HolderPattern, stamp(k.Expires))
}

func lockLine(l service.Lock) string {
	return fmt.Sprintf("%s held by %s until %s", l.Key, l.Holder, stamp(l.Expires))
}

func agentLine(a service.Agent) string {
	line := a.Name
	var about []string
	for _, s := range []string{a.Program, a.Model, a.State} {
		if s != "" {
			about = append(about, s)
		}
	}
	if a.Retired {
		about = append(about, "retired")
	}
	about = append(about, "policy "+a.Policy, "last seen "+stamp(a.LastSeen))
	if a.Reservations != nil {
		about = append(about, count(*a.Reservations, "reservation", "reservations"))
	}
	if a.Role != "" {
		about = append(about, "role "+a.Role)
	}
	if a.Branch != "" {
		about = append(about, "branch "+a.Branch)
	}
	if a.Claims != nil && len(*a.Claims) > 0 {
		held := make([]string, len(*a.Claims))
		for i, c := range *a.Claims {
			held[i] = c.ID + " " + c.Title
		}
		about = append(about, "holds "+strings.Join(held, "; "))
	}
	line += " (" + strings.Join(about, ", ") + ")"
	if a.Task != "" {
		line += ": " + a.Task
	}
	return line
}

func contactLine(c service.Contact) string {
	line := fmt.Sprintf("%s -> %s: %s", c.From, c.To, c.State)
	if !c.Expires.IsZero() {
		line += " until " + stamp(c.Expires)
	}
	if c.Reason != "" {
		line += " (" + c.Reason + ")"
	}
	return line
}

func projectLine(p *service.ProjectKey) string {
	if p == nil {
		return "project: none found (pass project_key)"
	}
	return fmt.Sprintf("project %s (%s)", p.Key, p.Slug)
}
