package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentmail/agentmail/internal/fault"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["webhook"] = []string{
		"openssl rand -hex 32 > ~/.agentmail-hook-secret && chmod 600 ~/.agentmail-hook-secret",
		"agentmail webhook add https://ci.example.com/agentmail --events post,state,control --secret-file ~/.agentmail-hook-secret",
		"agentmail webhook list",
		"agentmail webhook test wh_1f2e3d4c5b6a7988",
		"agentmail webhook log",
	}
	examples["webhook add"] = []string{
		"agentmail webhook add https://ci.example.com/agentmail --events post,state,control --secret-file ~/.agentmail-hook-secret",
		"agentmail webhook add http://127.0.0.1:9000/hook --events '*' --secret-file secret --allow-private",
	}
	examples["webhook list"] = []string{"agentmail webhook list", "agentmail webhook list --json"}
	examples["webhook remove"] = []string{"agentmail webhook remove wh_1f2e3d4c5b6a7988"}
	examples["webhook test"] = []string{"agentmail webhook test wh_1f2e3d4c5b6a7988"}
	examples["webhook log"] = []string{"agentmail webhook log", "agentmail webhook log --id wh_1f2e3d4c5b6a7988 --limit 10 --json"}
}

func newWebhookCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "webhook",
		Usage: "deliver the project's events to URLs (while agentmail serve runs)",
		Description: "agentmail serve posts each event a webhook asked for (" + strings.Join(service.WebhookEvents, ", ") + ")\n" +
			"as JSON to its URL, signed: X-Agentmail-Signature is sha256=<hex HMAC-SHA256 of the body with the\n" +
			"secret>; X-Agentmail-Delivery (the same on every retry: drop one you have seen) and\n" +
			"X-Agentmail-Timestamp (Unix seconds, also in the body: refuse an old one) guard against replays.\n" +
			"A delivery not answered 2xx is retried with exponential backoff; the queue is kept in the store\n" +
			"directory and survives a restart of serve. Secrets stay in the store directory, never in the archive.",
		Subcommands: []*cli.Command{{
			Name: "add", Usage: "register a webhook", ArgsUsage: "URL",
			Flags: []cli.Flag{
				&cli.StringSliceFlag{Name: "events", Required: true, Usage: "the event `TYPES` to deliver, comma-separated (" + strings.Join(service.WebhookEvents, ",") + "), or '*' for all"},
				&cli.StringFlag{Name: "secret-file", Required: true, Usage: "read the signing secret from `FILE` (at least 16 bytes; openssl rand -hex 32)"},
				&cli.BoolFlag{Name: "allow-private", Usage: "allow a URL on this machine or a private network (loopback, 10/8, 192.168/16, ...)"},
			},
			Action: scopedAction(e, func(c *cli.Context) (*webhookAddOptions, error) {
				url, err := oneArg(c, "URL")
				if err != nil {
					return nil, err
				}
				secret, err := os.ReadFile(c.String("secret-file"))
				if err != nil {
					return nil, fault.WithHint(fmt.Errorf("--secret-file: %w", err), "write a secret to the file first: openssl rand -hex 32 > FILE")
				}
				return &webhookAddOptions{req: service.WebhookAddRequest{URL: url, Events: c.StringSlice("events"),
					Secret: bytes.TrimSpace(secret), AllowPrivate: c.Bool("allow-private")}}, nil
			}, runWebhookAdd),
		}, {
			Name: "list", Usage: "list the project's webhooks", ArgsUsage: " ",
			Action: scopedAction(e, noArgsOptions(func(*cli.Context) *webhookOptions { return &webhookOptions{} }), runWebhookList),
		}, {
			Name: "remove", Usage: "unregister a webhook (its waiting deliveries are dropped)", ArgsUsage: "ID",
			Action: scopedAction(e, webhookIDOptions, runWebhookRemove),
		}, {
			Name: "test", Usage: "send a webhook a ping delivery now, and say how it was answered", ArgsUsage: "ID",
			Action: scopedAction(e, webhookIDOptions, runWebhookTest),
		}, {
			Name: "log", Usage: "the delivery log, newest first", ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "id", Usage: "only the deliveries of the webhook `ID`"},
				&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 50, Usage: "at most `N` entries"},
			},
			Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *webhookOptions {
				return &webhookOptions{id: c.String("id"), limit: c.Int("limit")}
			}), runWebhookLog),
		}},
	}
}

