package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentmail/agentmail/internal/mailbox"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/store"
	"github.com/agentmail/agentmail/internal/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
)

// tasksSeedFile, in a store's directory, records that seedTasks filled it.
const tasksSeedFile = "agentmail-bench-tasks.json"

// measureTasks measures work items at n tasks (issue 27): whole processes
// of `work` and `task list --ready` against `--version`, in turns, each
// process's median over --version's (goal: 3 ms); and, in one live
// `agentmail mcp`, list_ready_work (goal: 2 ms) and claim_task against
// file_reservation_paths of 50 patterns (goal: no slower).
func measureTasks(bin, dir string, n, runs int) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "agentmail-bench-tasks-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	ctx := context.Background()
	if err := loadOrSeedTasks(ctx, dir, n); err != nil {
		return err
	}
	env := append(os.Environ(), "AGENTMAIL_HOME="+dir, "AGENTMAIL_PROJECT="+projectKey)
	b := &bench{bin: bin, env: env}
	if _, err := b.run("doctor", "--gc"); err != nil {
		return err
	}
	ops := []struct {
		name string
		args []string
	}{
		{"--version", []string{"--version"}},
		{"work", []string{"work", "--agent", agentName(1)}},
		{"task list --ready", []string{"task", "list", "--ready"}},
	}
	for _, op := range ops { // the index brought up to date, untimed
		if _, _, err := timeProcess(bin, op.args, "", env, ""); err != nil {
			return err
		}
	}
	times := make([][]time.Duration, len(ops))
	for i := 0; i < runs; i++ {
		for k := range ops { // each turn in another order
			j := (i + k) % len(ops)
			d, _, err := timeProcess(bin, ops[j].args, "", env, "")
			if err != nil {
				return err
			}
			times[j] = append(times[j], d)
		}
	}
	fmt.Printf("%d tasks, %d turns each; medians, whole processes\n", n, runs)
	for j, op := range ops {
		line := fmt.Sprintf("%-20s %9s", op.name, ms(median(times[j])))
		if j > 0 {
			over := make([]time.Duration, runs)
			for i := range over {
				over[i] = times[j][i] - times[0][i]
			}
			d := median(over)
			line += fmt.Sprintf("   − --version %9s   goal <= 3.00ms %s", ms(d), verdict(d <= 3*time.Millisecond))
		} else {
			line += " (floor)"
		}
		fmt.Println(line)
	}
	return measureTasksMCP(ctx, b, runs*5)
}

// measureTasksMCP times list_ready_work, claim_task (each run claims the
// top ready task; its release after it is untimed) and, to compare,
// file_reservation_paths of 50 patterns, in one live MCP server.
func measureTasksMCP(ctx context.Context, b *bench, runs int) error {
	cmd := exec.Command(b.bin, "mcp", "--overseer")
	cmd.Env, cmd.Stderr = b.env, os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentmail-bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if res.IsError {
			return nil, fmt.Errorf("%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
		return res, nil
	}
	if _, err := call("health_check", nil); err != nil {
		return err
	}
	worker, reserver := agentName(2), agentName(3)
	// The tasks claimed: the top ready ones, read once, untimed.
	res, err := call("list_tasks", map[string]any{"agent_name": worker, "ready": true, "limit": runs})
	if err != nil {
		return err
	}
	var ready []string
	if doc, ok := res.StructuredContent.(map[string]any); ok {
		list, _ := doc["tasks"].([]any)
		for _, t := range list {
			if m, ok := t.(map[string]any); ok {
				ready = append(ready, fmt.Sprint(m["id"]))
			}
		}
	}
	if len(ready) < runs {
		return fmt.Errorf("list_tasks: %d ready tasks, want %d", len(ready), runs)
	}
	results := []result{
		timeCalls("mcp ping (floor)", 0, runs, func(int) error { return cs.Ping(ctx, nil) }, nil),
		timeCalls("mcp list_ready_work", 2*time.Millisecond, runs, func(int) error {
			_, err := call("list_ready_work", map[string]any{"agent_name": worker})
			return err
		}, nil),
	}
	// A claim and a reservation of 50 patterns, in turns, so that the
	// machine's load weighs on both alike; each released after, untimed.
	claims, reserves := make([]time.Duration, 0, runs), make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := call("claim_task", map[string]any{"agent_name": worker, "task_id": ready[i]}); err != nil {
			return err
		}
		claims = append(claims, time.Since(start))
		start = time.Now()
		if _, err := call("file_reservation_paths", map[string]any{"agent_name": reserver, "paths": benchPaths(i), "ttl_seconds": 3600}); err != nil {
			return err
		}
		reserves = append(reserves, time.Since(start))
		if _, err := call("release_task", map[string]any{"agent_name": worker, "task_id": ready[i]}); err != nil {
			return err
		}
		if _, err := call("release_file_reservations", map[string]any{"agent_name": reserver, "paths": benchPaths(i)}); err != nil {
			return err
		}
	}
	results = append(results, summarize("mcp claim_task", slices.Clone(claims)), summarize("mcp file_reservation_paths 50", slices.Clone(reserves)))
	for _, r := range results {
		fmt.Println(r)
	}
	diffs := make([]time.Duration, runs)
	for i := range diffs {
		diffs[i] = claims[i] - reserves[i]
	}
	d := median(diffs)
	fmt.Printf("claim_task − file_reservation_paths (median of the turns' differences): %s   goal <= 0 %s\n", ms(d), verdict(d <= 0))
	return nil
}

