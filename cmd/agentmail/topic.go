package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["topic"] = []string{
		"agentmail send --topic builds --subject 'main is green' --body 'ci run 4411'",
		"agentmail topic list",
		"agentmail topic show builds --since 1d",
	}
	examples["topic list"] = []string{"agentmail topic list", "agentmail topic list --json"}
	examples["topic show"] = []string{
		"agentmail topic show builds",
		"agentmail topic show builds --bodies --limit 5",
		"agentmail topic show builds --json | jq -r '.messages[].subject'",
	}
	examples["send"] = append(examples["send"],
		"agentmail send --topic builds --subject 'main is green' --body 'Every agent of the project reads this post.'",
		"agentmail send --to BlueLake --subject 'Layout bug' --attach shot.png --attach logs/err.txt --body 'See attached.'")
	examples["attachment"] = []string{"agentmail attachment get 01JD3Y4Q shot.png -o shot.png"}
	examples["attachment get"] = []string{
		"agentmail attachment get 01JD3Y4Q shot.png -o shot.png",
		"agentmail attachment get 01JD3Y4Q notes.txt | less",
	}
}

func newTopicCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "topic",
		Usage: "topics: channels that messages are filed under",
		Description: "A message sent with --topic NAME is filed under that topic. Sent with --topic and no --to, it is a\n" +
			"post: it reaches no inbox, and every agent of the project may read it here. A topic lists what the\n" +
			"acting agent may see: the mail it sent or received under it, and every post to it.",
		Subcommands: []*cli.Command{{
			Name: "list", Usage: "list topics with their message counts and last activity", ArgsUsage: " ",
			Action: scopedAction(e, noArgsOptions(func(*cli.Context) *topicsOptions { return &topicsOptions{} }), runTopics),
		}, {
			Name: "show", Usage: "list the messages of a topic, newest first", ArgsUsage: "NAME",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "since", Usage: "only messages since `WHEN`: a date (2026-11-01), RFC 3339 time, or duration ago (2h, 3d)"},
				&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: service.DefaultListLimit, Usage: "at most `N` messages (0: all)"},
				&cli.BoolFlag{Name: "bodies", Usage: "include bodies"},
			},
			Action: scopedAction(e, func(c *cli.Context) (*topicOptions, error) {
				name, err := oneArg(c, "NAME")
				return &topicOptions{req: service.TopicRequest{Topic: name, Since: c.String("since"), Limit: c.Int("limit"), Bodies: c.Bool("bodies")}}, err
			}, runTopic),
		}},
	}
}

type topicsOptions struct{ scoped }

func runTopics(ctx context.Context, o *topicsOptions) error {
	resp, err := o.Service.Topics(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Topics) == 0 {
			fmt.Fprintln(o.Stdout, "no topics")
			return nil
		}
		w := tabwriter.NewWriter(o.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "TOPIC\tMESSAGES\tLAST")
		now := o.now()
		for _, t := range resp.Topics {
			fmt.Fprintf(w, "%s\t%d\t%s\n", t.Topic, t.Messages, ago(t.Last.Time, now))
		}
		return w.Flush()
	})
}

type topicOptions struct {
	scoped
	req service.TopicRequest
}

func runTopic(ctx context.Context, o *topicOptions) error {
	o.req.Abbreviate = !o.JSON && !o.req.Bodies
	resp, err := o.Service.Topic(ctx, o.Scope, o.req)
	return o.render(resp, err, func() error {
		if len(resp.Messages) == 0 {
			fmt.Fprintf(o.Stdout, "no messages in topic %s\n", resp.Topic)
			return nil
		}
		if o.req.Bodies {
			o.printMessages(mapSlice(resp.Messages, func(m service.InboxMessage) service.FullMessage {
				return service.FullMessage{Received: m.Received, Body: *m.Body}
			}), o.now(), false)
			return nil
		}
		received := mapSlice(resp.Messages, func(m service.InboxMessage) service.Received { return o.esc.received(m.Received) })
		topicTable(o.Stdout, received, resp.Short, o.now(), o.Scope.Agent)
		return nil
	})
}

// topicTable lists a topic's messages: sender and recipients ("post" for
// a post, which has none), "*" marking those the viewer received and has
// not read.
func topicTable(w io.Writer, msgs []service.Received, short ids.Short, now time.Time, viewer string) {
	rows := make([][]string, 0, len(msgs))
	for _, m := range msgs {
		mark := " "
		all := append(append(append([]string{}, m.To...), m.Cc...), m.Bcc...)
		if m.ReadAt.IsZero() && viewer != "" && slices.Contains(all, viewer) {
			mark = "*"
		}
		to := truncate(strings.Join(append(append([]string{}, m.To...), m.Cc...), ","), 30)
		if len(all) == 0 {
			to = "post"
		}
		rows = append(rows, []string{mark + short.Of(m.ID), m.From, to, truncate(m.Subject, 50), ago(m.Created.Time, now), flags(m)})
	}
	table(w, " ID\tFROM\tTO\tSUBJECT\tWHEN\tFLAGS", rows)
}

func newAttachmentCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "attachment",
		Usage: "files attached to messages (send --attach)",
		Subcommands: []*cli.Command{{
			Name: "get", Usage: "write an attachment of a message to standard output, or to a file", ArgsUsage: "ID NAME",
			Description: "ID is the message's id (or a unique prefix); NAME the attachment's name, as show lists it. The bytes\n" +
				"are exactly those attached, checked against their sha256. With --json, the content is in content_base64.",
			Flags: []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write it to `FILE` (replaced if it exists)"}},
			Action: scopedAction(e, func(c *cli.Context) (*attachmentOptions, error) {
				if c.Args().Len() != 2 {
					return nil, usagef("usage: "+c.Command.HelpName+" ID NAME", "expected a message id and an attachment name, got %s", count(c.Args().Len(), "argument", "arguments"))
				}
				return &attachmentOptions{id: c.Args().Get(0), name: c.Args().Get(1), output: c.String("output")}, nil
			}, runAttachmentGet),
		}},
	}
}

type attachmentOptions struct {
	scoped
	id, name, output string
}

// attachmentDoc is attachment get's JSON document.
type attachmentDoc struct {
	service.AttachmentResponse
	Content string `json:"content_base64,omitempty"` // without --output
	File    string `json:"file,omitempty"`           // with --output
}

func runAttachmentGet(ctx context.Context, o *attachmentOptions) error {
	resp, err := o.Service.Attachment(ctx, o.Scope, o.id, o.name)
	if err == nil && o.output != "" {
		if err = os.WriteFile(o.output, resp.Data, 0o644); err != nil {
			err = fmt.Errorf("write %s: %w", o.output, err)
		}
	}
	doc := attachmentDoc{AttachmentResponse: resp, File: o.output}
	if o.output == "" {
		doc.Content = base64.StdEncoding.EncodeToString(resp.Data)
	}
	return o.render(doc, err, func() error {
		if o.output == "" {
			_, err := o.Stdout.Write(resp.Data)
			return err
		}
		fmt.Fprintf(o.Stdout, "wrote %s (%s, %s, sha256 %s)\n", o.output, o.esc.line(resp.Attachment.MediaType),
			service.FormatSize(len(resp.Data)), resp.Attachment.SHA256)
		return nil
	})
}
