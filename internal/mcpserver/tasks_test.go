package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tasks through the tools: an epic and its children, dependencies (a
// cycle refused in the tools' terms), ready work, a claim with its paths
// reserved, a second claimer refused naming the holder, release, close
// (the epic closes with its last child), reopen refused under a closed
// epic, update, get, list.
func TestTasks(t *testing.T) {
	g, b := twoAgents(t)
	epic := g.ok("create_task", args{"title": "Auth rework", "type": "epic"}).str("task.id")
	t1 := g.ok("create_task", args{"title": "Schema", "parent_id": epic, "priority": 1, "paths": []string{"db/**"}, "labels": []string{"backend"}})
	g.want(t1, "task.status", "open")
	g.want(t1, "task.claim", nil)
	id1 := t1.str("task.id")
	id2 := g.ok("create_task", args{"title": "API", "parent_id": epic, "depends_on": []string{id1}}).str("task.id")
	e := g.fail("add_task_dependency", args{"task_id": id1, "depends_on_id": id2}, "DEPENDENCY_CYCLE")
	if !strings.Contains(e.Hint, "remove_task_dependency") {
		t.Errorf("cycle: %+v", e)
	}
	work := b.ok("list_ready_work", args{})
	if r := work.list("ready"); len(r) != 1 || r[0].(map[string]any)["id"] != id1 {
		t.Fatalf("ready work: %v", work)
	}
	claim := b.ok("claim_task", args{"task_id": id1, "start": true})
	b.want(claim, "task.claim.agent", "BlueLake")
	b.want(claim, "task.status", "in_progress")
	b.want(claim, "reserved.0.pattern", "db/**")
	e = g.fail("claim_task", args{"task_id": id1}, "TASK_CLAIMED")
	if !strings.Contains(e.Message, "BlueLake") || !strings.Contains(e.Hint, "list_ready_work") {
		t.Errorf("claimed: %+v", e)
	}
	g.fail("claim_task", args{"task_id": id1, "force": true}, "INVALID_ARGUMENT")
	g.fail("release_task", args{"task_id": id1}, "NOT_FOUND")
	b.want(b.ok("release_task", args{"task_id": id1}), "released.0.pattern", "db/**")
	g.want(g.ok("get_task", args{"task_id": id1}), "task.status", "open")
	g.want(g.ok("update_task", args{"task_id": id1, "priority": 0, "labels": []string{"db"}}), "task.priority", 0)
	g.fail("update_task", args{"task_id": id1}, "USAGE")
	g.fail("update_task", args{"task_id": id1, "priority": 9}, "INVALID_ARGUMENT")
	if l := g.ok("list_tasks", args{"blocked": true}).list("tasks"); len(l) != 1 {
		t.Errorf("blocked: %v", l)
	}
	g.ok("remove_task_dependency", args{"task_id": id2, "depends_on_id": id1})
	g.ok("add_task_dependency", args{"task_id": id2, "depends_on_id": id1})
	b.ok("claim_task", args{"task_id": id1})
	if l := b.ok("list_tasks", args{"mine": true}).list("tasks"); len(l) != 1 {
		t.Errorf("mine: %v", l)
	}
	sent := b.ok("send_message", args{"to": "GreenCastle", "subject": "schema done?", "body_md": "nearly", "task_id": id1})
	b.want(sent, "message.thread", "task-"+id1)
	b.fail("send_message", args{"to": "GreenCastle", "subject": "x", "body_md": "", "task_id": id1, "thread_id": "other"}, "USAGE")
	b.ok("close_task", args{"task_id": id1, "reason": "migrated"})
	closed := g.ok("close_task", args{"task_id": id2})
	g.want(closed, "closed.0.id", epic)
	g.want(g.ok("get_task", args{"task_id": epic}), "task.status", "closed")
	g.fail("reopen_task", args{"task_id": id2}, "INVALID_ARGUMENT")
	g.want(g.ok("reopen_task", args{"task_id": epic}), "task.status", "open")
	g.want(g.ok("reopen_task", args{"task_id": id2}), "task.status", "open")
	g.fail("get_task", args{"task_id": "01"}, "INVALID_ARGUMENT")
}

// Ten agents, each through a server of its own on one store, claiming one
// task at once: exactly one holds it, the others get TASK_CLAIMED naming
// the holder.
func TestTaskClaimRace(t *testing.T) {
	g, _ := twoAgents(t)
	names := []string{"AmberFox", "BlueRiver", "GreenHarbor", "RedRiver", "SilverLake", "AmberCastle", "BlueFalcon", "GreenOtter", "RedHarbor", "SilverFox"}
	var peers []*harness
	for _, n := range names {
		p := g.peer(n)
		p.ok("register_agent", args{"program": "test"})
		peers = append(peers, p)
	}
	for round := range 3 {
		id := g.ok("create_task", args{"title": "hot", "paths": []string{fmt.Sprintf("hot%d/**", round)}}).str("task.id")
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, refused, other := []string{}, 0, []string{}
		for i, p := range peers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := p.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "claim_task", Arguments: args{"task_id": id}})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					other = append(other, err.Error())
				case !res.IsError:
					won = append(won, names[i])
				default:
					var e struct{ Error ErrorDoc }
					json.Unmarshal([]byte(text(res)), &e)
					if e.Error.Code == "TASK_CLAIMED" && strings.Contains(e.Error.Message, "is claimed by ") {
						refused++
					} else {
						other = append(other, text(res))
					}
				}
			}()
		}
		wg.Wait()
		if len(won) != 1 || refused != 9 || len(other) > 0 {
			t.Fatalf("round %d: won %v, refused %d, other %v", round, won, refused, other)
		}
		g.want(g.ok("get_task", args{"task_id": id}), "task.claim.agent", won[0])
		if l := g.ok("list_tasks", args{"holder": won[0]}).list("tasks"); len(l) == 0 {
			t.Errorf("round %d: the holder holds nothing", round)
		}
	}
}

// list_ready_work with wait_seconds: answers at once when a task is
// ready, blocks until one becomes ready (its last dependency closed by
// another agent) while other calls go on, and answers an empty ready list
// when none did in time.
func TestReadyWorkWait(t *testing.T) {
	g, b := twoAgents(t)
	start := time.Now()
	if r := b.ok("list_ready_work", args{"wait_seconds": 1}).list("ready"); len(r) != 0 || time.Since(start) < 900*time.Millisecond {
		t.Errorf("nothing ready: %v after %s", r, time.Since(start))
	}
	b.fail("list_ready_work", args{"wait_seconds": -1}, "USAGE")
	schema := g.ok("create_task", args{"title": "Schema"}).str("task.id")
	api := g.ok("create_task", args{"title": "API", "depends_on": []string{schema}}).str("task.id")
	if r := b.ok("list_ready_work", args{"wait_seconds": 30}).list("ready"); len(r) != 1 || r[0].(map[string]any)["id"] != schema {
		t.Fatalf("a ready task waits for nobody: %v", r)
	}
	g.ok("claim_task", args{"task_id": schema})
	got := make(chan doc, 1)
	go func() { got <- b.ok("list_ready_work", args{"wait_seconds": 30}) }()
	time.Sleep(400 * time.Millisecond) // the wait has begun
	g.ok("close_task", args{"task_id": schema})
	select {
	case d := <-got:
		if r := d.list("ready"); len(r) != 1 || r[0].(map[string]any)["id"] != api {
			t.Errorf("woken with %v, want the API", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("list_ready_work did not return once the API became ready")
	}
}