// loadOrSeedTasks seeds dir with n tasks, unless an earlier run did.
func loadOrSeedTasks(ctx context.Context, dir string, n int) error {
	file := filepath.Join(dir, tasksSeedFile)
	if b, err := os.ReadFile(file); err == nil {
		if string(b) != fmt.Sprint(n) {
			return fmt.Errorf("%s was seeded with %s tasks, not %d: pass another -dir", dir, b, n)
		}
		fmt.Printf("using the %d tasks seeded in %s before\n", n, dir)
		return nil
	}
	fmt.Printf("seeding %d tasks into %s ...\n", n, dir)
	start := time.Now()
	if err := seedTasks(ctx, dir, n); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Printf("seeded in %s\n", time.Since(start).Round(time.Millisecond))
	return os.WriteFile(file, []byte(fmt.Sprint(n)), 0o644)
}

// seedTasks gives a store the bench's 20 agents, the 1,000 reservations
// the other benchmarks hold, and n tasks made over the past 30 days, as
// a busy project's: one in 100 an epic holding the next ones, 40%
// closed, 1% claimed (5 tasks held by each agent), a third depending on one or two earlier tasks,
// priorities 0 to 4. They are written as an import (tasks.Import), one
// commit.
func seedTasks(ctx context.Context, dir string, n int) error {
	st, err := store.Open(dir, store.Options{Projections: service.Projections()})
	if err != nil {
		return err
	}
	defer st.Close()
	proj, err := project.ProjectFromKey(projectKey)
	if err != nil {
		return err
	}
	for i := range benchAgents {
		mb, err := mailbox.Open(ctx, st, proj, "")
		if err != nil {
			return err
		}
		if _, err := mb.Register(ctx, mailbox.RegisterInput{Name: agentName(i), Program: "bench", Policy: "open"}); err != nil {
			return err
		}
	}
	if err := seedReservations(ctx, st, proj.Slug); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	entropy := rand.NewChaCha8([32]byte{3, 4})
	gen := newTextGen(rng)
	start := time.Now().Add(-30 * 24 * time.Hour)
	step := 30 * 24 * time.Hour / time.Duration(n)
	items := make([]tasks.Imported, n)
	epic := ""
	for i := range items {
		at := start.Add(time.Duration(i) * step)
		id := ulid.MustNew(ulid.Timestamp(at), entropy).String()
		it := tasks.Imported{ID: id, Source: fmt.Sprint(i), Title: gen.sentence(3 + rng.IntN(6)), Description: gen.paragraph(),
			Type: tasks.Types[rng.IntN(len(tasks.Types))], Priority: rng.IntN(tasks.MaxPriority + 1), Status: tasks.Open,
			Labels: []string{}, Deps: []string{}, Created: at}
		if it.Type == tasks.Epic {
			it.Type = "task"
		}
		switch {
		case i%100 == 0:
			it.Type, epic = tasks.Epic, id
		case epic != "" && rng.IntN(2) == 0:
			it.Parent = epic
		}
		switch r := rng.IntN(100); {
		case r < 40 && it.Type != tasks.Epic:
			it.Status, it.Closed = tasks.Closed, at.Add(time.Hour)
		case r == 40:
			it.Claim = agentName(rng.IntN(len(benchAgents)))
		}
		if i > 0 && rng.IntN(3) == 0 {
			for k := 1 + rng.IntN(2); k > 0; k-- {
				if d := items[rng.IntN(i)].ID; !slices.Contains(it.Deps, d) {
					it.Deps = append(it.Deps, d)
				}
			}
		}
		items[i] = it
	}
	rep, err := tasks.New(st, proj.Slug, "").Import(ctx, items)
	if err != nil {
		return err
	}
	if len(rep.Warnings) > 0 {
		return fmt.Errorf("%d warnings, the first: %s", len(rep.Warnings), rep.Warnings[0])
	}
	return nil
}
