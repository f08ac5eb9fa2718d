package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestAssignTaskIsTheOverseers: an agent asking AssignTask is refused,
// nothing changed; the overseer (HumanSender, or no agent) gives a claim
// to another agent, in any case of its name, recorded as the overseer's
// (by ""), with the reason; no reason, or an epic, is refused; an agent's ForceRelease of a live lease and the
// overseer's are refused alike (the rule of staleness is one).
func TestAssignTaskIsTheOverseers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	r, err := f.svc.CreateTask(ctx, as("GreenCastle"), CreateTaskRequest{Title: "Login page"})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Task.ID
	if _, err := f.svc.ClaimTask(ctx, as("BlueLake"), ClaimTaskRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.AssignTask(ctx, as("GreenCastle"), AssignTaskRequest{ID: id, To: "GreenCastle", Reason: "mine now"})
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "only the human overseer") {
		t.Fatalf("an agent's AssignTask: %v", err)
	}
	got, err := f.svc.AssignTask(ctx, as(HumanSender), AssignTaskRequest{ID: id, To: "greencastle", Reason: "BlueLake is busy"})
	if err != nil || got.Task.Claim == nil || got.Task.Claim.Agent != "GreenCastle" || got.TakenFrom != "BlueLake" {
		t.Fatalf("the overseer's AssignTask: %+v, %v", got, err)
	}
	h, err := f.svc.TaskHistory(ctx, as(""), id)
	if err != nil {
		t.Fatal(err)
	}
	last := h.Changes[len(h.Changes)-1]
	if last.Op != "claim" || last.By != "" || last.Agent != "GreenCastle" || !last.Force || last.Reason != "BlueLake is busy" {
		t.Fatalf("the change recorded: %+v", last)
	}
	if _, err := f.svc.AssignTask(ctx, as(""), AssignTaskRequest{ID: id, Reason: " "}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("no reason: %v", err)
	}
	epic, err := f.svc.CreateTask(ctx, as("GreenCastle"), CreateTaskRequest{Title: "Auth", Type: "epic"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AssignTask(ctx, as(""), AssignTaskRequest{ID: epic.Task.ID, To: "BlueLake", Reason: "r"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("an epic given: %v", err)
	}

	res, err := f.svc.Reserve(ctx, as("BlueLake"), ReserveRequest{Patterns: []string{"docs/**"}, TTL: 3 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	lease := res.Granted[0].ID
	for _, req := range []struct {
		sc      Scope
		asHuman bool
	}{{as("GreenCastle"), false}, {as(""), true}} {
		if _, err := f.svc.ForceRelease(ctx, req.sc, ForceReleaseRequest{ID: lease, Reason: "quiet", AsHuman: req.asHuman}); err == nil || !strings.Contains(err.Error(), "is live") {
			t.Fatalf("a live lease forced (as human %v): %v", req.asHuman, err)
		}
	}
	f.clock.Add(time.Hour)
	rel, err := f.svc.ForceRelease(ctx, as(""), ForceReleaseRequest{ID: lease, Reason: "quiet", AsHuman: true})
	if err != nil || len(rel.Released) != 1 {
		t.Fatalf("a stale lease forced by the overseer: %+v, %v", rel, err)
	}
	in, err := f.svc.Inbox(ctx, as("BlueLake"), InboxRequest{})
	if err != nil || len(in.Messages) == 0 || in.Messages[0].From != HumanSender || in.Messages[0].Subject != "Released your reservation of docs/**" {
		t.Fatalf("BlueLake's inbox: %+v, %v", in.Messages, err)
	}
}
