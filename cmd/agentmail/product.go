package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["product"] = []string{
		"agentmail product ensure shop-platform",
		"agentmail product link shop-platform ../billing",
		"agentmail search --product shop-platform 'checkout'",
	}
	examples["product ensure"] = []string{"agentmail product ensure 'Shop Platform'"}
	examples["product link"] = []string{"agentmail product link shop-platform ../billing", "agentmail product link shop-platform billing-3fa1c2d9"}
	examples["product list"] = []string{"agentmail product list", "agentmail product list --json"}
}

func newProductCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "product",
		Usage: "group projects (repositories) as one product, to search and read their mail together",
		Description: "A product is several projects of the store worked on as one: search --product and\n" +
			"inbox --product read the mail of all of them (the projects where the agent is registered).\n" +
			"Each project keeps its own membership in its branch of the archive, so it syncs with it.",
		Subcommands: []*cli.Command{newProductEnsureCommand(e), newProductLinkCommand(e), newProductListCommand(e)},
	}
}

type productOptions struct {
	scoped
	name    string
	project string // the project to link ("" for the current one)
	create  bool
}

func newProductEnsureCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "ensure", Usage: "make sure product NAME exists, with the current project in it", ArgsUsage: "NAME",
		Action: scopedAction(e, func(c *cli.Context) (*productOptions, error) {
			name, err := oneArg(c, "NAME")
			return &productOptions{name: name, create: true}, err
		}, runProductLink),
	}
}

func newProductLinkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "link", Usage: "make a project (a directory of its repository, or its key or slug; default: the current one) a member of product NAME",
		ArgsUsage: "NAME [PROJECT]",
		Action: scopedAction(e, func(c *cli.Context) (*productOptions, error) {
			if n := c.Args().Len(); n < 1 || n > 2 {
				return nil, usagef("usage: agentmail product link NAME [PROJECT]", "expected a product name and at most one project, got %s", count(n, "argument", "arguments"))
			}
			return &productOptions{name: c.Args().Get(0), project: c.Args().Get(1)}, nil
		}, runProductLink),
	}
}

func runProductLink(ctx context.Context, o *productOptions) error {
	sc := o.Scope
	if o.project != "" {
		ref, err := o.Service.ProjectNamed(ctx, o.project)
		if err != nil {
			return err
		}
		sc.Project = ref
	}
	resp, err := o.Service.LinkProduct(ctx, sc, o.name, o.create)
	return o.render(resp, err, func() error {
		verb := "is in"
		if resp.NewLink {
			verb = "joined"
		}
		fmt.Fprintf(o.Stdout, "%s %s product %s (%s): %s\n", resp.Project.Slug, verb, resp.Key, resp.Name, strings.Join(productSlugs(resp.Product), ", "))
		return nil
	})
}

func productSlugs(p service.Product) []string {
	return mapSlice(p.Projects, func(m service.ProductProject) string { return m.Slug })
}

type productListOptions struct{ scoped }

func newProductListCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "the store's products and their projects", ArgsUsage: " ",
		Action: scopedAction(e, noArgsOptions(func(*cli.Context) *productListOptions { return &productListOptions{} }), func(ctx context.Context, o *productListOptions) error {
			resp, err := o.Service.Products(ctx)
			return o.render(resp, err, func() error {
				if len(resp.Products) == 0 {
					fmt.Fprintln(o.Stdout, "no products")
					return nil
				}
				for _, p := range resp.Products {
					fmt.Fprintf(o.Stdout, "%s (%s): %s\n", p.Key, p.Name, strings.Join(productSlugs(p), ", "))
				}
				return nil
			})
		}),
	}
}
