package mailbox

import (
	"context"
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
	sent := f.send("GreenCastle", Draft{To: []string{"BlueLake"}, Subject: "hello", Body: "body", Importance: "urgent", Category: "HANDOFF", AckRequired: true})
	reply := f.send("BlueLake", Draft{To: []string{"GreenCastle"}, Subject: "Re: hello", Body: "ok", Thread: sent.ID})
	mb := f.as("BlueLake")
	if _, err := f.as("GreenCastle").RequestContact(context.Background(), "BlueLake", "to talk"); err != nil {
		t.Fatal(err)
	}
	later := record.FormatTime(f.now().Add(time.Hour))
	inbox, inboxArgs := inboxQuery(mb.pid, "BlueLake", InboxQuery{Limit: 20})
	filtered, filteredArgs := inboxQuery(mb.pid, "BlueLake", InboxQuery{Unread: true, Urgent: true, Category: "HANDOFF",
		Since: sent.Created.Add(-time.Hour), Before: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", Limit: 20, Bodies: true})
	since := sent.Created.Add(-time.Hour)
	list := `["` + sent.ID + `","` + reply.ID + `"]`
	sqlitetest.CompiledOnce(t, filepath.Join(f.st.Dir(), "index.db"), []sqlitetest.Query{
		{Name: "inbox", Query: inbox, Args: [][]any{inboxArgs}},
		{Name: "inbox, filtered", Query: filtered, Args: [][]any{filteredArgs}},
		{Name: "agent by name", Query: agentByName, Args: [][]any{{f.proj.Slug, f.proj.Slug, mb.pid, "bluelake"}, {f.proj.Slug, f.proj.Slug, mb.pid, "greencastle"}}},
		{Name: "message as seen", Query: messageAsSeen, Args: [][]any{{"BlueLake", sent.ID}, {"GreenCastle", reply.ID}}},
		{Name: "messages by id", Query: messagesByID, Args: [][]any{{list, "BlueLake", mb.pid}, {list, "GreenCastle", mb.pid}}},
		{Name: "outbox", Query: outboxRows, Args: [][]any{{"GreenCastle", mb.pid, "GreenCastle", "", ""}, {"BlueLake", mb.pid, "BlueLake", "", ""}}},
		{Name: "thread", Query: `SELECT ` + messageColumns + threadRows, Args: [][]any{mb.threadArgs(sent.Thread, "BlueLake"), mb.threadArgs(sent.Thread, "")}},
		{Name: "thread before", Query: threadBefore, Args: [][]any{mb.threadArgs(sent.Thread, "BlueLake", reply.ID, 1), mb.threadArgs(sent.Thread, "BlueLake", reply.ID, 5)}},
		{Name: "thread from", Query: threadFrom, Args: [][]any{mb.threadArgs(sent.Thread, "BlueLake", sent.ID, 1), mb.threadArgs(sent.Thread, "", sent.ID, 5)}},
		{Name: "id matches", Query: idMatches, Args: [][]any{{mb.pid, sent.ID[:8], sent.ID[:8] + "~", "BlueLake", 1}, {mb.pid, "0", "~", "", 5}}},
		{Name: "related", Query: relatedQuery, Args: [][]any{{mb.pid, "BlueLake", "GreenCastle", firstIDAt(since), record.FormatTime(since), sent.Thread},
			{mb.pid, "GreenCastle", "BlueLake", firstIDAt(since), record.FormatTime(since), "other"}}},
		{Name: "contact pair", Query: contactsQuery(contactPair), Args: [][]any{{mb.pid, "GreenCastle", "BlueLake"}}},
		{Name: "contacts", Query: contactsQuery("1"), Args: [][]any{{mb.pid}}},
		{Name: "check", Query: checkQuery, Args: [][]any{{mb.pid, "BlueLake"}, {mb.pid, "GreenCastle"}}},
		{Name: "pending acks", Query: pendingAckRows, Args: [][]any{{mb.pid, "BlueLake"}}},
		{Name: "awaiting acks", Query: awaitingRows, Args: [][]any{{mb.pid, "GreenCastle", "GreenCastle", later}, {mb.pid, "", "", later}}},
		{Name: "waiting agents", Query: waitingAgents, Args: [][]any{{sent.ID, "GreenCastle"}}},
		{Name: "replies", Query: replyRows, Args: [][]any{{"GreenCastle", mb.pid, sent.Thread, sent.ID, "GreenCastle"}}},
		{Name: "presence", Query: presenceRows, Args: [][]any{{f.proj.Slug, mb.pid}}},
		{Name: "last seen", Query: lastSeen, Args: [][]any{{f.proj.Slug, "bluelake"}, {f.proj.Slug, "greencastle"}}},
		{Name: "broadcast", Query: broadcastNames, Args: [][]any{{mb.pid, "bluelake"}, {mb.pid, "greencastle"}}},
		{Name: "profile", Query: profileQuery, Args: [][]any{{mb.pid, "bluelake"}, {mb.pid, "greencastle"}}},
		{Name: "agents", Query: agentRows, Args: [][]any{{f.proj.Slug, f.proj.Slug, mb.pid}}},
		{Name: "holdings", Query: holdingsQuery, Args: [][]any{{mb.pid}}},
		{Name: "id neighbours", Query: idNeighbours, Args: [][]any{{mb.pid, list}, {mb.pid, `["` + sent.ID + `"]`}}},
	})
}
