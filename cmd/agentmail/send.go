package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

type sendOptions struct {
	scoped
	req     service.SendRequest
	wait    bool          // then wait for the first reply in the thread
	waitFor time.Duration // how long; 0 is service.DefaultReplyWait
}

// idempotencyFlag is --idempotency-key, of the writes a retry must not
// repeat.
func idempotencyFlag() cli.Flag {
	return &cli.StringFlag{Name: "idempotency-key", Usage: "a unique `KEY` for this write: run again with the same key within 24h, it prints the first result and writes nothing (for retries whose answer was lost)"}
}

// bodyFlags are the flags that give a message's body.
func bodyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "body", Usage: "message body in markdown (this or --body-file is required)"},
		&cli.StringFlag{Name: "body-file", Usage: "read the body from `FILE`; - reads standard input, which is read for nothing else"},
	}
}

func newSendCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "send a message",
		ArgsUsage: " ",
		Description: "Sends a markdown message from the acting agent. Recipients are agent names, comma-separated or repeated,\n" +
			"or all (every other active agent), or Human (the human overseer: always delivered; it reads them with\n" +
			"inbox --agent Human or agentmail serve's Your mail). A recipient's contact policy may ask for a contact first\n" +
			"(CONTACT_REQUIRED: agentmail contacts request NAME; see agentmail policy --help). The body is\n" +
			"--body TEXT, --body-file FILE, or --body-file - (standard input, never read otherwise). --thread takes a\n" +
			"thread name, or a message id (or unique prefix) to join that message's thread. --topic files the message\n" +
			"under a topic (a channel: agentmail topic show NAME lists it); with --topic and no --to it is a post every\n" +
			"agent of the project reads. --attach FILE (repeatable) stores a file of the repository beside the message;\n" +
			"the body and the files together are at most AGENTMAIL_MAX_BODY (1 MiB).",
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
			&cli.StringFlag{Name: "topic", Usage: "file the message under topic `NAME` (letters, digits, _ . -); without --to it is a post to that channel"},
			&cli.StringSliceFlag{Name: "attach", Usage: "attach `FILE` of the repository (repeatable); agentmail attachment get gives it back"},
			&cli.StringFlag{Name: "task", Usage: "file the message under task `ID` (or prefix): in its thread, task-ID"},
			&cli.DurationFlag{Name: "wait", Usage: "then wait this long (a bare --wait: 2m) for the first reply in the thread; exit 4 on timeout"},
			idempotencyFlag(),
		}, bodyFlags()...),
		Action: scopedAction(e, func(c *cli.Context) (*sendOptions, error) {
			if err := noArgs(c); err != nil {
				return nil, err
			}
			required := []string{"to", "subject"}
			if c.IsSet("topic") {
				required = required[1:] // a post to the topic
			}
			if err := requireFlags(c, required...); err != nil {
				return nil, err
			}
			body, err := e.readBody(c)
			if err != nil {
				return nil, err
			}
			return &sendOptions{req: service.SendRequest{
				To: c.StringSlice("to"), Cc: c.StringSlice("cc"), Bcc: c.StringSlice("bcc"),
				Subject: c.String("subject"), Body: body, Thread: c.String("thread"),
				Importance: c.String("importance"), Ack: c.Bool("ack"), Category: c.String("category"),
				AsHuman: c.Bool("as-human"), IdempotencyKey: c.String("idempotency-key"),
				Topic: c.String("topic"), AttachmentPaths: c.StringSlice("attach"), Task: c.String("task"),
			}, wait: c.IsSet("wait"), waitFor: c.Duration("wait")}, nil
		}, runSend),
	}
}

func runSend(ctx context.Context, o *sendOptions) error {
	if o.wait {
		return runSendAndWait(ctx, o)
	}
	resp, err := o.Service.Send(ctx, o.Scope, o.req)
	if err != nil {
		return err
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	if err := o.sent(resp.Message); err != nil {
		return err
	}
	if s := resp.SuggestedState; s != nil {
		fmt.Fprintf(o.Stderr, "hint: you are blocked? tell the team (agents, check): agentmail state %s --note %s\n", s.State, shellWord(o.esc.line(s.Note)))
	}
	return nil
}

// runSendAndWait is send --wait: the message, then the first reply.
func runSendAndWait(ctx context.Context, o *sendOptions) error {
	req := service.SendAndWaitRequest{SendRequest: o.req, Wait: o.waitFor,
		OnHold: func(h service.Hold) {
			fmt.Fprintf(o.Stderr, "%s asks to hold %s: %s\n", o.esc.line(h.From), h.Hold, strings.TrimSpace(truncate(o.esc.line(h.Body), 100)))
		}}
	var printErr error
	if !o.JSON {
		req.OnSent = func(m service.Message) { printErr = o.sent(m) }
	}
	resp, err := o.Service.SendAndWait(ctx, o.Scope, req)
	if printErr != nil {
		return printErr
	}
	if errors.Is(err, service.ErrTimeout) {
		if resp.Thread != nil {
			if o.JSON {
				o.printJSON(resp)
			} else {
				fmt.Fprintf(o.Stdout, "no reply within %s; thread %s has %s\n", resp.Waited, o.esc.line(resp.Message.Thread), count(len(resp.Thread), "message", "messages"))
			}
		}
		return err
	}
	return o.render(resp, err, func() error {
		o.printMessages([]service.FullMessage{*resp.Reply}, o.now(), true)
		return nil
	})
}

// sent says a message went out.
func (o output) sent(m service.Message) error {
	if o.JSON {
		return o.printJSON(service.SendResponse{Message: m})
	}
	m = o.esc.message(m)
	to := strings.Join(append(append([]string{}, m.To...), m.Cc...), ", ")
	if len(m.Bcc) > 0 {
		to += " (bcc " + strings.Join(m.Bcc, ", ") + ")"
	}
	if m.Topic != "" {
		to = strings.TrimPrefix(to+", #"+m.Topic, ", ")
	}
	fmt.Fprintf(o.Stdout, "sent %s to %s\nthread %s\n", m.ID, to, m.Thread)
	for _, a := range m.Attachments {
		fmt.Fprintf(o.Stdout, "attached %s (%s, %s)\n", o.esc.line(a.Name), a.MediaType, service.FormatSize(int(a.Size)))
	}
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
	max, err := service.ParseMaxBody(os.Getenv)
	if err != nil {
		return "", err
	}
	name := c.String("body-file")
	if name == "-" {
		body, err := e.readInput(e.stdin, max)
		if err != nil {
			return "", fault.WithHint(fmt.Errorf("read the body from standard input: %w", err), "pass the body with --body TEXT or --body-file FILE")
		}
		if len(body) > max {
			return "", service.TooLarge(len(body)-1, max, true)
		}
		return body, nil
	}
	b, err := readFileUpTo(name, max)
	if err != nil {
		return "", fault.WithHint(fmt.Errorf("%w: cannot read --body-file: %v", service.ErrInvalidArgument, unwrapPath(err)),
			"check the path, or pass the body with --body, or --body-file - for standard input")
	}
	if len(b) > max {
		return "", service.TooLarge(len(b)-1, max, true)
	}
	return string(b), nil
}

// readFileUpTo reads the file name, but no more than max+1 bytes of it: a
// body over the limit is refused without reading it all.
func readFileUpTo(name string, max int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)+1))
}
