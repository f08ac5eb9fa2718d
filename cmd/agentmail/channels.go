package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["publish"] = []string{
		"agentmail publish builds --body 'main is green (ci run 4411)'",
		`agentmail publish jobs --payload '{"job": 17, "file": "src/api/users.go"}'`,
	}
	examples["subscribe"] = []string{"agentmail subscribe builds", "agentmail subscriptions"}
	examples["unsubscribe"] = []string{"agentmail unsubscribe builds"}
	examples["subscriptions"] = []string{"agentmail subscriptions", "agentmail subscriptions --json | jq -r '.subscriptions[] | select(.unread > 0) | .topic'"}
	examples["poll"] = []string{
		"agentmail poll jobs --timeout 30s",
		"agentmail poll jobs --timeout 30s --json | jq -r .message.body",
	}
}

func newPublishCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "publish",
		Usage:     "post to a channel: a message with a topic and no recipients, which every agent may read",
		ArgsUsage: "CHANNEL",
		Description: "Posts --body, --body-file or a JSON --payload to CHANNEL (a topic: letters, digits, _ . -). The post\n" +
			"reaches no inbox: the channel's subscribers see it in check, inbox, wait --topic and poll, and anyone\n" +
			"with topic show. Without --subject, the body's first line is the subject (a payload's: \"post to CHANNEL\").",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "subject", Aliases: []string{"s"}, Usage: "one-line subject (default: the body's first line)"},
			&cli.StringFlag{Name: "payload", Usage: "post this `JSON` document as the body (checked to be JSON)"},
			&cli.StringFlag{Name: "importance", Value: "normal", Usage: "low, normal, high or urgent"},
			&cli.StringFlag{Name: "thread", Usage: "thread `NAME` to file the post under"},
			&cli.BoolFlag{Name: "as-human", Usage: "post as the human overseer (sender Human): no agent needed"},
			idempotencyFlag(),
		}, bodyFlags()...),
		Action: scopedAction(e, func(c *cli.Context) (*publishOptions, error) {
			topic, err := oneArg(c, "CHANNEL")
			if err != nil {
				return nil, err
			}
			req := service.PublishRequest{Topic: topic, Subject: c.String("subject"), Payload: c.String("payload"),
				Importance: c.String("importance"), Thread: c.String("thread"), IdempotencyKey: c.String("idempotency-key"),
				AsHuman: c.Bool("as-human")}
			if !c.IsSet("payload") || c.IsSet("body") || c.IsSet("body-file") {
				if req.Body, err = e.readBody(c); err != nil {
					return nil, err
				}
			}
			return &publishOptions{req: req}, nil
		}, runPublish),
	}
}

type publishOptions struct {
	scoped
	req service.PublishRequest
}

func runPublish(ctx context.Context, o *publishOptions) error {
	resp, err := o.Service.Publish(ctx, o.Scope, o.req)
	if err != nil {
		return err
	}
	return o.sent(resp.Message)
}

// newSubscribeCommand is subscribe (on) or unsubscribe.
func newSubscribeCommand(e *env, on bool) *cli.Command {
	name, usage := "subscribe", "follow a channel: its new posts show in check, inbox and the prompt hook"
	if !on {
		name, usage = "unsubscribe", "stop following a channel"
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "CHANNEL",
		Action: scopedAction(e, func(c *cli.Context) (*subscribeOptions, error) {
			topic, err := oneArg(c, "CHANNEL")
			return &subscribeOptions{topic: topic, on: on}, err
		}, runSubscribe),
	}
}

type subscribeOptions struct {
	scoped
	topic string
	on    bool
}

func runSubscribe(ctx context.Context, o *subscribeOptions) error {
	resp, err := o.Service.Subscribe(ctx, o.Scope, o.topic, o.on)
	return o.render(resp, err, func() error {
		switch {
		case o.on && *resp.Changed:
			fmt.Fprintf(o.Stdout, "subscribed to %s: its new posts show in check and inbox\n", resp.Topic)
		case o.on:
			fmt.Fprintf(o.Stdout, "already subscribed to %s\n", resp.Topic)
		case *resp.Changed:
			fmt.Fprintf(o.Stdout, "unsubscribed from %s\n", resp.Topic)
		default:
			fmt.Fprintf(o.Stdout, "not subscribed to %s\n", resp.Topic)
		}
		return nil
	})
}

func newSubscriptionsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "subscriptions", Usage: "list the channels you follow, with their unread posts", ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *subscriptionsOptions { return &subscriptionsOptions{} }), runSubscriptions),
	}
}

type subscriptionsOptions struct{ scoped }

func runSubscriptions(ctx context.Context, o *subscriptionsOptions) error {
	resp, err := o.Service.Subscriptions(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Subscriptions) == 0 {
			fmt.Fprintln(o.Stdout, "no subscriptions: agentmail subscribe CHANNEL")
			return nil
		}
		w := tabwriter.NewWriter(o.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "CHANNEL\tUNREAD\tSINCE")
		now := o.now()
		for _, c := range resp.Subscriptions {
			fmt.Fprintf(w, "%s\t%d\t%s\n", c.Topic, c.Unread, ago(c.Since.Time, now))
		}
		return w.Flush()
	})
}

func newPollCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "poll",
		Usage:     "block until the next post to a channel, print it and mark it read (exit 4 on timeout)",
		ArgsUsage: "CHANNEL",
		Description: "Prints the first post to CHANNEL by another agent that you have not read: after the last one you\n" +
			"read (poll, read), else since you subscribed, else from now on; and marks it read, so that the next\n" +
			"poll returns the one after. Waits up to --timeout for one (exit 4 when none came; 0 looks once).",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after this long (exit 4)"},
		},
		Action: scopedAction(e, func(c *cli.Context) (*pollOptions, error) {
			topic, err := oneArg(c, "CHANNEL")
			return &pollOptions{req: service.PollRequest{Topic: topic, Timeout: c.Duration("timeout")}}, err
		}, runPoll),
	}
}

type pollOptions struct {
	scoped
	req service.PollRequest
}

func runPoll(ctx context.Context, o *pollOptions) error {
	resp, err := o.Service.Poll(ctx, o.Scope, o.req)
	if done, err := o.waited(resp, resp.Timeout, err); done {
		return err
	}
	o.printMessages([]service.FullMessage{*resp.Message}, o.now(), false)
	return nil
}
