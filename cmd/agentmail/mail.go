package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

func mailCommands(e *env) []*cli.Command {
	bodyFlags := []cli.Flag{
		&cli.StringFlag{Name: "body", Usage: "message body in markdown (this or --body-file is required)"},
		&cli.StringFlag{Name: "body-file", Usage: "read the body from `FILE`; - reads standard input, which is read for nothing else"},
	}
	return []*cli.Command{
		{
			Name:      "send",
			Usage:     "send a message",
			ArgsUsage: " ",
			Description: "Sends a markdown message from the acting agent. Recipients are agent names, comma-separated or repeated,\n" +
				"or all (every other active agent). A recipient's contact policy may ask for a contact first\n" +
				"(CONTACT_REQUIRED: agentmail contacts request NAME; see agentmail policy --help). The body is\n" +
				"--body TEXT, --body-file FILE, or --body-file - (standard input, never read otherwise). --thread takes a\n" +
				"thread name, or a message id (or unique prefix) to join that message's thread.",
			Flags: append([]cli.Flag{
				&cli.StringSliceFlag{Name: "to", Usage: "recipient `NAME`s"},
				&cli.StringSliceFlag{Name: "cc", Usage: "copy `NAME`s"},
				&cli.StringSliceFlag{Name: "bcc", Usage: "blind copy `NAME`s (only you and each of them see it)"},
				&cli.StringFlag{Name: "subject", Aliases: []string{"s"}, Usage: "one-line subject, at most 200 characters"},
				&cli.StringFlag{Name: "thread", Usage: "thread `NAME` to file the message under, or a message id (or unique prefix) whose thread to join"},
				&cli.StringFlag{Name: "importance", Value: "normal", Usage: "low, normal, high or urgent"},
				&cli.BoolFlag{Name: "ack", Usage: "ask the recipients to acknowledge"},
				&cli.StringFlag{Name: "category", Usage: "HANDOFF, BLOCKED (both imply --ack), DECISION or INFO"},
				&cli.BoolFlag{Name: "as-human", Usage: "send as the human overseer (sender Human): no agent needed, every contact policy passes"},
				&cli.DurationFlag{Name: "wait", Usage: "then wait this long (a bare --wait: 2m) for the first reply in the thread; exit 4 on timeout"},
			}, bodyFlags...),
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				if err := requireFlags(c, "to", "subject"); err != nil {
					return err
				}
				body, err := e.readBody(c)
				if err != nil {
					return err
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				m, err := s.mb.Send(c.Context, mailbox.Draft{
					To: c.StringSlice("to"), Cc: c.StringSlice("cc"), Bcc: c.StringSlice("bcc"),
					Subject: c.String("subject"), Body: body, Thread: c.String("thread"),
					Importance: c.String("importance"), AckRequired: c.Bool("ack"), Category: c.String("category"),
					AsHuman: c.Bool("as-human"),
				})
				if err != nil {
					return err
				}
				if !c.IsSet("wait") {
					return e.sent(c, m)
				}
				if !jsonOutput(c) {
					if err := e.sent(c, m); err != nil {
						return err
					}
				}
				return e.awaitReply(c, s, m)
			},
		},
		{
			Name:      "reply",
			Usage:     "reply to a message in its thread",
			ArgsUsage: "ID",
			Description: "Replies to the sender of message ID (a prefix of 6+ characters is enough), in the same thread,\n" +
				"with \"Re: \" added once and the original's importance (not its ack request). --all also copies every other\n" +
				"recipient. The body is --body TEXT, --body-file FILE, or --body-file - (standard input).",
			Flags: append([]cli.Flag{
				&cli.BoolFlag{Name: "all", Usage: "reply to the sender and all recipients"},
				&cli.DurationFlag{Name: "hold", Usage: "ask a sender waiting with send --wait to wait this much longer (\"checking logs\")"},
			}, bodyFlags...),
			Action: func(c *cli.Context) error {
				id, err := oneArg(c, "ID")
				if err != nil {
					return err
				}
				body, err := e.readBody(c)
				if err != nil {
					return err
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				if c.Duration("hold") < 0 {
					return usagef("pass a positive duration such as --hold 10m", "--hold must not be negative")
				}
				m, err := s.mb.Reply(c.Context, id, mailbox.ReplyDraft{All: c.Bool("all"), Body: body, Hold: c.Duration("hold")})
				if err != nil {
					return err
				}
				return e.sent(c, m)
			},
		},
		{
			Name:      "inbox",
			Usage:     "list messages you received, newest first",
			ArgsUsage: " ",
			Description: "Lists the acting agent's mail without changing its state; unread messages are marked with *.\n" +
				"Mark them with `agentmail read ID` or `agentmail ack ID`.",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "unread", Aliases: []string{"u"}, Usage: "only unread messages"},
				&cli.BoolFlag{Name: "urgent", Usage: "only high and urgent messages"},
				&cli.StringFlag{Name: "category", Usage: "only messages of this category"},
				&cli.StringFlag{Name: "since", Usage: "only messages since `WHEN`: a date (2026-11-01), RFC 3339 time, or duration ago (2h, 3d)"},
				&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "at most `N` messages (0: all)"},
				&cli.BoolFlag{Name: "bodies", Usage: "include bodies"},
			},
			Action: func(c *cli.Context) error {
				if err := noArgs(c); err != nil {
					return err
				}
				now, err := clock()
				if err != nil {
					return err
				}
				since, err := parseSince(c.String("since"), now())
				if err != nil {
					return err
				}
				if c.Int("limit") < 0 {
					return usagef("pass --limit 0 for all messages", "--limit must not be negative")
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				msgs, err := s.mb.Inbox(c.Context, mailbox.InboxQuery{
					Unread: c.Bool("unread"), Urgent: c.Bool("urgent"), Category: c.String("category"),
					Since: since, Limit: c.Int("limit"),
				})
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					docs := make([]any, len(msgs))
					for i, m := range msgs {
						if c.Bool("bodies") {
							docs[i] = fullDoc(m)
						} else {
							docs[i] = receivedDoc(m)
						}
					}
					return e.printJSON(map[string]any{"messages": docs})
				}
				if len(msgs) == 0 {
					fmt.Fprintln(e.stdout, "no messages")
					return nil
				}
				if c.Bool("bodies") {
					for i, m := range msgs {
						if i > 0 {
							fmt.Fprintln(e.stdout, strings.Repeat("─", 40))
						}
						e.printMessage(m, s.st.Now())
					}
					return nil
				}
				return s.printTable(c, e.stdout, e.esc.messages(msgs), true)
			},
		},
		{
			Name:      "outbox",
			Usage:     "list messages you sent, newest first",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "at most `N` messages (0: all)"},
			},
			Action: func(c *cli.Context) error {
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				msgs, err := s.mb.Outbox(c.Context, c.Int("limit"))
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					docs := mapSlice(msgs, messageDoc)
					return e.printJSON(map[string]any{"messages": docs})
				}
				if len(msgs) == 0 {
					fmt.Fprintln(e.stdout, "no messages")
					return nil
				}
				return s.printTable(c, e.stdout, e.esc.messages(msgs), false)
			},
		},
		{
			Name:      "show",
			Usage:     "print one message with its body (does not mark it read)",
			ArgsUsage: "ID",
			Action: func(c *cli.Context) error {
				id, err := oneArg(c, "ID")
				if err != nil {
					return err
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				m, err := s.mb.Show(c.Context, id)
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					return e.printJSON(map[string]any{"message": fullDoc(m)})
				}
				e.printMessage(m, s.st.Now())
				return nil
			},
		},
		markCommand(e, "read", "mark messages read", "every unread message in your inbox", false),
		markCommand(e, "ack", "acknowledge messages (marks them read too)", "every message in your inbox that asks for an acknowledgement, read or not", true),
		{
			Name:      "thread",
			Usage:     "print a whole thread, oldest first",
			ArgsUsage: "THREAD|ID",
			Action: func(c *cli.Context) error {
				ref, err := oneArg(c, "THREAD|ID")
				if err != nil {
					return err
				}
				s, err := e.openMailbox(c)
				if err != nil {
					return err
				}
				thread, msgs, err := s.mb.Thread(c.Context, ref)
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					docs := mapSlice(msgs, fullDoc)
					return e.printJSON(map[string]any{"thread": thread, "messages": docs})
				}
				fmt.Fprintf(e.stdout, "thread %s: %s\n", e.esc.line(thread), count(len(msgs), "message", "messages"))
				for _, m := range msgs {
					fmt.Fprintln(e.stdout, strings.Repeat("─", 40))
					e.printMessage(m, s.st.Now())
				}
				return nil
			},
		},
	}
}

