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

// The queries a fetch_inbox runs on every call are compiled once and then
// reused (see joinParam). The authorizer SQLite calls while compiling
// counts the compilations.
func TestQueriesNotRecompiled(t *testing.T) {
	f := newFixture(t, "GreenCastle", "BlueLake")
	sent := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "body", Importance: "urgent", Category: "HANDOFF"})
	pid := f.as("BlueLake").ProjectID()
	inbox, inboxArgs := inboxQuery(pid, "BlueLake", InboxQuery{Limit: 20})
	filtered, filteredArgs := inboxQuery(pid, "BlueLake", InboxQuery{Unread: true, Urgent: true, Category: "HANDOFF",
		Since: sent.Created.Add(-time.Hour), Before: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", Limit: 20, Bodies: true})
	for _, tt := range []struct {
		name  string
		query string
		args  []any
	}{
		{"inbox", inbox, inboxArgs},
		{"inbox, filtered", filtered, filteredArgs},
		{"agent by name", agentByName, []any{f.proj.Slug, pid, "bluelake"}},
	} {
		if n := compilations(t, filepath.Join(f.st.Dir(), "index.db"), 5, tt.query, tt.args...); n != 1 {
			t.Errorf("%s run 5 times was compiled %d times, want 1:\n%s", tt.name, n, tt.query)
		}
	}
}

// compilations runs query runs times on one connection to the index at
// path that keeps its statements for reuse, as the store's do, and counts
// how many times SQLite compiled it.
func compilations(t *testing.T, path string, runs int, query string, args ...any) int {
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
	for range runs {
		rows, err := conn.QueryContext(ctx, query, args...)
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
	}
	return n
}
