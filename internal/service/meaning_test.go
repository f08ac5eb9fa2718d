package service

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestHistoryExplained: each commit of a real archive says what its
// changed files mean, read from the files as the commit left them.
func TestHistoryExplained(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.register("GreenCastle", "BlueLake")
	sent := f.send("GreenCastle", SendRequest{To: []string{"BlueLake"}, Subject: "Auth API ready", Body: "b", Ack: true})
	if _, err := f.svc.Mark(ctx, as("BlueLake"), MarkRequest{IDs: []string{sent.ID}, Ack: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Reserve(ctx, as("GreenCastle"), ReserveRequest{Patterns: []string{"src/**"}, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Release(ctx, as("GreenCastle"), Selection{Patterns: []string{"src/**"}}); err != nil {
		t.Fatal(err)
	}
	task, err := f.svc.CreateTask(ctx, as("BlueLake"), CreateTaskRequest{Title: "Schema"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ClaimTask(ctx, as("GreenCastle"), ClaimTaskRequest{ID: task.Task.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Control(ctx, as(HumanSender), ControlRequest{Agent: "BlueLake", Action: "pause", Reason: "wait"}); err != nil {
		t.Fatal(err)
	}
	resp, err := f.svc.History(ctx, as(""), HistoryRequest{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range resp.Commits {
		got = append(got, c.Subject+" => "+strings.Join(c.Changes, "; "))
	}
	all := strings.Join(got, "\n")
	short := task.Task.ID[:10]
	for _, w := range []string{
		"=> message “Auth API ready” sent by GreenCastle to BlueLake\n",
		"=> message " + sent.ID[:10] + " acknowledged by BlueLake\n",
		"=> lease on src/** held by GreenCastle (exclusive, until ",
		"=> lease on src/** released by GreenCastle\n",
		"=> task " + short + " “Schema” created by BlueLake\n",
		"=> task " + short + " claimed by GreenCastle\n",
		"=> BlueLake paused by Human\n",
		"=> agent GreenCastle registered or updated",
	} {
		if !strings.Contains(all+"\n", w) {
			t.Errorf("no %q in the history:\n%s", w, all)
		}
	}
	plain, err := f.svc.History(ctx, as(""), HistoryRequest{})
	if err != nil || plain.Commits[0].Changes != nil {
		t.Errorf("history without Explain: %+v, %v; want no changes read", plain.Commits[0], err)
	}
}
