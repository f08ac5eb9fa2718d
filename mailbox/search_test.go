package mailbox

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentmail/agentmail/fts"
	"github.com/agentmail/agentmail/internal/project"
	"github.com/agentmail/agentmail/internal/store"
)

// referenceSearch is Search as one query that reads and excerpts every hit:
// slow, but plainly right, so the two-step Search must give the same hits.
func referenceSearch(ctx context.Context, m *Mailbox, query string, all bool, limit int) ([]Hit, error) {
	viewer, err := m.viewer(ctx)
	if err != nil {
		return nil, err
	}
	q := fts.Parse(query)
	s := &search{m: m, db: m.st.DB(), viewer: viewer, scoped: viewer != "" && !all, limit: limit}
	s.filter(q)
	where := append([]string{fts.Table + " MATCH ?", "m.project_id = ?"}, s.where...)
	args := append([]any{viewer, q.Match, m.pid}, s.args...)
	if s.scoped {
		where = append(where, "(m.sender = ? OR r.agent IS NOT NULL)")
		args = append(args, viewer)
	}
	sql := `SELECT ` + messageColumns + `, ` + fts.SnippetSQL + `, -` + fts.RankSQL + `, m.seq FROM ` + fts.Table +
		` JOIN messages m ON m.seq = ` + fts.Table + `.rowid` + recipientJoin + ` WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + fts.RankSQL + `, m.id DESC`
	if limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.hits(ctx, sql, args, nil)
}

// TestSearchMatchesReference searches a project big enough for every plan
// of a ranked search (few and many text hits, hits read by rowid or in a
// scan), with many exact ties, next to another project.
func TestSearchMatchesReference(t *testing.T) {
	agents := []string{"GreenCastle", "BlueLake", "RedFox"}
	f := newFixtureWith(t, store.Options{Extensions: []store.Extension{fts.Extension{}}}, agents...)
	ctx := context.Background()
	words := []string{"alpha", "beta", "gamma", "delta"}
	for batch := 0; batch < 2; batch++ {
		for i, from := range agents {
			var drafts []Draft
			for j := 0; j < 400; j++ {
				n := batch*1200 + i*400 + j
				d := Draft{
					To:         []string{agents[(i+1+j%2)%3]},
					Subject:    "about " + words[n%4],
					Body:       strings.Repeat(words[n%3]+" ", 1+n%3) + fmt.Sprintf("alpha note%d", n%7),
					Importance: Importances[n%4],
				}
				if n%5 == 0 {
					d.Bcc = []string{agents[(i+2-j%2)%3]}
				}
				drafts = append(drafts, d)
			}
			if _, err := f.as(from).SendBatch(ctx, drafts); err != nil {
				t.Fatal(err)
			}
			f.advance(time.Hour)
		}
	}
	queries := []string{"alpha", "beta", "gamma", "note3", "about", "alpha -beta", "beta from:greencastle",
		"alpha to:redfox", "gamma importance:high", "alpha is:unread", "zeta", "from:bluelake"}
	compare := func(when string) {
		for _, agent := range []string{"BlueLake", ""} {
			mb := f.as(agent)
			for _, query := range queries {
				for _, all := range []bool{false, true} {
					for _, limit := range []int{0, 1, 7, 150} {
						if agent == "" && strings.Contains(query, "is:") {
							continue
						}
						got, err := mb.Search(ctx, query, all, limit)
						if err != nil {
							t.Fatalf("%s: %s %q all=%v limit %d: %v", when, agent, query, all, limit, err)
						}
						if fts.Parse(query).Match == "" {
							continue
						}
						want, err := referenceSearch(ctx, mb, query, all, limit)
						if err != nil {
							t.Fatal(err)
						}
						if want == nil {
							want = []Hit{}
						}
						if !reflect.DeepEqual(got.Hits, want) {
							t.Errorf("%s: %s %q all=%v limit %d: %d hits, want %d, or in another order",
								when, agent, query, all, limit, len(got.Hits), len(want))
						}
					}
				}
			}
		}
	}
	compare("one project")

	home := f.proj
	var err error
	if f.proj, err = project.ProjectFromKey("example.com/acme/other"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.as("").Register(ctx, RegisterInput{Name: "GreenCastle"}); err != nil {
		t.Fatal(err)
	}
	f.send("GreenCastle", Draft{To: []string{"GreenCastle"}, Subject: "alpha", Body: "alpha beta"})
	f.proj = home
	compare("two projects")
}
