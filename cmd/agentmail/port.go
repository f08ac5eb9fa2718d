package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["port"] = []string{
		"agentmail port claim shop:api --ttl 2h",
		"agentmail port run shop:web -- npm run dev -- --port '$PORT'",
		"curl localhost:$(agentmail port get shop:api)/health",
	}
	examples["port claim"] = []string{
		"agentmail port claim shop:api",
		"agentmail port claim shop:api --ttl 8h --json",
	}
	examples["port get"] = []string{
		"agentmail port get shop:api",
		"curl localhost:$(agentmail port get shop:api)/health",
	}
	examples["port list"] = []string{"agentmail port list", "agentmail port list --json"}
	examples["port release"] = []string{"agentmail port release shop:api"}
	examples["port run"] = []string{
		"agentmail port run shop:api -- sh -c 'exec ./server --listen :$PORT'",
		"agentmail port run shop:web --ttl 8h -- npm run dev",
	}
}

func newPortCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "port",
		Usage: "TCP ports of this machine leased under stable names, for dev servers side by side",
		Description: "A port is claimed under a name (shop:api) for --ttl, checked free by binding it, and is the\n" +
			"same port again for the same name while that port is free. Claims are decided under the\n" +
			"project's lock: claims made at once get different ports. Ports belong to this machine: a\n" +
			"claim is tagged with the host name, holds here only, and is listed on the other machines of a\n" +
			"synced project with its host; it never holds back a port there.",
		Subcommands: []*cli.Command{
			newPortClaimCommand(e), newPortGetCommand(e), newPortListCommand(e), newPortReleaseCommand(e), newPortRunCommand(e),
		},
	}
}

func portTTLFlag() cli.Flag {
	return &cli.DurationFlag{Name: "ttl", Value: service.DefaultPortTTL, Usage: "how long the claim lasts unless claimed again"}
}

type portOptions struct {
	scoped
	req service.PortRequest
}

func portNameAction(e *env, run func(context.Context, *portOptions) error) cli.ActionFunc {
	return scopedAction(e, func(c *cli.Context) (*portOptions, error) {
		name, err := oneArg(c, "NAME")
		return &portOptions{req: service.PortRequest{Name: name, TTL: c.Duration("ttl")}}, err
	}, run)
}

func newPortClaimCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "claim", Usage: "lease a free port under NAME (the one it had, while free)", ArgsUsage: "NAME",
		Description: "Prints the port and its expiry; claiming a name you hold extends it on the same port. A name\n" +
			"another agent holds exits 3 naming the holder.",
		Flags:  []cli.Flag{portTTLFlag()},
		Action: portNameAction(e, runPortClaim),
	}
}

func runPortClaim(ctx context.Context, o *portOptions) error {
	resp, err := o.Service.ClaimPort(ctx, o.Scope, o.req)
	if err != nil {
		return o.portHeld(resp, err)
	}
	if o.JSON {
		return o.printJSON(resp)
	}
	fmt.Fprintf(o.Stdout, "claimed %s: port %d on %s (expires %s)\n", resp.Port.Name, resp.Port.Port, resp.Port.Host, ago(resp.Port.Expires.Time, o.now()))
	return nil
}

// portHeld shows the claim that holds a name (when the error is that one
// does) before the error says so.
func (o output) portHeld(resp service.PortResponse, err error) error {
	if resp.Port.Name != "" && o.JSON {
		if perr := o.printJSON(resp); perr != nil {
			return perr
		}
	}
	return err
}

func newPortGetCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "get", Usage: "print the port claimed under NAME on this machine (for scripts: the number alone)", ArgsUsage: "NAME",
		Action: portNameAction(e, func(ctx context.Context, o *portOptions) error {
			resp, err := o.Service.GetPort(ctx, o.Scope, o.req.Name)
			return o.render(resp, err, func() error {
				fmt.Fprintln(o.Stdout, resp.Port.Port)
				return nil
			})
		}),
	}
}

func newPortReleaseCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "release", Usage: "end your claim of NAME", ArgsUsage: "NAME",
		Action: portNameAction(e, func(ctx context.Context, o *portOptions) error {
			resp, err := o.Service.ReleasePort(ctx, o.Scope, o.req.Name)
			return o.render(resp, err, func() error {
				fmt.Fprintf(o.Stdout, "released %s (port %d)\n", resp.Port.Name, resp.Port.Port)
				return nil
			})
		}),
	}
}

type portListOptions struct{ scoped }

func newPortListCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "ports claimed now (other machines' too, in a synced project)", ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *portListOptions { return &portListOptions{} }), runPortList),
	}
}

func runPortList(ctx context.Context, o *portListOptions) error {
	resp, err := o.Service.Ports(ctx, o.Scope)
	return o.render(resp, err, func() error {
		if len(resp.Ports) == 0 {
			fmt.Fprintln(o.Stdout, "no ports claimed")
			return nil
		}
		now := o.now()
		rows := make([][]string, len(resp.Ports))
		for i, p := range resp.Ports {
			host := p.Host
			if p.Here {
				host += " (here)"
			}
			rows[i] = []string{o.esc.line(p.Name), strconv.Itoa(p.Port), o.esc.line(host), o.esc.line(p.Holder), "expires " + ago(p.Expires.Time, now)}
		}
		table(o.Stdout, "NAME\tPORT\tHOST\tHOLDER\tSTATE", rows)
		return nil
	})
}

type portRunOptions struct {
	scoped
	req  service.PortRequest
	argv []string
}

func newPortRunCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "run", Usage: "claim NAME's port while a command runs, with PORT set to it", ArgsUsage: "NAME -- CMD [ARG...]",
		Description: "Claims NAME, runs CMD with PORT in its environment, claims it again every third of --ttl\n" +
			"while it runs, passes SIGINT/SIGTERM/SIGHUP on, releases the port when it ends and exits with\n" +
			"its status (127 when CMD is not found, 126 when it cannot be executed). If agentmail itself is\n" +
			"killed, the claim lapses after --ttl.",
		Flags: []cli.Flag{portTTLFlag()},
		Action: scopedAction(e, func(c *cli.Context) (*portRunOptions, error) {
			if c.Args().Len() < 2 {
				return nil, usagef("usage: agentmail port run NAME -- CMD [ARG...]", "need a name and a command")
			}
			return &portRunOptions{req: service.PortRequest{Name: c.Args().First(), TTL: c.Duration("ttl")}, argv: c.Args().Slice()[1:]}, nil
		}, runPortRun),
	}
}

func runPortRun(ctx context.Context, o *portRunOptions) error {
	pr, resp, err := o.Service.StartPortRun(ctx, o.Scope, o.req)
	if err != nil {
		return o.portHeld(resp, err)
	}
	code, runErr := o.runHolding(ctx, o.argv, []string{"PORT=" + strconv.Itoa(pr.Port())}, "port", o.req.Name, pr)
	if err := pr.Release(ctx); err != nil {
		fmt.Fprintf(o.Stderr, "agentmail: could not release port %s (it lapses after --ttl): %v\n", o.req.Name, err)
	}
	if runErr != nil {
		return runErr
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}
