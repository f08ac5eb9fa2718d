package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
)

// Text output: aligned, short, with relative times. The JSON documents are
// the service's responses, printed as they are.

// ago renders t relative to now: "just now", "42s ago", "5m ago", "3h ago",
// "2d ago", or the date for anything older than a month; a time to come as
// "in 3s", "in 5m".
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in " + short(-d)
	case d < 5*time.Second:
		return "just now"
	case d > 30*24*time.Hour:
		return t.UTC().Format("2006-01-02")
	}
	return short(d) + " ago"
}

func short(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// mapSlice applies f to each element of s.
func mapSlice[T, D any](s []T, f func(T) D) []D {
	out := make([]D, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// table prints rows under header in aligned columns, in one write: the
// tabwriter writes each cell and padding on its own, a system call each on
// an unbuffered stdout (some 200 for an inbox of 20).
func table(w io.Writer, header string, rows [][]string) {
	b := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	b.Flush()
}

// sparseTable is table with the columns named in optional left out when
// they are empty in every row; in those kept, an empty cell reads "-".
func sparseTable(w io.Writer, header []string, rows [][]string, optional ...string) {
	var keep []int
	for c, name := range header {
		empty := slices.Contains(optional, name)
		for _, r := range rows {
			empty = empty && r[c] == ""
		}
		if !empty {
			keep = append(keep, c)
		}
	}
	pick := func(r []string) []string {
		out := make([]string, len(keep))
		for i, c := range keep {
			out[i] = r[c]
			if out[i] == "" && slices.Contains(optional, header[c]) {
				out[i] = "-"
			}
		}
		return out
	}
	kept := make([][]string, len(rows))
	for i, r := range rows {
		kept[i] = pick(r)
	}
	table(w, strings.Join(pick(header), "\t"), kept)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// flags summarizes a message's state for a table: importance when not
// normal, category, and ack state.
func flags(m service.Received) string {
	var f []string
	if m.Importance != "normal" {
		f = append(f, m.Importance)
	}
	if m.Category != nil {
		f = append(f, *m.Category)
	}
	switch {
	case !m.AckedAt.IsZero():
		f = append(f, "acked")
	case m.AckRequired:
		f = append(f, "ack-required")
	}
	return strings.Join(f, ",")
}

// messageTable lists messages, each by its id as short names it; an inbox
// shows senders and marks unread messages with "*", an outbox shows
// recipients. Their text must be escaped for the terminal already.
func messageTable(w io.Writer, msgs []service.Received, short ids.Short, now time.Time, inbox bool) {
	header := " ID\tTO\tSUBJECT\tWHEN\tFLAGS"
	if inbox {
		header = " ID\tFROM\tSUBJECT\tWHEN\tFLAGS"
	}
	rows := make([][]string, 0, len(msgs))
	for _, m := range msgs {
		mark, who := " ", m.From
		if inbox && m.ReadAt.IsZero() {
			mark = "*"
		}
		if !inbox {
			who = truncate(strings.Join(append(append([]string{}, m.To...), m.Cc...), ","), 30)
		}
		rows = append(rows, []string{mark + short.Of(m.ID), who, truncate(m.Subject, 50), ago(m.Created.Time, now), flags(m)})
	}
	table(w, header, rows)
}

// printMessage prints a message's headers and body.
func (o output) printMessage(m service.FullMessage, now time.Time) {
	w, m := o.Stdout, o.esc.fullMessage(m)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-9s %s\n", k+":", v)
		}
	}
	line("Id", m.ID)
	line("From", m.From)
	line("To", strings.Join(m.To, ", "))
	line("Cc", strings.Join(m.Cc, ", "))
	line("Bcc", strings.Join(m.Bcc, ", "))
	line("Subject", m.Subject)
	line("Date", service.FormatTime(m.Created.Time)+" ("+ago(m.Created.Time, now)+")")
	line("Thread", m.Thread)
	line("Topic", m.Topic)
	if m.ReplyTo != nil {
		line("Reply-To", *m.ReplyTo)
	}
	line("Flags", flags(m.Received))
	if !m.ReadAt.IsZero() {
		line("Read", ago(m.ReadAt.Time, now))
	}
	for _, a := range m.Attachments {
		line("Attached", attachmentLine(a))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, m.Body)
	if m.Body != "" && !strings.HasSuffix(m.Body, "\n") {
		fmt.Fprintln(w)
	}
}

// attachmentLine describes an attachment in one line: its name, media
// type, size and the start of its hash.
func attachmentLine(a service.Attachment) string {
	return fmt.Sprintf("%s (%s, %s, sha256 %s)", a.Name, a.MediaType, service.FormatSize(int(a.Size)), a.SHA256[:12])
}

// printMessages prints messages one after another, with a rule between
// them (and before the first, with ruleFirst).
func (o output) printMessages(msgs []service.FullMessage, now time.Time, ruleFirst bool) {
	for i, m := range msgs {
		if i > 0 || ruleFirst {
			fmt.Fprintln(o.Stdout, rule)
		}
		o.printMessage(m, now)
	}
}

// rule separates messages printed one after another.
var rule = strings.Repeat("─", 40)

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// count renders n things: "1 message", "2 messages".
func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// kind names a lease's kind.
func kind(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "shared"
}

// shellWord quotes s for a shell command line shown to the user.
func shellWord(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
