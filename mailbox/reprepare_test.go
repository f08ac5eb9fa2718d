package mailbox

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agentmail/agentmail/internal/record"
	"github.com/agentmail/agentmail/internal/sqlitetest"
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
	since := sent.Created.Add(-time.Hour)
	list := `["` + sent.ID + `","` + reply.ID + `"]`
	sqlitetest.CompiledOnce(t, filepath.Join(f.st.Dir(), "index.db"), []sqlitetest.Query{
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
		{"related", relatedQuery, [][]any{{mb.pid, "BlueLake", "GreenCastle", firstIDAt(since), record.FormatTime(since), sent.Thread},
			{mb.pid, "GreenCastle", "BlueLake", firstIDAt(since), record.FormatTime(since), "other"}}},
		{"id neighbours", idNeighbours, [][]any{{mb.pid, list}, {mb.pid, `["` + sent.ID + `"]`}}},
	})
}
