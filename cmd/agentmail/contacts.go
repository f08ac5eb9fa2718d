package main

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func newContactsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "contacts",
		Usage: "ask for, grant and list permission to write to agents whose policy requires it",
		Subcommands: []*cli.Command{
			newContactsRequestCommand(e), newContactsDecideCommand(e, "approve", true), newContactsDecideCommand(e, "deny", false),
			newContactsListCommand(e),
		},
	}
}

type contactsRequestOptions struct {
	scoped
	req service.ContactRequest
}

func newContactsRequestCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "request", Usage: "ask an agent for permission to write to it", ArgsUsage: "NAME",
		Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why you want to write"}},
		Action: scopedAction(e, func(c *cli.Context) (*contactsRequestOptions, error) {
			who, err := oneArg(c, "NAME")
			return &contactsRequestOptions{req: service.ContactRequest{To: who, Reason: c.String("reason")}}, err
		}, runContactsRequest),
	}
}

func runContactsRequest(ctx context.Context, o *contactsRequestOptions) error {
	resp, err := o.Service.RequestContact(ctx, o.Scope, o.req)
	return o.contact(resp, err)
}

type contactsDecideOptions struct {
	scoped
	from    string
	approve bool
}

// newContactsDecideCommand is contacts approve, or deny.
func newContactsDecideCommand(e *env, name string, approve bool) *cli.Command {
	return &cli.Command{
		Name: name, Usage: name + " a contact request", ArgsUsage: "NAME",
		Action: scopedAction(e, func(c *cli.Context) (*contactsDecideOptions, error) {
			who, err := oneArg(c, "NAME")
			return &contactsDecideOptions{from: who, approve: approve}, err
		}, runContactsDecide),
	}
}

func runContactsDecide(ctx context.Context, o *contactsDecideOptions) error {
	resp, err := o.Service.DecideContact(ctx, o.Scope, o.from, o.approve)
	return o.contact(resp, err)
}

// contact shows a contact request as it stands, unless err.
func (o output) contact(resp service.ContactResponse, err error) error {
	return o.render(resp, err, func() error {
		ct := o.esc.contact(resp.Contact)
		fmt.Fprintf(o.Stdout, "%s -> %s: %s\n", ct.From, ct.To, ct.State)
		return nil
	})
}

type contactsListOptions struct{ scoped }

func newContactsListCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "requests to and from you", ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *contactsListOptions { return &contactsListOptions{} }), runContactsList),
	}
}

func runContactsList(ctx context.Context, o *contactsListOptions) error {
	resp, err := o.Service.Contacts(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Contacts) == 0 {
			fmt.Fprintln(o.Stdout, "no contacts")
			return nil
		}
		rows := make([][]string, len(resp.Contacts))
		for i, ct := range mapSlice(resp.Contacts, o.esc.contact) {
			rows[i] = []string{ct.From, ct.To, ct.State, truncate(ct.Reason, 40)}
		}
		table(o.Stdout, "FROM\tTO\tSTATE\tREASON", rows)
		return nil
	})
}
