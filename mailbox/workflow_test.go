package mailbox

import (
	"context"
	"strings"
	"testing"
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
	rows, err := f.st.DB().Query(`EXPLAIN QUERY PLAN `+checkQuery, mb.pid, "BlueLake")
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
	got := strings.Join(plan, "\n")
	for _, want := range []string{"COVERING INDEX recipients_unread", "COVERING INDEX recipients_unacked", "INDEX contacts_waiting"} {
		if !strings.Contains(got, want) {
			t.Errorf("check's plan does not use %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SEARCH recipients USING PRIMARY KEY") {
		t.Errorf("check's plan reads all receipts:\n%s", got)
	}
}
