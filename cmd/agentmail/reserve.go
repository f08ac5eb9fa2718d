package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/mailbox"
	"github.com/agentmail/agentmail/reservations"
	"github.com/urfave/cli/v2"
)

type reservationJSON struct {
	ID        string  `json:"id"`
	Agent     string  `json:"agent"`
	Pattern   string  `json:"pattern"`
	Exclusive bool    `json:"exclusive"`
	Reason    string  `json:"reason"`
	Created   *string `json:"created"`
	Expires   *string `json:"expires"`
	Released  *string `json:"released"`
}

func reservationDocs(rs []reservations.Reservation) []reservationJSON {
	out := make([]reservationJSON, len(rs))
	for i, r := range rs {
		out[i] = reservationJSON{r.ID, r.Agent, r.Pattern, r.Exclusive, r.Reason, jsonTime(r.Created), jsonTime(r.Expires), jsonTime(r.Released)}
	}
	return out
}

type conflictJSON struct {
	Pattern       string  `json:"pattern"`
	Holder        string  `json:"holder"`
	HolderPattern string  `json:"holder_pattern"`
	Exclusive     bool    `json:"exclusive"`
	Expires       *string `json:"expires"`
}

// reservationService opens the mailbox (to check the acting agent and
// refresh its last-seen time) and the reservations of its project.
func (e *env) reservationService(c *cli.Context) (*session, *reservations.Service, error) {
	s, err := e.openMailbox(c)
	if err != nil {
		return nil, nil, err
	}
	me, err := s.mb.Whoami(c.Context)
	if err != nil {
		return nil, nil, err
	}
	var isDir func(string) bool
	if root := s.mb.Project().Root; root != "" {
		isDir = func(rel string) bool {
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
			return err == nil && fi.IsDir()
		}
	}
	return s, reservations.New(s.st, s.mb.Project().Slug, me.Name, isDir), nil
}

