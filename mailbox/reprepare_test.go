package mailbox

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The mailbox's read queries are compiled once and then reused (see
// joinParam): run again, with the same arguments or others, a statement
// is not compiled again. The authorizer SQLite calls while compiling
// counts the compilations.
func TestQueriesNotRecompiled(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	sent := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "body", Importance: "urgent", Category: "HANDOFF"})
	reply := f.send("BlueLake", Draft{To: []string{"GreenCastle"}, Subject: "Re: hello", Body: "ok", Thread: sent.ID})
	mb := f.as("BlueLake")
	inbox, inboxArgs := inboxQuery(mb.pid, "BlueLake", InboxQuery{Limit: 20})
	filtered, filteredArgs := inboxQuery(mb.pid, "BlueLake", InboxQuery{Unread: true, Urgent: true, Category: "HANDOFF",
		Since: sent.Created.Add(-time.Hour), Before: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", Limit: 20, Bodies: true})
	list := `["` + sent.ID + `","` + reply.ID + `"]`
	for _, tt := range []struct {
		name  string
		query string
		args  [][]any // the arguments of each run, in turn
	}{
		{"inbox", inbox, [][]any{inboxArgs}},
		{"inbox, filtered", filtered, [][]any{filteredArgs}},
		{"agent by name", agentByName, [][]any{{f.proj.Slug, mb.pid, "bluelake"}, {f.proj.Slug, mb.pid, "greencastle"}}},
		{"message as seen", messageAsSeen, [][]any{{"BlueLake", sent.ID}, {"GreenCastle", reply.ID}}},
		{"messages by id", messagesByID, [][]any{{list, "BlueLake", mb.pid}, {list, "GreenCastle", mb.pid}}},
		{"outbox", outboxRows, [][]any{{"GreenCastle", mb.pid, "GreenCastle", "", ""}, {"BlueLake", mb.pid, "BlueLake", "", ""}}},
		{"thread", `SELECT ` + messageColumns + threadRows, [][]any{mb.threadArgs(sent.Thread, "BlueLake"), mb.threadArgs(sent.Thread, "")}},
		{"thread before", threadBefore, [][]any{mb.threadArgs(sent.Thread, "BlueLake", reply.ID, 1), mb.threadArgs(sent.Thread, "BlueLake", reply.ID, 5)}},
		{"thread from", threadFrom, [][]any{mb.threadArgs(sent.Thread, "BlueLake", sent.ID, 1), mb.threadArgs(sent.Thread, "", sent.ID, 5)}},
		{"id matches", idMatches, [][]any{{mb.pid, sent.ID[:8], sent.ID[:8] + "~", "BlueLake", 1}, {mb.pid, "0", "~", "", 5}}},
		{"id neighbours", idNeighbours, [][]any{{mb.pid, list}, {mb.pid, `["` + sent.ID + `"]`}}},
	} {
		if n := recompilations(t, filepath.Join(f.st.Dir(), "index.db"), tt.query, tt.args); n != 0 {
			t.Errorf("%s was compiled again in the 5 runs after the first (%d SELECTs authorized):\n%s", tt.name, n, tt.query)
		}
	}
}

// recompilations runs query 6 times (with each of args in turn) on one
// connection to the index at path that keeps its statements for reuse, as
// the store's do, and counts the SELECTs SQLite authorized, compiling it,
// after the first run.
func recompilations(t *testing.T, path, query string, args [][]any) int {
	t.Helper()
	db, err := sql.Open("sqlite3", (&url.URL{Scheme: "file", Path: path}).String()+"?mode=ro&_stmt_cache_size=8")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := 0
	if err := conn.Raw(func(c any) error {
		c.(*sqlite3.SQLiteConn).RegisterAuthorizer(func(op int, _, _, _ string) int {
			if op == sqlite3.SQLITE_SELECT {
				n++
			}
			return sqlite3.SQLITE_OK
		})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	first := 0
	for i := range 6 {
		rows, err := conn.QueryContext(ctx, query, args[i%len(args)]...)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for rows.Next() {
			found = true
		}
		if err := rows.Close(); err != nil || !found {
			t.Fatalf("%s: found %v, %v", query, found, err)
		}
		if i == 0 {
			first = n
		}
	}
	return n - first
}
