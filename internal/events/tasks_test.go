package events

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/archive"
	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/testbin"
)

// Tasks created, claimed, started, closed, unclaimed are events, with the
// task as its commit leaves it; work available follows each change that
// made a task ready (created ready, its last dependency closed,
// unclaimed), and reaches a stream that asks for one agent's events. A
// claim by another process is read back from the archive alike.
func TestTaskEvents(t *testing.T) {
	bin := testbin.Agentmail(t)
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	all := connect(t, f.url("types=task,work"), "")
	red := connect(t, f.url("agent=RedFox&types=work"), "")

	create := func(req service.CreateTaskRequest) service.Task {
		t.Helper()
		resp, err := f.svc.CreateTask(ctx, as("GreenCastle"), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Task
	}
	isWork := func(id string) func(frame) bool {
		return func(fr frame) bool { return fr.name == TypeWork && fr.event.Task != nil && fr.event.Task.ID == id }
	}
	isTask := func(state string) func(frame) bool {
		return func(fr frame) bool { return fr.name == TypeTask && fr.event.State == state }
	}
	// Each step's events are awaited before the next: work is what is
	// ready at a poll, and a task ready and claimed again within one is
	// no news.
	var frames []frame
	t0 := create(service.CreateTaskRequest{Title: "Schema"})
	frames = append(frames, all.until(isWork(t0.ID))...)
	t1 := create(service.CreateTaskRequest{Title: "API", Deps: []string{t0.ID}})
	frames = append(frames, all.until(isTask(StateCreated))...)
	must(t)(f.svc.ClaimTask(ctx, as("BlueLake"), service.ClaimTaskRequest{ID: t0.ID, Start: true}))
	frames = append(frames, all.until(isTask(StateStarted))...)
	must(t)(f.svc.CloseTask(ctx, as("BlueLake"), service.CloseTaskRequest{ID: t0.ID}))
	frames = append(frames, all.until(isWork(t1.ID))...)
	must(t)(f.svc.ClaimTask(ctx, as("BlueLake"), service.ClaimTaskRequest{ID: t1.ID}))
	frames = append(frames, all.until(isTask(StateClaimed))...)
	all.quiet(300 * time.Millisecond) // no work: nothing became ready
	must(t)(f.svc.UnclaimTask(ctx, as("BlueLake"), t1.ID))
	frames = append(frames, all.until(isWork(t1.ID))...)
	wantSummary(t, frames,
		"task GreenCastle created", "work  available",
		"task GreenCastle created",
		"task BlueLake claimed", "task BlueLake started",
		"task BlueLake closed", "work  available",
		"task BlueLake claimed",
		"task BlueLake unclaimed", "work  available")
	byState := map[string]*service.Task{}
	for _, fr := range frames {
		if fr.name == TypeTask && fr.id == "" || fr.name == TypeWork && fr.id != "" {
			t.Errorf("%s: id %q (a task event has its commit's, work none)", fr, fr.id)
		}
		byState[fr.name+" "+fr.event.State] = fr.event.Task
	}
	if s := byState["task started"]; s == nil || s.ID != t0.ID || s.Status != "in_progress" || s.Claim == nil || s.Claim.Agent != "BlueLake" {
		t.Errorf("started: %+v", s)
	}
	if c := byState["task closed"]; c == nil || c.Status != "closed" || c.CloseReason != "done" || c.Claim != nil {
		t.Errorf("closed: %+v", c)
	}
	if w := frames[len(frames)-1].event; w.Project != f.slug || w.Agent != "" || w.Task.Title != "API" || w.Task.Claim != nil {
		t.Errorf("work: %+v", w)
	}
	// Work concerns every agent: RedFox's stream has the three.
	got := red.until(isWork(t0.ID))
	got = append(got, red.until(isWork(t1.ID))...)
	got = append(got, red.until(isWork(t1.ID))...)
	if len(got) != 3 {
		t.Errorf("RedFox's work: %v", summary(got))
	}

	// Another process claims the task: read back from the archive.
	claim := exec.Command(bin, "task", "claim", t1.ID, "--store", f.dir, "--project", projectKey, "--agent", "RedFox")
	claim.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "AGENTMAIL_") })
	if out, err := claim.CombinedOutput(); err != nil {
		t.Fatalf("agentmail task claim: %v\n%s", err, out)
	}
	fr := all.next(5 * time.Second)
	if fr.name != TypeTask || fr.event.State != StateClaimed || fr.event.Agent != "RedFox" || fr.event.Task.Claim == nil || fr.event.Task.Claim.Agent != "RedFox" {
		t.Fatalf("claim by another process: %s %+v", fr, fr.event.Task)
	}
	all.quiet(300 * time.Millisecond)
}

// Work is not held back for long by a project whose branch never stands
// still: past workWait it is read at once. (A feed of its own, polled by
// hand, makes the moving branch.)
func TestWorkWaitBounded(t *testing.T) {
	f := newFixture(t, "GreenCastle")
	feed, err := FollowService(f.svc, Options{Poll: time.Hour, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	sub, _, err := feed.subscribe(f.slug)
	if err != nil {
		t.Fatal(err)
	}
	// Another service writes it, as another process would: a write of the
	// feed's own service wakes its loop (Written), which would poll by
	// itself.
	other := service.New(service.Config{Dir: f.dir, Now: f.clock.Now})
	defer other.Close()
	resp, err := other.CreateTask(context.Background(), as("GreenCastle"), service.CreateTaskRequest{Title: "Schema"})
	if err != nil {
		t.Fatal(err)
	}
	if err := feed.poll(); err != nil { // publishes the creation
		t.Fatal(err)
	}
	if e := <-sub.ch; e.Type != TypeTask || e.State != StateCreated {
		t.Fatalf("first %+v", e)
	}
	moving := archive.State{f.slug: strings.Repeat("0", 40)} // the branch moved since
	feed.workDue(moving)
	select {
	case e := <-sub.ch:
		t.Fatalf("work before the branch stood still or workWait passed: %+v", e)
	default:
	}
	feed.mu.Lock()
	m := feed.tasksMoved[f.slug]
	m.since = m.since.Add(-workWait - time.Millisecond)
	feed.tasksMoved[f.slug] = m
	feed.mu.Unlock()
	feed.workDue(moving)
	select {
	case e := <-sub.ch:
		if e.Type != TypeWork || e.Task.ID != resp.Task.ID {
			t.Fatalf("got %+v", e)
		}
	default:
		t.Fatal("no work after workWait")
	}
}
