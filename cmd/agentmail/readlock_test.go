package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// heldIndexes are the connections holding an index's write lock, by
// script, for releaseindex.
var heldIndexes sync.Map // *testscript.TestScript → *sql.Conn

// holdindex takes the write lock of the store's index (BEGIN IMMEDIATE on
// a connection of its own to $AGENTMAIL_HOME/index.db, as another process
// in the middle of a long write holds it) and keeps it until releaseindex
// or the end of the script.
func cmdHoldIndex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: holdindex")
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(ts.Getenv("AGENTMAIL_HOME"), "index.db")+"?_busy_timeout=5000")
	ts.Check(err)
	conn, err := db.Conn(context.Background())
	ts.Check(err)
	_, err = conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`)
	ts.Check(err)
	heldIndexes.Store(ts, conn)
	ts.Defer(func() {
		if _, held := heldIndexes.LoadAndDelete(ts); held {
			conn.ExecContext(context.Background(), `ROLLBACK`)
		}
		conn.Close()
		db.Close()
	})
}

// releaseindex lets go of the lock holdindex took.
func cmdReleaseIndex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: releaseindex")
	}
	c, ok := heldIndexes.LoadAndDelete(ts)
	if !ok {
		ts.Fatalf("releaseindex: holdindex holds nothing")
	}
	_, err := c.(*sql.Conn).ExecContext(context.Background(), `ROLLBACK`)
	ts.Check(err)
}

// within SECONDS CMD [ARGS...] runs CMD as exec does (its output is what
// stdout and stderr then match) and fails unless it ended, as it should,
// within SECONDS: a command waiting on a lock waits far longer (the
// index's busy timeout is 30 s).
func cmdWithin(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: within SECONDS CMD [ARGS...]")
	}
	secs, err := strconv.ParseFloat(args[0], 64)
	ts.Check(err)
	start := time.Now()
	err = ts.Exec(args[1], args[2:]...)
	took := time.Since(start)
	if took > time.Duration(secs*float64(time.Second)) {
		ts.Fatalf("%s took %s, more than %ss", args[1], took.Round(time.Millisecond), args[0])
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: %v", args[1], err)
	case err == nil && neg:
		ts.Fatalf("%s succeeded unexpectedly", args[1])
	}
}
