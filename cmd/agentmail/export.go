package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["export"] = []string{
		"agentmail export . ./mailbox-site && xdg-open ./mailbox-site/index.html",
		"agentmail export backend-3fa1c2d9 /tmp/site --redact 'ghp_[A-Za-z0-9]{36}' --redact 'sk-[A-Za-z0-9-]{20,}'",
		"agentmail export . /tmp/site --redact-bodies --sign-key ~/.ssh/id_ed25519",
		"agentmail export --verify /tmp/site --allowed-signers ~/.ssh/allowed_signers",
	}
}

type exportOptions struct {
	scoped
	project string
	verify  bool
	req     service.ExportRequest
	check   service.VerifyExportRequest
}

func newExportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a project's mailbox as a static site that opens from disk, or verify one",
		ArgsUsage: "PROJECT DIR | --verify DIR",
		Description: "Writes a self-contained site of the project's mail (PROJECT: a directory of its repository, its key\n" +
			"or slug) into DIR, a new or empty directory: timeline, threads, messages, agents and a search that\n" +
			"runs in the browser, with no network; it opens from file:// or any static host. MANIFEST.sha256\n" +
			"lists every file's SHA-256; --sign-key signs it as git signs commits with an SSH key\n" +
			"(ssh-keygen -Y sign, namespace agentmail-export). --redact masks a regular expression's matches\n" +
			"(tokens, keys) and --redact-bodies drops bodies, before anything is written. --verify DIR checks\n" +
			"every file against the manifest, and the signature when there is one (against --allowed-signers,\n" +
			"in ssh-keygen's allowed signers format, when given), and names the first file that differs.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "redact-bodies", Usage: "leave every message body out"},
			&cli.StringSliceFlag{Name: "redact", Usage: "mask what the regular expression `RE` matches, everywhere (repeatable)"},
			&cli.StringFlag{Name: "sign-key", Usage: "sign the manifest with the SSH key `FILE` (as git's user.signingkey)"},
			&cli.BoolFlag{Name: "verify", Usage: "check the export in DIR instead of writing one"},
			&cli.StringFlag{Name: "allowed-signers", Usage: "with --verify: the signature must be by a key `FILE` lists (ssh-keygen's allowed signers format)"},
		},
		Action: scopedAction(e, parseExport, runExport),
	}
}

func parseExport(c *cli.Context) (*exportOptions, error) {
	o := &exportOptions{verify: c.Bool("verify")}
	args := c.Args()
	if o.verify {
		if args.Len() != 1 {
			return nil, usagef("usage: agentmail export --verify DIR [--allowed-signers FILE]", "--verify takes the export's directory only, got %s", count(args.Len(), "argument", "arguments"))
		}
		if c.IsSet("redact") || c.IsSet("redact-bodies") || c.IsSet("sign-key") {
			return nil, usagef("usage: agentmail export --verify DIR [--allowed-signers FILE]", "--redact, --redact-bodies and --sign-key are for writing an export, not for --verify")
		}
		o.check = service.VerifyExportRequest{Dir: args.Get(0), AllowedSigners: c.String("allowed-signers")}
		return o, nil
	}
	if args.Len() != 2 {
		return nil, usagef("usage: agentmail export PROJECT DIR [--redact RE]... [--redact-bodies] [--sign-key FILE]", "expected a project and a directory, got %s", count(args.Len(), "argument", "arguments"))
	}
	if c.IsSet("allowed-signers") {
		return nil, usagef("usage: agentmail export --verify DIR --allowed-signers FILE", "--allowed-signers goes with --verify")
	}
	dir, err := filepath.Abs(args.Get(1))
	if err != nil {
		return nil, err
	}
	o.project = args.Get(0)
	o.req = service.ExportRequest{Dir: dir, RedactBodies: c.Bool("redact-bodies"), Redact: c.StringSlice("redact"),
		SignKey: c.String("sign-key"), Markdown: web.BodyMarkdown().Render, Stylesheet: web.Stylesheet()}
	return o, nil
}

func runExport(ctx context.Context, o *exportOptions) error {
	if o.verify {
		resp, err := o.Service.VerifyExport(ctx, o.check)
		return o.render(resp, err, func() error {
			fmt.Fprintf(o.Stdout, "ok: %s, all %d files match the manifest\n", resp.Dir, resp.Files)
			switch {
			case resp.SignatureChecked:
				fmt.Fprintf(o.Stdout, "signed by %s: %s\n", resp.Signer, resp.Key)
			case resp.Signed:
				fmt.Fprintf(o.Stdout, "signed (%s); pass --allowed-signers FILE to check whose key it is\n", resp.Key)
			default:
				fmt.Fprintln(o.Stdout, "not signed")
			}
			return nil
		})
	}
	sc := o.Scope
	ref, err := o.Service.ProjectNamed(ctx, o.project)
	if err != nil {
		return err
	}
	sc.Project = ref
	resp, err := o.Service.Export(ctx, sc, o.req)
	return o.render(resp, err, func() error {
		fmt.Fprintf(o.Stdout, "exported %s: %s, %s, %s, %s in %s (%d files, %d bytes)\n", resp.Project.Slug,
			count(resp.Messages, "message", "messages"), count(resp.Threads, "thread", "threads"), count(resp.Agents, "agent", "agents"), count(resp.Tasks, "task", "tasks"),
			resp.Dir, resp.Files, resp.Bytes)
		if resp.Redacted {
			fmt.Fprintln(o.Stdout, "redacted before writing")
		}
		if resp.Signed {
			fmt.Fprintf(o.Stdout, "manifest signed: %s.sig\n", resp.Manifest)
		}
		fmt.Fprintf(o.Stdout, "open %s\n", filepath.Join(resp.Dir, "index.html"))
		return nil
	})
}
