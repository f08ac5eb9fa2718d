package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentmail/agentmail/internal/ids"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["task"] = []string{
		"agentmail task create 'Fix the login redirect' --type bug --priority 1 --path 'src/auth/**'",
		"agentmail work",
		"agentmail task claim 01JD3Y4Q",
		"agentmail task close 01JD3Y4Q --reason 'fixed in a1b2c3d'",
	}
	examples["task create"] = []string{
		"agentmail task create 'Auth rework' --type epic",
		"agentmail task create 'Token refresh' --parent 01JD3Y4Q --dep 01JD3Y5A --label backend --path 'src/auth/**'",
		"agentmail task create 'Write the docs' --description - < notes.md",
	}
	examples["task list"] = []string{"agentmail task list", "agentmail task list --ready", "agentmail task list --mine --json",
		"agentmail task list --blocked --label backend", "agentmail task list --all --parent 01JD3Y4Q"}
	examples["task show"] = []string{"agentmail task show 01JD3Y4Q", "agentmail task show 01JD3Y4Q --json"}
	examples["task claim"] = []string{"agentmail task claim 01JD3Y4Q", "agentmail task claim 01JD3Y4Q --no-reserve",
		"agentmail task claim 01JD3Y4Q --force --reason 'holder silent since noon'"}
	examples["task unclaim"] = []string{"agentmail task unclaim 01JD3Y4Q",
		"agentmail task unclaim 01JD3Y4Q --as-human --reason 'stalled for a day'   # the overseer, anyone's claim"}
	examples["task assign"] = []string{"agentmail task assign 01JD3Y4Q GreenCastle --as-human --reason 'BlueLake is on the release'"}
	examples["task start"] = []string{"agentmail task start 01JD3Y4Q"}
	examples["task close"] = []string{"agentmail task close 01JD3Y4Q", "agentmail task close 01JD3Y4Q --reason 'duplicate of 01JD3Y5A'"}
	examples["task reopen"] = []string{"agentmail task reopen 01JD3Y4Q"}
	examples["task update"] = []string{"agentmail task update 01JD3Y4Q --priority 0", "agentmail task update 01JD3Y4Q --title 'Fix login' --label auth --label urgent"}
	examples["task dep"] = []string{"agentmail task dep add 01JD3Y4Q 01JD3Y5A", "agentmail task dep rm 01JD3Y4Q 01JD3Y5A"}
	examples["task dep add"] = []string{"agentmail task dep add 01JD3Y4Q 01JD3Y5A"}
	examples["task dep rm"] = []string{"agentmail task dep rm 01JD3Y4Q 01JD3Y5A"}
	examples["work"] = []string{"agentmail work", "agentmail work --limit 3 --json"}
}

func newTaskCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "task",
		Usage: "work items: tasks, bugs, features, epics and chores, with dependencies and claims",
		Description: "A task has a title, a markdown description, a type, a priority (0 critical to 4 backlog), a status\n" +
			"(open, in_progress, closed), dependencies, an epic it belongs to, labels and the paths it touches.\n" +
			"A task is ready when open, unclaimed and every dependency is closed; agentmail work lists yours and\n" +
			"the ready ones. A claim is exact: one holder; another claimer exits 3 naming it. Ids paste back\n" +
			"as any prefix of 6 or more characters.",
		Subcommands: []*cli.Command{
			newTaskCreateCommand(e), newTaskListCommand(e), newTaskShowCommand(e), newTaskClaimCommand(e, false),
			newTaskUnclaimCommand(e), newTaskAssignCommand(e), newTaskClaimCommand(e, true), newTaskCloseCommand(e), newTaskReopenCommand(e),
			newTaskUpdateCommand(e), newTaskDepCommand(e),
		},
	}
}

type taskOptions struct {
	scoped
	id     string
	create service.CreateTaskRequest
	update service.UpdateTaskRequest
	list   service.TaskListRequest
	claim  service.ClaimTaskRequest
	reason string
	dep    string
	limit  int
}

