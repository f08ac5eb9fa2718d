package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/agentmail/agentmail/internal/procstat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// measureMCP times tool calls to one live `agentmail mcp` process over
// stdio, as a coding agent makes them, through the Go SDK's client: the
// round trip of each call, runs times, after a first call that opens the
// store. The server is an overseer's, so that one process sends as one
// agent and reads as another. The floors are a ping, a JSON-RPC round trip
// that does no work, and the disk's part of a write (measureDiskFloor), in
// the store's directory dir.
func measureMCP(ctx context.Context, b *bench, dir string, runs int) error {
	cmd := exec.Command(b.bin, "mcp", "--overseer")
	cmd.Env, cmd.Stderr = b.env, os.Stderr
	if b.cpuProfile != "" {
		cmd.Env = append(slices.Clip(b.env), "AGENTMAIL_CPUPROFILE="+b.cpuProfile)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentmail-bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	call := func(name string, args map[string]any) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if res.IsError {
			return fmt.Errorf("%s: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
		return nil
	}
	if err := call("health_check", nil); err != nil {
		return err
	}
	sender, reader := agentName(0), agentName(1)
	reserver := agentName(3)
	results := []result{
		timeCalls("mcp ping (floor)", 0, runs, func(int) error { return cs.Ping(ctx, nil) }, nil),
		timeCalls("mcp send_message", 3*time.Millisecond, runs, func(i int) error {
			return call("send_message", map[string]any{"sender_name": sender, "to": reader,
				"subject": fmt.Sprintf("mcp bench %d", i), "body_md": "Benchmark body with a little **markdown**."})
		}, nil),
		timeCalls("mcp fetch_inbox limit 20", time.Millisecond, runs, func(int) error {
			return call("fetch_inbox", map[string]any{"agent_name": reader, "limit": 20})
		}, nil),
		timeCalls("mcp search_messages rare", 5*time.Millisecond, runs, func(int) error {
			return call("search_messages", map[string]any{"agent_name": reader, "query": "argon"})
		}, nil),
		// 50 patterns against the seeded 1,000 active reservations, which
		// stay 1,000: each run's are released after it, untimed.
		timeCalls("mcp file_reservation_paths 50", 3*time.Millisecond, runs, func(i int) error {
			return call("file_reservation_paths", map[string]any{"agent_name": reserver, "paths": benchPaths(i), "ttl_seconds": 3600})
		}, func(i int) error {
			return call("release_file_reservations", map[string]any{"agent_name": reserver, "paths": benchPaths(i)})
		}),
	}
	// Last, so that the files it removes (inodes freed in the last half
	// minute cost ext4 without a journal more to allocate past) do not
	// burden the writes measured above.
	results = slices.Insert(results, 1, measureDiskFloor(dir, runs))
	for _, r := range results {
		fmt.Println(r)
	}
	peak, now, err := procstat.RSS(cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("%-28s %8s peak %8s now   target <= 100 MB   %s\n", "mcp server RSS",
		fmt.Sprintf("%d MB", peak>>20), fmt.Sprintf("%d MB", now>>20), verdict(peak <= 100<<20))
	return nil
}

// benchPaths are the 50 patterns the i-th reservation run asks for.
func benchPaths(i int) []string {
	paths := make([]string, 50)
	for j := range paths {
		paths[j] = fmt.Sprintf("mcp-%d/part-%d/*.go", i, j)
	}
	return paths
}

// timeCalls runs timed runs times, each followed by untimed (when not
// nil), and takes the median and 90th percentile of timed's times.
func timeCalls(name string, target time.Duration, runs int, timed, untimed func(int) error) result {
	times := make([]time.Duration, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if err := timed(i); err != nil {
			return result{name: name, err: err}
		}
		times = append(times, time.Since(start))
		if untimed != nil {
			if err := untimed(i); err != nil {
				return result{name: name, err: err}
			}
		}
	}
	slices.Sort(times)
	return result{name: name, target: target, median: times[len(times)/2], p90: times[len(times)*9/10]}
}
