package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmail/agentmail/mailbox"
	"github.com/urfave/cli/v2"
)

func workflowCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:      "check",
			Usage:     "anything for me? silent when no mail or contact request waits (for an agent's per-step hook)",
			ArgsUsage: " ",
			Description: "Prints nothing and exits 0 when there is no unread mail and no contact request waiting for\n" +
				"your answer; otherwise one summary line, the newest unread subjects and a line about contact\n" +
				"requests. With --json, always a document. --exit-code also exits 1 when something waits, for hooks\n" +
				"that branch on it.",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "exit-code", Usage: "exit 1 when unread mail or a contact request waits, 0 when nothing does"},
			},
			Action: func(c *cli.Context) error {
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				sum, err := s.mb.Check(c.Context, 3)
				if err != nil {
					return err
				}
				var waiting error // --exit-code: exit 1, with nothing more to say
				if c.Bool("exit-code") && sum.Unread+sum.ContactRequests > 0 {
					waiting = exitStatus(exitError)
				}
				if jsonOutput(c) {
					docs := mapSlice(sum.Newest, messageDoc)
					if err := e.printJSON(map[string]any{"unread": sum.Unread, "urgent": sum.Urgent, "awaiting_ack": sum.AwaitingAck,
						"contact_requests": sum.ContactRequests, "messages": docs}); err != nil {
						return err
					}
					return waiting
				}
				short, err := s.shortIDs(c, sum.Newest)
				if err != nil {
					return err
				}
				if sum.Unread > 0 {
					fmt.Fprintf(e.stdout, "%d unread (%d urgent, %d awaiting your ack): agentmail inbox --unread\n", sum.Unread, sum.Urgent, sum.AwaitingAck)
				}
				for _, m := range e.esc.messages(sum.Newest) {
					fmt.Fprintf(e.stdout, "  %s  %s: %s\n", short.Of(m.ID), m.From, truncate(m.Subject, 60))
				}
				if sum.ContactRequests > 0 {
					fmt.Fprintf(e.stdout, "%d contact %s waiting for your answer: agentmail contacts list\n", sum.ContactRequests, plural(sum.ContactRequests, "request", "requests"))
				}
				return waiting
			},
		},
		{
			Name:      "wait",
			Usage:     "block until new mail arrives (exit 4 on timeout)",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "give up after this long (exit 4)"},
				&cli.StringFlag{Name: "thread", Usage: "only mail in this thread"},
				&cli.StringFlag{Name: "from", Usage: "only mail from this agent"},
				&cli.BoolFlag{Name: "urgent", Usage: "only high and urgent mail"},
			},
			Action: func(c *cli.Context) error {
				if c.Duration("timeout") < 0 {
					return usagef("pass a duration such as --timeout 5m (0 checks once)", "--timeout must not be negative, got %s", c.Duration("timeout"))
				}
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				msgs, err := s.mb.Wait(c.Context, mailbox.WaitFilter{Thread: c.String("thread"), From: c.String("from"), Urgent: c.Bool("urgent")},
					c.Duration("timeout"), 200*time.Millisecond)
				timedOut := errors.Is(err, mailbox.ErrTimeout)
				if err != nil && !timedOut {
					return err
				}
				if jsonOutput(c) {
					docs := mapSlice(msgs, fullDoc)
					if perr := e.printJSON(map[string]any{"messages": docs, "timeout": timedOut}); perr != nil {
						return perr
					}
					return err
				}
				if timedOut {
					return err
				}
				for i, m := range msgs {
					if i > 0 {
						fmt.Fprintln(e.stdout, strings.Repeat("─", 40))
					}
					e.printMessage(m, s.st.Now())
				}
				return nil
			},
		},
		{
			Name:  "acks",
			Usage: "acknowledgements: what you owe, and what others owe you",
			Subcommands: []*cli.Command{
				{
					Name: "pending", Usage: "messages asking for your acknowledgement", ArgsUsage: " ",
					Action: func(c *cli.Context) error {
						s, err := e.openMailboxNoArgs(c)
						if err != nil {
							return err
						}
						msgs, err := s.mb.PendingAcks(c.Context)
						if err != nil {
							return err
						}
						if jsonOutput(c) {
							docs := mapSlice(msgs, receivedDoc)
							return e.printJSON(map[string]any{"messages": docs})
						}
						if len(msgs) == 0 {
							fmt.Fprintln(e.stdout, "nothing awaits your acknowledgement")
							return nil
						}
						return s.printTable(c, e.stdout, e.esc.messages(msgs), true)
					},
				},
				{
					Name: "overdue", Usage: "messages you sent that still wait for someone's acknowledgement", ArgsUsage: " ",
					Flags: []cli.Flag{&cli.DurationFlag{Name: "older", Value: time.Hour, Usage: "only messages sent longer ago than this"}},
					Action: func(c *cli.Context) error {
						s, err := e.openMailboxNoArgs(c)
						if err != nil {
							return err
						}
						list, err := s.mb.OverdueAcks(c.Context, c.Duration("older"))
						if err != nil {
							return err
						}
						if jsonOutput(c) {
							type overdueJSON struct {
								messageJSON
								Waiting []string `json:"waiting_for"`
							}
							docs := make([]overdueJSON, len(list))
							for i, o := range list {
								docs[i] = overdueJSON{messageDoc(o.Message), o.Waiting}
							}
							return e.printJSON(map[string]any{"messages": docs})
						}
						if len(list) == 0 {
							fmt.Fprintln(e.stdout, "no overdue acknowledgements")
							return nil
						}
						short, err := s.mb.ShortIDs(c.Context, mapSlice(list, func(o mailbox.Overdue) string { return o.ID }))
						if err != nil {
							return err
						}
						rows := make([][]string, len(list))
						for i, o := range list {
							rows[i] = []string{short.Of(o.ID), truncate(e.esc.line(o.Subject), 40), ago(o.Created, s.st.Now()), strings.Join(e.esc.lines(o.Waiting), ",")}
						}
						table(e.stdout, "ID\tSUBJECT\tSENT\tWAITING FOR", rows)
						return nil
					},
				},
			},
		},
	}
}