// description reads --description, from stdin when it is "-".
func description(c *cli.Context, in io.Reader) (string, error) {
	d := c.String("description")
	if d != "-" {
		return d, nil
	}
	b, err := io.ReadAll(in)
	return string(b), err
}

// taskFieldFlags are the flags of a task's fields: create's, whose
// priority has the service's default, and update's (create false), which
// change only the fields given.
func taskFieldFlags(create bool) []cli.Flag {
	priority := &cli.IntFlag{Name: "priority", Aliases: []string{"p"}, Usage: "0 (critical) to 4 (backlog)", DefaultText: "unchanged"}
	if create {
		priority = &cli.IntFlag{Name: "priority", Aliases: []string{"p"}, Usage: "0 (critical) to 4 (backlog)", Value: service.DefaultPriority}
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "markdown description (- reads stdin)"},
		&cli.StringFlag{Name: "type", Usage: "task, bug, feature, epic or chore"},
		priority,
		&cli.StringFlag{Name: "parent", Usage: "the epic it belongs to (an id or prefix)"},
		&cli.StringSliceFlag{Name: "label", Usage: "a label (repeat for more)"},
		&cli.StringSliceFlag{Name: "path", Usage: "a glob of the repository paths it touches, reserved with its claim (repeat for more)"},
	}
}

func newTaskCreateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "create", Usage: "make a task", ArgsUsage: "TITLE",
		Flags: append(taskFieldFlags(true), &cli.StringSliceFlag{Name: "dep", Usage: "a task it depends on (repeat for more)"}),
		Action: scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
			title, err := oneArg(c, "TITLE")
			if err != nil {
				return nil, err
			}
			d, err := description(c, e.stdin)
			o := &taskOptions{create: service.CreateTaskRequest{Title: title, Description: d, Type: c.String("type"),
				Parent: c.String("parent"), Deps: c.StringSlice("dep"), Labels: c.StringSlice("label"), Paths: c.StringSlice("path")}}
			if c.IsSet("priority") {
				p := c.Int("priority")
				o.create.Priority = &p
			}
			return o, err
		}, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.CreateTask(ctx, o.Scope, o.create)
			return o.renderTask(ctx, resp, err, "created")
		}),
	}
}

func newTaskUpdateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "update", Usage: "change a task's fields (those given)", ArgsUsage: "ID",
		Flags: append(taskFieldFlags(false), &cli.StringFlag{Name: "title", Usage: "the new title"}),
		Action: scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
			id, err := oneArg(c, "ID")
			if err != nil {
				return nil, err
			}
			r := service.UpdateTaskRequest{ID: id}
			str := func(name string) *string {
				if !c.IsSet(name) {
					return nil
				}
				v := c.String(name)
				return &v
			}
			r.Title, r.Type, r.Parent = str("title"), str("type"), str("parent")
			if c.IsSet("description") {
				d, err := description(c, e.stdin)
				if err != nil {
					return nil, err
				}
				r.Description = &d
			}
			if c.IsSet("priority") {
				p := c.Int("priority")
				r.Priority = &p
			}
			if c.IsSet("label") {
				l := c.StringSlice("label")
				r.Labels = &l
			}
			if c.IsSet("path") {
				p := c.StringSlice("path")
				r.Paths = &p
			}
			if r == (service.UpdateTaskRequest{ID: id}) {
				return nil, usagef("see: "+c.Command.HelpName+" --help", "nothing to change: give --title, --description, --type, --priority, --parent, --label or --path")
			}
			return &taskOptions{update: r}, nil
		}, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.UpdateTask(ctx, o.Scope, o.update)
			return o.renderTask(ctx, resp, err, "updated")
		}),
	}
}

func newTaskListCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "list tasks (those not closed), by priority then age",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Usage: "open, in_progress or closed"},
			&cli.BoolFlag{Name: "all", Usage: "closed ones too"},
			&cli.BoolFlag{Name: "ready", Usage: "open, unclaimed, every dependency closed"},
			&cli.BoolFlag{Name: "blocked", Usage: "waiting on a dependency that is not closed"},
			&cli.BoolFlag{Name: "mine", Usage: "claimed by me"},
			&cli.StringFlag{Name: "holder", Usage: "claimed by this agent"},
			&cli.StringFlag{Name: "type", Usage: "task, bug, feature, epic or chore"},
			&cli.StringFlag{Name: "label", Usage: "with this label"},
			&cli.StringFlag{Name: "parent", Usage: "children of this epic"},
			&cli.IntFlag{Name: "limit", Value: service.DefaultTaskLimit, Usage: "at most this many (0: all)"},
		},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *taskOptions {
			return &taskOptions{list: service.TaskListRequest{Status: c.String("status"), All: c.Bool("all"), Ready: c.Bool("ready"),
				Blocked: c.Bool("blocked"), Mine: c.Bool("mine"), Claimer: c.String("holder"), Type: c.String("type"),
				Label: c.String("label"), Parent: c.String("parent"), Limit: c.Int("limit")}}
		}), func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.Tasks(ctx, o.Scope, o.list)
			return o.render(resp, err, func() error {
				if len(resp.Tasks) == 0 {
					fmt.Fprintln(o.Stdout, "no tasks")
					return nil
				}
				short := o.short(ctx, resp.Tasks)
				return o.buffered(func(w io.Writer) {
					for _, t := range resp.Tasks {
						o.taskLine(w, t, short)
					}
					if resp.More {
						fmt.Fprintf(w, "more: the first %d shown (--limit 0 lists them all)\n", len(resp.Tasks))
					}
				})
			})
		}),
	}
}

func idAction(e *env, run func(context.Context, *taskOptions) error) cli.ActionFunc {
	return scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
		id, err := oneArg(c, "ID")
		return &taskOptions{id: id, reason: c.String("reason")}, err
	}, run)
}

func newTaskShowCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "show", Usage: "show a task", ArgsUsage: "ID",
		Action: idAction(e, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.GetTask(ctx, o.Scope, o.id)
			return o.render(resp, err, func() error {
				short := o.short(ctx, []service.Task{resp.Task}, mapSlice(resp.Messages, func(m service.Message) string { return m.ID })...)
				return o.buffered(func(w io.Writer) {
					o.writeTask(w, resp.TaskResponse, short, "", func() {
						for _, m := range resp.Messages {
							fmt.Fprintf(w, "  message:  %s %s: %s (%s)\n", short.Of(m.ID), o.esc.line(m.From), o.esc.line(m.Subject), ago(m.Created.Time, o.now()))
						}
						if len(resp.Messages) > 0 {
							fmt.Fprintf(w, "  thread:   agentmail thread %s\n", service.TaskThread(resp.Task.ID))
						}
						for _, c := range resp.Commits {
							fmt.Fprintf(w, "  commit:   %s %s (%s, %s)\n", c.Hash[:min(len(c.Hash), 10)], o.esc.line(c.Subject), o.esc.line(c.Author), ago(c.Time.Time, o.now()))
						}
					})
				})
			})
		}),
	}
}

