package mailbox

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmail/agentmail/internal/record"
)

// TestCheckPlan pins how check counts: over the covering partial indexes
// of unread and unacknowledged receipts, never over all of an agent's
// receipts (which grow with every message it ever received) and never
// visiting the recipients table row by row.
func TestCheckPlan(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	mb := f.as("GreenCastle")
	if _, err := mb.Send(context.Background(), Draft{To: []string{"BlueLake"}, Subject: "s", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	got := queryPlan(t, f, checkQuery, mb.pid, "BlueLake")
	for _, want := range []string{"COVERING INDEX recipients_unread", "COVERING INDEX recipients_unacked", "INDEX contacts_waiting"} {
		if !strings.Contains(got, want) {
			t.Errorf("check's plan does not use %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SEARCH recipients USING PRIMARY KEY") {
		t.Errorf("check's plan reads all receipts:\n%s", got)
	}
}

// TestRelatedPlan pins how the auto policy decides: over the sender's
// messages of the last day and over the thread's, each with a receipt
// lookup, never over all the mail the agents ever exchanged.
func TestRelatedPlan(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	mb := f.as("GreenCastle")
	f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "s", Body: "b", Thread: "auth"})
	since := f.now().Add(-recentMail)
	got := queryPlan(t, f, relatedQuery, mb.pid, "BlueLake", "GreenCastle", firstIDAt(since), record.FormatTime(since), "auth")
	for _, want := range []string{
		"INDEX messages_sender (project_id=? AND sender=? AND id>?)",
		"INDEX messages_thread (project_id=? AND thread=?)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the policy check's plan does not use %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "message_id=?"); n != 2 {
		t.Errorf("the policy check's plan looks %d messages' receipts up by id, want 2:\n%s", n, got)
	}
	for _, step := range strings.Split(got, "\n") {
		if strings.HasPrefix(step, "SCAN ") && step != "SCAN CONSTANT ROW" {
			t.Errorf("the policy check's plan scans: %s\n%s", step, got)
		}
	}
}

// queryPlan returns SQLite's plan for query, one step a line.
func queryPlan(t *testing.T, f *fixture, query string, args ...any) string {
	t.Helper()
	rows, err := f.st.Index().QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// MailCounts counts, for every agent at once, what check counts for one,
// and the acknowledgements its recipients owe it; over the partial
// indexes of unread and unacknowledged receipts only.
func TestMailCounts(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake", "RedFox")
	ctx := context.Background()
	f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "plain", Body: "b"})
	f.send("GreenCastle", Draft{To: []string{"BlueLake", "RedFox"}, Subject: "urgent", Body: "b", Importance: "urgent", AckRequired: true})
	read := f.send("RedFox", Draft{To: []string{"BlueLake"}, Subject: "read and acknowledged", Body: "b", AckRequired: true})
	if _, err := f.as("BlueLake").Mark(ctx, []string{read.ID}, false, true); err != nil {
		t.Fatal(err)
	}
	got, err := f.as("").MailCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]MailCounts{
		"BlueLake":    {Unread: 2, Urgent: 1, AwaitingAck: 1},
		"RedFox":      {Unread: 1, Urgent: 1, AwaitingAck: 1},
		"GreenCastle": {AcksOwed: 2}, // BlueLake's and RedFox's of the urgent one
	} {
		if got[name] != want {
			t.Errorf("%s: %+v, want %+v", name, got[name], want)
		}
	}
	plan := queryPlan(t, f, mailCountsQuery, f.as("").pid, MailCountCap)
	for _, want := range []string{"COVERING INDEX recipients_unread", "INDEX recipients_unacked"} {
		if !strings.Contains(plan, want) {
			t.Errorf("the counts' plan does not use %s:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "SCAN recipients") {
		t.Errorf("the counts' plan reads all receipts:\n%s", plan)
	}
}
