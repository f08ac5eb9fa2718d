package server

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestClaimRaceAcrossFaces: ten agents claim one task at the same moment,
// four through the command line (processes of the real binary), three
// through the HTTP API and three through MCP over HTTP, all on one store:
// exactly one holds it, the nine others are told TASK_CLAIMED in their
// face's terms, and the task's holder is the one that was told it won.
// Five tasks, five rounds.
func TestClaimRaceAcrossFaces(t *testing.T) {
	bin := testbin.Agentmail(t)
	h := startServer(t, Config{})
	names := []string{"AmberFox", "BlueLake", "GreenCastle", "RedFox", "SilverLake", "PurpleOtter", "BlueRiver", "GreenHarbor", "SilverFalcon", "AmberOtter"}
	h.seed(names[:7])
	env := append(os.Environ(), "AGENTMAIL_HOME="+h.store, "AGENTMAIL_PROJECT="+projectKey)
	// An MCP session acts as the agents it registered: one session each.
	sessions := map[string]*mcp.ClientSession{}
	for _, name := range names[7:] {
		sessions[name] = h.mcpClient(h.base+"/mcp", "2025-06-18")
		callTool(t, sessions[name], "register_agent", map[string]any{"project_key": projectKey, "name": name, "program": "test"})
	}
	ctx := context.Background()
	for round := range 5 {
		task, err := h.svc.CreateTask(ctx, h.scope(""), service.CreateTaskRequest{Title: "hot task"})
		if err != nil {
			t.Fatal(err)
		}
		id := task.Task.ID
		won := make([]bool, len(names))
		claimed := make([]bool, len(names)) // refused with TASK_CLAIMED
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				switch {
				case i < 4:
					cmd := exec.Command(bin, "task", "claim", id, "--agent", name, "--json")
					cmd.Env = env
					out, err := cmd.CombinedOutput()
					var ee *exec.ExitError
					switch {
					case err == nil:
						won[i] = true
					case errors.As(err, &ee) && ee.ExitCode() == 3 && strings.Contains(string(out), `"code":"TASK_CLAIMED"`):
						claimed[i] = true
					default:
						t.Errorf("round %d: %s on the command line: %v\n%s", round, name, err, out)
					}
				case i < 7:
					r := h.do("POST", "/api/projects/"+h.slug+"/tasks/"+id+"/claim", map[string]any{"agent": name})
					switch {
					case r.status == 200:
						won[i] = true
					case r.status == 409 && r.code(t) == "TASK_CLAIMED":
						claimed[i] = true
					default:
						t.Errorf("round %d: %s over HTTP: %d %s", round, name, r.status, r.body)
					}
				default:
					cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					defer cancel()
					res, err := sessions[name].CallTool(cctx, &mcp.CallToolParams{Name: "claim_task",
						Arguments: map[string]any{"project_key": projectKey, "agent_name": name, "task_id": id}})
					switch {
					case err != nil:
						t.Errorf("round %d: %s over MCP: %v", round, name, err)
					case !res.IsError:
						won[i] = true
					case strings.Contains(toolText(res), "TASK_CLAIMED"):
						claimed[i] = true
					default:
						t.Errorf("round %d: %s over MCP: %s", round, name, toolText(res))
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		var winners []string
		refused := 0
		for i, name := range names {
			if won[i] {
				winners = append(winners, name)
			}
			if claimed[i] {
				refused++
			}
		}
		if len(winners) != 1 || refused != len(names)-1 {
			t.Fatalf("round %d: %d winners %v, %d refused with TASK_CLAIMED", round, len(winners), winners, refused)
		}
		got, err := h.svc.GetTask(ctx, h.scope(""), id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Task.Claim == nil || got.Task.Claim.Agent != winners[0] {
			t.Fatalf("round %d: the task's holder %+v, but %s was told it won", round, got.Task.Claim, winners[0])
		}
	}
}

// toolText is the text of a tool result's content.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