func newTaskClaimCommand(e *env, start bool) *cli.Command {
	name, usage := "claim", "become a task's holder (its paths reserved with it, both or neither)"
	if start {
		name, usage = "start", "claim a task and move it to in_progress"
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "ID",
		Description: "A claim is decided under the project's lock: one holder. A task another agent holds exits 3 naming\n" +
			"it; --force --reason takes it over once its holder has run no command for 30 minutes, and sends the\n" +
			"holder a message. The task's paths are reserved exclusively with the claim (--no-reserve: not).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "reserve", Value: true, Usage: "reserve the task's paths with the claim"},
			&cli.BoolFlag{Name: "no-reserve", Usage: "claim without reserving its paths"},
			&cli.DurationFlag{Name: "ttl", Value: service.DefaultClaimTTL, Usage: "how long the reservations last"},
			&cli.BoolFlag{Name: "force", Usage: "take over the claim of a holder silent for 30 minutes (needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "why you take it over, for its holder"},
		},
		Action: scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
			id, err := oneArg(c, "ID")
			if err != nil {
				return nil, err
			}
			if c.Bool("force") && strings.TrimSpace(c.String("reason")) == "" {
				return nil, usagef("say why with --reason TEXT: the holder receives it", "--force needs --reason")
			}
			r := service.ClaimTaskRequest{ID: id, Start: start, Force: c.Bool("force"), Reason: c.String("reason"), TTL: c.Duration("ttl")}
			if c.IsSet("reserve") || c.IsSet("no-reserve") {
				v := c.Bool("reserve") && !c.Bool("no-reserve")
				r.Reserve = &v
			}
			return &taskOptions{claim: r}, nil
		}, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.ClaimTask(ctx, o.Scope, o.claim)
			verb := "claimed"
			if o.claim.Start {
				verb = "started"
			}
			if resp.TakenFrom != "" {
				verb += " (taken over from " + resp.TakenFrom + ", who was told)"
			}
			return o.renderTask(ctx, resp, err, verb)
		}),
	}
}

// overseerFlags are the flags of the overseer's change of a claim.
func overseerFlags(what string) []cli.Flag {
	return []cli.Flag{&cli.BoolFlag{Name: "as-human", Usage: "as the human overseer (Human): no agent needed"},
		&cli.StringFlag{Name: "reason", Usage: "why " + what + ", for the holder (needed with --as-human)"}}
}

// assignAction reads ID, then AGENT when assign, and runs AssignTask as
// the overseer: --as-human and --reason are needed.
func assignAction(e *env, assign bool) cli.ActionFunc {
	args := "ID"
	if assign {
		args = "ID AGENT"
	}
	return scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
		if c.Args().Len() != len(strings.Fields(args)) {
			return nil, usagef("usage: "+c.Command.HelpName+" "+args+" --as-human --reason R", "expected %s, got %s", args, count(c.Args().Len(), "argument", "arguments"))
		}
		if !c.Bool("as-human") {
			return nil, usagef("add --as-human: giving a task to an agent is the overseer's", "only the human overseer assigns a task")
		}
		if strings.TrimSpace(c.String("reason")) == "" {
			return nil, usagef("say why with --reason TEXT: the holder receives it", "--as-human needs --reason")
		}
		return &taskOptions{id: c.Args().Get(0), dep: c.Args().Get(1), reason: c.String("reason")}, nil
	}, func(ctx context.Context, o *taskOptions) error {
		o.Scope.Agent = service.HumanSender
		resp, err := o.Service.AssignTask(ctx, o.Scope, service.AssignTaskRequest{ID: o.id, To: o.dep, Reason: o.reason})
		verb := "unclaimed"
		if c := resp.Task.Claim; c != nil {
			verb = "assigned to " + c.Agent
		}
		if resp.TakenFrom != "" {
			verb += " (taken from " + resp.TakenFrom + ", who was told)"
		}
		return o.renderTask(ctx, resp, err, verb)
	})
}

func newTaskUnclaimCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "unclaim", Usage: "drop your claim of a task (and the reservations it took)", ArgsUsage: "ID",
		Description: "--as-human --reason R: the overseer ends whoever's claim it is; the holder gets a message from Human.",
		Flags:       overseerFlags("the claim ends"),
		Action: func(c *cli.Context) error {
			if c.Bool("as-human") {
				return assignAction(e, false)(c)
			}
			if c.IsSet("reason") {
				return usagef("leave --reason out: your own unclaim needs none", "--reason goes with --as-human")
			}
			return idAction(e, func(ctx context.Context, o *taskOptions) error {
				resp, err := o.Service.UnclaimTask(ctx, o.Scope, o.id)
				return o.renderTask(ctx, resp, err, "unclaimed")
			})(c)
		},
	}
}

func newTaskAssignCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "assign", Aliases: []string{"reassign"}, Usage: "give a task's claim to an agent, as the overseer (--as-human --reason)",
		ArgsUsage: "ID AGENT",
		Description: "The overseer gives the task to a registered agent, whoever held it: the old holder's claim and the\n" +
			"reservations it took end, and both agents get a message from Human with the reason, under the task.",
		Flags:  overseerFlags("it changes hands"),
		Action: assignAction(e, true),
	}
}

func newTaskCloseCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "close", Usage: "close a task (an epic's open children with it)", ArgsUsage: "ID",
		Description: "Closing a task releases the reservations its claim took. Closing an epic closes its open children;\n" +
			"closing an epic's last open child closes the epic.",
		Flags: []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why (default: done)"}},
		Action: idAction(e, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.CloseTask(ctx, o.Scope, service.CloseTaskRequest{ID: o.id, Reason: o.reason})
			return o.renderTask(ctx, resp, err, "closed")
		}),
	}
}

func newTaskReopenCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "reopen", Usage: "open a closed task again (not under a closed epic)", ArgsUsage: "ID",
		Action: idAction(e, func(ctx context.Context, o *taskOptions) error {
			resp, err := o.Service.ReopenTask(ctx, o.Scope, o.id)
			return o.renderTask(ctx, resp, err, "reopened")
		}),
	}
}

func newTaskDepCommand(e *env) *cli.Command {
	dep := func(name, usage string, run func(*service.Service, context.Context, service.Scope, service.TaskDepRequest) (service.TaskResponse, error)) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, ArgsUsage: "ID DEP",
			Action: scopedAction(e, func(c *cli.Context) (*taskOptions, error) {
				if c.Args().Len() != 2 {
					return nil, usagef("usage: "+c.Command.HelpName+" ID DEP", "expected a task and the task it depends on, got %s", count(c.Args().Len(), "argument", "arguments"))
				}
				return &taskOptions{id: c.Args().Get(0), dep: c.Args().Get(1)}, nil
			}, func(ctx context.Context, o *taskOptions) error {
				resp, err := run(o.Service, ctx, o.Scope, service.TaskDepRequest{ID: o.id, Dep: o.dep})
				return o.renderTask(ctx, resp, err, "updated")
			}),
		}
	}
	return &cli.Command{
		Name: "dep", Usage: "a task's dependencies",
		Subcommands: []*cli.Command{
			dep("add", "make ID depend on DEP (refused when it would close a cycle)", (*service.Service).AddTaskDep),
			dep("rm", "drop DEP from ID's dependencies", (*service.Service).RemoveTaskDep),
		},
	}
}

func newWorkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name: "work", Usage: "what to do next: the tasks you hold, then the top ready ones",
		Flags: []cli.Flag{&cli.IntFlag{Name: "limit", Value: service.DefaultReadyLimit, Usage: "at most this many ready tasks"}},
		Action: scopedAction(e, noArgsOptions(func(c *cli.Context) *taskOptions {
			return &taskOptions{limit: c.Int("limit")}
		}), func(ctx context.Context, o *taskOptions) error {
			if o.limit <= 0 {
				return usagef("pass --limit 1 or more", "--limit must be positive, got %d", o.limit)
			}
			resp, err := o.Service.Work(ctx, o.Scope, o.limit)
			return o.render(resp, err, func() error { return o.printWork(ctx, resp) })
		}),
	}
}

// printWork prints what work answers: the tasks held, then the ready ones.
func (o taskOptions) printWork(ctx context.Context, resp service.WorkResponse) error {
	short := o.short(ctx, append(append([]service.Task{}, resp.Mine...), resp.Ready...))
	return o.buffered(func(w io.Writer) {
		if len(resp.Mine) > 0 {
			fmt.Fprintln(w, "yours:")
			for _, t := range resp.Mine {
				o.taskLine(w, t, short)
			}
		}
		if len(resp.Ready) == 0 {
			fmt.Fprintln(w, "no ready work")
			return
		}
		fmt.Fprintln(w, "ready:")
		for _, t := range resp.Ready {
			o.taskLine(w, t, short)
		}
	})
}

