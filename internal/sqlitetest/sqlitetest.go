// Package sqlitetest checks, in tests, that SQLite compiles a query once
// and then reuses it.
//
// A statement SQLite marked, as it planned it, to be compiled again when
// its parameters change is compiled again on every run: go-sqlite3 clears
// a statement's parameters each time it keeps it for reuse. SQLite marks
// a statement so when its plan took a bound value into account (see
// store.JoinParam, which keeps the value out of the plan).
package sqlitetest

import (
	"context"
	"database/sql"
	"net/url"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// Query is a query to run and the arguments of each run, in turn.
type Query struct {
	Name  string
	Query string
	Args  [][]any
}

// CompiledOnce reports an error for each of queries that SQLite compiled
// again when it ran it 5 times more, with each of its arguments in turn,
// on one connection to the SQLite database at path that keeps its
// statements for reuse, as the store's do. Each run must find a row.
func CompiledOnce(t *testing.T, path string, queries []Query) {
	t.Helper()
	for _, q := range queries {
		if n := Recompilations(t, path, q.Query, q.Args); n != 0 {
			t.Errorf("%s was compiled again in the 5 runs after the first (%d SELECTs authorized):\n%s", q.Name, n, q.Query)
		}
	}
}

// Recompilations runs query 6 times (with each of args in turn) on one
// connection to the database at path that keeps its statements for reuse,
// and counts the SELECTs SQLite authorized, compiling it, after the first
// run: 0 when the first compilation served every run.
func Recompilations(t *testing.T, path, query string, args [][]any) int {
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
			t.Fatalf("%s: %v", query, err)
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
