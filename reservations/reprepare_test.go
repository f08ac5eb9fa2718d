package reservations

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/sqlitetest"
)

// The reservations' queries are compiled once and then reused (see
// store.JoinParam): run again, with the same arguments or others, a
// statement is not compiled again.
func TestQueriesNotRecompiled(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	g := w.as("GreenCastle")
	res, err := g.Reserve(ctx, []string{"src/a/*.go", "src/b/**", "docs/x.md"}, Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Acquire(ctx, "deploy/prod", time.Hour, 0); err != nil {
		t.Fatal(err)
	}
	sc, err := g.scope(ctx, w.st.Index())
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Granted[0], res.Granted[1]
	now := record.FormatTime(w.now())
	list := jsonArray([]string{a.ID, b.ID})
	sqlitetest.CompiledOnce(t, filepath.Join(w.st.Dir(), "index.db"), []sqlitetest.Query{
		{Name: "near", Query: nearQuery, Args: [][]any{{sc.pid, now, jsonArray([]string{"src", "src/a"}), jsonArray([]string{"src/a"})},
			{sc.pid, now, jsonArray([]string{"docs"}), jsonArray([]string{"docs", "src"})}}},
		{Name: "active", Query: eachQuery(activeWhere), Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "mine", Query: eachQuery(mineWhere), Args: [][]any{{sc.pid, now, "GreenCastle"}, {sc.pid, now, "GreenCastle"}}},
		{Name: "by id", Query: eachQuery(`id = ?`), Args: [][]any{{sc.pid, a.ID}, {sc.pid, b.ID}}},
		{Name: "by row id", Query: eachQuery(rowidIn), Args: [][]any{{sc.pid, "[1]"}, {sc.pid, "[1,2,3]"}}},
		{Name: "patterns", Query: patternsQuery(activeWhere), Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "id matches", Query: idMatches, Args: [][]any{{sc.pid, a.ID[:8], a.ID[:8] + "~", 1}, {sc.pid, "0", "~", 5}}},
		{Name: "id neighbours", Query: idNeighbours, Args: [][]any{{sc.pid, list}, {sc.pid, jsonArray([]string{a.ID})}}},
		{Name: "active counts", Query: activeCounts, Args: [][]any{{sc.pid, now}, {sc.pid, record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "active patterns", Query: activePatternsOf, Args: [][]any{{sc.pid, "GreenCastle", now}, {sc.pid, "GreenCastle", record.FormatTime(w.now().Add(-time.Minute))}}},
		{Name: "lock", Query: lockQuery, Args: [][]any{{sc.pid, "deploy/prod"}}},
		{Name: "locks by prefix", Query: locksByPrefix, Args: [][]any{{sc.pid, now, "deploy/", "deploy/"}, {sc.pid, now, "", ""}}},
	})
}