func reserveCommands(e *env) []*cli.Command {
	selectorFlags := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringSliceFlag{Name: "id", Usage: "reservation `ID` (or a prefix of 6+ characters)"},
			&cli.BoolFlag{Name: "all", Usage: "every active reservation of yours"},
		}
	}
	return []*cli.Command{
		{
			Name:      "reserve",
			Usage:     "lease paths (glob patterns) so other agents know you are working there",
			ArgsUsage: "PATTERN...",
			Description: "Patterns are globs relative to the current directory, as paths are in git (in src/api, *.py is\n" +
				"src/api/*.py), stored relative to the repository root (src/api/**, docs/*.md, {a,b}/x); a directory\n" +
				"name covers everything below it. All or nothing: if any pattern overlaps another agent's\n" +
				"reservation (and either is exclusive), nothing is granted, every conflict is listed, and the exit\n" +
				"code is 3. Reserving your own pattern again extends it.",
			Flags: []cli.Flag{
				&cli.DurationFlag{Name: "ttl", Value: time.Hour, Usage: "how long the lease lasts"},
				&cli.BoolFlag{Name: "shared", Usage: "a shared lease: conflicts only with exclusive ones"},
				&cli.StringFlag{Name: "reason", Usage: "what you are doing there"},
				&cli.BoolFlag{Name: "allow-conflicts", Usage: "grant even when others hold overlapping paths (still reports them)"},
			},
			Action: func(c *cli.Context) error {
				if !c.Args().Present() {
					return usagef("usage: agentmail reserve PATTERN... [--ttl 1h] [--shared] [--reason R]", "no patterns given")
				}
				s, svc, err := e.reservationService(c)
				if err != nil {
					return err
				}
				pats, err := s.mb.Project().RepoPatterns(c.Args().Slice())
				if err != nil {
					return err
				}
				res, err := svc.Reserve(c.Context, pats, reservations.Options{
					TTL: c.Duration("ttl"), Shared: c.Bool("shared"), Reason: c.String("reason"), AllowConflicts: c.Bool("allow-conflicts"),
				})
				if err != nil && !errors.Is(err, reservations.ErrConflict) {
					return err
				}
				for _, w := range res.Warnings {
					fmt.Fprintln(e.stderr, "warning: "+w)
				}
				conflicts := make([]conflictJSON, len(res.Conflicts))
				for i, k := range res.Conflicts {
					conflicts[i] = conflictJSON{k.Pattern, k.Holder, k.HolderPattern, k.Exclusive, jsonTime(k.Expires)}
				}
				if jsonOutput(c) {
					if perr := e.printJSON(map[string]any{"granted": reservationDocs(res.Granted), "conflicts": conflicts}); perr != nil {
						return perr
					}
				} else {
					now := s.st.Now()
					if perr := e.buffered(func(w io.Writer) {
						for _, r := range mapSlice(res.Granted, e.esc.reservation) {
							fmt.Fprintf(w, "reserved %s (%s, expires %s)\n", r.Pattern, kind(r.Exclusive), ago(r.Expires, now))
						}
						for _, k := range res.Conflicts {
							fmt.Fprintf(w, "conflict: %s overlaps %s held by %s (%s, expires %s)\n", e.esc.line(k.Pattern), e.esc.line(k.HolderPattern), e.esc.line(k.Holder), kind(k.Exclusive), ago(k.Expires, now))
						}
					}); perr != nil {
						return perr
					}
				}
				return err
			},
		},
		{
			Name:      "renew",
			Usage:     "extend your active reservations",
			ArgsUsage: "[PATTERN...]",
			Description: "Extends the named reservations (all of yours when none are named). An expired reservation\n" +
				"cannot be renewed: reserve it again.",
			Flags: append([]cli.Flag{
				&cli.DurationFlag{Name: "extend", Value: 30 * time.Minute, Usage: "how much longer"},
			}, selectorFlags()...),
			Action: func(c *cli.Context) error {
				s, svc, err := e.reservationService(c)
				if err != nil {
					return err
				}
				sel, err := selector(c, s.mb.Project())
				if err != nil {
					return err
				}
				rs, err := svc.Renew(c.Context, sel, c.Duration("extend"))
				if err != nil {
					return err
				}
				return e.reservationsOut(c, "renewed", rs, s.st.Now())
			},
		},
		{
			Name:      "release",
			Usage:     "end your reservations (or, with --force, a stale one of another agent)",
			ArgsUsage: "[PATTERN...]",
			Description: "Releases the named reservations, by pattern or --id, or --all of yours.\n" +
				"release --force ID --reason R takes another agent's reservation, only once it has expired or its\n" +
				"holder has been silent for 30 minutes; the holder gets a message saying who and why.",
			Flags: append([]cli.Flag{
				&cli.BoolFlag{Name: "force", Usage: "release another agent's expired or stale reservation (needs --id and --reason)"},
				&cli.StringFlag{Name: "reason", Usage: "why, for --force"},
			}, selectorFlags()...),
			Action: func(c *cli.Context) error {
				if !c.Bool("force") && !c.Args().Present() && len(c.StringSlice("id")) == 0 && !c.Bool("all") {
					return usagef("agentmail release PATTERN... | --id ID | --all", "nothing to release named")
				}
				s, svc, err := e.reservationService(c)
				if err != nil {
					return err
				}
				sel, err := selector(c, s.mb.Project())
				if err != nil {
					return err
				}
				if c.Bool("force") {
					if len(sel.IDs) != 1 || len(sel.Patterns) > 0 {
						return usagef("agentmail release --force --id ID --reason R", "--force takes exactly one --id")
					}
					r, err := svc.ForceRelease(c.Context, sel.IDs[0], c.String("reason"))
					if err != nil {
						return err
					}
					if r.Agent != r.ReleasedBy {
						if _, err := s.mb.Send(c.Context, mailbox.Draft{To: []string{r.Agent}, Importance: "high",
							Subject: "Released your reservation of " + r.Pattern,
							Body:    fmt.Sprintf("%s released your reservation %s of `%s`: %s", r.ReleasedBy, r.ID, r.Pattern, r.ReleaseReason)}); err != nil {
							return fmt.Errorf("released, but could not tell %s: %w", r.Agent, err)
						}
					}
					return e.reservationsOut(c, "released", []reservations.Reservation{r}, s.st.Now())
				}
				rs, err := svc.Release(c.Context, sel)
				if err != nil {
					return err
				}
				return e.reservationsOut(c, "released", rs, s.st.Now())
			},
		},
		{
			Name:      "reservations",
			Usage:     "list reservations (active ones of everyone by default)",
			ArgsUsage: " ",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "mine", Usage: "only yours"},
				&cli.StringFlag{Name: "holder", Usage: "only this agent's (--agent names the acting agent, as everywhere)"},
				&cli.BoolFlag{Name: "all", Usage: "every agent's (the default)"},
				&cli.BoolFlag{Name: "expired", Usage: "include expired and released ones"},
			},
			Action: func(c *cli.Context) error {
				s, err := e.openMailboxNoArgs(c)
				if err != nil {
					return err
				}
				f := reservations.Filter{Expired: c.Bool("expired")}
				if c.Bool("mine") {
					me, err := s.mb.Whoami(c.Context)
					if err != nil {
						return err
					}
					f.Agent = me.Name
				}
				if h := c.String("holder"); h != "" && !c.Bool("mine") {
					f.Agent = h
				}
				svc := reservations.New(s.st, s.mb.Project().Slug, "", nil)
				rs, err := svc.List(c.Context, f)
				if err != nil {
					return err
				}
				if jsonOutput(c) {
					return e.printJSON(map[string]any{"reservations": reservationDocs(rs)})
				}
				if len(rs) == 0 {
					fmt.Fprintln(e.stdout, "no reservations")
					return nil
				}
				short, err := svc.ShortIDs(c.Context, mapSlice(rs, func(r reservations.Reservation) string { return r.ID }))
				if err != nil {
					return err
				}
				now := s.st.Now()
				rows := make([][]string, len(rs))
				for i, r := range mapSlice(rs, e.esc.reservation) {
					state := "expires " + ago(r.Expires, now)
					switch {
					case !r.Released.IsZero():
						state = "released " + ago(r.Released, now)
					case !r.Expires.After(now):
						state = "expired " + ago(r.Expires, now)
					}
					rows[i] = []string{short.Of(r.ID), r.Agent, r.Pattern, kind(r.Exclusive), state, truncate(r.Reason, 30)}
				}
				return e.buffered(func(w io.Writer) { table(w, "ID\tAGENT\tPATTERN\tKIND\tSTATE\tREASON", rows) })
			},
			Subcommands: []*cli.Command{{
				Name:      "check",
				Usage:     "say who holds each path (changes nothing)",
				ArgsUsage: "PATH...",
				Action: func(c *cli.Context) error {
					if !c.Args().Present() {
						return usagef("usage: agentmail reservations check PATH...", "no paths given")
					}
					s, err := e.openMailbox(c)
					if err != nil {
						return err
					}
					paths, err := s.mb.Project().RepoPaths(c.Args().Slice())
					if err != nil {
						return err
					}
					held, err := reservations.New(s.st, s.mb.Project().Slug, "", nil).Check(c.Context, paths)
					if err != nil {
						return err
					}
					if jsonOutput(c) {
						type pathJSON struct {
							Path    string            `json:"path"`
							Holders []reservationJSON `json:"holders"`
						}
						docs := make([]pathJSON, len(held))
						for i, h := range held {
							docs[i] = pathJSON{h.Path, reservationDocs(h.Holders)}
						}
						return e.printJSON(map[string]any{"paths": docs})
					}
					now := s.st.Now()
					return e.buffered(func(w io.Writer) {
						for _, h := range held {
							path := e.esc.line(h.Path)
							if len(h.Holders) == 0 {
								fmt.Fprintf(w, "%s: free\n", path)
							}
							for _, r := range mapSlice(h.Holders, e.esc.reservation) {
								fmt.Fprintf(w, "%s: %s (%s, %s, expires %s)\n", path, r.Agent, r.Pattern, kind(r.Exclusive), ago(r.Expires, now))
							}
						}
					})
				},
			}},
		},
	}
}

func kind(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "shared"
}

// selector is what renew and release name: patterns, given like paths
// (relative to the current directory), ids, or all.
func selector(c *cli.Context, proj project.Project) (reservations.Selector, error) {
	pats, err := proj.RepoPatterns(c.Args().Slice())
	return reservations.Selector{Patterns: pats, IDs: c.StringSlice("id"), All: c.Bool("all")}, err
}

func (e *env) reservationsOut(c *cli.Context, key string, rs []reservations.Reservation, now time.Time) error {
	if jsonOutput(c) {
		return e.printJSON(map[string]any{key: reservationDocs(rs), "conflicts": []conflictJSON{}})
	}
	return e.buffered(func(w io.Writer) {
		if len(rs) == 0 {
			fmt.Fprintln(w, "nothing "+key)
		}
		for _, r := range mapSlice(rs, e.esc.reservation) {
			if key == "released" {
				fmt.Fprintf(w, "%s %s (%s)\n", key, r.Pattern, kind(r.Exclusive))
				continue
			}
			fmt.Fprintf(w, "%s %s (%s, expires %s)\n", key, r.Pattern, kind(r.Exclusive), ago(r.Expires, now))
		}
	})
}