func markCommand(e *env, name, usage, all string, ack bool) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "ID... | --all",
		Description: "Records the time on the acting agent's receipt; running it again keeps the first time.\n" +
			"IDs may be prefixes of 6 or more characters.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: all}},
		Action: func(c *cli.Context) error {
			ids := c.Args().Slice()
			if len(ids) == 0 && !c.Bool("all") {
				return usagef("agentmail "+name+" ID... or agentmail "+name+" --all", "no message ids given")
			}
			if len(ids) > 0 && c.Bool("all") {
				return usagef("agentmail "+name+" ID... or agentmail "+name+" --all", "give ids or --all, not both")
			}
			s, err := e.openMailbox(c)
			if err != nil {
				return err
			}
			msgs, err := s.mb.Mark(c.Context, ids, c.Bool("all"), ack)
			if err != nil {
				return err
			}
			if jsonOutput(c) {
				docs := mapSlice(msgs, fullDoc)
				doc := map[string]any{"messages": docs, "message": nil}
				if len(docs) > 0 {
					doc["message"] = docs[0]
				}
				return e.printJSON(doc)
			}
			verb := map[bool]string{false: "read", true: "acknowledged"}[ack]
			if len(msgs) == 0 {
				fmt.Fprintln(e.stdout, "nothing to mark")
			}
			short, err := s.shortIDs(c, msgs)
			if err != nil {
				return err
			}
			for _, m := range msgs {
				fmt.Fprintf(e.stdout, "%s %s  %s\n", verb, short.Of(m.ID), e.esc.line(m.Subject))
			}
			return nil
		},
	}
}

