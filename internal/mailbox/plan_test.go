package mailbox

import (
	"context"
	"strings"
	"testing"
)

// TestMessagesByIDPlan: showing a list of ids (search results) looks each
// id up, rather than scanning the project's messages for the ones listed:
// the first step of the query's plan is the list.
func TestMessagesByIDPlan(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	for range 3 {
		f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "body"})
	}
	rows, err := f.st.Index().QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+messagesByID, `["x"]`, "BlueLake", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if len(steps) == 0 || !strings.HasPrefix(steps[0], "SCAN j") {
		t.Errorf("the plan begins %q; want the scan of the listed ids (SCAN j):\n%s", steps[0], strings.Join(steps, "\n"))
	}
}

// TestNewPostsPlan: counting an agent's new posts (every check and inbox
// runs it) walks its channels' posts only, never the project's messages.
func TestNewPostsPlan(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	for range 3 {
		f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "body"})
	}
	got := queryPlan(t, f, `SELECT count(*)`+newPostRows, "BlueLake", "bluelake", 1, "slug")
	steps := strings.Split(got, "\n")
	if !strings.HasPrefix(steps[0], "SEARCH s ") || !strings.Contains(got, "INDEX messages_topic (project_id=? AND topic=? AND id>?)") {
		t.Errorf("the new posts' plan does not go from the subscriptions to each channel's posts:\n%s", got)
	}
}