type webhookOptions struct {
	scoped
	id    string
	limit int
}

func webhookIDOptions(c *cli.Context) (*webhookOptions, error) {
	id, err := oneArg(c, "ID")
	return &webhookOptions{id: id}, err
}

type webhookAddOptions struct {
	scoped
	req service.WebhookAddRequest
}

// webhookError words a webhook error in the command line's terms.
func webhookError(err error) error {
	if errors.Is(err, service.ErrPrivateAddress) {
		return fault.WithHint(err, "pass --allow-private to deliver to this machine or a private network")
	}
	return err
}

func runWebhookAdd(ctx context.Context, o *webhookAddOptions) error {
	resp, err := o.Service.WebhookAdd(ctx, o.Scope, o.req)
	return o.render(resp, webhookError(err), func() error {
		h := resp.Webhook
		fmt.Fprintf(o.Stdout, "added webhook %s: %s (%s); agentmail serve delivers it\n", h.ID, h.URL, strings.Join(h.Events, ","))
		return nil
	})
}

func runWebhookList(ctx context.Context, o *webhookOptions) error {
	resp, err := o.Service.Webhooks(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Webhooks) == 0 {
			fmt.Fprintln(o.Stdout, "no webhooks")
			return nil
		}
		rows := make([][]string, 0, len(resp.Webhooks))
		for _, h := range resp.Webhooks {
			private := ""
			if h.AllowPrivate {
				private = "private allowed"
			}
			rows = append(rows, []string{h.ID, h.URL, strings.Join(h.Events, ","), ago(h.Created, o.now()), private})
		}
		table(o.Stdout, "ID\tURL\tEVENTS\tADDED\t", rows)
		return nil
	})
}

func runWebhookRemove(ctx context.Context, o *webhookOptions) error {
	resp, err := o.Service.WebhookRemove(ctx, o.Scope, o.id)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "removed webhook %s (%s)\n", resp.Webhook.ID, resp.Webhook.URL)
		return nil
	})
}

func runWebhookTest(ctx context.Context, o *webhookOptions) error {
	resp, err := o.Service.WebhookTest(ctx, o.Scope, o.id)
	return o.render(resp, err, func() error {
		a := resp.Attempt
		if a.State == "delivered" {
			fmt.Fprintf(o.Stdout, "delivered %s to %s: %d in %d ms\n", a.Delivery, resp.Webhook.URL, a.Status, a.Millis)
		} else {
			fmt.Fprintf(o.Stdout, "not delivered %s to %s: %s\n", a.Delivery, resp.Webhook.URL, a.Error)
		}
		return nil
	})
}

func runWebhookLog(ctx context.Context, o *webhookOptions) error {
	resp, err := o.Service.WebhookLog(ctx, o.Scope, o.id, o.limit)
	return o.render(resp, err, func() error {
		if len(resp.Log) == 0 {
			fmt.Fprintln(o.Stdout, "no deliveries")
			return nil
		}
		rows := make([][]string, 0, len(resp.Log))
		for _, a := range resp.Log {
			status := "-"
			if a.Status != 0 {
				status = fmt.Sprint(a.Status)
			}
			rows = append(rows, []string{ago(a.At, o.now()), a.Hook, a.Delivery, a.Event, fmt.Sprint(a.Attempt), status, a.State, truncate(a.Error, 60)})
		}
		table(o.Stdout, "WHEN\tWEBHOOK\tDELIVERY\tEVENT\tTRY\tSTATUS\tSTATE\tERROR", rows)
		return nil
	})
}