func (e *env) sent(c *cli.Context, m mailbox.Message) error {
	if jsonOutput(c) {
		return e.printJSON(map[string]any{"message": messageDoc(m)})
	}
	m = e.esc.message(m)
	to := strings.Join(append(append([]string{}, m.To...), m.Cc...), ", ")
	if len(m.Bcc) > 0 {
		to += " (bcc " + strings.Join(m.Bcc, ", ") + ")"
	}
	fmt.Fprintf(e.stdout, "sent %s to %s\nthread %s\n", m.ID, to, m.Thread)
	return nil
}

// bodyHint says how to give a message body.
const bodyHint = "pass --body TEXT, --body-file FILE, or --body-file - to read standard input"

// readBody returns the body from --body or --body-file (a file, or - for
// standard input), as gh does. Standard input is read for nothing else: a
// send in a shell loop must not swallow the loop's input. No body at all
// is a usage error; an explicit --body "" is an empty body.
func (e *env) readBody(c *cli.Context) (string, error) {
	switch {
	case c.IsSet("body") && c.IsSet("body-file"):
		return "", usagef(bodyHint, "--body and --body-file are exclusive")
	case c.IsSet("body"):
		return c.String("body"), nil
	case !c.IsSet("body-file"):
		return "", usagef(bodyHint, "no message body given")
	}
	name := c.String("body-file")
	if name == "-" {
		body, err := e.readInput(e.stdin)
		if err != nil {
			return "", fault.WithHint(fmt.Errorf("read the body from standard input: %w", err), "pass the body with --body TEXT or --body-file FILE")
		}
		return body, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fault.WithHint(fmt.Errorf("%w: cannot read --body-file: %v", mailbox.ErrInvalidArgument, unwrapPath(err)),
			"check the path, or pass the body with --body, or --body-file - for standard input")
	}
	return string(b), nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// noArgs refuses arguments; to a command that has subcommands, an argument
// is an unknown subcommand.
func noArgs(c *cli.Context) error {
	if !c.Args().Present() {
		return nil
	}
	if len(c.Command.Subcommands) > 0 {
		return unknownCommand(c, c.Args().First())
	}
	return usagef("see: "+c.Command.HelpName+" --help", "unexpected argument %q", c.Args().First())
}

func oneArg(c *cli.Context, what string) (string, error) {
	if c.Args().Len() != 1 {
		return "", usagef("usage: "+c.Command.HelpName+" "+what, "expected one %s, got %s", what, count(c.Args().Len(), "argument", "arguments"))
	}
	return c.Args().First(), nil
}

// parseSince reads a --since value: a date, an RFC 3339 time, or a
// duration back from now (with d for days).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := record.ParseTime(s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == days {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usagef("use a date (2026-11-01), an RFC 3339 time, or a duration like 2h or 3d", "cannot read --since %q", s)
}