// taskLine prints a task on one line: id, priority, type, status, title,
// holder.
func (o taskOptions) taskLine(w io.Writer, t service.Task, short ids.Short) {
	holder := ""
	if t.Claim != nil {
		holder = "  @" + t.Claim.Agent
	}
	deps := ""
	if len(t.Deps) > 0 {
		deps = "  (" + count(len(t.Deps), "dependency", "dependencies") + ")"
	}
	fmt.Fprintf(w, "%-10s P%d %-7s %-11s %s%s%s\n", short.Of(t.ID), t.Priority, t.Type, t.Status, o.esc.line(t.Title), holder, deps)
}

// short returns the shortest unique prefixes of the tasks' ids (and of
// the message ids), which the lines print; the ids whole when they
// cannot be had.
func (o taskOptions) short(ctx context.Context, list []service.Task, messageIDs ...string) ids.Short {
	short, err := o.Service.ShortIDs(ctx, o.Scope, mapSlice(list, func(t service.Task) string { return t.ID }), messageIDs)
	if err != nil {
		return ids.Short{}
	}
	return short
}

// renderTask prints a task: after verb ("" for show) its whole card.
func (o taskOptions) renderTask(ctx context.Context, resp service.TaskResponse, err error, verb string) error {
	return o.render(resp, err, func() error {
		short := o.short(ctx, []service.Task{resp.Task})
		return o.buffered(func(w io.Writer) { o.writeTask(w, resp, short, verb, nil) })
	})
}

// writeTask writes a task as show and the changes print it: verb says
// what was done ("" for show, which also prints its description); more,
// when set, adds its lines before the description.
func (o taskOptions) writeTask(w io.Writer, resp service.TaskResponse, short ids.Short, verb string, more func()) {
	t := resp.Task
	id := short.Of(t.ID)
	if verb != "" {
		fmt.Fprintf(w, "%s %s: %s\n", verb, id, o.esc.line(t.Title))
	} else {
		fmt.Fprintf(w, "%s  %s\n", id, o.esc.line(t.Title))
	}
	fmt.Fprintf(w, "  id:       %s\n  type:     %s, priority %d\n  status:   %s", t.ID, t.Type, t.Priority, t.Status)
	if t.CloseReason != "" {
		fmt.Fprintf(w, " (%s)", o.esc.line(t.CloseReason))
	}
	fmt.Fprintln(w)
	if t.Claim != nil {
		fmt.Fprintf(w, "  holder:   %s (since %s)\n", t.Claim.Agent, ago(t.Claim.Since.Time, o.now()))
	}
	if t.Parent != "" {
		fmt.Fprintf(w, "  epic:     %s\n", t.Parent)
	}
	for _, l := range []struct {
		name string
		vals []string
	}{{"depends:", t.Deps}, {"labels:", t.Labels}, {"paths:", t.Paths}} {
		if len(l.vals) > 0 {
			fmt.Fprintf(w, "  %-9s %s\n", l.name, o.esc.line(strings.Join(l.vals, ", ")))
		}
	}
	fmt.Fprintf(w, "  created:  %s by %s\n", ago(t.Created.Time, o.now()), cmpOr(t.Creator, "Human"))
	for _, r := range resp.Reserved {
		fmt.Fprintf(w, "  reserved: %s (expires %s)\n", r.Pattern, ago(r.Expires.Time, o.now()))
	}
	for _, r := range resp.Released {
		fmt.Fprintf(w, "  released: %s\n", r.Pattern)
	}
	for _, c := range resp.Closed {
		fmt.Fprintf(w, "  closed along: %s %s\n", c.ID, o.esc.line(c.Title))
	}
	if more != nil {
		more()
	}
	if verb == "" && t.Description != "" {
		fmt.Fprintf(w, "\n%s\n", o.esc.text(strings.TrimRight(t.Description, "\n")))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