// defaultReplyWait is how long a bare send --wait waits.
const defaultReplyWait = 2 * time.Minute

// awaitReply waits after send --wait and prints the reply, or the thread's
// state on timeout.
func (e *env) awaitReply(c *cli.Context, s *session, sent mailbox.Message) error {
	wait := c.Duration("wait")
	if wait <= 0 {
		wait = defaultReplyWait
	}
	reply, err := s.mb.WaitReply(c.Context, sent, wait, 200*time.Millisecond, func(h mailbox.Message) {
		fmt.Fprintf(e.stderr, "%s asks to hold %s: %s\n", e.esc.line(h.From), h.Hold, strings.TrimSpace(truncate(e.esc.line(h.Body), 100)))
	})
	if errors.Is(err, mailbox.ErrTimeout) {
		if _, msgs, terr := s.mb.Thread(c.Context, sent.Thread); terr == nil {
			if jsonOutput(c) {
				docs := mapSlice(msgs, fullDoc)
				e.printJSON(map[string]any{"message": messageDoc(sent), "reply": nil, "thread": docs})
			} else {
				fmt.Fprintf(e.stdout, "no reply within %s; thread %s has %s\n", wait, e.esc.line(sent.Thread), count(len(msgs), "message", "messages"))
			}
		}
		return err
	}
	if err != nil {
		return err
	}
	if jsonOutput(c) {
		return e.printJSON(map[string]any{"message": messageDoc(sent), "reply": fullDoc(reply)})
	}
	fmt.Fprintln(e.stdout, strings.Repeat("─", 40))
	e.printMessage(reply, s.st.Now())
	return nil
}
