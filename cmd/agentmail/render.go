package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

// The JSON documents below are a stable interface (README.md, "JSON
// output"): fields may be added, never renamed or removed.

type agentJSON struct {
	Name         string  `json:"name"`
	Program      string  `json:"program"`
	Model        string  `json:"model"`
	Task         string  `json:"task"`
	Registered   *string `json:"registered"`
	LastSeen     *string `json:"last_seen"`
	Retired      bool    `json:"retired"`
	Policy       string  `json:"policy"`
	State        string  `json:"state,omitempty"`
	Reservations *int    `json:"reservations,omitempty"`
}

func agentDoc(a mailbox.Agent) agentJSON {
	return agentJSON{Name: a.Name, Program: a.Program, Model: a.Model, Task: a.Task,
		Registered: jsonTime(a.Registered), LastSeen: jsonTime(a.LastSeen), Retired: a.Retired, Policy: a.Policy}
}

// listedAgentDoc adds what agents reports beyond the profile.
func listedAgentDoc(a mailbox.Agent) agentJSON {
	d := agentDoc(a)
	d.State, d.Reservations = a.State, &a.Reservations
	return d
}

type messageJSON struct {
	ID          string   `json:"id"`
	Thread      string   `json:"thread"`
	From        string   `json:"from"`
	To          []string `json:"to"`
	Cc          []string `json:"cc"`
	Bcc         []string `json:"bcc"`
	Subject     string   `json:"subject"`
	Importance  string   `json:"importance"`
	AckRequired bool     `json:"ack_required"`
	Category    *string  `json:"category"`
	ReplyTo     *string  `json:"reply_to"`
	Created     *string  `json:"created"`
	Path        string   `json:"path"`
}

// receivedJSON adds the viewer's receipt.
type receivedJSON struct {
	messageJSON
	ReadAt  *string `json:"read_at"`
	AckedAt *string `json:"acked_at"`
}

// fullJSON adds the body.
type fullJSON struct {
	receivedJSON
	Body string `json:"body"`
}

func messageDoc(m mailbox.Message) messageJSON {
	return messageJSON{
		ID: m.ID, Thread: m.Thread, From: m.From, To: m.To, Cc: m.Cc, Bcc: m.Bcc,
		Subject: m.Subject, Importance: m.Importance, AckRequired: m.AckRequired,
		Category: optString(m.Category), ReplyTo: optString(m.ReplyTo), Created: jsonTime(m.Created), Path: m.Path,
	}
}

func receivedDoc(m mailbox.Message) receivedJSON {
	return receivedJSON{messageDoc(m), jsonTimePtr(m.ReadAt), jsonTimePtr(m.AckedAt)}
}

func fullDoc(m mailbox.Message) fullJSON { return fullJSON{receivedDoc(m), m.Body} }

// mapSlice applies f to each element of s, for turning results into JSON
// documents.
func mapSlice[T, D any](s []T, f func(T) D) []D {
	out := make([]D, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := record.FormatTime(t)
	return &s
}

func jsonTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return jsonTime(*t)
}

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

// messageID is a message's id, for mapSlice.
func messageID(m mailbox.Message) string { return m.ID }

// shortIDs abbreviates the ids of msgs for display: the shortest prefix
// unique in the project, which pastes back into any command taking an id.
func (s *session) shortIDs(c *cli.Context, msgs []mailbox.Message) (ids.Short, error) {
	return s.mb.ShortIDs(c.Context, mapSlice(msgs, messageID))
}

func table(w io.Writer, header string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
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
func flags(m mailbox.Message) string {
	var f []string
	if m.Importance != "normal" {
		f = append(f, m.Importance)
	}
	if m.Category != "" {
		f = append(f, m.Category)
	}
	switch {
	case m.AckedAt != nil:
		f = append(f, "acked")
	case m.AckRequired:
		f = append(f, "ack-required")
	}
	return strings.Join(f, ",")
}

// printTable prints msgs as messageTable does, by their short ids. Their
// text must be escaped for the terminal already (escaper.messages).
func (s *session) printTable(c *cli.Context, w io.Writer, msgs []mailbox.Message, inbox bool) error {
	short, err := s.shortIDs(c, msgs)
	if err != nil {
		return err
	}
	messageTable(w, msgs, short, s.st.Now(), inbox)
	return nil
}

// messageTable lists messages, each by its id as short names it; an inbox
// shows senders and marks unread messages with "*", an outbox shows
// recipients.
func messageTable(w io.Writer, msgs []mailbox.Message, short ids.Short, now time.Time, inbox bool) {
	header := " ID\tTO\tSUBJECT\tWHEN\tFLAGS"
	if inbox {
		header = " ID\tFROM\tSUBJECT\tWHEN\tFLAGS"
	}
	rows := make([][]string, 0, len(msgs))
	for _, m := range msgs {
		mark, who := " ", m.From
		if inbox && m.ReadAt == nil {
			mark = "*"
		}
		if !inbox {
			who = truncate(strings.Join(append(append([]string{}, m.To...), m.Cc...), ","), 30)
		}
		rows = append(rows, []string{mark + short.Of(m.ID), who, truncate(m.Subject, 50), ago(m.Created, now), flags(m)})
	}
	table(w, header, rows)
}

// printMessage prints a message's headers and body.
func (e *env) printMessage(m mailbox.Message, now time.Time) {
	w, m := e.stdout, e.esc.message(m)
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
	line("Date", record.FormatTime(m.Created)+" ("+ago(m.Created, now)+")")
	line("Thread", m.Thread)
	if m.ReplyTo != "" {
		line("Reply-To", m.ReplyTo)
	}
	line("Flags", flags(m))
	if m.ReadAt != nil {
		line("Read", ago(*m.ReadAt, now))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, m.Body)
	if m.Body != "" && !strings.HasSuffix(m.Body, "\n") {
		fmt.Fprintln(w)
	}
}

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

// buffered runs print with a buffer in front of stdout, written out once at
// the end: a line per path or reservation must not cost a system call each.
func (e *env) buffered(print func(w io.Writer)) error {
	w := bufio.NewWriter(e.stdout)
	print(w)
	return w.Flush()
}
